/**
 * JobSchedulerService: the registered jobs of every app, their timing on the elapsed-realtime
 * clock, execution through the app's JobService, reschedule with backoff, cancellation on
 * force-stop, and the shell/dump entry points.
 *
 * Sources (frameworks/base apex/jobscheduler/service/java/com/android/server/job/):
 * - JobSchedulerService.java @f4cdb430 (executeRunCommand, getJobState, ACTION_PACKAGE_RESTARTED
 *   -> cancelJobsForPackageAndUidLocked "app force stopped", dumpInternal "Registered N jobs:",
 *   getRescheduleJobForFailureLocked: backoff = initial (min 10 s) * attempts (LINEAR) or
 *   * 2^(attempts-1) (EXPONENTIAL), capped at JobInfo.MAX_BACKOFF_DELAY_MILLIS = 5 h)
 * - controllers/JobStatus.java @054fcdf7 (printUniqueId `#u0a190/42` or `ns:u0a190/42`,
 *   batteryName `@ns@` prefix, wakelock tag "*job*" + "/" + batteryName, toShortStringExceptUniqueId)
 * - JobServiceContext.java (a job whose process dies is finished with needsReschedule=true)
 * - Namespaces only from API 34 (JobSchedulerShellCommand.java @01a7983f has `-n`; the Android 11
 *   one, @150a9240 below, has none); timing constraints use elapsed realtime
 *   (JobStatus.createFromJobInfo @054fcdf7: sElapsedRealtimeClock).
 * - API 30: Ankits-lab/frameworks_base (same paths) @150a9240 (Android 11): the same
 *   executeRunCommand override logic and executeCancelCommand texts without namespaces;
 *   dumpInternal prints `  None.` only when no job is registered and nothing under
 *   `Pending queue:` when it is empty, and its package filter skips only the details: the
 *   `  JOB #…` line of every registered job is printed before `if (!predicate.test(job))
 *   continue;`. From Android 12 the test comes first, so a filtered dump has only the package's
 *   JOB lines and `None.` when none matched (CAF-MOD/platform_frameworks_base @447be57b, an
 *   Android 12 tree: expedited-job constants, no TARE; aosp-mirror @00e2e631, an Android 13
 *   development tree; aosp-mirror @f4cdb430). Every release sorts the jobs by calling uid, then
 *   job id (sortJobs), and the predicate compares app ids (UserHandle.getAppId) of the calling
 *   and the source uid.
 *
 * Periodic jobs (JobInfo.Builder.setPeriodic, as apps scheduling JobScheduler directly use it):
 * JobStatus.createFromJobInfo makes the window latest = now + interval, earliest = latest - flex
 * (a TIMING_DELAY constraint); when the job finishes without asking for a reschedule,
 * JobSchedulerService.getRescheduleJobForPeriodic puts a new window in its place: latest = now
 * + runEarly + interval (runEarly: what was left of the old window), earliest = latest - flex;
 * jobFinished(params, true) is the failure backoff as for any job; `cmd jobscheduler run -f`
 * leaves a periodic job registered. JobStatus.dump prints `PERIODIC: interval=… flex=…` and
 * `PERSISTED` under JobInfo (@054fcdf7 JobStatus.dump).
 *
 * Constraints (JobStatus @054fcdf7): isConstraintsSatisfied() is true for OVERRIDE_FULL; for
 * OVERRIDE_SOFT the required constraints in SOFT_OVERRIDE_CONSTRAINTS (CHARGING, BATTERY_NOT_LOW,
 * STORAGE_NOT_LOW, TIMING_DELAY, IDLE, PREFETCH, FLEXIBLE) count as satisfied; OVERRIDE_SORTING and
 * OVERRIDE_NONE need every required constraint satisfied. The model has no battery, storage,
 * idle or network state, and no source gives an emulator's defaults for them, so a job that
 * requires charging, battery-not-low, storage-not-low, device idle or a network never has that
 * constraint satisfied: it runs only when forced (`run -f`), or, for the soft ones, with the
 * default soft override (`run` without -s).
 */
import type { JobInfoSpec, JobParameters } from './app-framework.js';
import { JobBackoffPolicy } from './app-framework.js';
import { flattenToShortString } from './intent.js';
import { appIdOf, formatDuration, formatUid, integerToHexString } from './java-lang.js';
import type { SystemLog } from './system-log.js';
import { LogPriority } from '../types.js';

export const CMD_ERR_NO_PACKAGE = -1000;
export const CMD_ERR_NO_JOB = -1001;
export const CMD_ERR_CONSTRAINTS = -1002;

/** JobStatus.OVERRIDE_* (`cmd jobscheduler run`: -f FULL, -s SORTING, neither SOFT). */
export const JobOverride = { NONE: 0, SORTING: 1, SOFT: 2, FULL: 3 } as const;
export type JobOverride = (typeof JobOverride)[keyof typeof JobOverride];

/** The JobStatus.CONSTRAINT_* the model tracks (model-internal bit values; never printed). */
export const JobConstraint = { CHARGING: 1, BATTERY_NOT_LOW: 2, STORAGE_NOT_LOW: 4, IDLE: 8, TIMING_DELAY: 16, CONNECTIVITY: 32 } as const;

/** JobStatus.SOFT_OVERRIDE_CONSTRAINTS (the tracked part): everything but connectivity. */
const SOFT_OVERRIDE_CONSTRAINTS = JobConstraint.CHARGING | JobConstraint.BATTERY_NOT_LOW | JobConstraint.STORAGE_NOT_LOW | JobConstraint.TIMING_DELAY | JobConstraint.IDLE;
const MIN_BACKOFF_MS = 10_000;
const MAX_BACKOFF_DELAY_MS = 5 * 60 * 60 * 1000;
/** JobStatus.NO_EARLIEST_RUNTIME: a job that may run as soon as its other constraints allow. */
const NO_EARLIEST_RUNTIME = 0;

interface JobExecution {
  readonly startElapsed: number;
  readonly params: JobParameters;
  readonly pid: number;
  finished: boolean;
}

export class JobStatus {
  /**
   * System.identityHashCode of the JobStatus. AOSP replaces a rescheduled job by a new JobStatus
   * (getRescheduleJobForFailureLocked and getRescheduleJobForPeriodic return `new JobStatus(…)`);
   * the model keeps one object and gives it a new identity then, so the dump shows what Android's does.
   */
  identityHash: number;
  readonly callingUid: number;
  readonly sourcePackage: string;
  readonly namespace: string | null;
  readonly job: JobInfoSpec;
  readonly enqueueElapsed: number;
  earliestRunElapsed: number;
  /** A periodic job's deadline (the end of its window); undefined for the others. */
  latestRunElapsed: number | undefined;
  numFailures: number;
  execution: JobExecution | undefined;
  removed = false;
  /** Set by `cmd jobscheduler run` (JobStatus.overrideState); cleared when the job starts. */
  overrideState: JobOverride = JobOverride.NONE;

  constructor(args: { identityHash: number; callingUid: number; sourcePackage: string; namespace: string | null; job: JobInfoSpec; enqueueElapsed: number; earliestRunElapsed: number; numFailures: number }) {
    this.identityHash = args.identityHash;
    this.callingUid = args.callingUid;
    this.sourcePackage = args.sourcePackage;
    this.namespace = args.namespace;
    this.job = args.job;
    this.enqueueElapsed = args.enqueueElapsed;
    this.earliestRunElapsed = args.earliestRunElapsed;
    this.latestRunElapsed = args.job.periodic === undefined ? undefined : args.enqueueElapsed + args.job.periodic.intervalMs;
    this.numFailures = args.numFailures;
  }

  get active(): boolean {
    return this.execution !== undefined && !this.execution.finished;
  }

  /** JobStatus.printUniqueId: `ns:u0a190/7` with a namespace, `#u0a190/7` without. */
  uniqueId(): string {
    return `${this.namespace === null ? '#' : `${this.namespace}:`}${formatUid(this.callingUid)}/${this.job.id}`;
  }

  /** JobStatus.batteryName: `@ns@` + the service's short component name. */
  batteryName(): string {
    const ns = this.namespace === null ? '' : `@${this.namespace}@`;
    return ns + flattenToShortString(this.job.service);
  }

  /** toShortStringExceptUniqueId: identity hash in hex, then the battery name. */
  shortStringExceptUniqueId(): string {
    return `${integerToHexString(this.identityHash)} ${this.batteryName()}`;
  }

  /** The constraints the job requires (JobStatus.requiredConstraints, the tracked bits). */
  requiredConstraints(): number {
    const j = this.job;
    let c = 0;
    if (j.requiresCharging) c |= JobConstraint.CHARGING;
    if (j.requiresBatteryNotLow) c |= JobConstraint.BATTERY_NOT_LOW;
    if (j.requiresStorageNotLow) c |= JobConstraint.STORAGE_NOT_LOW;
    if (j.requiresDeviceIdle) c |= JobConstraint.IDLE;
    if (j.requiredNetworkType !== 0) c |= JobConstraint.CONNECTIVITY;
    // JobStatus's constructor adds CONSTRAINT_TIMING_DELAY whenever earliestRunTimeElapsedMillis is
    // not NO_EARLIEST_RUNTIME (0): a periodic job, a job with a minimum latency, and a job
    // rescheduled for a failure with its backoff (AOSP frameworks/base
    // apex/jobscheduler/service/java/com/android/server/job/controllers/JobStatus.java, the
    // constructor and getRescheduleJobForFailureLocked in JobSchedulerService.java).
    if (this.earliestRunElapsed !== NO_EARLIEST_RUNTIME) c |= JobConstraint.TIMING_DELAY;
    return c;
  }

  /**
   * The constraints satisfied now: the timing delay once its time has come. Charging, battery,
   * storage, idle and connectivity are never satisfied (the model has no such device state).
   */
  satisfiedConstraints(nowElapsed: number): number {
    // TimeController tracks only jobs with a timing delay or a deadline (maybeStartTrackingJobLocked).
    if (this.earliestRunElapsed === NO_EARLIEST_RUNTIME) return 0;
    return nowElapsed >= this.earliestRunElapsed ? JobConstraint.TIMING_DELAY : 0;
  }

  /** JobStatus.isConstraintsSatisfied with the current overrideState. */
  isConstraintsSatisfied(nowElapsed: number): boolean {
    if (this.overrideState === JobOverride.FULL) return true;
    const required = this.requiredConstraints();
    let sat = this.satisfiedConstraints(nowElapsed);
    if (this.overrideState === JobOverride.SOFT) sat |= required & SOFT_OVERRIDE_CONSTRAINTS;
    return (sat & required) === required;
  }
}

export interface JobSchedulerDeps {
  readonly log: SystemLog;
  readonly apiLevel: number;
  elapsedRealtime(): number;
  now(): number;
  nextIdentityHash(): number;
  /** The uid of an installed package, or undefined. */
  packageUid(pkg: string): number | undefined;
  /**
   * Binds the job's service: starts the app process if needed and calls JobService.onStartJob.
   * Resolves with the process pid and whether the job continues (onStartJob's return value).
   */
  startJob(js: JobStatus, params: JobParameters): Promise<{ pid: number; continues: boolean } | undefined>;
  /** JobService.onStopJob in the app process. */
  stopJob(js: JobStatus, params: JobParameters): void;
}

export class JobSchedulerService {
  private readonly deps: JobSchedulerDeps;
  private readonly jobs: JobStatus[] = [];
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  private evaluating = false;

  constructor(deps: JobSchedulerDeps) {
    this.deps = deps;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  all(): readonly JobStatus[] {
    return this.jobs;
  }

  find(uid: number, namespace: string | null, jobId: number): JobStatus | undefined {
    return this.jobs.find((j) => j.callingUid === uid && j.namespace === namespace && j.job.id === jobId);
  }

  /** JobScheduler.schedule: replaces a job with the same id in the same namespace. */
  schedule(uid: number, pkg: string, namespace: string | null, job: JobInfoSpec): number {
    const existing = this.find(uid, namespace, job.id);
    if (existing !== undefined) this.remove(existing, true);
    const now = this.deps.elapsedRealtime();
    this.jobs.push(
      new JobStatus({
        identityHash: this.deps.nextIdentityHash(),
        callingUid: uid,
        sourcePackage: pkg,
        namespace,
        job,
        enqueueElapsed: now,
        // JobStatus.createFromJobInfo: a one-off job without a minimum latency has no earliest run time.
        earliestRunElapsed: job.periodic !== undefined ? now + job.periodic.intervalMs - job.periodic.flexMs : job.minLatencyMs > 0 ? now + job.minLatencyMs : NO_EARLIEST_RUNTIME,
        numFailures: 0,
      }),
    );
    this.kick();
    return 1;
  }

  cancel(uid: number, namespace: string | null, jobId: number): void {
    const js = this.find(uid, namespace, jobId);
    if (js !== undefined) this.remove(js, true);
  }

  /** cancelAll() on a JobScheduler (its namespace) or cancelInAllNamespaces() (`allNamespaces`). */
  cancelAll(uid: number, namespace: string | null, allNamespaces = false): void {
    for (const js of this.jobs.filter((j) => j.callingUid === uid && (allNamespaces || j.namespace === namespace))) this.remove(js, true);
  }

  pendingJobs(uid: number, namespace: string | null): JobInfoSpec[] {
    return this.jobs.filter((j) => j.callingUid === uid && j.namespace === namespace).map((j) => j.job);
  }

  /** ACTION_PACKAGE_RESTARTED (force-stop) and data clear: every job of the package goes. */
  cancelJobsForPackage(pkg: string, reason: string): void {
    const uid = this.deps.packageUid(pkg);
    const doomed = this.jobs.filter((j) => j.sourcePackage === pkg || j.callingUid === uid);
    if (doomed.length > 0) this.deps.log.slog(LogPriority.D, 'JobScheduler', `Removing jobs for pkg ${pkg} at uid ${uid ?? -1}: ${reason}`);
    for (const js of doomed) this.remove(js, false);
  }

  private remove(js: JobStatus, stopIfActive: boolean): void {
    const i = this.jobs.indexOf(js);
    if (i >= 0) this.jobs.splice(i, 1);
    js.removed = true;
    if (js.active && js.execution !== undefined) {
      js.execution.finished = true;
      if (stopIfActive) this.deps.stopJob(js, js.execution.params);
    }
  }

  /** The app process of `uid` died: its running jobs end and are rescheduled with backoff. */
  onProcessDied(uid: number): void {
    for (const js of this.jobs.filter((j) => j.callingUid === uid && j.active)) {
      if (js.execution !== undefined) js.execution.finished = true;
      js.execution = undefined;
      this.rescheduleForFailure(js);
    }
    this.kick();
  }

  private rescheduleForFailure(js: JobStatus): void {
    js.numFailures += 1;
    const initial = Math.max(js.job.initialBackoffMs, MIN_BACKOFF_MS);
    const delay = js.job.backoffPolicy === JobBackoffPolicy.LINEAR ? initial * js.numFailures : Math.trunc(initial * Math.pow(2, js.numFailures - 1));
    js.earliestRunElapsed = this.deps.elapsedRealtime() + Math.min(delay, MAX_BACKOFF_DELAY_MS);
    js.overrideState = JobOverride.NONE;
    js.identityHash = this.deps.nextIdentityHash();
  }

  /** getRescheduleJobForPeriodic: the next window of a periodic job that ran to its end. */
  private rescheduleForPeriodic(js: JobStatus): void {
    const periodic = js.job.periodic;
    if (periodic === undefined) return;
    const now = this.deps.elapsedRealtime();
    const latest = js.latestRunElapsed ?? now;
    const runEarly = Math.max(latest - now, 0);
    const newLatest = now + runEarly + periodic.intervalMs;
    js.latestRunElapsed = newLatest;
    js.earliestRunElapsed = newLatest - periodic.flexMs;
    js.numFailures = 0;
    js.overrideState = JobOverride.NONE;
    js.identityHash = this.deps.nextIdentityHash();
  }

  /** JobService.jobFinished(params, needsReschedule). */
  private jobFinished(js: JobStatus, execution: JobExecution, needsReschedule: boolean): void {
    if (execution.finished) return;
    execution.finished = true;
    if (js.execution === execution) js.execution = undefined;
    if (js.removed) return;
    if (needsReschedule) this.rescheduleForFailure(js);
    else if (js.job.periodic !== undefined) this.rescheduleForPeriodic(js);
    else this.remove(js, false);
    this.kick();
  }

  /** True when the job may run now: not running and its constraints satisfied (or overridden). */
  private isReady(js: JobStatus, nowElapsed: number): boolean {
    if (js.active || js.removed) return false;
    return js.isConstraintsSatisfied(nowElapsed);
  }

  /** Schedules an evaluation of ready jobs on the next turn of the event loop. */
  private kick(): void {
    if (this.disposed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.evaluate(), 0);
    this.timer.unref();
  }

  private evaluate(): void {
    this.timer = undefined;
    if (this.disposed || this.evaluating) return;
    this.evaluating = true;
    try {
      const now = this.deps.elapsedRealtime();
      for (const js of [...this.jobs]) if (this.isReady(js, now)) this.execute(js);
      // Only the timing delay changes by itself; a job waiting on anything else waits for good.
      const waiting = this.jobs.filter((j) => !j.active && !j.removed && (j.requiredConstraints() & ~JobConstraint.TIMING_DELAY) === 0 && j.earliestRunElapsed > now);
      if (waiting.length > 0) {
        const next = Math.min(...waiting.map((j) => j.earliestRunElapsed));
        const delay = Math.min(Math.max(next - this.deps.elapsedRealtime(), 0), 2 ** 31 - 1);
        this.timer = setTimeout(() => this.evaluate(), delay);
        this.timer.unref();
      }
    } finally {
      this.evaluating = false;
    }
  }

  private execute(js: JobStatus): void {
    js.overrideState = JobOverride.NONE;
    const params: JobParameters = {
      jobId: js.job.id,
      namespace: js.namespace,
      extras: js.job.extras,
      jobFinished: (needsReschedule: boolean) => {
        if (execution !== undefined) this.jobFinished(js, execution, needsReschedule);
      },
    };
    let execution: JobExecution | undefined;
    const placeholder: JobExecution = { startElapsed: this.deps.elapsedRealtime(), params, pid: 0, finished: false };
    js.execution = placeholder;
    execution = placeholder;
    this.deps.startJob(js, params).then(
      (started) => {
        if (started === undefined) {
          // The service could not be bound (package gone): the job is dropped.
          if (!placeholder.finished) this.jobFinished(js, placeholder, false);
          return;
        }
        execution = { ...placeholder, pid: started.pid };
        if (placeholder.finished) {
          execution.finished = true;
          return;
        }
        js.execution = execution;
        if (!started.continues) this.jobFinished(js, execution, false);
      },
      () => {
        // The process died while the job was being delivered: JobServiceContext reschedules it.
        if (!placeholder.finished && js.execution === placeholder) {
          placeholder.finished = true;
          js.execution = undefined;
          if (!js.removed) this.rescheduleForFailure(js);
          this.kick();
        }
      },
    );
  }

  /**
   * `cmd jobscheduler run`: executeRunCommand. overrideState = force ? FULL : (satisfied ?
   * SORTING : SOFT); when the constraints are still not satisfied the override is dropped and the
   * result is CMD_ERR_CONSTRAINTS. (@f4cdb430 first waits up to about 6 s for a connectivity
   * signal when only connectivity is missing; API 30 @150a9240 does not. The model has no network
   * state to wait for and answers at once.)
   */
  runCommand(pkg: string, userId: number, namespace: string | null, jobId: number, satisfied: boolean, force: boolean): number {
    const uid = this.deps.packageUid(pkg);
    const nsText = this.deps.apiLevel >= 34 ? `${namespace ?? 'null'}/` : '';
    this.deps.log.slog(LogPriority.D, 'JobScheduler', `executeRunCommand(): ${pkg}/${nsText}${userId} ${jobId} s=${String(satisfied)} f=${String(force)}`);
    if (uid === undefined || userId !== 0) return CMD_ERR_NO_PACKAGE;
    const js = this.find(uid, namespace, jobId);
    if (js === undefined) return CMD_ERR_NO_JOB;
    js.overrideState = force ? JobOverride.FULL : satisfied ? JobOverride.SORTING : JobOverride.SOFT;
    if (!js.isConstraintsSatisfied(this.deps.elapsedRealtime())) {
      js.overrideState = JobOverride.NONE;
      return CMD_ERR_CONSTRAINTS;
    }
    // queueReadyJobsForExecutionLocked + maybeRunPendingJobsLocked: a running job stays as it is.
    if (!js.active) this.kick();
    return 0;
  }

  /** `cmd jobscheduler get-job-state`: the text and the return code. */
  jobState(pkg: string, userId: number, namespace: string | null, jobId: number): { out: string; code: number } {
    const uid = this.deps.packageUid(pkg);
    if (uid === undefined || userId !== 0) return { out: `unknown(${pkg})\n`, code: CMD_ERR_NO_PACKAGE };
    const js = this.find(uid, namespace, jobId);
    if (js === undefined) return { out: `unknown(${formatUid(uid)}/jid${jobId})\n`, code: CMD_ERR_NO_JOB };
    let out = '';
    let printed = false;
    const pending = this.isReady(js, this.deps.elapsedRealtime());
    if (pending) {
      out += 'pending';
      printed = true;
    }
    if (js.active) {
      if (printed) out += ' ';
      printed = true;
      out += 'active\n';
    }
    if (pending && !js.active) {
      if (printed) out += ' ';
      out += 'ready\n';
      printed = true;
    }
    if (!printed) out += 'waiting';
    out += '\n';
    return { out, code: 0 };
  }

  /**
   * `cmd jobscheduler cancel [-n NS] PKG [JOB_ID]`: executeCancelCommand (@f4cdb430; API 30
   * @150a9240 has the same texts). An unknown package (Java prints a null name as `null`) is
   * `Package <pkg> not found.` and CMD_ERR_NO_PACKAGE. Without a job id every job the uid
   * scheduled goes, in every namespace (cancelJobsForUid, includeSourceApp=false); with one, the
   * job with that id in the given namespace (cancelJob). Both print the `Canceling …` line first
   * and `No matching job(s) found.` when nothing was cancelled, and return 0. A missing PACKAGE
   * reaches executeCancelCommand as null; the model takes PackageManager's getPackageUid(null) to
   * answer -1 like any unknown name (PackageManagerService itself not checked).
   */
  cancelCommand(pkg: string | null, userId: number, namespace: string | null, jobId: number | undefined): { out: string; code: number } {
    const uid = pkg === null ? undefined : this.deps.packageUid(pkg);
    if (pkg === null || uid === undefined || userId !== 0) return { out: `Package ${pkg ?? 'null'} not found.\n`, code: CMD_ERR_NO_PACKAGE };
    if (jobId === undefined) {
      let out = `Canceling all jobs for ${pkg} in user ${userId}\n`;
      const targets = this.jobs.filter((j) => j.callingUid === uid);
      for (const js of targets) this.remove(js, true);
      if (targets.length === 0) out += 'No matching jobs found.\n';
      return { out, code: 0 };
    }
    let out = `Canceling job ${pkg}/#${jobId} in user ${userId}\n`;
    const js = this.find(uid, namespace, jobId);
    if (js === undefined) out += 'No matching job found.\n';
    else this.remove(js, true);
    return { out, code: 0 };
  }

  /**
   * `dumpsys jobscheduler [PKG]` (dumpInternal; the JOB lines exactly as JobStatus prints them).
   * Jobs in sortJobs order (calling uid, then job id). With a package, the jobs whose calling or
   * source uid has its app id are the package's; on API 30 every job's `  JOB #…` line is printed
   * and only the package's jobs get their details (@150a9240), from API 31 only the package's
   * jobs are printed at all (@447be57b, @f4cdb430). Under `Registered N jobs:` (N counts every
   * registered job) an indented `None.` when no job is printed (API 31+; API 30: when no job is
   * registered); each job's `Restricted due to: none.` line before `Ready:` (no JobRestriction
   * is modelled, so checkIfRestricted is always null); under `Pending queue:` an indented `None`
   * when no job of the package is pending (API 31+; API 30 prints nothing there). The pending
   * entries themselves (`Pending #N: ` + JobStatus.dump) are not modelled.
   */
  dump(filterUid: number | undefined): string {
    const nowElapsed = this.deps.elapsedRealtime();
    const newDump = this.deps.apiLevel >= 31;
    const lines: string[] = [];
    lines.push('Started users: [0]');
    const sorted = [...this.jobs].sort((a, b) => a.callingUid - b.callingUid || a.job.id - b.job.id);
    const matches = (js: JobStatus): boolean => {
      if (filterUid === undefined) return true;
      const sourceUid = this.deps.packageUid(js.sourcePackage) ?? js.callingUid;
      return appIdOf(js.callingUid) === appIdOf(filterUid) || appIdOf(sourceUid) === appIdOf(filterUid);
    };
    const shown = sorted.filter(matches);
    lines.push(`Registered ${this.jobs.length} jobs:`);
    if (newDump ? shown.length === 0 : this.jobs.length === 0) lines.push('  None.');
    for (const js of newDump ? shown : sorted) {
      const j = js.job;
      lines.push(`  JOB ${js.uniqueId()}: ${js.shortStringExceptUniqueId()}`);
      if (!matches(js)) continue;
      lines.push(`    ${formatUid(js.callingUid)} tag=*job*/${js.batteryName()}`);
      lines.push(`    Source: uid=${formatUid(js.callingUid)} user=0 pkg=${js.sourcePackage}`);
      lines.push('    JobInfo:');
      lines.push(`      Service: ${flattenToShortString(j.service)}`);
      if (j.periodic !== undefined) lines.push(`      PERIODIC: interval=${formatDuration(j.periodic.intervalMs)} flex=${formatDuration(j.periodic.flexMs)}`);
      if (j.periodic !== undefined && j.persisted) lines.push('      PERSISTED');
      lines.push(`      Requires: charging=${String(j.requiresCharging)} batteryNotLow=${String(j.requiresBatteryNotLow)} deviceIdle=${String(j.requiresDeviceIdle)}`);
      if (j.minLatencyMs > 0) lines.push(`      Minimum latency: ${formatDuration(j.minLatencyMs)}`);
      lines.push(`      Backoff: policy=${j.backoffPolicy} initial=${formatDuration(j.initialBackoffMs)}`);
      if (j.minLatencyMs > 0) lines.push('      Has early constraint');
      lines.push(`    Required constraints:${(js.requiredConstraints() & JobConstraint.TIMING_DELAY) !== 0 ? ' TIMING_DELAY' : ''}`);
      lines.push(`    Satisfied constraints:${(js.satisfiedConstraints(nowElapsed) & JobConstraint.TIMING_DELAY) !== 0 ? ' TIMING_DELAY' : ''}`);
      lines.push(`    Standby bucket: ACTIVE`);
      lines.push(`    Enqueue time: ${formatDuration(js.enqueueElapsed - nowElapsed)}`);
      const latest = js.latestRunElapsed === undefined ? 'none' : formatDuration(js.latestRunElapsed - nowElapsed);
      lines.push(`    Run time: earliest=${js.earliestRunElapsed > js.enqueueElapsed || js.job.periodic !== undefined ? formatDuration(js.earliestRunElapsed - nowElapsed) : 'none'}, latest=${latest}, original latest=${latest}`);
      if (js.numFailures > 0) lines.push(`    Num failures: ${js.numFailures}`);
      lines.push('    Restricted due to: none.');
      lines.push(`    Ready: ${String(this.isReady(js, nowElapsed))} (job=${String(this.isReady(js, nowElapsed))} user=true !restricted=true !pending=true !active=${String(!js.active)} !backingup=true comp=true)`);
    }
    lines.push('');
    lines.push('Pending queue:');
    const pending = shown.filter((j) => this.isReady(j, nowElapsed));
    if (newDump && pending.length === 0) lines.push('  None');
    lines.push('');
    lines.push('Active jobs:');
    // API 30 lists every running job whatever the package (@150a9240 prints each slot of
    // mActiveServices); API 31+ skips the other packages' (@447be57b). The slot line is the model's.
    this.jobs
      .filter((j) => j.active && (!newDump || matches(j)))
      .forEach((js, i) => {
        lines.push(`  Slot #${i}(ID=${i}): JOB ${js.uniqueId()}: ${js.shortStringExceptUniqueId()}`);
        lines.push(`    Running for: ${formatDuration(nowElapsed - (js.execution?.startElapsed ?? nowElapsed))}, timeout at: ${formatDuration((js.execution?.startElapsed ?? nowElapsed) + 600_000 - nowElapsed)}`);
      });
    return lines.map((l) => `${l}\n`).join('');
  }
}
