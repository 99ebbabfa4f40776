/**
 * The Harness over a real device: adb (through AndroidDevice and src/android/) and the fixture
 * server. One instance per scenario and trial; the session (device-session.ts) owns the
 * device-wide state (fixture server, logcat stream, saved state) and lends it.
 *
 * DeviceHarness keeps the run loop (the forced run, the runs the device made by itself, what a
 * run is turned into) and delegates what it knows of the app to four seams (src/harness/seams/):
 * how the app is scheduled (Scheduling), how its posts map to items (PostMapping), how it
 * remembers what it notified (DedupStore), how it gets its feed (FeedSource). The app's process
 * and data are driven by AppControl; every command goes through DeviceSteps, which records it
 * (the history's `action` events and the repro script are what was really sent).
 */
import type { Config } from '../config/types.js';
import type { JournalEntry } from '../feed/fixture-server.js';
import type { HistoryEvent, OutcomeSource } from '../history/events.js';
import { ErrorCode, hasErrorCode } from '../errors.js';
import { parseNotificationEnqueue } from '../android/parsers/notification-events.js';
import { isAppPost, observeJournal, observeLogLines, observeRunEnd, stripQuery, type ObservationContext, type RunWindow } from './run-observation.js';
import type { DbSnapshot, FaultPlan, ForceRunOptions, Harness, ItemSpec, Journal, RunOutcome, ReadWorkOptions, RunResult, ServedItem, ServerEffect, WorkSnapshot } from './harness.js';
import type { ObservedLine } from './log-observer.js';
import type { ReproStep } from './actions.js';
import type { ActionLabel } from './command-log.js';
import { DeviceSteps, type FirstReadResult, type SequenceStep } from './device-steps.js';
import type { ShellRead } from '../android/shell-reads.js';
import type { ShellResult } from '../device/android-device.js';
import { AppControl } from './app-control.js';
import { feedSourceFor, type FeedSource } from './seams/feed-source.js';
import { postMappingFor, type PostMapping } from './seams/post-mapping.js';
import { dedupStoreFor, type DedupStore } from './seams/dedup-store.js';
import { schedulingFor, type RunEnd, type Scheduling } from './seams/scheduling.js';

import type { SessionContext } from './session-context.js';

export type { SessionContext };

export class DeviceHarness implements Harness {
  readonly config: Config;
  readonly apiLevel: number;
  private readonly steps: DeviceSteps;
  private readonly app: AppControl;
  private readonly feed: FeedSource;
  private readonly mapping: PostMapping;
  private readonly store: DedupStore;
  private readonly scheduling: Scheduling;
  /** Journal and log positions up to which the app's activity is in the history. */
  private seen: { journal: number; log: number };
  private readonly started: number;
  /** A `pm clear` since the app last started: the feed is attached again at its next start (FeedSource). */
  private clearedSinceStart = false;

  constructor(
    private readonly ctx: SessionContext,
    scenario: string,
  ) {
    this.config = ctx.config;
    this.apiLevel = ctx.apiLevel;
    this.started = ctx.clock.monotonic();
    const journalStart = ctx.server.journal().length;
    this.seen = { journal: journalStart, log: ctx.observer.position };
    this.steps = new DeviceSteps(ctx);
    if (ctx.sessionSteps !== undefined) {
      this.steps.history.push(...ctx.sessionSteps.events);
      this.steps.reproSteps.push(...ctx.sessionSteps.repro);
    }
    this.app = new AppControl(this.steps);
    this.feed = feedSourceFor(ctx.config, this.steps, scenario, journalStart);
    this.store = dedupStoreFor(ctx.config, this.steps);
    this.mapping = postMappingFor(ctx.config, this.steps, () => this.store.joins());
    this.scheduling = schedulingFor(ctx.config, this.steps, this.store);
  }

  get notes(): string[] {
    return this.steps.notes;
  }

  /** The history so far: every event, the device commands sent up to now included. */
  get events(): HistoryEvent[] {
    this.steps.flushCommands();
    return this.steps.history;
  }

  /** What repro/<scenario>.sh is made from: the feeds and faults, the action events, the runs' ends. */
  get repro(): readonly ReproStep[] {
    this.steps.flushCommands();
    return this.steps.reproSteps;
  }

  private get pkg(): string {
    return this.config.app.package;
  }

  step(text: string): void {
    this.steps.throwIfAborted();
    this.ctx.progress(text);
  }

  note(text: string): void {
    this.steps.note(text);
  }

  private record(event: HistoryEvent): void {
    this.steps.record(event);
  }

  /** The harness stopped part-way: the history says so, and the check is then undecided. */
  recordAborted(detail: string): void {
    this.record({ type: 'aborted', t: this.steps.deviceTimeEstimate(), detail });
  }

  // ---------------------------------------------------------------- feed and server (FeedSource)

  serveFeed(items: readonly ItemSpec[]): Promise<readonly ServedItem[]> {
    return this.feed.serveFeed(items);
  }
  fault(route: 'feed' | 'receipts', plan: FaultPlan): void {
    this.feed.fault(route, plan);
  }
  clearFaults(): void {
    this.feed.clearFaults();
  }
  journal(route: 'feed' | 'receipts'): readonly Journal[] {
    return this.feed.journal(route);
  }
  effects(): readonly ServerEffect[] {
    return this.feed.effects();
  }

  // ---------------------------------------------------------------- clock and schedule (Scheduling)

  deviceNow(): Promise<number> {
    return this.steps.deviceNow();
  }

  async advanceClock(ms: number): Promise<void> {
    const now = await this.steps.deviceNow();
    await this.steps.moveClock(now + ms);
  }

  openGuard(): Promise<number> {
    return this.scheduling.openGuard();
  }

  readWork(label?: string, options?: ReadWorkOptions): Promise<WorkSnapshot> {
    return this.scheduling.readWork(label, options);
  }

  // ---------------------------------------------------------------- the forced run (docs/design.md §3)

  async forceRun(options: ForceRunOptions = {}): Promise<RunResult> {
    this.steps.throwIfAborted();
    await this.collectUnforced();
    const probe = options.probe === true;
    const run = probe ? 0 : this.ctx.nextRun();
    const evidence: string[] = [];
    const kill = options.killAt;
    const runLabel: ActionLabel = { action: 'force-run', ...(probe ? { probe: true, detail: 'probe: forced without moving the clock; no run is due' } : { run }) };
    let journalFrom = this.ctx.server.journal().length;
    let logFrom = this.ctx.observer.position;
    let hostAtStart = this.ctx.clock.now();
    const started = await this.scheduling.forceStart({
      probe,
      label: runLabel,
      // Nothing happens while an unkilled run goes on: its reads go out with its run command. A
      // run killed with a signal reads the app's pid there instead.
      readsAfter: kill === undefined,
      ...(kill?.kill === 'signal' ? { sendWith: [this.app.pidCommand()] } : {}),
      planned: (deviceTime) => {
        if (!probe) this.record({ type: 'run-started', t: deviceTime, run, deviceTime });
        journalFrom = this.ctx.server.journal().length;
        logFrom = this.ctx.observer.position;
        hostAtStart = this.ctx.clock.now();
      },
      beforeSend: () => {
        if (kill) this.ctx.server.setFault(this.feed.routePath(kill.route), { hold: true, passFirst: kill.nth - 1 });
      },
    });
    const { deviceTime } = started;
    evidence.push(...started.evidence);

    const finish = async (end: RunOutcome | RunEnd, extra: string[] = []): Promise<RunResult> => {
      const { outcome, from, evidence: read } = typeof end === 'string' ? { outcome: end, from: undefined, evidence: undefined } : end;
      evidence.push(...extra, ...(read !== undefined ? [read] : []));
      return this.collect({ run, probe, outcome, ...(from !== undefined ? { outcomeFrom: from } : {}), deviceTime, hostAtStart, journalFrom, logFrom, evidence });
    };

    if (started.kind === 'refused') {
      if (kill && started.sent) this.ctx.server.release();
      return finish('refused');
    }
    if (kill) {
      try {
        const held = await this.ctx.server.waitForHeld(1, this.config.timeouts.runMs);
        evidence.push(`held ${held[0]?.method ?? ''} ${held[0]?.path ?? ''} (request ${held[0]?.seq ?? '?'}) at the kill point`);
      } catch (e) {
        this.ctx.server.release();
        if (hasErrorCode(e, ErrorCode.Timeout)) return finish(await started.settle(run, logFrom, journalFrom));
        throw e;
      }
      // The reads after the killed run go in the kill's invocation, once the process is gone.
      const reads = this.scheduling.readsWith?.(this.store.keysRead());
      const argv = await this.app.killRun(kill, run, this.feed.routePath(kill.route), started.afterSend[0], reads);
      evidence.push(`$ ${argv.join(' ')}`);
      this.ctx.server.release();
      return finish('killed');
    }
    return finish(await started.settle(run, logFrom, journalFrom));
  }

  /**
   * Runs the device made without being forced: WorkManager runs overdue work as soon as the
   * app process (re)schedules it, e.g. after a relaunch that follows a killed run. Everything
   * the app did since the last collected run (feed fetches, posts, result lines) becomes a run
   * of its own in the history, with the outcome its result line names.
   */
  async collectUnforced(): Promise<void> {
    const isWorkerLine = (l: ObservedLine): boolean =>
      this.scheduling.isRunEndLine(l) || (l.tag === 'notification_enqueue' && isAppPost(parseNotificationEnqueue(l.message), this.pkg));
    const fetchedSince = (): JournalEntry[] => this.ctx.server.journal().slice(this.seen.journal).filter((j) => stripQuery(j.path) === this.config.feed.path);
    const quiet = fetchedSince().length === 0 && !this.ctx.observer.since(this.seen.log).some(isWorkerLine);
    if (quiet) return;
    const end: RunEnd = await this.scheduling.awaitUnforcedEnd(this.seen, fetchedSince().length > 0).catch((): RunEnd => ({ outcome: 'killed' }));
    // Every line logged until now, once the marker sent with the run's reads has come back.
    const marker = this.ctx.observer.marker();
    this.steps.rideWithNextRead(marker.read);
    const first = fetchedSince()[0];
    const hostNow = this.ctx.clock.now();
    const deviceNow = await this.steps.deviceNow();
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
      logSynced: async () => {
        await this.steps.sendRiders();
        await marker.arrived(this.config.timeouts.commandMs);
      },
    });
  }

  /** Turns what the stream, the server and the database saw during a run into history events. */
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
    /** Waits until the stream holds every line logged until the run's reads (a sync marker sent with them). */
    logSynced?: () => Promise<void>;
  }): Promise<RunResult> {
    const window: RunWindow = { run: r.run, probe: r.probe, deviceTime: r.deviceTime, hostAtStart: r.hostAtStart };
    // The scheduler's state goes out with the keys: the next forced run plans from it. The same
    // read gives the row joins the posts are mapped through (a row-id app's rows exist before its posts).
    const stored = await this.store.newStored((read) => this.scheduling.readWithState(read));
    await r.logSynced?.();
    const observed: ObservationContext = {
      pkg: this.pkg,
      match: this.mapping.match,
      index: this.mapping.index(this.feed.indexEntries()),
      feedPath: this.config.feed.path,
      backendPath: this.config.backend.path,
      ...(this.config.notifications.channel !== undefined ? { itemsChannel: this.config.notifications.channel } : {}),
      mapByContent: (index, id, tag) => this.mapping.mapByContent(index, id, tag),
    };
    const log = await observeLogLines(this.ctx.observer.since(r.logFrom), window, observed);
    r.evidence.push(...log.evidence);
    for (const event of log.events) this.record(event);
    const { posted, updated } = log;
    const requests = observeJournal(this.ctx.server.journal().slice(r.journalFrom), this.ctx.server.effects(), window, observed);
    for (const event of requests.events) this.record(event);
    const { fetchStatuses } = requests;
    await Promise.all(this.steps.inFlight.splice(0));
    // A run that fetched nothing is explained by what the app logged about its fetch.
    const fetchError = fetchStatuses.length === 0 ? log.fetchError : undefined;
    for (const event of observeRunEnd(stored, this.steps.deviceTimeEstimate(), window, r.outcome, r.evidence, fetchError, r.outcomeFrom)) this.record(event);
    if (r.probe) {
      this.steps.action('probe-run', { outcome: r.outcome, statuses: fetchStatuses, detail: 'a run forced without moving the clock, kept out of the run numbering', evidence: r.evidence });
    }
    this.seen = { journal: this.ctx.server.journal().length, log: this.ctx.observer.position };
    return { run: r.run, outcome: r.outcome, deviceTime: r.deviceTime, posted, updated, stored, fetchStatuses, evidence: r.evidence };
  }

  // ---------------------------------------------------------------- dedup store (DedupStore)

  /** Called by the runner before the scenario: what is already stored is not "stored" by a run. */
  primeStoredKeys(): Promise<void> {
    return this.store.primeStored();
  }

  async forgetRows(items: 'all' | readonly string[]): Promise<void> {
    await this.store.forget(items === 'all' ? this.feed.servedLinks() : [...items]);
    await this.startApp();
  }

  readDatabase(): Promise<DbSnapshot> {
    return this.store.readDatabase();
  }

  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void {
    this.store.inspectSchema(db, sampleKey);
  }

  // ---------------------------------------------------------------- app and data (AppControl)

  async clearAppData(): Promise<void> {
    await this.app.clearData();
    this.store.cleared();
    // feed.attach again: at once when its steps start the app themselves (the app then knows the
    // feed from its first start on), else once the app has started again (attachAfterClear).
    if (this.feed.attachAt === 'clear') await this.feed.attachAfterClear({});
    else if (this.feed.attachAt === 'start') this.clearedSinceStart = true;
  }

  /**
   * After a `pm clear`, an sql step of feed.attach runs once the app has started again (its data
   * directory and database exist again), before the schedule guard: so the first forced run after
   * the clear fetches the feed. The app is stopped first, and a run it made by itself meanwhile
   * (its periodic work is due at once after a fresh start) is recorded before the attach, with
   * nothing to fetch; `start` starts the app again the same way.
   */
  private async attachAfterClear(start: () => Promise<void>): Promise<void> {
    if (!this.clearedSinceStart) return;
    this.clearedSinceStart = false;
    await this.feed.attachAfterClear({
      startAgain: start,
      beforeEdit: async () => {
        await this.app.forceStop();
        await this.ctx.observer.sync(this.config.timeouts.commandMs);
        await this.collectUnforced();
      },
    });
  }

  startApp(): Promise<void> {
    return this.startWith((after) => this.app.start(after));
  }

  restartApp(): Promise<void> {
    return this.startWith((after) => this.app.restart(after));
  }

  startProcessWithoutActivity(): Promise<void> {
    return this.startWith((after) => this.app.startProcessWithoutActivity(after));
  }

  /**
   * A start of the app with the scheduler's wait and reads after it in the same invocation
   * (Scheduling.readsWithStart: waitForSchedule then needs no round trip while they hold), the
   * feed attached again after a pm clear (attachAfterClear), and the wait for the app's schedule.
   */
  private async startWith(start: (after: readonly SequenceStep[]) => Promise<ShellResult[]>): Promise<void> {
    const once = async (): Promise<void> => {
      const reads = this.scheduling.readsWithStart?.();
      const results = await start(reads?.steps ?? []);
      reads?.keep(results);
    };
    await once();
    await this.attachAfterClear(once);
    await this.scheduling.waitForSchedule();
  }

  forceStop(): Promise<void> {
    return this.app.forceStop();
  }

  async killProcess(): Promise<void> {
    await this.app.kill('signal', { action: 'kill', detail: 'the app process killed as the low-memory killer would: its jobs and alarms stay' });
  }

  /** The scenario ended: what waited for the next command (DeviceSteps.readFirst, deferChange) goes now. */
  async endScenario(): Promise<void> {
    await this.steps.flushFirst();
    await this.steps.flushDeferred();
  }

  /** See DeviceSteps.readFirst. */
  readFirst<T>(read: ShellRead<T>, took: (result: FirstReadResult<T>) => void): void {
    this.steps.readFirst(read, took);
  }

  get elapsedMs(): number {
    return this.ctx.clock.monotonic() - this.started;
  }
}
