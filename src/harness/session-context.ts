/**
 * What a device session (device-session.ts) lends each DeviceHarness: the device, the config, the
 * fixture server, the logcat stream, the clocks, and what the session did before the scenarios.
 */
import type { HostClock } from '../host-clock.js';
import type { AndroidDevice } from '../device/android-device.js';
import type { Config } from '../config/types.js';
import type { FixtureServer } from '../feed/fixture-server.js';
import type { HistoryEvent } from '../history/events.js';
import type { DeviceClock } from './device-clock.js';
import type { LogObserver } from './log-observer.js';
import type { ReproStep } from './actions.js';

/** What the session lends each harness. */
export interface SessionContext {
  readonly device: AndroidDevice;
  readonly config: Config;
  readonly apiLevel: number;
  readonly server: FixtureServer;
  readonly observer: LogObserver;
  /** Base of every link served in this session: unique, so earlier rows never interfere. */
  readonly linkBase: string;
  /** Directory for backups made during the session (kept until the session restores them). */
  readonly backupDir: string;
  /** Next run number (runs are numbered across the session, so histories concatenate). */
  nextRun(): number;
  progress(text: string): void;
  /** Aborted on SIGINT/SIGTERM: the scenario stops at its next step. */
  readonly signal: AbortSignal;
  /** The host's clocks: the harness reads no other. */
  readonly clock: HostClock;
  /** The device's wall clock as host clock + offset, shared by the session's harnesses (device-clock.ts). */
  readonly deviceClock: DeviceClock;
  /** What the session did before the scenarios (feed.attach): the first events of each history and repro. */
  readonly sessionSteps?: { readonly events: readonly HistoryEvent[]; readonly repro: readonly ReproStep[] };
}
