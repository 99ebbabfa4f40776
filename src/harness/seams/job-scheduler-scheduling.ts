/**
 * Scheduling for an app that schedules its own JobService with JobScheduler (config
 * `work.scheduler: "jobscheduler"`; Feeder's FeederJobService, Droid-ify's SyncService:
 * docs/real-apps.md). No WorkManager database: the job is what `dumpsys jobscheduler PKG` lists,
 * a run is `cmd jobscheduler run -f`, and its end is the app's own log line (work.resultLine)
 * or, without one, JobScheduler letting the job go (`get-job-state`) with its failure count.
 *
 * What JobScheduler does that this relies on (AOSP frameworks/base
 * apex/jobscheduler/service/java/com/android/server/job/):
 * - a job's run times are elapsed realtime (JobStatus.createFromJobInfo: sElapsedRealtimeClock),
 *   which a move of the wall clock does not change, and `cmd jobscheduler run -f` runs the job
 *   whatever its timing (JobSchedulerService.executeRunCommand: OVERRIDE_FULL): so the guard
 *   moves no clock, and a forced run happens at the device's time now;
 * - `run -s` runs it only when every constraint is met (OVERRIDE_SORTING), else exits with
 *   CMD_ERR_CONSTRAINTS: a probe ("is a run due?") is `run -s`;
 * - jobFinished(params, true) reschedules the job with its backoff and one more failure
 *   (getRescheduleJobForFailureLocked), printed by JobStatus.dump as `Num failures: N`, and a
 *   periodic job that ends without it gets its next period with none
 *   (getRescheduleJobForPeriodic): the failure count is the job's run_attempt_count;
 * - `dumpsys jobscheduler PKG` prints, under each JOB line, `PERIODIC: interval=… flex=…`,
 *   `Enqueue time: -…` (relative to now) and `Num failures` (JobStatus.dump).
 */
import type { JobSchedulerWork } from '../../config/types.js';
import type { OutcomeSource } from '../../history/events.js';
import { DedupVerifyError, ErrorCode, TimeoutError } from '../../errors.js';
import { getJobStateWith, jobListRead, jobsOfPackage, runJob, runJobCommand, runJobOutcome, WORKMANAGER_JOB_SERVICE, type RunJobOutcome, type RunJobRequest } from '../../android/job-scheduler.js';
import { jobEnqueueOffset, jobFailures, jobPeriod, type JobEntry } from '../../android/parsers/job-scheduler.js';
import { WorkState } from '../../android/work-spec.js';
import type { ScheduledSpec, WorkSnapshot } from '../harness.js';
import type { ObservedLine } from '../log-observer.js';
import type { ActionLabel } from '../command-log.js';
import type { ShellRead } from '../../android/shell-reads.js';
import type { ShellResult } from '../../device/android-device.js';
import { delay, type DeviceSteps } from '../device-steps.js';
import type { DedupStore } from './dedup-store.js';
import type { ForcedStart, ForceStartRequest, RunEnd, Scheduling } from './scheduling.js';
import { pollForSchedule, scheduleSpecs } from './schedule-reads.js';

/** The outcome source of a run whose end was read from JobScheduler (no result line). */
const JOB_STATE: OutcomeSource = 'job-state';
/** The first look at a started job's state; then backing off to MAX_POLL_MS. */
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 400;

/** The app's jobs as listed, with what had happened when they were read. */
interface JobRead {
  readonly jobs: readonly JobEntry[];
  /** Device time of the read (Enqueue time is printed relative to it). */
  readonly at: number;
  readonly changes: number;
  readonly journal: number;
}

/** `pkg/class` of the job's service, a short class (`.Foo`) made full. */
function serviceOf(job: JobEntry, pkg: string): string | null {
  if (job.serviceClass === null) return null;
  return job.serviceClass.startsWith('.') ? `${pkg}${job.serviceClass}` : job.serviceClass;
}

export class JobSchedulerScheduling implements Scheduling {
  private lastRead: JobRead | undefined;
  private readonly resultLine: RegExp | undefined;

  constructor(
    private readonly steps: DeviceSteps,
    private readonly store: DedupStore,
    private readonly work: JobSchedulerWork,
  ) {
    this.resultLine = work.resultLine === undefined ? undefined : new RegExp(work.resultLine);
  }

  private get pkg(): string {
    return this.steps.pkg;
  }

  /** How the config names the job, for messages. */
  private get jobText(): string {
    const { jobId, jobService, jobNamespace } = this.work;
    const parts = [jobId !== undefined ? `job ${jobId}` : 'the periodic job', jobService !== undefined ? `of ${jobService}` : undefined, jobNamespace !== undefined ? `in namespace ${jobNamespace}` : undefined];
    return parts.filter((p) => p !== undefined).join(' ');
  }

  /** The app's jobs the config names (by id, service, namespace; with none of them: its own periodic jobs, not WorkManager's). */
  private matching(jobs: readonly JobEntry[]): JobEntry[] {
    const { jobId, jobService, jobNamespace } = this.work;
    return jobsOfPackage(jobs, this.pkg).filter((job) => {
      const service = serviceOf(job, this.pkg);
      if (jobId !== undefined && job.jobId !== jobId) return false;
      if (jobService !== undefined && service !== jobService) return false;
      if (jobNamespace !== undefined && job.namespace !== jobNamespace) return false;
      if (jobId === undefined && jobService === undefined) return service !== WORKMANAGER_JOB_SERVICE && jobPeriod(job) !== null;
      return true;
    });
  }

  private select(jobs: readonly JobEntry[]): JobEntry | null {
    return this.matching(jobs)[0] ?? null;
  }

  openGuard(): Promise<number> {
    // JobScheduler times the job on elapsed realtime and `run -f` ignores the timing (see the
    // header): nothing to move, the run is at the device's time now.
    return this.steps.deviceNow();
  }

  async forceStart(request: ForceStartRequest): Promise<ForcedStart> {
    const steps = this.steps;
    const { jobs } = await this.currentJobs();
    const deviceTime = await steps.deviceNow();
    request.planned(deviceTime);
    const job = this.select(jobs) ?? this.select((await this.readJobs()).jobs);
    if (job === null) return { kind: 'refused', deviceTime, sent: false, evidence: [`no ${this.jobText} of ${this.pkg} is registered with JobScheduler (dumpsys jobscheduler ${this.pkg})`] };
    request.beforeSend();
    // A probe asks whether a run is due: `run -s` runs the job only when all its constraints
    // (its timing delay among them) are met; a forced run ignores them (`-f`).
    const runRequest: RunJobRequest = { pkg: this.pkg, id: job.jobId, namespace: job.namespace, force: !request.probe, ...(request.probe ? { satisfied: true } : {}) };
    const sentAt = steps.ctx.clock.monotonic();
    // The request's read-only commands (the app's pid, for a kill) and a set of the clock that
    // waits go in the run command's invocation.
    const after = request.sendWith ?? [];
    const { run: started, after: afterSend } =
      steps.ctx.deviceClock.hasPendingSet || after.length > 0
        ? await this.runInSequence(runRequest, request.label, after)
        : { run: await steps.act(request.label, () => runJob(steps.device, runRequest)), after: [] };
    const roundTripMs = steps.ctx.clock.monotonic() - sentAt;
    const evidence = [`$ ${started.command.join(' ')} → ${(started.stdout + started.stderr).trim()} (exit ${started.exitCode})`];
    if (started.result.kind !== 'running') return { kind: 'refused', deviceTime, sent: true, evidence };
    return { kind: 'running', deviceTime, evidence, afterSend, settle: (run, logFrom) => this.awaitEnd(`run ${run}`, logFrom, job, Math.min(Math.max(FIRST_POLL_MS, roundTripMs), MAX_POLL_MS)) };
  }

  /** `cmd jobscheduler run`, after the set of the clock that waits for it, then the read-only commands `after` (results: as many as ran). */
  private async runInSequence(request: RunJobRequest, label: ActionLabel, after: readonly (readonly string[])[]): Promise<{ run: RunJobOutcome; after: ShellResult[] }> {
    const argv = runJobCommand(request);
    const [run, ...rest] = await this.steps.actInSequence([{ label, argv }, ...after.map((command) => ({ label: { readOnly: true }, argv: command }))]);
    if (run === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
    return { run: runJobOutcome(argv, run), after: rest };
  }

  private isResult(line: ObservedLine): boolean {
    return this.resultLine !== undefined && this.resultLine.test(line.message);
  }

  private lineEnd(line: ObservedLine): RunEnd {
    const outcome = this.resultLine?.exec(line.message)?.groups?.['outcome'];
    return { outcome: outcome === 'retry' || outcome === 'failure' ? outcome : 'success', from: 'result-line' };
  }

  /**
   * The end of a run of `before` (the job as listed before the run): the app's result line, or,
   * when none has come by the time JobScheduler has the job neither pending nor active, the job
   * as listed then: one more failure is a retry (jobFinished(params, true)), else the run ended
   * without asking for one (success or failure: `finished`). The deadline is timeouts.runMs.
   */
  private async awaitEnd(what: string, logFrom: number, before: JobEntry | null, firstPollMs: number): Promise<RunEnd> {
    const { observer, clock } = this.steps.ctx;
    const { runMs, commandMs } = this.steps.config.timeouts;
    const deadline = clock.monotonic() + runMs;
    const line = this.resultLine === undefined
      ? new Promise<{ kind: 'timeout' }>(() => undefined)
      : observer.waitFor(logFrom, (l) => this.isResult(l), runMs, `the result line of ${what}`).then(
          (l) => ({ kind: 'line' as const, l }),
          () => ({ kind: 'timeout' as const }),
        );
    let delayMs = firstPollMs;
    for (;;) {
      const waited = await Promise.race([line, delay(delayMs).then(() => ({ kind: 'poll' as const }))]);
      if (waited.kind === 'line') return this.lineEnd(waited.l);
      if (waited.kind === 'poll') {
        const ref = before ?? this.select(this.lastRead?.jobs ?? []);
        // A sync marker goes with the question: a job let go is then judged on every line logged
        // until the answer, with no round trip more.
        const marker = observer.marker();
        const poll = ref === null ? observer.sync(commandMs).then(() => false) : this.jobBusy(ref, marker.read);
        this.steps.inFlight.push(poll.catch(() => undefined));
        const busy = await Promise.race([poll, line]);
        if (typeof busy === 'object' && busy.kind === 'line') return this.lineEnd(busy.l);
        if (busy === false) {
          if (ref !== null) await marker.arrived(commandMs);
          const late = observer.since(logFrom).find((l) => this.isResult(l));
          if (late !== undefined) return this.lineEnd(late);
          return this.endFromJob(before);
        }
      }
      if (clock.monotonic() > deadline) {
        throw new TimeoutError(`${what}: JobScheduler kept ${this.jobText} of ${this.pkg} pending or active for ${runMs} ms${this.resultLine !== undefined ? ' and no line matched work.resultLine' : ''}. Raise timeouts.runMs in the config if the app's job takes longer.`, runMs);
      }
      delayMs = Math.min(delayMs * 2, MAX_POLL_MS);
    }
  }

  /** The outcome JobScheduler shows once it let the job go (see awaitEnd). */
  private async endFromJob(before: JobEntry | null): Promise<RunEnd> {
    const after = this.select((await this.readJobs()).jobs);
    const was = before === null ? 0 : jobFailures(before);
    const now = after === null ? null : jobFailures(after);
    const seen = `${this.resultLine !== undefined ? 'no line matched work.resultLine; ' : ''}JobScheduler let ${this.jobText} go`;
    if (now === null) return { outcome: 'finished', from: JOB_STATE, evidence: `${seen}, and it is no longer registered` };
    if (now > was) return { outcome: 'retry', from: JOB_STATE, evidence: `${seen} with Num failures ${was} → ${now}: rescheduled with its backoff (jobFinished(params, true))` };
    return { outcome: 'finished', from: JOB_STATE, evidence: `${seen} with Num failures ${was} → ${now}: no retry asked (success or failure)` };
  }

  /** Whether JobScheduler still has the job pending or running; undefined when it cannot say. `also`: reads sent with the question. */
  private async jobBusy(job: JobEntry, ...also: ShellRead<unknown>[]): Promise<boolean | undefined> {
    const state = await getJobStateWith(this.steps.device, { pkg: this.pkg, id: job.jobId, namespace: job.namespace }, also);
    if (state.kind !== 'known') return state.reason === 'no-job' ? false : undefined;
    return state.states.includes('active') || state.states.includes('pending');
  }

  isRunEndLine(line: ObservedLine): boolean {
    return this.isResult(line);
  }

  awaitUnforcedEnd(seen: { readonly journal: number; readonly log: number }): Promise<RunEnd> {
    const last = this.lastRead;
    const before = last !== undefined && last.journal <= seen.journal ? this.select(last.jobs) : null;
    return this.awaitEnd('a run the device started by itself', seen.log, before, FIRST_POLL_MS);
  }

  /**
   * The app schedules its job when its process starts (Feeder: in Application.onCreate);
   * JobScheduler logs a schedule only at DEBUG, so the job list is polled, backing off.
   */
  async waitForSchedule(): Promise<void> {
    const { config } = this.steps;
    await pollForSchedule(
      this.steps,
      async () => {
        const read = await this.readJobs(this.store.unprimed).catch(() => undefined);
        return read !== undefined && this.select(read.jobs) !== null;
      },
      `${this.pkg} did not schedule ${this.jobText} within ${config.timeouts.runMs} ms of starting (not in dumpsys jobscheduler ${this.pkg}). Check work.jobId, work.jobService and work.jobNamespace in the config.`,
    );
  }

  /** The app's jobs (one shell invocation; with the dedup table's keys before the scenario primes them). */
  private async readJobs(withKeys = false): Promise<JobRead> {
    const steps = this.steps;
    const changes = steps.changesSent();
    const journal = steps.ctx.server.journal().length;
    if (withKeys) {
      const [jobs, keys] = await steps.read([jobListRead(this.pkg), this.store.keysRead()]);
      this.store.readWithStart(keys, { changes, journal });
      this.lastRead = { jobs, at: steps.deviceTimeEstimate(), changes, journal };
    } else {
      const [jobs] = await steps.read([jobListRead(this.pkg)]);
      this.lastRead = { jobs, at: steps.deviceTimeEstimate(), changes, journal };
    }
    return this.lastRead;
  }

  private async currentJobs(): Promise<JobRead> {
    const last = this.lastRead;
    if (last !== undefined && this.steps.stillHolds(last)) return last;
    return this.readJobs();
  }

  async readWithState<T>(read: ShellRead<T>): Promise<T> {
    const steps = this.steps;
    const changes = steps.changesSent();
    const journal = steps.ctx.server.journal().length;
    const [value, jobs] = await steps.read([read, jobListRead(this.pkg)]);
    this.lastRead = { jobs, at: steps.deviceTimeEstimate(), changes, journal };
    return value;
  }

  /**
   * A periodic job as the ScheduledSpec the scenarios and checks read. Its id is the job's unique
   * id and the JobStatus's identity hash (`#u0a190/2 5e6f7a8`): scheduling the same job id again
   * replaces the JobStatus, so a replaced job reads as another spec, as WorkManager's REPLACE
   * gives another WorkSpec id (the unique-work property's schedule-reset).
   */
  private specOf(job: JobEntry, at: number): ScheduledSpec | undefined {
    const period = jobPeriod(job);
    if (period === null) return undefined;
    const enqueued = jobEnqueueOffset(job);
    return {
      id: `${job.namespace === null ? '#' : `${job.namespace}:`}${job.uidText}/${job.jobId} ${job.identityHash}`,
      state: WorkState.ENQUEUED,
      workerClassName: serviceOf(job, this.pkg) ?? job.batteryName,
      initialDelay: 0,
      intervalDuration: period.intervalMs,
      flexDuration: period.flexMs,
      runAttemptCount: jobFailures(job),
      backoffPolicy: 0,
      backoffDelayDuration: 0,
      lastEnqueueTime: enqueued === null ? 0 : at + enqueued,
      periodCount: 0,
      generation: 0,
      nextScheduleTimeOverride: null,
      systemId: job.jobId,
    };
  }

  async readWork(label?: string): Promise<WorkSnapshot> {
    const { jobs, at } = await this.readJobs();
    const named = this.matching(jobs).flatMap((job) => this.specOf(job, at) ?? []);
    const service = this.work.jobService ?? (named[0]?.workerClassName);
    const ofService = jobsOfPackage(jobs, this.pkg).filter((job) => service !== undefined && serviceOf(job, this.pkg) === service).flatMap((job) => this.specOf(job, at) ?? []);
    const work: WorkSnapshot = { namedSpecs: named, workerSpecs: ofService, primary: named[0] };
    this.steps.record({
      type: 'schedule',
      t: this.steps.deviceTimeEstimate(),
      ...(label !== undefined ? { label } : {}),
      scheduler: 'jobscheduler',
      uniqueName: this.jobText,
      ...(service !== undefined ? { workerClass: service } : {}),
      specs: scheduleSpecs(work),
      primary: work.primary?.id ?? null,
    });
    return work;
  }
}
