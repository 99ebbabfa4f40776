/**
 * `am instrument -w` of the virtual device (src/virtual-device/system/commands/am.ts): a status
 * line the instrumentation sends after the host closed the adb stream is lost, as a write to
 * System.out (a PrintStream) is, and leaves no unhandled error behind (one used to end the
 * virtual device's process when an Appium session ended).
 */
import { expect } from 'chai';
import type { AndroidSystem } from '../../../../src/virtual-device/system/android-system.js';
import { amHandler } from '../../../../src/virtual-device/system/commands/am.js';
import { runShellCommand } from '../../../../src/virtual-device/system/commands/shell-command.js';
import type { Bundle } from '../../../../src/virtual-device/system/instrumentation.js';
import type { CommandContext } from '../../../../src/virtual-device/types.js';

interface Watcher {
  status(code: number, b: Bundle): void;
  finished(code: number, b: Bundle): void;
}

describe('am instrument -w: status lines after the host hung up', () => {
  it('drops a status line whose write fails with EPIPE, with no unhandled rejection, and returns when the stream is closed', async () => {
    let watcher: Watcher | undefined;
    const system = {
      instrumentation: {
        start: (_component: unknown, _extras: unknown, w: Watcher | undefined) => {
          watcher = w;
          return Promise.resolve(true);
        },
      },
    } as unknown as AndroidSystem;
    const closed = new AbortController();
    const writes: string[] = [];
    const epipe = (text: string | Uint8Array): Promise<void> => {
      writes.push(String(text));
      return Promise.reject(Object.assign(new Error('Broken pipe'), { code: 'EPIPE', errno: 32 }));
    };
    const ctx = { stdout: { write: epipe }, stderr: { write: epipe }, signal: closed.signal } as unknown as CommandContext;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const running = runShellCommand(ctx, ['instrument', '-w', 'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner'], amHandler(system, ctx));
      await new Promise((resolve) => setImmediate(resolve));
      expect(watcher, 'the instrumentation was started with a watcher').to.not.equal(undefined);
      closed.abort();
      expect(await running).to.equal(0);
      // The UiAutomator2 server's stop: a status, then the end, after the stream was closed.
      watcher!.status(0, new Map([['class', 'io.appium.uiautomator2.server.test.AppiumUiAutomator2Server']]));
      watcher!.finished(-1, new Map([['stream', '\n\nOK (1 test)\n\n']]));
      // An unhandled rejection is reported once the microtasks of the turn have run.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes.join('')).to.include('INSTRUMENTATION_STATUS_CODE: 0');
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
