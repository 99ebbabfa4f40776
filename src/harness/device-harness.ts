/**
 * The Harness over a real device: adb (through AndroidDevice and src/android/) and the fixture
 * server. One instance per scenario and trial; the session (device-session.ts) owns the
 * device-wide state (fixture server, logcat stream, saved state) and lends it.
 *
 * Every command the harness sends goes through a RecordingDevice wrapped around the session's
 * device: the history's `action` events of device commands, and the repro script made from
 * them, are what was really sent (command-log.ts), each labelled with the harness step that sent
 * it (`act`). The session's own commands (setting up, the logcat stream, restoring) are not part
 * of a scenario and are not recorded.
 */
import type { HostClock } from '../host-clock.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { AndroidDevice, ShellResult } from '../device/android-device.js';
import { RecordingDevice } from '../device/recording-device.js';
import type { Config } from '../config/types.js';
import type { FixtureServer, JournalEntry } from '../feed/fixture-server.js';
import type { FeedItem } from '../feed/feed-items.js';
import { truncateToSecond } from '../feed/feed-items.js';
import type { HistoryEvent, OutcomeSource, RunOutcome as HistoryRunOutcome, ScheduleSpec } from '../history/events.js';
import { describeRowChange, outcomeFromRows, type WorkSpecRow } from '../android/work-spec.js';
import { inspectDedupSchema } from './dedup-schema.js';
import { POST_NOTIFICATIONS, POST_NOTIFICATIONS_RUNTIME_SINCE_API, getPackageInfo, hasNotificationPermission, setRuntimePermission } from '../android/packages.js';
import { DedupVerifyError, DeviceCommandError, ErrorCode, TimeoutError, describeError, hasErrorCode } from '../errors.js';
import { checkForceStop, checkStartActivity, forceStop, forceStopCommand, runAsKillSignal, sendBroadcast, startActivity, startActivityCommand } from '../android/activity.js';
import { deleteRows, pullDatabase, tableRowsRead, withDatabase } from '../android/app-data.js';
import { quoteSqlIdentifier } from '../android/names.js';
import { deviceTimeRead, readDeviceTimeMs, setDeviceTime, setTimeCommand, setTimeTook, type SetTimeMethod } from '../android/clock.js';
import { findJob, getJobState, jobListRead, runJob, runJobCommand, runJobOutcome, selectJob, WORKMANAGER_JOB_SERVICE, type RunJobOutcome, type RunJobRequest } from '../android/job-scheduler.js';
import type { JobEntry } from '../android/parsers/job-scheduler.js';
import { WorkState } from '../android/work-spec.js';
import { runReads, type ReadValues, type ShellRead } from '../android/shell-reads.js';
import { FeedItemIndex } from '../android/notification-mapping.js';
import { getNotificationRecord, listNotificationKeys } from '../android/notifications.js';
import { parseNotificationEnqueue } from '../android/parsers/notification-events.js';
import { workSnapshotRead, nextRunTime } from './work-state.js';
import { isAppPost, observeJournal, observeLogLines, observeRunEnd, stripQuery, type ObservationContext, type RunWindow } from './run-observation.js';
import type { DeviceClock } from './device-clock.js';
import type {
  DbSnapshot,
  FaultPlan,
  ForceRunOptions,
  Harness,
  KillMethod,
  ItemSpec,
  Journal,
  RunOutcome,
  RunResult,
  ServedItem,
  ServerEffect,
  WorkSnapshot,
} from './harness.js';
import type { LogObserver, ObservedLine } from './log-observer.js';
import type { ReproStep } from './actions.js';
import { commandEvents, isReadOnlyCommand, type ActionLabel } from './command-log.js';
import { renderFeed } from '../feed/render-feed.js';

interface JobRef {
  readonly id: number;
  readonly namespace: string | null;
}

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
}

/** WorkManager's state and the app's jobs, read together, with what had happened when they were read. */
interface WorkRead {
  readonly work: WorkSnapshot;
  readonly jobs: readonly JobEntry[];
  /** Commands that change the device sent before the read, and the journal's length then. */
  readonly changes: number;
  readonly journal: number;
}

/** Result line of androidx WorkerWrapper (androidx `work/work-runtime/.../WorkerWrapper.kt`, INFO, tag WM-WorkerWrapper). */
const RESULT_LINE = /^Worker result (SUCCESS|RETRY|FAILURE) for Work \[ id=([0-9a-fA-F-]+)/;
const RESULT_OUTCOME: Record<string, HistoryRunOutcome> = { SUCCESS: 'success', RETRY: 'retry', FAILURE: 'failure' };
/** How a run ended and where that was read (the run-finished event's `outcomeFrom`). */
interface RunEnd {
  readonly outcome: RunOutcome;
  readonly from?: OutcomeSource;
  /** What the outcome was read from, for the run's evidence. */
  readonly evidence?: string;
}

function resultEnd(line: ObservedLine): RunEnd {
  return { outcome: RESULT_OUTCOME[RESULT_LINE.exec(line.message)?.[1] ?? ''] ?? 'success', from: 'result-line' };
}
/** How long a forced run may take to show any sign of life before it counts as refused. */
const REFUSED_AFTER_MS = 5_000;
/** The first look at a started job's state comes no sooner than this after `cmd jobscheduler run` returned. */
const FIRST_JOB_POLL_MS = 50;
/** The longest wait between two looks at a started job's state. */
const MAX_JOB_POLL_MS = 400;
/** How long a killed process's death line is waited for at least before `pidof` is asked instead. */
const DEATH_LINE_MIN_WAIT_MS = 1_000;

export class DeviceHarness implements Harness {
  readonly config: Config;
  readonly apiLevel: number;
  readonly notes: string[] = [];
  private readonly history: HistoryEvent[] = [];
  private readonly reproSteps: ReproStep[] = [];
  /**
   * The session's device, recording every command the scenario sends (command-log.ts turns the
   * records into `action` events). Times: the device clock as last measured; durations: the
   * host's monotonic clock.
   */
  private readonly recorder: RecordingDevice<ActionLabel>;
  /** The step of the harness the commands being sent belong to (see `act`). */
  private readonly labels = new AsyncLocalStorage<ActionLabel>();
  private readonly index = new Map<string, { key: string; title: string }>();
  private readonly served = new Map<string, ServedItem>();
  private storedKeys: Set<string> | undefined;
  /** Journal and log positions up to which the app's activity is in the history. */
  private seen: { journal: number; log: number };
  private readonly started: number;
  private journalStart: number;
  /** The last WorkManager state and job list read, reused while nothing can have changed them. */
  private lastWorkRead: WorkRead | undefined;
  /** Records of the recorder looked at by changesSent, and how many of them changed the device. */
  private scannedRecords = 0;
  private changeCount = 0;
  /** The dedup table's keys read with the app's start before the scenario primed them (primeStoredKeys). */
  private keysWithStart: { keys: Set<string>; changes: number; journal: number } | undefined;
  /** Reads still running whose results are no longer needed (a poll overtaken by the event it looked for). */
  private inFlight: Promise<unknown>[] = [];
  /** A run's outcome was read from the workdb (no result line): said once in the notes. */
  private loggedBelowInfo = false;

  constructor(
    private readonly ctx: SessionContext,
    private readonly scenario: string,
  ) {
    this.config = ctx.config;
    this.apiLevel = ctx.apiLevel;
    this.started = ctx.clock.monotonic();
    this.journalStart = ctx.server.journal().length;
    this.seen = { journal: this.journalStart, log: ctx.observer.position };
    ctx.deviceClock.remeasure();
    this.recorder = new RecordingDevice<ActionLabel>(ctx.device, {
      clock: { now: () => this.deviceTimeEstimate(), monotonic: () => ctx.clock.monotonic() },
      context: () => this.labels.getStore(),
    });
  }

  private get device(): AndroidDevice {
    return this.recorder;
  }

  /** The history so far: every event, the device commands sent up to now included. */
  get events(): HistoryEvent[] {
    this.flushCommands();
    return this.history;
  }

  /** What repro/<scenario>.sh is made from: the feeds and faults, the action events, the runs' ends. */
  get repro(): readonly ReproStep[] {
    this.flushCommands();
    return this.reproSteps;
  }
  private get pkg(): string {
    return this.config.app.package;
  }

  step(text: string): void {
    this.throwIfAborted();
    this.ctx.progress(text);
  }

  private throwIfAborted(): void {
    if (this.ctx.signal.aborted) {
      throw new DedupVerifyError(ErrorCode.Internal, `stopped: ${describeError(this.ctx.signal.reason)}`);
    }
  }
  note(text: string): void {
    this.notes.push(text);
  }

  private record(event: HistoryEvent): void {
    this.flushCommands();
    this.append(event);
  }

  private append(event: HistoryEvent, data?: Buffer): void {
    this.history.push(event);
    // A fault is the fixture server's: its repro step is the fault step, with the plan itself.
    if (event.type === 'action' && event.action !== 'fault') this.reproSteps.push({ kind: 'action', event, ...(data !== undefined ? { data } : {}) });
    else if (event.type === 'run-finished') this.reproSteps.push({ kind: 'run-finished', event });
  }

  /** The device commands sent since the last call, as action events (command-log.ts). */
  private flushCommands(): void {
    const records = this.recorder.takeFinished();
    if (records.length === 0) return;
    for (const { event, data } of commandEvents(records)) this.append(event, data);
  }

  /**
   * Runs one step of the harness: the commands it sends that change the device are recorded
   * with `label` (their action name, run, detail), and land in the history as the step ends.
   */
  private async act<T>(label: ActionLabel, step: () => Promise<T>): Promise<T> {
    await this.flushPendingClock();
    try {
      return await this.labels.run(label, step);
    } finally {
      this.flushCommands();
    }
  }

  /**
   * Commands that change the device, one after another in one shell invocation, each with the
   * label of its own step (RecordingDevice.shellSequence): a command runs only when the one
   * before it exited 0; the results end at the first that did not. Each is recorded and lands in
   * the history as its own action event, as if sent on its own. A set of the clock that waits
   * for the next change (DeviceClock.willSet) goes first in the same invocation.
   */
  private async actInSequence(steps: readonly { readonly label: ActionLabel; readonly argv: readonly string[] }[]): Promise<ShellResult[]> {
    const to = this.ctx.deviceClock.takePendingSet();
    if (to === undefined) return this.sendSequence(steps);
    const before = this.ctx.clock.now();
    // The events of the invocation are timed at the time the set gives the clock: the events
    // timed while the set waited (a feed served, the run's start) already carry that time, and
    // the history stays in device-time order.
    const [set, ...rest] = await this.sendSequence([{ label: this.setTimeLabel(to), argv: setTimeCommand(to), startedAt: to }, ...steps.map((step) => ({ ...step, startedAt: to }))]);
    if (set !== undefined && setTimeTook(set)) {
      this.ctx.deviceClock.wasSet(to, before, this.ctx.clock.now(), 'cmd-alarm');
      return rest;
    }
    if (rest.length > 0) {
      // Exit 0 but the text of a shell without the command: what followed ran at the old time.
      throw new DeviceCommandError(`\`cmd alarm set-time\` stopped setting the clock of ${this.device.serial} part-way through the session: ${(set?.stdout.toString('utf8') ?? '').trim() || (set?.stderr ?? '').trim()}`, {
        command: setTimeCommand(to).join(' '),
        ...(set !== undefined ? { exitCode: set.exitCode, stderr: set.stderr } : {}),
      });
    }
    // The set failed and nothing after it ran: setDeviceTime's other way (or its error), then the steps.
    this.ctx.deviceClock.setWith = undefined;
    await this.setClock(to);
    return this.sendSequence(steps);
  }

  private async sendSequence(steps: readonly { readonly label: ActionLabel; readonly argv: readonly string[]; readonly startedAt?: number }[]): Promise<ShellResult[]> {
    try {
      return await this.recorder.shellSequence(steps.map((step) => ({ command: step.argv, context: step.label, ...(step.startedAt !== undefined ? { startedAt: step.startedAt } : {}) })));
    } finally {
      this.flushCommands();
    }
  }

  /**
   * The device time now, from the host clock and the offset measured at the last clock read or
   * set (for events that need a time but not a device round trip of their own).
   */
  private deviceTimeEstimate(): number {
    return this.ctx.deviceClock.now() ?? this.ctx.clock.now();
  }

  /**
   * Sends `reads` in one shell invocation (src/device/shell-batch.ts), with a `date` when the
   * device clock's offset wants measuring (device-clock.ts): one round trip for all of them.
   */
  private async read<const R extends readonly ShellRead<unknown>[]>(reads: R): Promise<ReadValues<R>> {
    const clock = this.ctx.deviceClock;
    if (!clock.wantsReading) return runReads(this.device, reads);
    const before = this.ctx.clock.now();
    const [deviceMs, ...values] = await runReads(this.device, [deviceTimeRead(), ...reads]);
    const after = this.ctx.clock.now();
    if (deviceMs !== null) clock.measured(deviceMs, before, after);
    else await this.measureClock();
    return values;
  }

  /** `date` on its own (with readDeviceTimeMs's fallback for a toybox without %N). */
  private async measureClock(): Promise<number> {
    const before = this.ctx.clock.now();
    const now = await readDeviceTimeMs(this.device);
    this.ctx.deviceClock.measured(now, before, this.ctx.clock.now());
    return now;
  }

  /** How many commands that change the device (command-log.ts) the harness has sent so far. */
  private changesSent(): number {
    const records = this.recorder.records;
    for (; this.scannedRecords < records.length; this.scannedRecords++) {
      if (!isReadOnlyCommand(records[this.scannedRecords]!)) this.changeCount++;
    }
    return this.changeCount;
  }

  /** Records a step of the harness that is not one device command (those record themselves). */
  private action(action: string, fields: { detail?: string; outcome?: HistoryRunOutcome; statuses?: readonly number[]; evidence?: readonly string[] } = {}): void {
    this.record({
      type: 'action',
      t: this.deviceTimeEstimate(),
      action,
      ...(fields.outcome !== undefined ? { outcome: fields.outcome } : {}),
      ...(fields.statuses !== undefined ? { statuses: [...fields.statuses] } : {}),
      ...(fields.detail !== undefined ? { detail: fields.detail } : {}),
      ...(fields.evidence !== undefined && fields.evidence.length > 0 ? { evidence: [...fields.evidence] } : {}),
    });
  }

  /** The harness stopped part-way: the history says so, and the check is then undecided. */
  recordAborted(detail: string): void {
    this.record({ type: 'aborted', t: this.deviceTimeEstimate(), detail });
  }

  // ---------------------------------------------------------------- feed and server

  private linkFor(label: string): string {
    return `${this.ctx.linkBase}/${this.scenario}/${encodeURIComponent(label)}`;
  }

  async serveFeed(items: readonly ItemSpec[]): Promise<readonly ServedItem[]> {
    const now = await this.deviceNow();
    const feed: FeedItem[] = [];
    const served: ServedItem[] = [];
    for (const spec of items) {
      const link = spec.link === 'missing' ? null : spec.link === 'empty' ? '' : this.linkFor(spec.label);
      const title = spec.title ?? spec.label;
      let publishedAt: number;
      if (spec.rawDate !== undefined) {
        feed.push({ link, title, published: { kind: 'raw', text: spec.rawDate } });
        publishedAt = 0;
      } else {
        const at = truncateToSecond(spec.atMs ?? now - (spec.ageMs ?? 0));
        feed.push({ link, title, published: { kind: 'at', ms: at } });
        publishedAt = at;
      }
      const item: ServedItem = { label: spec.label, item: link ?? '', title, publishedAt };
      served.push(item);
      const previous = this.served.get(spec.label);
      if (!previous || previous.title !== item.title || previous.publishedAt !== item.publishedAt || previous.item !== item.item) {
        this.record({ type: 'published', t: now, item: item.item, publishedAt, title, label: spec.label });
      }
      this.served.set(spec.label, item);
      this.index.set(`${item.item}\u0000${title}`, { key: item.item, title });
    }
    const xml = renderFeed(this.config.feed.format, feed);
    this.ctx.server.setFeed({ xml });
    this.flushCommands();
    this.reproSteps.push({ kind: 'feed', t: now, xml, note: served.map((s) => `${s.label}${s.publishedAt === 0 ? ' (bad date)' : ''}`).join(', ') });
    return served;
  }

  fault(route: 'feed' | 'receipts', plan: FaultPlan): void {
    this.ctx.server.setFault(this.routePath(route), plan);
    this.flushCommands();
    this.reproSteps.push({ kind: 'fault', t: this.deviceTimeEstimate(), route: this.routePath(route), plan: JSON.stringify(plan) });
    this.action('fault', { detail: `${this.routePath(route)}: ${JSON.stringify(plan)}` });
  }
  clearFaults(): void {
    this.ctx.server.clearFaults();
    this.flushCommands();
    this.reproSteps.push({ kind: 'fault', t: this.deviceTimeEstimate(), route: '*', plan: 'none' });
    this.action('fault', { detail: 'every route: none' });
  }
  private routePath(route: 'feed' | 'receipts'): string {
    return route === 'feed' ? this.config.feed.path : this.config.backend.path;
  }
  journal(route: 'feed' | 'receipts'): readonly Journal[] {
    const path = this.routePath(route);
    return this.ctx.server
      .journal()
      .slice(this.journalStart)
      .filter((j) => stripQuery(j.path) === path)
      .map((j) => ({ method: j.method, path: j.path, status: j.status, headers: j.headers, body: j.body, ...(j.dropped ? { dropped: true } : {}) }));
  }
  effects(): readonly ServerEffect[] {
    const first = this.ctx.server.journal()[this.journalStart]?.seq ?? Number.POSITIVE_INFINITY;
    return this.ctx.server
      .effects()
      .filter((e) => e.seq >= first)
      .map((e) => ({ key: e.key, link: e.link }));
  }

  // ---------------------------------------------------------------- clock

  /** The device time now: host clock + the offset measured with earlier reads, or one `date` before the first. */
  async deviceNow(): Promise<number> {
    const known = this.ctx.deviceClock.now();
    if (known !== undefined) return known;
    await this.read([]);
    return this.deviceTimeEstimate();
  }

  async advanceClock(ms: number): Promise<void> {
    const now = await this.deviceNow();
    await this.moveClock(now + ms);
  }

  private setTimeLabel(ms: number): ActionLabel {
    return { action: 'set-time', detail: `clock to ${new Date(ms).toISOString()}` };
  }

  /**
   * Sends the set of the clock that waits for the next change (DeviceClock.willSet) on its own.
   * While it goes out the device time is still reckoned from it, so its event carries the time it
   * sets, as the events timed while it waited do.
   */
  private async flushPendingClock(): Promise<void> {
    const clock = this.ctx.deviceClock;
    if (!clock.hasPendingSet) return;
    const to = clock.now()!;
    const before = this.ctx.clock.now();
    let method: SetTimeMethod;
    try {
      method = await this.labels.run(this.setTimeLabel(to), () => setDeviceTime(this.device, to));
    } finally {
      clock.takePendingSet();
      this.flushCommands();
    }
    clock.wasSet(to, before, this.ctx.clock.now(), method);
  }

  private async setClock(ms: number): Promise<void> {
    // A set that still waited is superseded by this one.
    this.ctx.deviceClock.takePendingSet();
    const before = this.ctx.clock.now();
    const method = await this.act(this.setTimeLabel(ms), () => setDeviceTime(this.device, ms));
    this.ctx.deviceClock.wasSet(ms, before, this.ctx.clock.now(), method);
  }

  /**
   * Moves the device clock to `ms`: once `cmd alarm set-time` is known to set this device's clock
   * (setDeviceTime's first way), the set waits for the next command that changes the device and
   * goes in the same shell invocation (actInSequence), or just before it (act); until then the
   * device time is reckoned from the set (DeviceClock.willSet). Otherwise it is sent now.
   */
  private async moveClock(ms: number): Promise<void> {
    if (this.ctx.deviceClock.setWith === 'cmd-alarm') this.ctx.deviceClock.willSet(ms, this.ctx.clock.now());
    else await this.setClock(ms);
  }

  /** `cmd jobscheduler run` for `request`, in one invocation with the set of the clock that waits for it. */
  private async runInSequence(request: RunJobRequest, label: ActionLabel): Promise<RunJobOutcome> {
    const argv = runJobCommand(request);
    const [run] = await this.actInSequence([{ label, argv }]);
    if (run === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
    return runJobOutcome(argv, run);
  }

  async openGuard(): Promise<number> {
    const guard = await this.planGuard();
    await this.moveClockFor(guard);
    return guard.now;
  }

  /**
   * What opening the guard takes, with the WorkManager state and the jobs it read: one read of
   * the workdb per run (none when the last read still holds), the next run time computed on the
   * host. `setTo`: the device time the clock must be set to first (the run's time: `now`).
   */
  private async planGuard(): Promise<{ now: number; work: WorkSnapshot; jobs: readonly JobEntry[]; setTo?: number; from?: number; due?: number }> {
    const { work, jobs } = await this.currentWork();
    const now = await this.deviceNow();
    const spec = work.primary;
    if (!spec) return { now, work, jobs };
    const due = nextRunTime(spec, now);
    if (now >= due) return { now, work, jobs };
    const target = due + 1_000;
    return { now: target, work, jobs, setTo: target, from: now, due };
  }

  private clockMovedNote(guard: { setTo?: number; from?: number; due?: number }): void {
    if (guard.setTo === undefined || guard.from === undefined || guard.due === undefined) return;
    this.note(`clock moved from ${new Date(guard.from).toISOString()} to ${new Date(guard.setTo).toISOString()} (next run due ${new Date(guard.due).toISOString()})`);
  }

  private async moveClockFor(guard: { setTo?: number; from?: number; due?: number }): Promise<void> {
    if (guard.setTo === undefined) return;
    await this.moveClock(guard.setTo);
    this.clockMovedNote(guard);
  }

  // ---------------------------------------------------------------- the forced run (docs/design.md §3)

  async forceRun(options: ForceRunOptions = {}): Promise<RunResult> {
    this.throwIfAborted();
    await this.collectUnforced();
    const probe = options.probe === true;
    const run = probe ? 0 : this.ctx.nextRun();
    const evidence: string[] = [];
    const plan = async (): Promise<Awaited<ReturnType<DeviceHarness['planGuard']>>> =>
      probe ? await this.currentWork().then(async (r) => ({ ...r, now: await this.deviceNow() })) : await this.planGuard();
    let guard = await plan();
    if (this.awaitsRescheduling(guard)) {
      await this.waitForRescheduledJob();
      guard = await plan();
    }
    const { now: deviceTime, work, jobs } = guard;
    const spec = work.primary;
    if (!probe) this.record({ type: 'run-started', t: deviceTime, run, deviceTime });
    const journalFrom = this.ctx.server.journal().length;
    const logFrom = this.ctx.observer.position;
    const hostAtStart = this.ctx.clock.now();

    const finish = async (end: RunOutcome | RunEnd, extra: string[] = []): Promise<RunResult> => {
      const { outcome, from, evidence: read } = typeof end === 'string' ? { outcome: end, from: undefined, evidence: undefined } : end;
      evidence.push(...extra, ...(read !== undefined ? [read] : []));
      return this.collect({ run, probe, outcome, ...(from !== undefined ? { outcomeFrom: from } : {}), deviceTime, hostAtStart, journalFrom, logFrom, evidence });
    };

    if (!spec || spec.systemId === undefined) {
      await this.moveClockFor(guard);
      return finish('refused', [`no scheduled job for the unique work "${this.config.work.uniqueName}" (WorkSpec ${spec ? 'without SystemIdInfo' : 'missing'})`]);
    }
    const jobId = spec.systemId;
    // The job list read with the WorkSpec, before the clock moved: on API 23+ WorkManager does not
    // reschedule on TIME_SET (androidx work-runtime RescheduleReceiver.java: onReceive only hands
    // its PendingResult to WorkManagerImpl.setReschedulePendingResult), so the job is the same
    // after the set. A job not listed then (WorkManager re-registers a periodic job as a run
    // ends) is looked up again.
    const query = { pkg: this.pkg, jobId, serviceClass: WORKMANAGER_JOB_SERVICE };
    const job = selectJob(jobs, query) ?? (await findJob(this.device, query));
    if (!job) {
      await this.moveClockFor(guard);
      return finish('refused', [`job ${spec.systemId} of ${this.pkg} is not registered with JobScheduler (dumpsys jobscheduler ${this.pkg})`]);
    }
    const kill = options.killAt;
    if (kill) this.ctx.server.setFault(this.routePath(kill.route), { hold: true, passFirst: kill.nth - 1 });
    const runLabel: ActionLabel = { action: 'force-run', ...(probe ? { probe: true, detail: 'probe: forced without moving the clock; no run is due' } : { run }) };
    const request: RunJobRequest = { pkg: this.pkg, id: jobId, namespace: job.namespace, force: true };
    const sentAt = this.ctx.clock.monotonic();
    // The clock goes to the run's time with the run command itself when it can (one invocation).
    if (guard.setTo !== undefined) await this.moveClock(guard.setTo);
    const started = this.ctx.deviceClock.hasPendingSet ? await this.runInSequence(request, runLabel) : await this.act(runLabel, () => runJob(this.device, request));
    this.clockMovedNote(guard);
    const roundTripMs = this.ctx.clock.monotonic() - sentAt;
    evidence.push(`$ ${started.command.join(' ')} → ${(started.stdout + started.stderr).trim()} (exit ${started.exitCode})`);
    if (started.result.kind !== 'running') {
      if (kill) this.ctx.server.release();
      return finish('refused');
    }

    if (kill) {
      try {
        const held = await this.ctx.server.waitForHeld(1, this.config.timeouts.runMs);
        evidence.push(`held ${held[0]?.method ?? ''} ${held[0]?.path ?? ''} (request ${held[0]?.seq ?? '?'}) at the kill point`);
      } catch (e) {
        this.ctx.server.release();
        if (hasErrorCode(e, ErrorCode.Timeout)) return finish(await this.settle(run, logFrom, journalFrom, spec, { id: spec.systemId, namespace: job.namespace }, roundTripMs));
        throw e;
      }
      const path = this.routePath(kill.route);
      const argv = await this.killProcess(kill.kill, {
        action: 'kill',
        run,
        heldRequest: { path, nth: kill.nth },
        detail: `run ${run} killed while request ${kill.nth} to ${path} was held`,
      });
      evidence.push(`$ ${argv.join(' ')}`);
      this.ctx.server.release();
      return finish('killed');
    }
    return finish(await this.settle(run, logFrom, journalFrom, spec, { id: spec.systemId, namespace: job.namespace }, roundTripMs));
  }

  /**
   * Waits for the end of a started run: WorkManager's result line for the WorkSpec or, when
   * WorkManager logs nothing at INFO, its row in the workdb once JobScheduler has let the job go
   * (awaitEnd). A run that shows no sign of life (no result line, no fetch, job not active) is
   * refused: WorkerWrapper delayed it ("before schedule"), which it logs only at DEBUG.
   */
  private async settle(run: number, logFrom: number, journalFrom: number, before: WorkSpecRow, job: JobRef, roundTripMs: number): Promise<RunEnd> {
    const isResult = (l: ObservedLine): boolean => l.tag === 'WM-WorkerWrapper' && RESULT_LINE.exec(l.message)?.[2] === before.id;
    const resultLine = this.ctx.observer.waitFor(logFrom, isResult, this.config.timeouts.runMs, `WM-WorkerWrapper result for run ${run}`);
    resultLine.catch(() => undefined);
    const deadline = this.ctx.clock.monotonic() + REFUSED_AFTER_MS;
    // JobScheduler's state is looked at only while the run shows no sign of life (no fetch, no
    // result line), first after the time `cmd jobscheduler run` itself took to answer (a run
    // that started shows itself within about one round trip on any link), then backing off.
    const firstPollMs = Math.min(Math.max(FIRST_JOB_POLL_MS, roundTripMs), MAX_JOB_POLL_MS);
    let delayMs = firstPollMs;
    const ended = (): Promise<RunEnd> => this.awaitEnd({ what: `run ${run}`, logFrom, isResult, resultLine, job, before, workerRan: true, firstPollMs });
    for (;;) {
      const done = await Promise.race([resultLine, delay(delayMs).then(() => null)]);
      if (done) return resultEnd(done);
      if (this.ctx.server.journal().length > journalFrom) return ended();
      // `cmd jobscheduler run` leaves the job pending or active when it returns (JobSchedulerService
      // executeRunCommand: queueReadyJobsForExecutionLocked + maybeRunPendingJobsLocked), so a job
      // that is neither, with no fetch and no result line, has ended: WorkerWrapper delayed it.
      // A result line that comes while JobScheduler is being asked ends the wait at once; the
      // question's answer is awaited with the run's reads (collect), so its record is complete.
      const poll = this.jobBusy(job);
      this.inFlight.push(poll.catch(() => undefined));
      const busy = await Promise.race([poll, resultLine.then(() => 'result' as const)]);
      if (busy === 'result') return resultEnd(await resultLine);
      const fetched = this.ctx.server.journal().length > journalFrom;
      if (!fetched && (busy === false || (busy === undefined && this.ctx.clock.monotonic() > deadline))) {
        await this.ctx.observer.sync(this.config.timeouts.commandMs);
        const late = this.ctx.observer.since(logFrom).find(isResult);
        if (late) return resultEnd(late);
        if (this.ctx.server.journal().length === journalFrom) return { outcome: 'refused' };
      }
      if (fetched) return ended();
      delayMs = Math.min(delayMs * 2, MAX_JOB_POLL_MS);
    }
  }

  /**
   * The end of a run whose worker is known to be running (it fetched) or to have run: the
   * result line, or, when none has come by the time JobScheduler no longer has the job active
   * or pending, the WorkSpec's row in the workdb (outcomeFromRows: how WorkerWrapper's
   * success, retry and failure change it). WorkerWrapper writes the row in its launch()
   * transaction before the future that ends the job completes (androidx WorkerWrapper.kt
   * @07c97258 launch(); Processor.onExecuted → SystemJobService.onExecuted → jobFinished), so a
   * job JobScheduler has let go has its outcome in the workdb. JobScheduler is asked with a
   * backoff, racing the result line; a row still RUNNING is asked again. The deadline is the
   * config's runMs, as for the result line.
   */
  private async awaitEnd(a: {
    what: string;
    logFrom: number;
    isResult: (l: ObservedLine) => boolean;
    resultLine: Promise<ObservedLine>;
    job: JobRef | undefined;
    before: WorkSpecRow | undefined;
    workerRan: boolean;
    firstPollMs: number;
  }): Promise<RunEnd> {
    const runMs = this.config.timeouts.runMs;
    const deadline = this.ctx.clock.monotonic() + runMs;
    const line = a.resultLine.then(
      (l) => ({ kind: 'line' as const, l }),
      () => ({ kind: 'timeout' as const }),
    );
    let delayMs = a.firstPollMs;
    let why = 'JobScheduler kept the job active';
    for (;;) {
      const waited = await Promise.race([line, delay(delayMs).then(() => ({ kind: 'poll' as const }))]);
      if (waited.kind === 'line') return resultEnd(waited.l);
      if (waited.kind === 'poll' && a.job !== undefined) {
        const poll = this.jobBusy(a.job);
        this.inFlight.push(poll.catch(() => undefined));
        const busy = await Promise.race([poll, line]);
        if (typeof busy === 'object' && busy.kind === 'line') return resultEnd(busy.l);
        if (busy !== true) {
          await this.ctx.observer.sync(this.config.timeouts.commandMs);
          const late = this.ctx.observer.since(a.logFrom).find(a.isResult);
          if (late) return resultEnd(late);
          const { work } = await this.readWorkState();
          const id = a.before?.id ?? work.primary?.id;
          const after = [...work.namedSpecs, ...work.workerSpecs].find((spec) => spec.id === id);
          const row = outcomeFromRows(a.before, after, a.workerRan);
          const read = `no WM-WorkerWrapper result line; outcome read from the workdb after JobScheduler let job ${a.job.id} go: ${describeRowChange(a.before, after)}`;
          switch (row.kind) {
            case 'success':
            case 'failure':
            case 'finished':
            case 'retry':
              this.noteLogLevel(a.what, row.kind);
              return { outcome: row.kind, from: 'workdb', evidence: read };
            case 'running':
              why = 'its WorkSpec was still RUNNING';
              break;
            case 'not-run':
              why = 'its WorkSpec did not change';
              break;
            case 'undecided':
              why = row.why;
              break;
            default: {
              const unreachable: never = row;
              throw new Error(`unknown row outcome ${String(unreachable)}`);
            }
          }
        }
      }
      if (waited.kind === 'timeout' || this.ctx.clock.monotonic() > deadline) {
        throw new TimeoutError(`${a.what}: no WM-WorkerWrapper result line within ${runMs} ms, and the workdb did not say how it ended (${why}). Raise timeouts.runMs in the config if the app's worker takes longer.`, runMs);
      }
      delayMs = Math.min(delayMs * 2, MAX_JOB_POLL_MS);
    }
  }

  /** Once per harness: runs end without result lines here, so their outcomes come from the workdb. */
  private noteLogLevel(what: string, outcome: RunOutcome): void {
    if (this.loggedBelowInfo) return;
    this.loggedBelowInfo = true;
    this.note(
      `${what} ended ${outcome} with no "Worker result" line: WorkManager logs nothing at INFO in this app (its Configuration sets a minimum logging level above Log.INFO), so run outcomes come from the workdb (state, run_attempt_count, last_enqueue_time, period_count); success and failure of periodic work read as "finished"`,
    );
  }

  /**
   * Kills the app process while the worker is held, and checks it is really gone (a kill that
   * did not take would let the worker go on unobserved), with the log stream synced up to then.
   */
  private async killProcess(method: KillMethod, label: ActionLabel): Promise<string[]> {
    const pids = async (): Promise<string> => (await this.device.shell(['pidof', this.pkg])).stdout.toString('utf8').trim();
    let argv: string[];
    switch (method) {
      case 'force-stop':
        argv = ['am', 'force-stop', this.pkg];
        await this.act(label, () => forceStop(this.device, this.pkg));
        break;
      case 'signal': {
        const pid = await pids();
        if (!/^\d+$/.test(pid)) throw new DedupVerifyError(ErrorCode.DeviceCommand, `no single process of ${this.pkg} to kill (pidof printed "${pid}")`);
        argv = ['run-as', this.pkg, 'kill', runAsKillSignal(this.apiLevel), pid];
        const from = this.ctx.observer.position;
        const sentAt = this.ctx.clock.monotonic();
        await this.act(label, () => this.device.shellText(argv));
        // A process that dies without ActivityManager killing it is reported by
        // ActivityManagerService.appDiedLocked: reportUidInfoMessageLocked(TAG, "Process " +
        // app.processName + " (pid " + pid + ") has died: " + …), which Slog.i's it to the system
        // log (frameworks/base services/core/java/com/android/server/am/ActivityManagerService.java).
        // That line in the session's stream says the process is gone, and comes after every line
        // the process logged: no `pidof` and no sync marker are then needed.
        const waitMs = Math.min(this.config.timeouts.commandMs, Math.max(DEATH_LINE_MIN_WAIT_MS, 4 * (this.ctx.clock.monotonic() - sentAt)));
        const died = (l: ObservedLine): boolean => l.tag === 'ActivityManager' && l.message.startsWith(`Process ${this.pkg} (pid ${pid}) has died`);
        if (await this.ctx.observer.waitFor(from, died, waitMs, `the death of ${this.pkg} (pid ${pid})`).then(() => true, () => false)) return argv;
        break;
      }
      default: {
        const unreachable: never = method;
        throw new Error(`unknown kill method ${String(unreachable)}`);
      }
    }
    // Whether the process is gone (asked of the shell when the stream has not said so), and every
    // line it logged before it died (the stream synced), asked at once: the two do not depend on
    // each other.
    const [left] = await Promise.all([pids(), this.ctx.observer.sync(this.config.timeouts.commandMs)]);
    if (left !== '') {
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `\`${argv.join(' ')}\` left ${this.pkg} running (pid ${left}); the kill point cannot be observed on this device.`,
      );
    }
    return argv;
  }

  /** Whether JobScheduler still has the job pending or running; undefined when it cannot say. */
  private async jobBusy(job: JobRef): Promise<boolean | undefined> {
    const state = await getJobState(this.device, { pkg: this.pkg, id: job.id, namespace: job.namespace });
    if (state.kind !== 'known') return state.reason === 'no-job' ? false : undefined;
    return state.states.includes('active') || state.states.includes('pending');
  }

  /** Turns what the stream, the server and the database saw during a run into history events. */
  /**
   * Runs the device made without being forced: WorkManager runs overdue work as soon as the
   * app process (re)schedules it, e.g. after a relaunch that follows a killed run. Everything
   * the app did since the last collected run (feed fetches, posts, result lines) becomes a run
   * of its own in the history, with the outcome its result line names.
   */
  async collectUnforced(): Promise<void> {
    const isWorkerLine = (l: ObservedLine): boolean =>
      (l.tag === 'WM-WorkerWrapper' && RESULT_LINE.test(l.message)) ||
      (l.tag === 'notification_enqueue' && isAppPost(parseNotificationEnqueue(l.message), this.pkg));
    const fetchedSince = (): JournalEntry[] => this.ctx.server.journal().slice(this.seen.journal).filter((j) => stripQuery(j.path) === this.config.feed.path);
    const quiet = fetchedSince().length === 0 && !this.ctx.observer.since(this.seen.log).some(isWorkerLine);
    if (quiet) return;
    // Let it finish: its result line ends it, or (WorkManager logging below INFO) its WorkSpec's
    // row once JobScheduler has let the job go. The row read before is the "before" only when it
    // was read before this run fetched anything.
    const isResult = (l: ObservedLine): boolean => l.tag === 'WM-WorkerWrapper' && RESULT_LINE.test(l.message);
    const resultLine = this.ctx.observer.waitFor(this.seen.log, isResult, this.config.timeouts.runMs, 'the result line of a run the device started by itself');
    resultLine.catch(() => undefined);
    const last = this.lastWorkRead;
    const known = last?.work.primary;
    const before = last !== undefined && last.journal <= this.seen.journal ? known : undefined;
    const end: RunEnd = await this.awaitEnd({
      what: 'a run the device started by itself',
      logFrom: this.seen.log,
      isResult,
      resultLine,
      job: known?.systemId === undefined ? undefined : { id: known.systemId, namespace: selectJob(last?.jobs ?? [], { pkg: this.pkg, jobId: known.systemId, serviceClass: WORKMANAGER_JOB_SERVICE })?.namespace ?? null },
      before,
      workerRan: fetchedSince().length > 0,
      firstPollMs: FIRST_JOB_POLL_MS,
    }).catch((): RunEnd => ({ outcome: 'killed' }));
    await this.ctx.observer.sync(this.config.timeouts.commandMs);
    const first = fetchedSince()[0];
    const hostNow = this.ctx.clock.now();
    const deviceNow = await this.deviceNow();
    const startedAt = first ? deviceNow - (hostNow - first.t) : deviceNow;
    const run = this.ctx.nextRun();
    this.record({ type: 'run-started', t: startedAt, run, deviceTime: startedAt, evidence: ['not forced: the device ran the work by itself'] });
    const outcome = end.outcome;
    this.note(`run ${run} was not forced: the device ran the work by itself (outcome ${outcome})`);
    await this.collect({
      run,
      probe: false,
      outcome,
      ...(end.from !== undefined ? { outcomeFrom: end.from } : {}),
      deviceTime: startedAt,
      hostAtStart: first?.t ?? hostNow,
      journalFrom: this.seen.journal,
      logFrom: this.seen.log,
      evidence: ['not forced: the device ran the work by itself', ...(end.evidence !== undefined ? [end.evidence] : [])],
    });
  }

  private async collect(r: {
    run: number;
    probe: boolean;
    outcome: RunOutcome;
    /** Where the outcome was read (absent: the harness decided it: killed, refused). */
    outcomeFrom?: OutcomeSource;
    deviceTime: number;
    /** Host time when the run started: maps the server's host-clock times onto device time. */
    hostAtStart: number;
    journalFrom: number;
    logFrom: number;
    evidence: string[];
  }): Promise<RunResult> {
    const window: RunWindow = { run: r.run, probe: r.probe, deviceTime: r.deviceTime, hostAtStart: r.hostAtStart };
    const observed: ObservationContext = {
      pkg: this.pkg,
      match: this.config.notifications.match,
      index: new FeedItemIndex(this.index.values()),
      feedPath: this.config.feed.path,
      backendPath: this.config.backend.path,
      mapByContent: (index, id, tag) => this.mapByContent(index, id, tag),
    };
    const log = await observeLogLines(this.ctx.observer.since(r.logFrom), window, observed);
    r.evidence.push(...log.evidence);
    for (const event of log.events) this.record(event);
    const { posted, updated } = log;
    const requests = observeJournal(this.ctx.server.journal().slice(r.journalFrom), this.ctx.server.effects(), window, observed);
    for (const event of requests.events) this.record(event);
    const { fetchStatuses } = requests;
    const stored = await this.newStoredKeys();
    await Promise.all(this.inFlight.splice(0));
    // A run that fetched nothing is explained by what the app logged about its fetch.
    const fetchError = fetchStatuses.length === 0 ? log.fetchError : undefined;
    for (const event of observeRunEnd(stored, this.deviceTimeEstimate(), window, r.outcome, r.evidence, fetchError, r.outcomeFrom)) this.record(event);
    if (r.probe) {
      this.action('probe-run', { outcome: r.outcome, statuses: fetchStatuses, detail: 'a run forced without moving the clock, kept out of the run numbering', evidence: r.evidence });
    }
    this.seen = { journal: this.ctx.server.journal().length, log: this.ctx.observer.position };
    return { run: r.run, outcome: r.outcome, deviceTime: r.deviceTime, posted, updated, stored, fetchStatuses, evidence: r.evidence };
  }

  /** A post whose id/tag maps to no served item: ask NotificationManager for its content. */
  private async mapByContent(index: FeedItemIndex, id: number, tag: string | null): Promise<string> {
    const prefix = `0|${this.pkg}|${id}|${tag ?? 'null'}|`;
    const key = (await listNotificationKeys(this.device)).find((k) => k.startsWith(prefix));
    const record = key === undefined ? null : await getNotificationRecord(this.device, key);
    if (record) {
      const mapped = index.map({ id, tag }, 'title', { title: record.title, text: record.text });
      if (mapped.kind === 'mapped') return mapped.item;
    }
    return `?id=${id}${tag === null ? '' : `&tag=${tag}`}`;
  }

  private async newStoredKeys(): Promise<string[]> {
    // WorkManager's state goes out with the keys (one invocation): the next forced run plans
    // from it when nothing has changed the device since (currentWork), instead of reading it
    // again in a round trip of its own.
    const changes = this.changesSent();
    const journal = this.ctx.server.journal().length;
    const [keys, work, jobs] = await this.read([this.keysRead(), workSnapshotRead(this.device.serial, this.config), jobListRead(this.pkg)]);
    this.lastWorkRead = { work, jobs, changes, journal };
    const before = this.storedKeys ?? new Set<string>();
    const fresh = [...keys].filter((k) => !before.has(k));
    this.storedKeys = keys;
    return fresh;
  }

  private async readKeys(): Promise<Set<string>> {
    const [keys] = await this.read([this.keysRead()]);
    return keys;
  }

  /** The dedup table's keys as one read (an app without its database yet has none). */
  private keysRead(): ShellRead<Set<string>> {
    const { file, table, keyColumn } = this.config.database;
    const rows = tableRowsRead(this.device.serial, { pkg: this.pkg, db: file, table });
    return {
      commands: rows.commands,
      parse: async (results) => {
        try {
          return new Set((await rows.parse(results)).map((row) => row[keyColumn]).filter((k): k is string => typeof k === 'string'));
        } catch (e) {
          if (hasErrorCode(e, ErrorCode.DeviceCommand) && /has no database/.test(e.message)) return new Set<string>();
          throw e;
        }
      },
    };
  }

  /**
   * Called by the runner before the scenario: what is already stored is not "stored" by a run.
   * The keys read with the app's start (waitForJob) serve while nothing can have changed them.
   */
  async primeStoredKeys(): Promise<void> {
    const last = this.keysWithStart;
    this.keysWithStart = undefined;
    if (last !== undefined && last.changes === this.changesSent() && last.journal === this.ctx.server.journal().length) {
      this.storedKeys = last.keys;
      return;
    }
    this.storedKeys = await this.readKeys();
  }

  // ---------------------------------------------------------------- app and data

  async forgetRows(items: 'all' | readonly string[]): Promise<void> {
    const { file, table, keyColumn } = this.config.database;
    const keys = items === 'all' ? [...this.served.values()].map((s) => s.item) : [...items];
    const marks = keys.map(() => '?').join(', ');
    const result = await deleteRows(this.device, {
      pkg: this.pkg,
      db: file,
      table,
      where: `${quoteSqlIdentifier(keyColumn)} IN (${marks})`,
      params: keys,
      backupDir: `${this.ctx.backupDir}/forget-${randomUUID()}`,
      now: () => this.ctx.clock.now(),
    });
    this.note(`deleted ${result.deletedRows} row(s) from ${table}; ${result.remainingRows} remain; backup in ${result.backup.dir}`);
    this.action('forget-rows', { detail: `deleted ${result.deletedRows} row(s) of ${table} (${keys.length} key(s)); ${result.remainingRows} remain` });
    this.record({ type: 'forgotten', t: await this.deviceNow(), items: keys });
    this.storedKeys = await this.readKeys();
    await this.startApp();
  }

  async clearAppData(): Promise<void> {
    // pm clear resets the app's runtime permissions (PermissionManagerServiceImpl.resetRuntimePermissionsInternal
    // when user data is cleared, frameworks/base services/core/java/com/android/server/pm/
    // permission/PermissionManagerServiceImpl.java): on API 33+ POST_NOTIFICATIONS goes, and every later notify()
    // would be dropped before notification_enqueue. A fresh install as the user sets it up has it
    // again, so it is granted back when the app had it (the restore puts every grant back).
    const info = this.apiLevel >= POST_NOTIFICATIONS_RUNTIME_SINCE_API ? await getPackageInfo(this.device, this.pkg) : null;
    const hadNotifications = info !== null && hasNotificationPermission(info, this.apiLevel);
    const out = await this.act({ action: 'clear-app-data', detail: (r) => r.output }, () => this.device.shellText(['pm', 'clear', this.pkg]));
    this.note(`$ pm clear ${this.pkg} → ${out.trim()}`);
    if (hadNotifications) {
      const after = await getPackageInfo(this.device, this.pkg);
      if (after === null || !hasNotificationPermission(after, this.apiLevel)) {
        await this.act({ action: 'grant', detail: 'pm clear revoked POST_NOTIFICATIONS, which the app had: granted back' }, () =>
          setRuntimePermission(this.device, this.pkg, POST_NOTIFICATIONS, true),
        );
      }
    }
    this.record({ type: 'forgotten', t: await this.deviceNow(), items: 'all' });
    this.storedKeys = new Set();
  }

  private get launchComponent(): string {
    const activity = this.config.app.launchActivity ?? '.MainActivity';
    return activity.includes('/') ? activity : `${this.pkg}/${activity}`;
  }

  async startApp(): Promise<void> {
    const component = this.launchComponent;
    await this.act({ action: 'start-app' }, () => startActivity(this.device, component));
    await this.waitForJob();
  }

  async restartApp(): Promise<void> {
    const component = this.launchComponent;
    const stopArgv = forceStopCommand(this.pkg);
    const startArgv = startActivityCommand(component);
    // `am force-stop` returns once the package is stopped: ActivityManagerShellCommand.runForceStop
    // calls IActivityManager.forceStopPackage, which runs forceStopPackageLocked before it returns
    // (frameworks/base services/core/java/com/android/server/am/ActivityManagerShellCommand.java,
    // ActivityManagerService.java), so `am start` right after it in the same shell starts a new
    // process, as when sent one after the other.
    const [stopped, started] = await this.actInSequence([
      { label: { action: 'force-stop' }, argv: stopArgv },
      { label: { action: 'start-app' }, argv: startArgv },
    ]);
    if (stopped !== undefined) checkForceStop(stopArgv, stopped);
    if (started === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${startArgv.join(' ')}\` did not run after \`${stopArgv.join(' ')}\``);
    checkStartActivity(this.device.serial, component, startArgv, started);
    await this.waitForJob();
  }

  async forceStop(): Promise<void> {
    await this.act({ action: 'force-stop' }, () => forceStop(this.device, this.pkg));
  }

  async startProcessWithoutActivity(): Promise<void> {
    // WorkManager's diagnostics receiver is exported (permission DUMP, which the shell holds):
    // the broadcast starts the process without any activity (androidx work/work-runtime/src/main/
    // AndroidManifest.xml: DiagnosticsReceiver, exported, permission android.permission.DUMP).
    await this.act({ action: 'start-process', detail: 'start the process without an activity' }, () =>
      sendBroadcast(this.device, {
        action: 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS',
        pkg: this.pkg,
        includeStoppedPackages: true,
      }),
    );
    await this.waitForJob();
  }

  /**
   * Whether the unique work is enqueued but its job is not (yet) there: the WorkSpec has no
   * SystemIdInfo, or JobScheduler does not list its id. After a run WorkManager re-registers the
   * work asynchronously: Schedulers.registerRescheduling posts to WorkManager's serial task
   * executor, after the result line, SystemJobScheduler.cancel (the job and its SystemIdInfo row
   * go) and Schedulers.schedule (a new id from IdGenerator, then JobScheduler.schedule) (androidx
   * work/work-runtime/src/main/java/androidx/work/impl/Schedulers.java registerRescheduling,
   * WorkManagerImpl.java's constructor passing taskExecutor.getSerialTaskExecutor()).
   */
  private awaitsRescheduling(read: { work: WorkSnapshot; jobs: readonly JobEntry[] }): boolean {
    const spec = read.work.primary;
    if (spec === undefined || spec.state !== WorkState.ENQUEUED) return false;
    return spec.systemId === undefined || selectJob(read.jobs, { pkg: this.pkg, jobId: spec.systemId, serviceClass: WORKMANAGER_JOB_SERVICE }) === null;
  }

  /**
   * Waits, up to REFUSED_AFTER_MS, for WorkManager's new job id (see awaitsRescheduling); a run
   * whose job is still missing then is refused by forceRun.
   */
  private async waitForRescheduledJob(): Promise<void> {
    const deadline = this.ctx.clock.monotonic() + REFUSED_AFTER_MS;
    let delayMs = FIRST_JOB_POLL_MS;
    for (;;) {
      const state = await this.readWorkState().catch(() => undefined);
      if (state !== undefined && !this.awaitsRescheduling(state)) return;
      if (this.ctx.clock.monotonic() > deadline) return;
      await delay(delayMs);
      delayMs = Math.min(delayMs * 2, MAX_JOB_POLL_MS);
    }
  }

  /**
   * The app schedules its work when its process starts; wait until JobScheduler has the job.
   * Neither WorkManager nor JobScheduler logs a scheduling above DEBUG, so this polls the workdb
   * and the job list (one shell invocation each time), backing off.
   */
  private async waitForJob(): Promise<void> {
    const deadline = this.ctx.clock.monotonic() + this.config.timeouts.runMs;
    let delayMs = 25;
    for (;;) {
      const state = await this.readWorkState(this.storedKeys === undefined).catch(() => undefined);
      const id = state?.work.primary?.systemId;
      if (id !== undefined && state !== undefined && selectJob(state.jobs, { pkg: this.pkg, jobId: id, serviceClass: WORKMANAGER_JOB_SERVICE })) return;
      if (this.ctx.clock.monotonic() > deadline) {
        throw new TimeoutError(
          `${this.pkg} did not schedule its periodic work "${this.config.work.uniqueName}" within ${this.config.timeouts.runMs} ms of starting (no job in dumpsys jobscheduler). Check work.uniqueName in the config.`,
          this.config.timeouts.runMs,
        );
      }
      await delay(delayMs);
      delayMs = Math.min(delayMs * 2, 500);
    }
  }

  /** WorkManager's state and the app's jobs, read together (one shell invocation; not recorded as history events). */
  private async readWorkState(withKeys = false): Promise<WorkRead> {
    const changes = this.changesSent();
    const journal = this.ctx.server.journal().length;
    if (withKeys) {
      // Before the scenario primes its keys: the dedup table goes out with the same reads.
      const [work, jobs, keys] = await this.read([workSnapshotRead(this.device.serial, this.config), jobListRead(this.pkg), this.keysRead()]);
      this.keysWithStart = { keys, changes, journal };
      this.lastWorkRead = { work, jobs, changes, journal };
    } else {
      const [work, jobs] = await this.read([workSnapshotRead(this.device.serial, this.config), jobListRead(this.pkg)]);
      this.lastWorkRead = { work, jobs, changes, journal };
    }
    return this.lastWorkRead;
  }

  /**
   * The last read of WorkManager's state while it still holds: no command that changes the
   * device has been sent since, and the app fetched nothing (no run happened); else a new read.
   */
  private async currentWork(): Promise<WorkRead> {
    const last = this.lastWorkRead;
    if (last !== undefined && last.changes === this.changesSent() && last.journal === this.ctx.server.journal().length) return last;
    return this.readWorkState();
  }

  async readWork(label?: string): Promise<WorkSnapshot> {
    const { work } = await this.readWorkState();
    const t = this.deviceTimeEstimate();
    const byId = new Map<string, ScheduleSpec>();
    const named = new Set(work.namedSpecs.map((s) => s.id));
    for (const s of [...work.namedSpecs, ...work.workerSpecs]) {
      byId.set(s.id, {
        id: s.id,
        named: named.has(s.id),
        workerClass: s.workerClassName,
        state: s.state,
        intervalMs: s.intervalDuration,
        flexMs: s.flexDuration,
        lastEnqueueTime: s.lastEnqueueTime,
        runAttemptCount: s.runAttemptCount,
        systemId: s.systemId ?? null,
      });
    }
    this.record({
      type: 'schedule',
      t,
      ...(label !== undefined ? { label } : {}),
      uniqueName: this.config.work.uniqueName,
      ...(this.config.work.workerClass !== undefined ? { workerClass: this.config.work.workerClass } : {}),
      specs: [...byId.values()],
      primary: work.primary?.id ?? null,
    });
    return work;
  }

  async readDatabase(): Promise<DbSnapshot> {
    const { file, table, keyColumn } = this.config.database;
    const pulled = await pullDatabase(this.device, { pkg: this.pkg, db: file, hostDir: `${this.ctx.backupDir}/read-${randomUUID()}` });
    const keys = withDatabase(pulled.dbPath, true, (db) =>
      (db.prepare(`SELECT ${quoteSqlIdentifier(keyColumn)} AS k FROM ${quoteSqlIdentifier(table)}`).all() as { k: unknown }[]).map((r) =>
        typeof r.k === 'string' ? r.k : null,
      ),
    );
    this.record({ type: 'rows', t: this.deviceTimeEstimate(), table, keyColumn, keys: [...keys] });
    return { copyPath: pulled.dbPath, keys };
  }

  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void {
    const { table, keyColumn } = this.config.database;
    const schema = inspectDedupSchema(db.copyPath, table, keyColumn, sampleKey);
    this.record({ type: 'schema', t: this.deviceTimeEstimate(), table, keyColumn, ...schema });
    this.note(
      `indexes on ${table}: ${schema.indexes.map((ix) => `${ix.name}${ix.unique ? ' (unique)' : ''}`).join(', ') || 'none'}; ` +
        `${keyColumn} is ${schema.columns.find((c) => c.name === keyColumn)?.notnull === true ? 'NOT NULL' : 'nullable'}`,
    );
  }

  get elapsedMs(): number {
    return this.ctx.clock.monotonic() - this.started;
  }
}

/** Backoff between polls of a device state that has no event (job registration). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
