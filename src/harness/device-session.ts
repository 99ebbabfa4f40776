/**
 * One device, leased for a run: saves its state, starts the fixture server, the reverse rule
 * and the logcat stream, runs scenarios one after another with a fresh Harness each, and puts
 * everything back at the end (also on SIGINT/SIGTERM through `close`).
 */
import { randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AndroidDevice, ShellResult } from '../device/android-device.js';
import type { Config } from '../config/types.js';
import { DedupVerifyError, ErrorCode, describeError, isDedupVerifyError } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../feed/fixture-server.js';
import { checkSegment, segmentOptions } from '../checker/compose.js';
import type { ConfigEvent, HistoryEvent } from '../history/events.js';
import type { ScenarioReport } from '../report/types.js';
import { emptyCounts } from '../checker/types.js';
import { runAsCheckRead, throwUnlessRunAs } from '../android/app-data.js';
import { packageInfoRead, packageInstalledRead } from '../android/packages.js';
import { CLOCK_MOVE_ON_A_PHONE, emulatorPropertiesRead, sdkLevelRead } from '../android/properties.js';
import { autoTimeCommand, setAutoTime } from '../android/clock.js';
import { runReads, settledRead, textRead, type ShellRead } from '../android/shell-reads.js';
import { clockSnapshotRead } from '../android/clock.js';
import { DeviceHarness, type SessionContext } from './device-harness.js';
import { LogObserver } from './log-observer.js';
import { DeviceClock } from './device-clock.js';
import { restoreDevice, saveDeviceState, type RestoreReport, type SavedDeviceState } from './device-state.js';
import type { Scenario } from './types.js';
import type { ReproStep } from './actions.js';
import { systemClock, type HostClock } from '../host-clock.js';
import { DeviceSteps, type FirstReadResult } from './device-steps.js';
import { AppControl } from './app-control.js';
import { attachFeed } from './feed-attach.js';

export interface SessionOptions {
  readonly device: AndroidDevice;
  readonly config: Config;
  readonly adb: { readonly host: string; readonly port: number };
  readonly progress: (text: string) => void;
  readonly journalPath?: string;
  /**
   * Where each scenario's evidence goes (`run --out DIR/evidence/<serial>/`): the logcat lines
   * the session observed during it (`<scenario>.logcat.txt`, as `logcat -v epoch` printed them)
   * and, at its end, `dumpsys jobscheduler PKG` and `dumpsys notification --noredact`.
   */
  readonly evidenceDir?: string;
  /** Aborted on SIGINT/SIGTERM: the running scenario stops at its next step. */
  readonly signal?: AbortSignal;
  /** The device was created for this run (--virtual): a state file left for its serial is stale. */
  readonly freshDevice?: boolean;
  /** The host's clocks (default: the system's). */
  readonly clock?: HostClock;
}

export interface ScenarioOutcome {
  readonly report: ScenarioReport;
  /** The segment's config line: the settings its checker ran with (history.jsonl writes it first). */
  readonly segment: ConfigEvent;
  readonly events: readonly HistoryEvent[];
  /** Set when the harness itself failed (device gone, adb hang, timeout): retryable, not a finding. */
  readonly infrastructureFailure?: string;
  /** What the harness did, for repro/<scenario>.sh. */
  readonly repro: readonly ReproStep[];
}

/** The evidence files of a scenario's dumps. */
function dumpNames(base: string): [string, string] {
  return [`${base}.dumpsys-jobscheduler.txt`, `${base}.dumpsys-notification.txt`];
}

/** What went with the backup's first invocation: the logcat stream's start marker and `settings put global auto_time 0`, with their results. */
interface SentWithBackup {
  readonly autoTime?: ShellResult | undefined;
  readonly marker: { arrived(timeoutMs: number): Promise<void>; readonly sent?: ShellResult };
}

/** The device's clock as a `date` printed it during a command sent at host time `before` and answered at `after`. */
interface DeviceTimeReading {
  readonly deviceMs: number;
  readonly before: number;
  readonly after: number;
}

export class DeviceSession {
  private runCounter = 0;
  private closed = false;
  /** feed.attach's commands at the session's start: the first events of every scenario's history and repro. */
  private sessionSteps: { events: readonly HistoryEvent[]; repro: readonly ReproStep[] } | undefined;
  /** The device clock as host clock + offset, for every harness of the session. */
  private readonly deviceClock: DeviceClock;
  /**
   * The evidence files of the last scenario whose dumps are still to be read: they go first in
   * the next scenario's first invocation (DeviceSteps.readFirst, before its changes: the device
   * is then as that scenario left it), or on their own at the close.
   */
  private pendingDumps: { readonly base: string } | undefined;
  /** Evidence files being written. */
  private readonly evidenceWrites: Promise<void>[] = [];

  private constructor(
    readonly device: AndroidDevice,
    readonly config: Config,
    readonly apiLevel: number,
    private readonly server: FixtureServer,
    private readonly observer: LogObserver,
    private readonly state: SavedDeviceState,
    private readonly progress: (text: string) => void,
    private readonly signal: AbortSignal,
    private readonly evidenceDir: string | undefined,
    private readonly clock: HostClock,
  ) {
    this.deviceClock = new DeviceClock(clock);
  }

  /** Checks the app, saves the device state, and sets up the server, reverse rule and stream. */
  static async open(options: SessionOptions): Promise<DeviceSession> {
    const { device, config } = options;
    const pkg = config.app.package;
    options.progress(`${device.serial}: checking ${pkg}`);
    const clock = options.clock ?? systemClock;
    // The logcat stream starts while the app is checked and the state saved: it reads only. Its
    // start marker goes with the backup's first invocation (checkAndSave).
    const observing = LogObserver.open(device, clock);
    observing.catch(() => undefined);
    let state: SavedDeviceState;
    let apiLevel: number;
    let deviceTime: DeviceTimeReading | undefined;
    let sentWithBackup: SentWithBackup;
    try {
      ({ state, apiLevel, deviceTime, sentWithBackup } = await DeviceSession.checkAndSave(options, clock, observing));
    } catch (e) {
      await observing.then((o) => o.stop()).catch(() => undefined);
      throw e;
    }
    let server: FixtureServer | undefined;
    let observer: LogObserver | undefined;
    let session: DeviceSession;
    try {
      // auto_time (sent with the backup; again here when it did not go through), the reverse rule
      // and the logcat stream's start do not depend on each other.
      const { autoTime, marker } = sentWithBackup;
      const commandMs = config.timeouts.commandMs;
      const started = await Promise.allSettled([
        autoTime?.exitCode === 0 ? Promise.resolve() : setAutoTime(device, '0'),
        startFixtureServer({
          port: 0,
          feedPath: config.feed.path,
          receiptsPath: config.backend.path,
          idempotencyHeader: config.backend.idempotencyHeader,
          ...(options.journalPath !== undefined ? { journalPath: options.journalPath } : {}),
        }).then(async (s) => {
          server = s;
          await device.reverse(config.feed.devicePort, s.port);
        }),
        observing.then(async (o) => {
          observer = o;
          if (marker.sent?.exitCode === 0) {
            await o.startAt(marker, commandMs);
          } else {
            const again = o.marker();
            await runReads(device, [again.read]);
            await o.startAt(again, commandMs);
          }
        }),
      ]);
      for (const r of started) if (r.status === 'rejected') throw r.reason;
      if (server === undefined || observer === undefined) throw new DedupVerifyError(ErrorCode.Internal, 'the session was not set up');
      session = new DeviceSession(device, config, apiLevel, server, observer, state, options.progress, options.signal ?? new AbortController().signal, options.evidenceDir, clock);
      // The `date` read with the checks measures the device clock: the first scenario's first
      // device time costs no `date` of its own.
      if (deviceTime !== undefined) session.deviceClock.measured(deviceTime.deviceMs, deviceTime.before, deviceTime.after);
    } catch (e) {
      await observer?.stop().catch(() => undefined);
      await server?.close().catch(() => undefined);
      await restoreDevice(device, state);
      throw e;
    }
    if (config.feed.attach !== undefined) {
      try {
        await session.attachFeed(config.feed.attach);
      } catch (e) {
        await session.close().catch(() => undefined);
        throw e;
      }
    }
    return session;
  }

  /**
   * The app checked and the device state saved. The checks' reads and the state's (the clock,
   * auto_time, the package's dumpsys) go in one shell invocation, the reverse rules (a host
   * service) at once; the checks' failures are reported in this order (a package that is not
   * installed fails run-as too), before anything is saved or changed.
   */
  private static async checkAndSave(
    options: SessionOptions,
    clock: HostClock,
    observing: Promise<LogObserver>,
  ): Promise<{ state: SavedDeviceState; apiLevel: number; deviceTime: DeviceTimeReading | undefined; sentWithBackup: SentWithBackup }> {
    const { device, config } = options;
    const pkg = config.app.package;
    const before = clock.now();
    let after = before;
    const [[sdk, installed, runAs, qemu, reading, info], reverses] = await Promise.all([
      runReads(
        device,
        [
          settledRead(sdkLevelRead(device.serial)),
          settledRead(packageInstalledRead(pkg)),
          settledRead(runAsCheckRead(pkg)),
          settledRead(emulatorPropertiesRead()),
          settledRead(clockSnapshotRead()),
          settledRead(packageInfoRead(pkg)),
        ],
        { timeoutMs: config.timeouts.commandMs },
      ).finally(() => {
        after = clock.now();
      }),
      device.listReverses().then(
        (rules) => ({ rules }),
        (e: unknown) => ({ error: e }),
      ),
    ]);
    if (sdk.status === 'rejected') throw sdk.reason;
    if (installed.status === 'rejected') throw installed.reason;
    if (!installed.value) {
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `${pkg} is not installed on ${device.serial}. Install a debuggable build (e.g. \`./gradlew installDebug\`) or fix app.package in the config.`,
      );
    }
    if (runAs.status === 'rejected') throw runAs.reason;
    throwUnlessRunAs(runAs.value, device.serial, pkg);
    // Said once per device, before anything moves its clock (auto_time goes to 0 below).
    if (qemu.status === 'fulfilled' && !qemu.value.emulator) {
      options.progress(`${device.serial}: warning: not an emulator (ro.boot.qemu and ro.kernel.qemu are not 1): ${CLOCK_MOVE_ON_A_PHONE}`);
    }
    options.progress(`${device.serial}: saving the device state`);
    // The stream's start marker and auto_time off go in the backup's first invocation, after the
    // state file says what to put back (the saved auto_time among it).
    const observer = await observing;
    const marker = observer.marker();
    const autoTimeOff = autoTimeCommand('0');
    const sentWithBackup: { autoTime?: ShellResult | undefined; marker: SentWithBackup['marker'] } = { marker };
    const state = await saveDeviceState(device, {
      alsoSend: {
        commands: [...marker.read.commands, autoTimeOff],
        took: ([sent, autoTime]) => {
          sentWithBackup.marker = { ...marker, ...(sent !== undefined ? { sent } : {}) };
          sentWithBackup.autoTime = autoTime;
        },
      },
      adb: options.adb,
      pkg,
      ...(config.database !== undefined && config.database.kind !== 'watermark' ? { databaseFile: config.database.file } : {}),
      devicePort: config.feed.devicePort,
      ...(options.freshDevice === true ? { freshDevice: true } : {}),
      // What the state keeps, read with the checks (read again by the save when a read failed).
      ...(reading.status === 'fulfilled' && info.status === 'fulfilled' && 'rules' in reverses ? { read: { reading: reading.value, info: info.value, reverses: reverses.rules } } : {}),
    });
    const deviceMs = reading.status === 'fulfilled' ? reading.value.deviceTimeMs : null;
    return { state, apiLevel: sdk.value, deviceTime: deviceMs !== null ? { deviceMs, before, after } : undefined, sentWithBackup };
  }

  /**
   * feed.attach once for the session, after the state was saved (close() puts the app's data
   * back): an app whose feeds are subscriptions is pointed at the fixture feed before the first
   * scenario. Its commands open every scenario's history and repro script.
   */
  private async attachFeed(attach: NonNullable<Config['feed']['attach']>): Promise<void> {
    this.progress(`${this.device.serial}: feed.attach: pointing ${this.config.app.package} at the fixture feed`);
    const steps = new DeviceSteps(this.context('feed.attach', this.clock.monotonic()));
    const app = new AppControl(steps);
    await attachFeed(steps, attach, 'session', { startFirst: async () => void (await app.start()) });
    // The app's periodic work is due at once after a fresh start, so it may have run while the app
    // was being pointed at the feed, before its subscription was stored. Stopped, and every line
    // it logged seen, such a run ends before the first scenario begins: it is not taken for a run
    // of that scenario that fetched nothing.
    await app.forceStop();
    await this.observer.sync(this.config.timeouts.commandMs);
    steps.flushCommands();
    this.sessionSteps = { events: [...steps.history], repro: [...steps.reproSteps] };
  }

  /** What the session lends a harness (a scenario's, or the session's own steps as `label`). */
  private context(label: string, started: number): SessionContext {
    return {
      device: this.device,
      config: this.config,
      apiLevel: this.apiLevel,
      server: this.server,
      observer: this.observer,
      linkBase: `https://feed.dedup-verify.test/${randomUUID().slice(0, 8)}`,
      backupDir: join(this.state.backupDir, 'work'),
      nextRun: () => ++this.runCounter,
      deviceClock: this.deviceClock,
      signal: this.signal,
      clock: this.clock,
      progress: (text) => this.progress(`${this.device.serial} ${label} [${((this.clock.monotonic() - started) / 1000).toFixed(1)}s] ${text}`),
      ...(this.sessionSteps !== undefined ? { sessionSteps: this.sessionSteps } : {}),
    };
  }

  /**
   * Runs one scenario; never throws for a finding or an infrastructure failure of the scenario.
   * `trial`: its number under --repeat (labels and reports it as `name#trial`); omit otherwise.
   */
  async runScenario(scenario: Scenario, trial?: number): Promise<ScenarioOutcome> {
    const started = this.clock.monotonic();
    const label = trial !== undefined ? `${scenario.name}#${trial}` : scenario.name;
    const context = this.context(label, started);
    const h = new DeviceHarness(context, label);
    const dumps = this.takeDumps();
    if (dumps !== undefined) h.readFirst(dumps.read, dumps.took);
    const logFrom = this.observer.position;
    const allowedDuplicates = scenario.allowedDuplicates ?? this.config.allowedDuplicates;
    let error: string | undefined;
    try {
      const notApplicable = scenario.notApplicable?.(this.config);
      if (notApplicable !== undefined) return this.skipped(scenario, notApplicable, started);
      context.progress('setting up: restart the app, open the schedule guard');
      if (scenario.needs.minApi !== undefined && this.apiLevel < scenario.needs.minApi) {
        return this.skipped(scenario, `needs API ${scenario.needs.minApi}, device has ${this.apiLevel}`, started);
      }
      // An empty feed first: a run the device makes by itself during the setup finds nothing.
      // Such a run (overdue work runs as the app starts) is collected before the guard is
      // opened, so that the guard plans from the reads made after it.
      await h.serveFeed([]);
      await h.restartApp();
      await h.primeStoredKeys();
      await h.collectUnforced();
      await h.openGuard();
      await scenario.run(h);
      await h.collectUnforced();
      await h.endScenario();
    } catch (e) {
      error = describeError(e);
      h.recordAborted(error);
      if (!isDedupVerifyError(e) && e instanceof Error && e.stack) h.note(e.stack);
    } finally {
      this.server.clearFaults();
      this.server.release();
      // A scenario that stopped or was skipped before its first command still reads the dumps of the one before.
      await h.endScenario().catch((e: unknown) => h.note(`after the scenario: ${describeError(e)}`));
    }
    if (this.evidenceDir !== undefined) {
      try {
        // After a harness failure the device may be gone or hung: the logcat lines only.
        h.note(`evidence: ${(await this.writeEvidence(label, logFrom, error === undefined)).join(', ')}`);
      } catch (e) {
        h.note(`evidence could not be written: ${describeError(e)}`);
      }
    }
    const segment = this.segmentFor(scenario, allowedDuplicates);
    // The verdict is the history's: the same checker `dedup-verify check` runs on history.jsonl.
    const check = checkSegment(h.events, segmentOptions(segment));
    const errorText = error ?? check.error;
    const report: ScenarioReport = {
      name: scenario.name,
      device: this.device.serial,
      verdict: check.verdict,
      durationMs: Math.round(this.clock.monotonic() - started),
      counts: check.counts,
      anomalies: check.anomalies,
      ...(trial !== undefined ? { repeat: trial } : {}),
      ...(errorText !== undefined ? { error: errorText } : {}),
      ...(h.notes.length > 0 ? { evidence: [...h.notes] } : {}),
    };
    return { report, segment, events: h.events, repro: h.repro, ...(error !== undefined ? { infrastructureFailure: error } : {}) };
  }

  /** The config line of a scenario's history segment. */
  private segmentFor(scenario: Scenario, allowedDuplicates: number): ConfigEvent {
    return {
      type: 'config',
      windowMs: this.config.windowMs,
      allowedDuplicates,
      ...(scenario.checksOrder === true ? {} : { checkOrder: false }),
      ...(scenario.properties !== undefined && scenario.properties.length > 0 ? { properties: [...scenario.properties] } : {}),
      ...(scenario.properties?.includes('idempotency') === true ? { idempotencyHeader: this.config.backend.idempotencyHeader } : {}),
      feed: { devicePort: this.config.feed.devicePort, path: this.config.feed.path },
      device: this.device.serial,
      scenario: scenario.name,
    };
  }

  private skipped(scenario: Scenario, why: string, started: number): ScenarioOutcome {
    return {
      report: {
        name: scenario.name,
        device: this.device.serial,
        verdict: 'skipped',
        durationMs: Math.round(this.clock.monotonic() - started),
        counts: emptyCounts(),
        anomalies: [],
        error: why,
      },
      segment: { type: 'config', windowMs: this.config.windowMs, allowedDuplicates: 0, device: this.device.serial, scenario: scenario.name },
      events: [],
      repro: [],
    };
  }

  /** Writes the scenario's logcat lines and the end-of-scenario dumpsys outputs; returns the file names. */
  private async writeEvidence(label: string, logFrom: number, withDumpsys: boolean): Promise<string[]> {
    const dir = this.evidenceDir!;
    const base = label.replace(/[^A-Za-z0-9._-]/g, '-');
    await mkdir(dir, { recursive: true });
    // O_NOFOLLOW: an evidence file is never written through a symbolic link planted at its name.
    const flag = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW;
    const names = [`${base}.logcat.txt`];
    await writeFile(join(dir, names[0]!), this.observer.since(logFrom).map((l) => `${l.raw}\n`).join(''), { flag });
    if (!withDumpsys) return names;
    // Both dumps in one read that goes first in the next scenario's first invocation (takeDumps).
    this.pendingDumps = { base };
    return [...names, ...dumpNames(base)];
  }

  /**
   * The read of the last scenario's dumps (`dumpsys jobscheduler PKG`, `dumpsys notification
   * --noredact`, in one invocation), and what writes them to its evidence files; a dump that could
   * not be read leaves a file that says why.
   */
  private takeDumps(): { read: ShellRead<[string, string]>; took: (result: FirstReadResult<[string, string]>) => void } | undefined {
    const pending = this.pendingDumps;
    this.pendingDumps = undefined;
    if (pending === undefined || this.evidenceDir === undefined) return undefined;
    const dir = this.evidenceDir;
    const jobs = textRead(['dumpsys', 'jobscheduler', this.config.app.package]);
    const notifications = textRead(['dumpsys', 'notification', '--noredact']);
    const read: ShellRead<[string, string]> = {
      commands: [...jobs.commands, ...notifications.commands],
      parse: async ([a, b]) => [await jobs.parse(a === undefined ? [] : [a]), await notifications.parse(b === undefined ? [] : [b])],
    };
    const took = (result: FirstReadResult<[string, string]>): void => {
      const contents = 'value' in result ? result.value : ([0, 1].map(() => `not read: ${describeError(result.error)}\n`) as [string, string]);
      const flag = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW;
      const [jobsName, notificationsName] = dumpNames(pending.base);
      this.evidenceWrites.push(
        Promise.all([writeFile(join(dir, jobsName), contents[0], { flag }), writeFile(join(dir, notificationsName), contents[1], { flag })]).then(
          () => undefined,
          () => undefined,
        ),
      );
    };
    return { read, took };
  }

  /** True while the device still answers a shell command (after an infrastructure failure). */
  async isAlive(): Promise<boolean> {
    try {
      return (await this.device.shell(['true'], { timeoutMs: 5_000 })).exitCode === 0;
    } catch {
      return false;
    }
  }

  /** Puts the device back as it was found. Idempotent. */
  async close(): Promise<RestoreReport> {
    if (this.closed) return { problems: [] };
    this.closed = true;
    this.progress(`${this.device.serial}: restoring the device`);
    const dumps = this.takeDumps();
    if (dumps !== undefined) {
      await runReads(this.device, [dumps.read], { timeoutMs: this.config.timeouts.commandMs }).then(
        ([value]) => dumps.took({ value }),
        (error: unknown) => dumps.took({ error }),
      );
    }
    await Promise.all(this.evidenceWrites.splice(0));
    await this.observer.stop().catch(() => undefined);
    this.server.release();
    await this.server.close().catch(() => undefined);
    // restoreDevice also starts the app's process again when it was running before, so that
    // WorkManager reschedules its work from the restored database.
    return restoreDevice(this.device, this.state);
  }
}
