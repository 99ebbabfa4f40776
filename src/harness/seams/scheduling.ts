/**
 * How the app's periodic work is scheduled and run (one of the harness's four seams; docs/design.md
 * §3, config `work`). A Scheduling opens the guard (moves the clock to the next run's time),
 * starts a forced run, says how a run ended, and waits for the app to schedule its work again
 * after a start.
 */
import type { OutcomeSource } from '../../history/events.js';
import type { Config, WorkManagerWork } from '../../config/types.js';
import { describeRowChange, outcomeFromRows, WorkState, type WorkSpecRow } from '../../android/work-spec.js';
import { DedupVerifyError, ErrorCode, TimeoutError } from '../../errors.js';
import { awaitJobIdleCommand, awaitJobRegisteredCommand, findJob, getJobStateWith, jobListRead, runJob, runJobCommand, runJobOutcome, selectJob, WORKMANAGER_JOB_SERVICE, type RunJobOutcome, type RunJobRequest } from '../../android/job-scheduler.js';
import type { JobEntry } from '../../android/parsers/job-scheduler.js';
import { workSnapshotRead, nextRunTime } from '../work-state.js';
import type { ReadWorkOptions, RunOutcome, WorkSnapshot } from '../harness.js';
import type { ObservedLine } from '../log-observer.js';
import type { ActionLabel } from '../command-log.js';
import { delay, type DeviceSteps, type SequenceStep } from '../device-steps.js';
import type { DedupStore } from './dedup-store.js';
import { JobSchedulerScheduling } from './job-scheduler-scheduling.js';
import { pollForSchedule, scheduleSpecs } from './schedule-reads.js';
import { keepResults, parseKept, type KeptResults, type ShellRead } from '../../android/shell-reads.js';
import type { ShellResult } from '../../device/android-device.js';

/** How a run ended and where that was read (the run-finished event's `outcomeFrom`). */
export interface RunEnd {
  readonly outcome: RunOutcome;
  readonly from?: OutcomeSource;
  /** What the outcome was read from, for the run's evidence. */
  readonly evidence?: string;
}

/** A forced run as the scheduler took it. */
export type ForcedStart =
  | {
      readonly kind: 'refused';
      /** The device time of the run (the clock was moved to it). */
      readonly deviceTime: number;
      /** Whether the run command was sent (beforeSend was called). */
      readonly sent: boolean;
      readonly evidence: readonly string[];
    }
  | {
      readonly kind: 'running';
      readonly deviceTime: number;
      readonly evidence: readonly string[];
      /** The results of the request's `sendWith` commands, as many as ran. */
      readonly afterSend: readonly ShellResult[];
      /** Waits for the run's end (logFrom, journalFrom: the stream and journal positions at its start). */
      settle(run: number, logFrom: number, journalFrom: number): Promise<RunEnd>;
    };

export interface ForceStartRequest {
  /** A probe: forced without moving the clock (no run is due). */
  readonly probe: boolean;
  readonly label: ActionLabel;
  /** Called once the run's device time is known, before anything is sent to start it. */
  planned(deviceTime: number): void;
  /** Called just before the run command is sent. */
  beforeSend(): void;
  /**
   * Nothing is to happen while the run goes on (no kill): the reads after the run may go out in
   * the run command's invocation, held back on the device until the job has let go.
   */
  readonly readsAfter?: boolean;
  /**
   * Read-only commands to send right after the run command in its invocation (the app's pid, for
   * a kill while the run goes on); their results come back as ForcedStart `afterSend`.
   */
  readonly sendWith?: readonly (readonly string[])[];
}

export interface Scheduling {
  /** Moves the clock to the next run's time when it is not due yet; the device time of the run. */
  openGuard(): Promise<number>;
  forceStart(request: ForceStartRequest): Promise<ForcedStart>;
  /** Whether `line` is the scheduler's line for the end of a run (a run the device started itself). */
  isRunEndLine(line: ObservedLine): boolean;
  /** The end of a run the device started by itself, seen since the stream and journal positions `seen`. */
  awaitUnforcedEnd(seen: { readonly journal: number; readonly log: number }, workerRan: boolean): Promise<RunEnd>;
  /** After a start of the app: waits until the app has scheduled its work. */
  waitForSchedule(): Promise<void>;
  /**
   * Commands to send in the invocation that starts the app, after the start: a wait on the device
   * until the app has scheduled its work, and the reads waitForSchedule makes, which it then
   * takes from `keep` instead of sending them (one round trip less per start). Optional: a
   * scheduler without them waits for the schedule with reads of its own.
   */
  readsWithStart?(): StartReads;
  /** The scheduler's state, as a `schedule` history event. */
  readWork(label?: string, options?: ReadWorkOptions): Promise<WorkSnapshot>;
  /**
   * Sends `read` in one invocation with the scheduler's own state, which the next forced run
   * plans from while nothing has changed the device since (one round trip less per run).
   */
  readWithState<T>(read: ShellRead<T>): Promise<T>;
  /**
   * The commands readWithState(read) sends, to go read-only at the end of an invocation that
   * changes the device (a kill): readWithState then takes their results from `keep` instead of
   * sending them, while nothing else has changed the device. Optional: without it they are sent.
   */
  readsWith?(read: ShellRead<unknown>): StartReads;
}

/** The commands a start of the app sends for its scheduler (Scheduling.readsWithStart), and what takes their results. */
export interface StartReads {
  readonly steps: readonly SequenceStep[];
  /** The results of `steps`, as many as ran (fewer when a command before them or among them failed). */
  keep(results: readonly ShellResult[]): void;
}

interface JobRef {
  readonly id: number;
  readonly namespace: string | null;
}

/** WorkManager's state and the app's jobs, read together, with what had happened when they were read. */
interface WorkRead {
  readonly work: WorkSnapshot;
  readonly jobs: readonly JobEntry[];
  /** Commands that change the device sent before the read, and the journal's length then. */
  readonly changes: number;
  readonly journal: number;
}

/**
 * The reads sent in a run's own invocation after its end (forceStart with readsAfter): the
 * results of the workdb, job list and store reads, kept for the read after the run (readWithState).
 */
interface ReadsAfterRun {
  /** The results of the workdb, job list and store reads: the store's read must be the same to be answered from them. */
  readonly kept: KeptResults;
  /** Commands that change the device sent up to the end of the invocation. */
  readonly changes: number;
  /** The WorkSpec's row before the run: the row read after it must show the run's end. */
  readonly before: WorkSpecRow;
}

interface Guard {
  readonly now: number;
  readonly work: WorkSnapshot;
  readonly jobs: readonly JobEntry[];
  readonly setTo?: number;
  readonly from?: number;
  readonly due?: number;
}

/** androidx work-runtime's DiagnosticsWorker (androidx.work.impl.workers), enqueued by DiagnosticsReceiver. */
const DIAGNOSTICS_WORKER = 'androidx.work.impl.workers.DiagnosticsWorker';

/** Result line of androidx WorkerWrapper (androidx `work/work-runtime/.../WorkerWrapper.kt`, INFO, tag WM-WorkerWrapper). */
const RESULT_LINE = /^Worker result (SUCCESS|RETRY|FAILURE) for Work \[ id=([0-9a-fA-F-]+)/;
const RESULT_OUTCOME: Record<string, RunOutcome> = { SUCCESS: 'success', RETRY: 'retry', FAILURE: 'failure' };

function resultEnd(line: ObservedLine): RunEnd {
  return { outcome: RESULT_OUTCOME[RESULT_LINE.exec(line.message)?.[1] ?? ''] ?? 'success', from: 'result-line' };
}
/** How long a forced run may take to show any sign of life before it counts as refused. */
const REFUSED_AFTER_MS = 5_000;
/** The first look at a started job's state comes no sooner than this after `cmd jobscheduler run` returned. */
const FIRST_JOB_POLL_MS = 50;
/** The longest wait between two looks at a started job's state. */
const MAX_JOB_POLL_MS = 400;

/**
 * Periodic work enqueued with androidx WorkManager: its WorkSpec and SystemIdInfo rows in the
 * app's workdb, its job in JobScheduler (SystemJobService), its end in WorkerWrapper's result
 * line or, when WorkManager logs below INFO, in the WorkSpec's row.
 */
export class WorkManagerScheduling implements Scheduling {
  /** The last WorkManager state and job list read, reused while nothing can have changed them. */
  private lastWorkRead: WorkRead | undefined;
  /** A run's outcome was read from the workdb (no result line): said once in the notes. */
  private loggedBelowInfo = false;
  /** The reads that went out with the last run command, until the read after that run takes them. */
  private readsAfterRun: ReadsAfterRun | undefined;
  /** The read made after the last run (readWithState), the next run planned from it while it holds. */
  private readAfterRun: WorkRead | undefined;
  /** The reads that went out at the end of the last change (readsWith), until readWithState takes them. */
  private readsAfterChange: { readonly kept: KeptResults; readonly changes: number } | undefined;
  /** The reads that went out with the last start of the app, until waitForSchedule takes them. */
  private readsAfterStart: { readonly kept: KeptResults; readonly changes: number; readonly journal: number } | undefined;

  constructor(
    private readonly steps: DeviceSteps,
    private readonly store: DedupStore,
    private readonly work: WorkManagerWork,
  ) {}

  private get pkg(): string {
    return this.steps.pkg;
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
  private async planGuard(): Promise<Guard> {
    const { work, jobs } = await this.currentWork();
    const now = await this.steps.deviceNow();
    const spec = work.primary;
    if (!spec) return { now, work, jobs };
    const due = nextRunTime(spec, now);
    if (now >= due) return { now, work, jobs };
    const target = due + 1_000;
    return { now: target, work, jobs, setTo: target, from: now, due };
  }

  private clockMovedNote(guard: Guard): void {
    if (guard.setTo === undefined || guard.from === undefined || guard.due === undefined) return;
    this.steps.note(`clock moved from ${new Date(guard.from).toISOString()} to ${new Date(guard.setTo).toISOString()} (next run due ${new Date(guard.due).toISOString()})`);
  }

  private async moveClockFor(guard: Guard): Promise<void> {
    if (guard.setTo === undefined) return;
    await this.steps.moveClock(guard.setTo);
    this.clockMovedNote(guard);
  }

  /**
   * `cmd jobscheduler run` for `request`, in one invocation with the set of the clock that waits
   * for it and the read-only commands `after` (results: as many as ran).
   */
  private async runInSequence(request: RunJobRequest, label: ActionLabel, after: readonly (readonly string[])[]): Promise<{ run: RunJobOutcome; after: ShellResult[] }> {
    const argv = runJobCommand(request);
    const [run, ...rest] = await this.steps.actInSequence([{ label, argv }, ...after.map((command) => ({ label: { readOnly: true }, argv: command }))]);
    if (run === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
    return { run: runJobOutcome(argv, run), after: rest };
  }

  /**
   * `cmd jobscheduler run` for `request` (after the set of the clock that waits for it), then, in
   * the same invocation, a wait on the device until JobScheduler has let the job go
   * (awaitJobIdleCommand) and the reads the harness makes after a run: the workdb and the job
   * list, which the next run plans from, and the store's keys, which say what the run stored. Each
   * runs only after the one before it exited 0; the reads' results are kept for the read after
   * the run (readWithState), which takes them only when the workdb shows the run's end.
   */
  private async runWithReadsAfter(request: RunJobRequest, label: ActionLabel, before: WorkSpecRow): Promise<RunJobOutcome> {
    const steps = this.steps;
    const argv = runJobCommand(request);
    const { runMs, commandMs } = steps.config.timeouts;
    const reads = [workSnapshotRead(steps.device.serial, steps.config, this.work), jobListRead(this.pkg), this.store.keysRead()] as const;
    const readCommands = reads.flatMap((r) => r.commands);
    const results = await steps.actInSequence(
      [
        { label, argv },
        { label: { readOnly: true }, argv: awaitJobIdleCommand(request, WORKMANAGER_JOB_SERVICE, runMs) },
        ...readCommands.map((command) => ({ label: { readOnly: true }, argv: command })),
      ],
      { timeoutMs: runMs + commandMs, waits: true },
    );
    const [run, , ...read] = results;
    if (run === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
    const kept = keepResults(reads, read);
    this.readsAfterRun = kept !== undefined ? { kept, changes: steps.changesSent(), before } : undefined;
    return runJobOutcome(argv, run);
  }

  /**
   * The values of `reads` from the invocation of the last run command, when they answer the read
   * after that run: the same commands, no command that changes the device since, and the WorkSpec's
   * row showing that the run ended (outcomeFromRows: its last_enqueue_time, period_count or
   * run_attempt_count moved, or its state is final), so that the store's keys, read after the row,
   * hold what the run stored. Undefined otherwise: the reads are sent again.
   */
  private async takeReadsAfterRun<T>(read: ShellRead<T>): Promise<{ value: T; work: WorkSnapshot; jobs: readonly JobEntry[] } | undefined> {
    const kept = this.readsAfterRun;
    this.readsAfterRun = undefined;
    if (kept === undefined || kept.changes !== this.steps.changesSent()) return undefined;
    const steps = this.steps;
    const values = await parseKept([workSnapshotRead(steps.device.serial, steps.config, this.work), jobListRead(this.pkg), read] as const, kept.kept);
    if (values === undefined) return undefined;
    const [work, jobs, value] = values;
    const after = [...work.namedSpecs, ...work.workerSpecs].find((spec) => spec.id === kept.before.id);
    const row = outcomeFromRows(kept.before, after, false);
    switch (row.kind) {
      case 'success':
      case 'failure':
      case 'finished':
      case 'retry':
        return { value, work, jobs };
      case 'running':
      case 'not-run':
      case 'undecided':
        return undefined;
      default: {
        const unreachable: never = row;
        throw new Error(`unknown row outcome ${String(unreachable)}`);
      }
    }
  }

  async forceStart(request: ForceStartRequest, replanned = false): Promise<ForcedStart> {
    const steps = this.steps;
    const { probe } = request;
    const plan = async (): Promise<Guard> => (probe ? await this.currentWork().then(async (r) => ({ ...r, now: await steps.deviceNow() })) : await this.planGuard());
    let guard = await plan();
    if (this.awaitsRescheduling(guard)) {
      await this.waitForRescheduledJob();
      guard = await plan();
    }
    const { now: deviceTime, work, jobs } = guard;
    const spec = work.primary;
    request.planned(deviceTime);
    const refused = async (why: string): Promise<ForcedStart> => {
      await this.moveClockFor(guard);
      return { kind: 'refused', deviceTime, sent: false, evidence: [why] };
    };
    if (!spec || spec.systemId === undefined) {
      return refused(`no scheduled job for the unique work "${this.work.uniqueName}" (WorkSpec ${spec ? 'without SystemIdInfo' : 'missing'})`);
    }
    const jobId = spec.systemId;
    // The job list read with the WorkSpec, before the clock moved: on API 23+ WorkManager does not
    // reschedule on TIME_SET (androidx work-runtime RescheduleReceiver.java: onReceive only hands
    // its PendingResult to WorkManagerImpl.setReschedulePendingResult), so the job is the same
    // after the set. A job not listed then (WorkManager re-registers a periodic job as a run
    // ends) is looked up again.
    const query = { pkg: this.pkg, jobId, serviceClass: WORKMANAGER_JOB_SERVICE };
    const job = selectJob(jobs, query) ?? (await findJob(steps.device, query));
    if (!job) return refused(`job ${spec.systemId} of ${this.pkg} is not registered with JobScheduler (dumpsys jobscheduler ${this.pkg})`);
    request.beforeSend();
    const runRequest: RunJobRequest = { pkg: this.pkg, id: jobId, namespace: job.namespace, force: true };
    const sentAt = steps.ctx.clock.monotonic();
    // The clock goes to the run's time with the run command itself when it can (one invocation).
    if (guard.setTo !== undefined) await steps.moveClock(guard.setTo);
    const sendWith = request.sendWith ?? [];
    const { run: started, after: afterSend } =
      request.readsAfter === true && !probe
        ? { run: await this.runWithReadsAfter(runRequest, request.label, spec), after: [] }
        : steps.ctx.deviceClock.hasPendingSet || sendWith.length > 0
          ? await this.runInSequence(runRequest, request.label, sendWith)
          : { run: await steps.act(request.label, () => runJob(steps.device, runRequest)), after: [] };
    this.clockMovedNote(guard);
    const roundTripMs = steps.ctx.clock.monotonic() - sentAt;
    const evidence = [`$ ${started.command.join(' ')} → ${(started.stdout + started.stderr).trim()} (exit ${started.exitCode})`];
    if (started.result.kind === 'no-job' && !probe && !replanned) {
      // WorkManager replaced the job after the reads the run was planned from: its
      // registerRescheduling cancels the job and schedules the work under a new id on its task
      // thread, a little after the run's end (awaitsRescheduling), which JobScheduler's own
      // reschedule of a retried job can hide from the wait after the run. The run is planned
      // again from a fresh read, once; its start was already recorded.
      await this.waitForRescheduledJob();
      const again = await this.forceStart({ ...request, planned: () => undefined }, true);
      return { ...again, evidence: [...evidence, ...again.evidence] };
    }
    if (started.result.kind !== 'running') return { kind: 'refused', deviceTime, sent: true, evidence };
    const ref: JobRef = { id: jobId, namespace: job.namespace };
    return { kind: 'running', deviceTime, evidence, afterSend, settle: (run, logFrom, journalFrom) => this.settle(run, logFrom, journalFrom, spec, ref, roundTripMs) };
  }

  /**
   * Waits for the end of a started run: WorkManager's result line for the WorkSpec or, when
   * WorkManager logs nothing at INFO, its row in the workdb once JobScheduler has let the job go
   * (awaitEnd). A run that shows no sign of life (no result line, no fetch, job not active) is
   * refused: WorkerWrapper delayed it ("before schedule"), which it logs only at DEBUG.
   */
  private async settle(run: number, logFrom: number, journalFrom: number, before: WorkSpecRow, job: JobRef, roundTripMs: number): Promise<RunEnd> {
    const { observer, server, clock } = this.steps.ctx;
    const { timeouts } = this.steps.config;
    const isResult = (l: ObservedLine): boolean => l.tag === 'WM-WorkerWrapper' && RESULT_LINE.exec(l.message)?.[2] === before.id;
    const resultLine = observer.waitFor(logFrom, isResult, timeouts.runMs, `WM-WorkerWrapper result for run ${run}`);
    resultLine.catch(() => undefined);
    const deadline = clock.monotonic() + REFUSED_AFTER_MS;
    // JobScheduler's state is looked at only while the run shows no sign of life (no fetch, no
    // result line), first after the time `cmd jobscheduler run` itself took to answer (a run
    // that started shows itself within about one round trip on any link), then backing off.
    const firstPollMs = Math.min(Math.max(FIRST_JOB_POLL_MS, roundTripMs), MAX_JOB_POLL_MS);
    let delayMs = firstPollMs;
    const ended = (): Promise<RunEnd> => this.awaitEnd({ what: `run ${run}`, logFrom, isResult, resultLine, job, before, workerRan: true, firstPollMs });
    for (;;) {
      const done = await Promise.race([resultLine, delay(delayMs).then(() => null)]);
      if (done) return resultEnd(done);
      if (server.journal().length > journalFrom) return ended();
      // `cmd jobscheduler run` leaves the job pending or active when it returns (JobSchedulerService
      // executeRunCommand: queueReadyJobsForExecutionLocked + maybeRunPendingJobsLocked), so a job
      // that is neither, with no fetch and no result line, has ended: WorkerWrapper delayed it.
      // A result line that comes while JobScheduler is being asked ends the wait at once; the
      // question's answer is awaited with the run's reads (collect), so its record is complete.
      // A sync marker goes with the question: a refusal is then judged on every line logged
      // until the answer, with no round trip more.
      const marker = observer.marker();
      const poll = this.jobBusy(job, marker.read);
      this.steps.inFlight.push(poll.catch(() => undefined));
      const busy = await Promise.race([poll, resultLine.then(() => 'result' as const)]);
      if (busy === 'result') return resultEnd(await resultLine);
      const fetched = server.journal().length > journalFrom;
      if (!fetched && (busy === false || (busy === undefined && clock.monotonic() > deadline))) {
        await marker.arrived(timeouts.commandMs);
        const late = observer.since(logFrom).find(isResult);
        if (late) return resultEnd(late);
        if (server.journal().length === journalFrom) return { outcome: 'refused' };
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
    const { observer, clock } = this.steps.ctx;
    const runMs = this.steps.config.timeouts.runMs;
    const deadline = clock.monotonic() + runMs;
    const line = a.resultLine.then(
      (l) => ({ kind: 'line' as const, l }),
      () => ({ kind: 'timeout' as const }),
    );
    let delayMs = a.firstPollMs;
    let why = 'JobScheduler kept the job active';
    const { server } = this.steps.ctx;
    let requests = server.journal().length;
    for (;;) {
      const waited = await Promise.race([line, delay(delayMs).then(() => ({ kind: 'poll' as const }))]);
      if (waited.kind === 'line') return resultEnd(waited.l);
      // A worker whose requests still come in is still running: JobScheduler is asked only once
      // they have stopped for a whole pause (a round trip less per run on a slow link).
      const active = server.journal().length > requests;
      requests = server.journal().length;
      if (waited.kind === 'poll' && a.job !== undefined && !active) {
        const marker = observer.marker();
        const poll = this.jobBusy(a.job, marker.read);
        this.steps.inFlight.push(poll.catch(() => undefined));
        const busy = await Promise.race([poll, line]);
        if (typeof busy === 'object' && busy.kind === 'line') return resultEnd(busy.l);
        if (busy !== true) {
          await marker.arrived(this.steps.config.timeouts.commandMs);
          const late = observer.since(a.logFrom).find(a.isResult);
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
      if (waited.kind === 'timeout' || clock.monotonic() > deadline) {
        throw new TimeoutError(`${a.what}: no WM-WorkerWrapper result line within ${runMs} ms, and the workdb did not say how it ended (${why}). Raise timeouts.runMs in the config if the app's worker takes longer.`, runMs);
      }
      delayMs = Math.min(delayMs * 2, MAX_JOB_POLL_MS);
    }
  }

  /** Once per harness: runs end without result lines here, so their outcomes come from the workdb. */
  private noteLogLevel(what: string, outcome: RunOutcome): void {
    if (this.loggedBelowInfo) return;
    this.loggedBelowInfo = true;
    this.steps.note(
      `${what} ended ${outcome} with no "Worker result" line: WorkManager logs nothing at INFO in this app (its Configuration sets a minimum logging level above Log.INFO), so run outcomes come from the workdb (state, run_attempt_count, last_enqueue_time, period_count); success and failure of periodic work read as "finished"`,
    );
  }

  /** Whether JobScheduler still has the job pending or running; undefined when it cannot say. */
  private async jobBusy(job: JobRef, ...also: ShellRead<unknown>[]): Promise<boolean | undefined> {
    const state = await getJobStateWith(this.steps.device, { pkg: this.pkg, id: job.id, namespace: job.namespace }, also);
    if (state.kind !== 'known') return state.reason === 'no-job' ? false : undefined;
    return state.states.includes('active') || state.states.includes('pending');
  }

  isRunEndLine(line: ObservedLine): boolean {
    // Not the DiagnosticsWorker the harness's own start-process broadcast enqueues (DiagnosticsReceiver:
    // OneTimeWorkRequest.from(DiagnosticsWorker.class), its class name a tag in WorkerWrapper's
    // "Work [ id=…, tags={ … } ]"; androidx work/work-runtime DiagnosticsReceiver.java): no run of the app's work.
    return line.tag === 'WM-WorkerWrapper' && RESULT_LINE.test(line.message) && !line.message.includes(`tags={ ${DIAGNOSTICS_WORKER} }`);
  }

  /**
   * Lets a run the device started by itself finish: its result line ends it, or (WorkManager
   * logging below INFO) its WorkSpec's row once JobScheduler has let the job go. The row read
   * before is the "before" only when it was read before this run fetched anything.
   */
  async awaitUnforcedEnd(seen: { readonly journal: number; readonly log: number }, workerRan: boolean): Promise<RunEnd> {
    const isResult = (l: ObservedLine): boolean => this.isRunEndLine(l);
    const resultLine = this.steps.ctx.observer.waitFor(seen.log, isResult, this.steps.config.timeouts.runMs, 'the result line of a run the device started by itself');
    resultLine.catch(() => undefined);
    const last = this.lastWorkRead;
    const known = last?.work.primary;
    const before = last !== undefined && last.journal <= seen.journal ? known : undefined;
    return this.awaitEnd({
      what: 'a run the device started by itself',
      logFrom: seen.log,
      isResult,
      resultLine,
      job: known?.systemId === undefined ? undefined : { id: known.systemId, namespace: selectJob(last?.jobs ?? [], { pkg: this.pkg, jobId: known.systemId, serviceClass: WORKMANAGER_JOB_SERVICE })?.namespace ?? null },
      before,
      workerRan,
      // The run has been going a while: its end shows within about a round trip (on a slow link more).
      firstPollMs: Math.min(Math.max(FIRST_JOB_POLL_MS, this.steps.roundTripMs() ?? 0), MAX_JOB_POLL_MS),
    });
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
   * whose job is still missing then is refused by forceStart.
   */
  private async waitForRescheduledJob(): Promise<void> {
    const clock = this.steps.ctx.clock;
    const deadline = clock.monotonic() + REFUSED_AFTER_MS;
    let delayMs = FIRST_JOB_POLL_MS;
    for (;;) {
      const state = await this.readWorkState().catch(() => undefined);
      if (state !== undefined && !this.awaitsRescheduling(state)) return;
      if (clock.monotonic() > deadline) return;
      await delay(delayMs);
      delayMs = Math.min(delayMs * 2, MAX_JOB_POLL_MS);
    }
  }

  /**
   * The app schedules its work when its process starts; wait until JobScheduler has the job.
   * Neither WorkManager nor JobScheduler logs a scheduling above DEBUG, so this polls the workdb
   * and the job list (one shell invocation each time), backing off.
   */
  async waitForSchedule(): Promise<void> {
    const { config } = this.steps;
    await pollForSchedule(
      this.steps,
      async () => {
        const state = await this.readWorkState(this.store.unprimed).catch(() => undefined);
        const id = state?.work.primary?.systemId;
        return id !== undefined && state !== undefined && selectJob(state.jobs, { pkg: this.pkg, jobId: id, serviceClass: WORKMANAGER_JOB_SERVICE }) !== null;
      },
      `${this.pkg} did not schedule its periodic work "${this.work.uniqueName}" within ${config.timeouts.runMs} ms of starting (no job in dumpsys jobscheduler). Check work.uniqueName in the config.`,
    );
  }

  readsWithStart(): StartReads {
    const steps = this.steps;
    const reads = this.startReads();
    const commands = reads.flatMap((r) => r.commands);
    // Requests the app made before the invocation: a read made in it holds only if none came after.
    const journal = steps.ctx.server.journal().length;
    return {
      steps: [
        { label: { readOnly: true }, argv: awaitJobRegisteredCommand(this.pkg, WORKMANAGER_JOB_SERVICE, steps.config.timeouts.runMs) },
        ...commands.map((command) => ({ label: { readOnly: true }, argv: command })),
      ],
      keep: (results) => {
        const kept = keepResults(reads, results.slice(1));
        this.readsAfterStart = kept !== undefined ? { kept, changes: steps.changesSent(), journal } : undefined;
      },
    };
  }

  /** What waitForSchedule reads: the workdb, the job list and the store's keys. */
  private startReads(): readonly [ShellRead<WorkSnapshot>, ShellRead<JobEntry[]>, ShellRead<unknown>] {
    const steps = this.steps;
    return [workSnapshotRead(steps.device.serial, steps.config, this.work), jobListRead(this.pkg), this.store.keysRead()];
  }

  /** The reads sent with the last start of the app, while no command that changed the device came after them. */
  private async takeReadsAfterStart(withKeys: boolean): Promise<WorkRead | undefined> {
    const kept = this.readsAfterStart;
    this.readsAfterStart = undefined;
    const steps = this.steps;
    if (kept === undefined || kept.changes !== steps.changesSent()) return undefined;
    const values = await parseKept(this.startReads(), kept.kept);
    if (values === undefined) return undefined;
    const [work, jobs, keys] = values;
    if (withKeys) this.store.readWithStart(keys, { changes: kept.changes, journal: kept.journal });
    this.lastWorkRead = { work, jobs, changes: kept.changes, journal: kept.journal };
    return this.lastWorkRead;
  }

  /** WorkManager's state and the app's jobs, read together (one shell invocation; not recorded as history events). */
  private async readWorkState(withKeys = false): Promise<WorkRead> {
    const steps = this.steps;
    const fromStart = await this.takeReadsAfterStart(withKeys);
    if (fromStart !== undefined) return fromStart;
    const changes = steps.changesSent();
    const journal = steps.ctx.server.journal().length;
    if (withKeys) {
      // Before the scenario primes its keys: the dedup table goes out with the same reads.
      const [work, jobs, keys] = await steps.read([workSnapshotRead(steps.device.serial, steps.config, this.work), jobListRead(this.pkg), this.store.keysRead()]);
      this.store.readWithStart(keys, { changes, journal });
      this.lastWorkRead = { work, jobs, changes, journal };
    } else {
      const [work, jobs] = await steps.read([workSnapshotRead(steps.device.serial, steps.config, this.work), jobListRead(this.pkg)]);
      this.lastWorkRead = { work, jobs, changes, journal };
    }
    return this.lastWorkRead;
  }

  readsWith(read: ShellRead<unknown>): StartReads {
    const steps = this.steps;
    const reads = this.stateReads(read);
    return {
      steps: reads.flatMap((r) => r.commands).map((command) => ({ label: { readOnly: true }, argv: command, goOnAfterFailure: true })),
      keep: (results) => {
        const kept = keepResults(reads, results);
        this.readsAfterChange = kept !== undefined ? { kept, changes: steps.changesSent() } : undefined;
      },
    };
  }

  /** What readWithState reads: `read` with the workdb and the job list. */
  private stateReads<T>(read: ShellRead<T>): readonly [ShellRead<T>, ShellRead<WorkSnapshot>, ShellRead<JobEntry[]>] {
    return [read, workSnapshotRead(this.steps.device.serial, this.steps.config, this.work), jobListRead(this.pkg)];
  }

  /** The results readsWith kept for `read`, while no command that changes the device came after them. */
  private async takeReadsAfterChange<T>(read: ShellRead<T>): Promise<readonly [T, WorkSnapshot, JobEntry[]] | undefined> {
    const kept = this.readsAfterChange;
    this.readsAfterChange = undefined;
    if (kept === undefined || kept.changes !== this.steps.changesSent()) return undefined;
    return parseKept(this.stateReads(read), kept.kept);
  }

  async readWithState<T>(read: ShellRead<T>): Promise<T> {
    const steps = this.steps;
    const changes = steps.changesSent();
    const journal = steps.ctx.server.journal().length;
    const afterChange = await this.takeReadsAfterChange(read);
    if (afterChange !== undefined) {
      const [value, work, jobs] = afterChange;
      this.lastWorkRead = this.readAfterRun = { work, jobs, changes, journal };
      return value;
    }
    const kept = await this.takeReadsAfterRun(read);
    if (kept !== undefined) {
      this.lastWorkRead = this.readAfterRun = { work: kept.work, jobs: kept.jobs, changes, journal };
      return kept.value;
    }
    const [value, work, jobs] = await steps.read(this.stateReads(read));
    this.lastWorkRead = this.readAfterRun = { work, jobs, changes, journal };
    return value;
  }

  /**
   * The last read of WorkManager's state while it still holds: no command that changes the
   * device has been sent since, and the app fetched nothing (no run happened); else a new read.
   */
  private async currentWork(): Promise<WorkRead> {
    const last = this.lastWorkRead;
    if (last !== undefined && this.steps.stillHolds(last)) return last;
    return this.readWorkState();
  }

  async readWork(label?: string, options: ReadWorkOptions = {}): Promise<WorkSnapshot> {
    // The read after a run, once the run has ended, while nothing can have changed it since
    // (retry-classification reads the attempts a run left); with sinceLastChange any read while
    // it holds (the one sent with the app's start); any other time, a read of its own.
    const last = this.lastWorkRead;
    const answers = last !== undefined && (options.sinceLastChange === true || last === this.readAfterRun) && this.steps.stillHolds(last);
    const { work } = answers ? last : await this.readWorkState();
    const steps = this.steps;
    const t = steps.deviceTimeEstimate();
    steps.record({
      type: 'schedule',
      t,
      ...(label !== undefined ? { label } : {}),
      uniqueName: this.work.uniqueName,
      ...(this.work.workerClass !== undefined ? { workerClass: this.work.workerClass } : {}),
      specs: scheduleSpecs(work),
      primary: work.primary?.id ?? null,
    });
    return work;
  }
}

/** The Scheduling for config.work (by its scheduler). */
export function schedulingFor(config: Config, steps: DeviceSteps, store: DedupStore): Scheduling {
  const work = config.work;
  switch (work.scheduler) {
    case 'workmanager':
      return new WorkManagerScheduling(steps, store, work);
    case 'jobscheduler':
      return new JobSchedulerScheduling(steps, store, work);
    default: {
      const unreachable: never = work;
      throw new Error(`unknown work.scheduler ${String(unreachable)}`);
    }
  }
}

