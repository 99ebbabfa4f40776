/**
 * restoreDevice (src/harness/device-state.ts) stops the app, puts the clock and auto_time back and
 * reads what the grants and the data directory need in one shell invocation, each command run
 * whatever the status of the one before; a part whose command failed is done again on its own,
 * the way it was done before, so its problem (or its other way) is the same.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShellResult } from '../../../src/device/android-device.js';
import { restoreDevice, type SavedDeviceState } from '../../../src/harness/device-state.js';
import { FakeDevice, type FakeReply } from '../android/fake-device.js';

const PKG = 'com.example.feednotifier';

/** A FakeDevice that also records which commands went out together in one invocation. */
class BatchRecordingDevice extends FakeDevice {
  readonly batches: string[][] = [];
  override async shellBatch(commands: readonly (string | readonly string[])[]): Promise<ShellResult[]> {
    this.batches.push(commands.map((c) => (typeof c === 'string' ? c : c.join(' '))));
    return super.shellBatch(commands);
  }
}

function state(backupDir: string): SavedDeviceState {
  return {
    version: 1,
    serial: 'fake-1',
    adb: { host: '127.0.0.1', port: 5037 },
    pkg: PKG,
    savedAt: '2026-12-06T00:00:00.000Z',
    clock: { deviceTimeMs: Date.UTC(2026, 11, 6), hostTimeMs: Date.now(), autoTime: '1' },
    reverses: [],
    devicePort: 8080,
    backupDir,
    appWasStopped: true,
    runtimeGrants: ['android.permission.POST_NOTIFICATIONS'],
    appTree: { pkg: PKG, dir: join(backupDir, 'app'), entries: [] },
  };
}

describe('restoreDevice: the restore in one invocation', () => {
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-restore-'));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const reply =
    (setTime: FakeReply) =>
    (argv: readonly string[]): FakeReply => {
      const line = argv.join(' ');
      if (line.startsWith('cmd alarm set-time')) return setTime;
      if (line === 'id -u') return { stdout: '0\n' };
      return {};
    };

  it('stops the app, sets the clock and auto_time, reads the grants and the files in one invocation, and nothing again', async () => {
    const device = new BatchRecordingDevice(reply({}));
    const report = await restoreDevice(device, state(work), { XDG_STATE_HOME: work });
    expect(report.problems).to.deep.equal([]);
    expect(device.batches).to.have.length.at.least(1);
    const first = device.batches[0]!;
    expect(first.map((c) => c.split(' ').slice(0, 3).join(' '))).to.deep.equal([`am force-stop ${PKG}`, 'cmd alarm set-time', 'settings put global', `dumpsys package ${PKG}`, `run-as ${PKG} ls`]);
    expect(first[2]).to.equal('settings put global auto_time 1');
    const lines = device.calls.map((c) => c.argv.join(' '));
    expect(lines.filter((l) => l.startsWith('am force-stop'))).to.have.length(1);
    expect(lines.filter((l) => l.startsWith('cmd alarm set-time'))).to.have.length(1);
    // The grant read in the invocation showed POST_NOTIFICATIONS not granted: it is granted back.
    expect(lines).to.include(`pm grant ${PKG} android.permission.POST_NOTIFICATIONS`);
  });

  it('a clock that `cmd alarm set-time` did not set is set again on its own, the other way (root date), then auto_time', async () => {
    const device = new BatchRecordingDevice(reply({ stdout: 'Unknown command: set-time' }));
    const report = await restoreDevice(device, state(work), { XDG_STATE_HOME: work });
    expect(report.problems).to.deep.equal([]);
    const lines = device.calls.map((c) => c.argv.join(' '));
    const after = lines.slice(device.batches[0]!.length);
    expect(after.filter((l) => l.startsWith('cmd alarm set-time'))).to.have.length(1);
    expect(after.some((l) => /^date -u \d{12}\.\d{2}$/.test(l))).to.equal(true);
    expect(after).to.include('settings put global auto_time 1');
  });

  it('a stop that failed is said as a problem, and the files are listed again with their own stop', async () => {
    const device = new BatchRecordingDevice((argv) => (argv[0] === 'am' && argv[1] === 'force-stop' ? { exitCode: 255, stderr: 'Error: no service' } : {}));
    const report = await restoreDevice(device, state(work), { XDG_STATE_HOME: work });
    expect(report.problems.some((p) => p.startsWith('stop the app:'))).to.equal(true);
    expect(report.problems.some((p) => p.startsWith("restore the app's data directory:"))).to.equal(true);
    expect(device.batches.slice(1).some((b) => b[0] === `am force-stop ${PKG}` && b[1] === `run-as ${PKG} ls -lRA .`)).to.equal(true);
  });
});
