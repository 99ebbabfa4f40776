/**
 * What DeviceSession.open sets up for its harnesses (auto_time off, the fixture server, the
 * `adb reverse` rule, the logcat stream), set up the same way for a benchmark that makes a
 * fresh DeviceHarness per measured run. The benchmark's device is its own virtual device, so
 * nothing of the device state is saved or restored.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AndroidDevice } from '../../src/device/android-device.js';
import type { Config } from '../../src/config/types.js';
import { setAutoTime } from '../../src/android/clock.js';
import { getSdkLevel } from '../../src/android/properties.js';
import { startFixtureServer } from '../../src/feed/fixture-server.js';
import { LogObserver } from '../../src/harness/log-observer.js';
import { DeviceHarness, type SessionContext } from '../../src/harness/device-harness.js';
import { systemClock } from '../../src/host-clock.js';
import { DeviceClock } from '../../src/harness/device-clock.js';

export interface BenchHarnessContext {
  readonly context: SessionContext;
  /** A new harness (its own history, item index and log/journal positions) on the shared context. */
  harness(name: string): DeviceHarness;
  close(): Promise<void>;
}

export async function openHarnessContext(device: AndroidDevice, config: Config): Promise<BenchHarnessContext> {
  const apiLevel = await getSdkLevel(device);
  await setAutoTime(device, '0');
  const backupDir = await mkdtemp(join(tmpdir(), 'dv-bench-backup-'));
  const server = await startFixtureServer({
    port: 0,
    feedPath: config.feed.path,
    receiptsPath: config.backend.path,
    idempotencyHeader: config.backend.idempotencyHeader,
  });
  await device.reverse(config.feed.devicePort, server.port);
  const observer = await LogObserver.start(device, config.timeouts.commandMs);
  let run = 0;
  const context: SessionContext = {
    device,
    config,
    apiLevel,
    server,
    observer,
    linkBase: `https://feed.dedup-verify.test/bench-${randomUUID().slice(0, 8)}`,
    clock: systemClock,
    backupDir,
    nextRun: () => ++run,
    deviceClock: new DeviceClock(systemClock),
    progress: () => undefined,
    signal: new AbortController().signal,
  };
  return {
    context,
    harness: (name) => new DeviceHarness(context, name),
    close: async () => {
      await observer.stop().catch(() => undefined);
      await device.removeReverse(config.feed.devicePort).catch(() => undefined);
      await server.close().catch(() => undefined);
      await rm(backupDir, { recursive: true, force: true });
    },
  };
}
