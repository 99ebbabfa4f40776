/**
 * WorkManager inside an app process: initialization (ForceStopRunnable), enqueueing (unique and
 * plain), scheduling through JobScheduler (SystemJobScheduler), executing jobs
 * (SystemJobService -> Processor -> WorkerWrapper) and the diagnostics receiver.
 *
 * Sources (androidx/androidx, work/work-runtime/src/main/java/androidx/work/impl/):
 * - utils/ForceStopRunnable.java @187e9a20: cleanUp (reconcileJobs, RUNNING -> ENQUEUED),
 *   isForceStopped (API 30+: ApplicationExitInfo REASON_USER_REQUESTED newer than the
 *   `last_force_stop_ms` preference), "Application was force-stopped, rescheduling." (debug)
 * - WorkManagerImpl.java rescheduleEligibleWork: cancel all jobs, resetScheduledState, schedule
 * - Schedulers.java @051c4525: schedule() (limit 20, markScheduled) and registerRescheduling()
 *   (after an execution: cancel the job, schedule again unless already scheduled). The listener
 *   only posts that work to `executor`, the serial task executor WorkManagerImpl's constructor
 *   passes (`Schedulers.registerRescheduling(schedulers, processor,
 *   taskExecutor.getSerialTaskExecutor(), workDatabase, configuration)`): it runs on
 *   WorkManager's background thread after the result line and after SystemJobService's
 *   jobFinished, so for a moment the WorkSpec has no SystemIdInfo, or an id JobScheduler does
 *   not have yet (SystemJobScheduler.cancel deletes the row, schedule() inserts a new id and then
 *   calls JobScheduler.schedule).
 *   Source: androidx work/work-runtime/src/main/java/androidx/work/impl/Schedulers.kt
 *   (registerRescheduling) and androidx/work/impl/WorkManagerImpl.java.
 * - background/systemjob/SystemJobScheduler.java: job ids from SystemIdInfo or IdGenerator,
 *   cancel() drops SystemIdInfo, reconcileJobs()
 * - background/systemjob/SystemJobInfoConverter.java @ff5f304c: minimum latency =
 *   max(nextRunTime - now, 0), persisted false, extras EXTRA_WORK_SPEC_ID/_GENERATION/IS_PERIODIC
 * - background/systemjob/JobSchedulerExt.kt @a9b06aaf: namespace `androidx.work.systemjobscheduler`
 *   on API 34+
 * - utils/EnqueueRunnable.java, WorkerUpdater.kt: ExistingWorkPolicy KEEP / REPLACE, UPDATE
 * - diagnostics/DiagnosticsReceiver.java, workers/DiagnosticsWorker.kt @29cc3e18
 */
import { randomUUID } from 'node:crypto';
import type { AppContext, AppJobScheduler, JobInfoSpec, JobParameters } from '../../system/app-framework.js';
import { buildJobInfo, ExitReason, JobBackoffPolicy } from '../../system/app-framework.js';
import { isProcessDeath } from '../../system/app-process.js';
import { WORK_DATABASE_NAME, WorkDatabase } from './work-database.js';
import {
  BackoffPolicy,
  calculateNextRunTime,
  deriveTraceTag,
  isFinished,
  isPeriodic,
  newWorkSpec,
  SCHEDULE_NOT_REQUESTED_YET,
  WORK_STATE_NAMES,
  WorkState,
  type WorkSpec,
} from './work-spec.js';
import { WorkerWrapper, type WrapperOutcome } from './worker-wrapper.js';
import { Result, WorkLogger, type ListenableWorker, type WorkerFactory } from './worker.js';

export const WORKMANAGER_NAMESPACE = 'androidx.work.systemjobscheduler';
export const SYSTEM_JOB_SERVICE = 'androidx.work.impl.background.systemjob.SystemJobService';
export const DIAGNOSTICS_RECEIVER = 'androidx.work.impl.diagnostics.DiagnosticsReceiver';
export const DIAGNOSTICS_WORKER = 'androidx.work.impl.workers.DiagnosticsWorker';
export const REQUEST_DIAGNOSTICS_ACTION = 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS';
export const EXTRA_WORK_SPEC_ID = 'EXTRA_WORK_SPEC_ID';
export const EXTRA_WORK_SPEC_GENERATION = 'EXTRA_WORK_SPEC_GENERATION';
export const EXTRA_IS_PERIODIC = 'EXTRA_IS_PERIODIC';
/** Configuration.maxSchedulerLimit default (Scheduler.MIN_SCHEDULER_LIMIT). */
const MAX_SCHEDULER_LIMIT = 20;

const TAG_FORCE_STOP = WorkLogger.tag('ForceStopRunnable');
const TAG_SCHEDULER = WorkLogger.tag('SystemJobScheduler');
const TAG_JOB_SERVICE = WorkLogger.tag('SystemJobService');
const TAG_PROCESSOR = WorkLogger.tag('Processor');
const TAG_DIAGNOSTICS = WorkLogger.tag('DiagnosticsWrkr');
const TAG_DIAGNOSTICS_RCVR = WorkLogger.tag('DiagnosticsRcvr');

export interface WorkRequest {
  readonly workerClassName: string;
  readonly tags?: readonly string[];
  readonly initialDelayMs?: number;
  readonly backoffPolicy?: BackoffPolicy;
  readonly backoffDelayMs?: number;
}

export interface PeriodicWorkRequest extends WorkRequest {
  readonly intervalMs: number;
  readonly flexMs?: number;
}

/** ExistingPeriodicWorkPolicy. */
export type ExistingPeriodicWorkPolicy = 'KEEP' | 'UPDATE' | 'CANCEL_AND_REENQUEUE';

/** WorkManagerTaskExecutor.getSerialTaskExecutor(): tasks run one at a time, in order, off the caller's stack. */
export interface SerialTaskExecutor {
  execute(task: () => void): void;
}

/** A timer as setTimeout is one: injected so that a spec decides when the task thread runs. */
export type TaskTimer = (run: () => void, delayMs: number) => void;

/** How long after it is posted the task thread takes a task up on the virtual device. */
export const TASK_THREAD_DELAY_MS = 5;

/** A serial executor whose tasks run `delayMs` after the one before ended (or after posting). */
export function serialTaskExecutor(timer: TaskTimer = (run, ms) => void setTimeout(run, ms), delayMs = TASK_THREAD_DELAY_MS): SerialTaskExecutor {
  const queue: (() => void)[] = [];
  let busy = false;
  const next = (): void => {
    const task = queue.shift();
    if (task === undefined) {
      busy = false;
      return;
    }
    timer(() => {
      try {
        task();
      } finally {
        next();
      }
    }, delayMs);
  };
  return {
    execute(task) {
      queue.push(task);
      if (!busy) {
        busy = true;
        next();
      }
    },
  };
}

export interface WorkManagerOptions {
  /** WorkManager's serial task executor (default: serialTaskExecutor() on setTimeout). */
  readonly taskExecutor?: SerialTaskExecutor;
}

interface RunningWork {
  readonly wrapper: WorkerWrapper;
  readonly params: JobParameters | undefined;
}

export class WorkManager {
  private readonly context: AppContext;
  private readonly factory: WorkerFactory;
  readonly logger: WorkLogger;
  readonly db: WorkDatabase;
  /** The JobScheduler WorkManager schedules into (namespaced on API 34+). */
  private readonly jobs: AppJobScheduler;
  private readonly running = new Map<string, RunningWork>();
  private readonly taskExecutor: SerialTaskExecutor;

  private constructor(context: AppContext, factory: WorkerFactory, options: WorkManagerOptions) {
    this.context = context;
    this.taskExecutor = options.taskExecutor ?? serialTaskExecutor(undefined, context.workManagerTaskDelayMs);
    this.logger = new WorkLogger(context, context.workManagerLogLevel);
    this.factory = (className, params) => (className === DIAGNOSTICS_WORKER ? this.createDiagnosticsWorker() : factory(className, params));
    const noBackup = `${context.files.dataDir}/no_backup`;
    context.files.mkdirs(noBackup);
    const dbPath = `${noBackup}/${WORK_DATABASE_NAME}`;
    this.db = WorkDatabase.open(context.files.hostPath(dbPath), context.currentTimeMillis());
    for (const suffix of ['', '-wal', '-shm']) context.files.adopt(dbPath + suffix);
    context.process.onDeath(() => this.db.close());
    this.jobs = context.apiLevel >= 34 ? context.jobScheduler.forNamespace(WORKMANAGER_NAMESPACE) : context.jobScheduler;
  }

  /** WorkManager.initialize: opens the database and runs ForceStopRunnable. */
  static initialize(context: AppContext, factory: WorkerFactory, options: WorkManagerOptions = {}): WorkManager {
    const wm = new WorkManager(context, factory, options);
    wm.forceStopRunnable();
    return wm;
  }

  private now(): number {
    return this.context.currentTimeMillis();
  }

  // ---- ForceStopRunnable -------------------------------------------------------------------

  private forceStopRunnable(): void {
    this.logger.debug(TAG_FORCE_STOP, 'Performing cleanup operations.');
    const needsScheduling = this.cleanUp();
    if (this.db.getPreference('reschedule_needed') === 1) {
      this.logger.debug(TAG_FORCE_STOP, 'Rescheduling Workers.');
      this.rescheduleEligibleWork();
      this.db.setPreference('reschedule_needed', 0);
    } else if (this.isForceStopped()) {
      this.logger.debug(TAG_FORCE_STOP, 'Application was force-stopped, rescheduling.');
      this.rescheduleEligibleWork();
      this.db.setPreference('last_force_stop_ms', this.now());
    } else if (needsScheduling) {
      this.logger.debug(TAG_FORCE_STOP, 'Found unfinished work, scheduling it.');
      this.schedule();
    }
  }

  private cleanUp(): boolean {
    const needsReconciling = this.reconcileJobs();
    return this.db.transaction(() => {
      const runningSpecs = this.db.getRunningWork();
      for (const spec of runningSpecs) {
        this.db.setState(spec.id, WorkState.ENQUEUED);
        this.db.markScheduled(spec.id, SCHEDULE_NOT_REQUESTED_YET);
      }
      this.db.deleteAllProgress();
      return runningSpecs.length > 0 || needsReconciling;
    });
  }

  /** isForceStopped on API 30+: a REASON_USER_REQUESTED exit newer than the stored timestamp. */
  private isForceStopped(): boolean {
    const since = this.db.getPreference('last_force_stop_ms') ?? 0;
    return this.context.historicalProcessExitReasons().some((info) => info.reason === ExitReason.USER_REQUESTED && info.timestamp >= since);
  }

  /** SystemJobScheduler.reconcileJobs. */
  private reconcileJobs(): boolean {
    const pending = this.pendingWorkManagerJobs();
    const jobSpecIds = new Set<string>();
    for (const job of pending) {
      const id = job.extras[EXTRA_WORK_SPEC_ID];
      if (typeof id === 'string' && id !== '') jobSpecIds.add(id);
      else this.jobs.cancel(job.id);
    }
    const known = this.db.getSystemIdWorkSpecIds();
    const needsReconciling = known.some((id) => !jobSpecIds.has(id));
    if (needsReconciling) {
      this.logger.debug(TAG_SCHEDULER, 'Reconciling jobs');
      this.db.transaction(() => {
        for (const id of known) this.db.markScheduled(id, SCHEDULE_NOT_REQUESTED_YET);
      });
    }
    return needsReconciling;
  }

  private pendingWorkManagerJobs(): JobInfoSpec[] {
    return this.jobs.getAllPendingJobs().filter((j) => j.service.className === SYSTEM_JOB_SERVICE && j.service.packageName === this.context.packageName);
  }

  /** WorkManagerImpl.rescheduleEligibleWork. */
  rescheduleEligibleWork(): void {
    if (this.context.apiLevel >= 34) this.jobs.cancelInAllNamespaces();
    else for (const job of this.pendingWorkManagerJobs()) this.jobs.cancel(job.id);
    this.db.resetScheduledState();
    this.schedule();
  }

  // ---- Enqueueing ---------------------------------------------------------------------------

  private buildSpec(request: WorkRequest, periodic?: { intervalMs: number; flexMs: number }): WorkSpec {
    const spec = newWorkSpec(randomUUID(), request.workerClassName);
    spec.initialDelay = request.initialDelayMs ?? 0;
    if (request.backoffPolicy !== undefined) spec.backoffPolicy = request.backoffPolicy;
    if (request.backoffDelayMs !== undefined) spec.backoffDelayDuration = Math.min(Math.max(request.backoffDelayMs, 10_000), 5 * 60 * 60 * 1000);
    if (periodic !== undefined) {
      spec.intervalDuration = Math.max(periodic.intervalMs, 15 * 60 * 1000);
      spec.flexDuration = Math.min(Math.max(periodic.flexMs, 5 * 60 * 1000), spec.intervalDuration);
    }
    spec.traceTag = deriveTraceTag(request.workerClassName);
    return spec;
  }

  private insertNew(spec: WorkSpec, tags: readonly string[], name: string | undefined): void {
    spec.state = WorkState.ENQUEUED;
    spec.lastEnqueueTime = this.now();
    this.db.insertWorkSpec(spec);
    for (const tag of new Set([spec.workerClassName, ...tags])) this.db.insertWorkTag(tag, spec.id);
    if (name !== undefined) this.db.insertWorkName(name, spec.id);
  }

  /** WorkManager.enqueue(request) (plain, no unique name). Returns the new WorkSpec id. */
  enqueue(request: WorkRequest | PeriodicWorkRequest): string {
    const spec = 'intervalMs' in request ? this.buildSpec(request, { intervalMs: request.intervalMs, flexMs: request.flexMs ?? request.intervalMs }) : this.buildSpec(request);
    this.db.transaction(() => this.insertNew(spec, request.tags ?? [], undefined));
    this.schedule();
    return spec.id;
  }

  /** WorkManager.enqueueUniquePeriodicWork(name, policy, request). Returns the WorkSpec id in force. */
  enqueueUniquePeriodicWork(name: string, policy: ExistingPeriodicWorkPolicy, request: PeriodicWorkRequest): string {
    const spec = this.buildSpec(request, { intervalMs: request.intervalMs, flexMs: request.flexMs ?? request.intervalMs });
    const tags = request.tags ?? [];
    switch (policy) {
      case 'KEEP':
      case 'CANCEL_AND_REENQUEUE': {
        const kept = this.db.transaction((): string | undefined => {
          const existing = this.db.getIdAndStatesForName(name);
          if (existing.length > 0) {
            if (policy === 'KEEP') {
              const alive = existing.find((e) => e.state === WorkState.ENQUEUED || e.state === WorkState.RUNNING || e.state === WorkState.BLOCKED);
              if (alive !== undefined) return alive.id;
            }
            for (const e of existing) this.cancelWorkSpec(e.id);
            for (const e of existing) this.db.deleteWorkSpec(e.id);
          }
          this.insertNew(spec, tags, name);
          return undefined;
        });
        if (kept !== undefined) return kept;
        this.schedule();
        return spec.id;
      }
      case 'UPDATE': {
        const existing = this.db.getIdAndStatesForName(name);
        const current = existing[0];
        if (existing.length > 1) return current?.id ?? spec.id;
        if (current === undefined || current.state === WorkState.CANCELLED) {
          this.db.transaction(() => {
            if (current !== undefined) this.db.deleteWorkSpec(current.id);
            this.insertNew(spec, tags, name);
          });
          this.schedule();
          return spec.id;
        }
        this.updateWork(current.id, spec, tags);
        return current.id;
      }
      default: {
        const unreachable: never = policy;
        return unreachable;
      }
    }
  }

  /** WorkerUpdater.updateWorkImpl: same id, new parameters, generation + 1, rescheduled. */
  private updateWork(id: string, next: WorkSpec, tags: readonly string[]): void {
    const old = this.db.getWorkSpec(id);
    if (old === undefined) return;
    this.cancelJobsOf(id);
    this.db.transaction(() => {
      this.db.db
        .prepare(
          'UPDATE workspec SET interval_duration=?, flex_duration=?, initial_delay=?, backoff_policy=?, backoff_delay_duration=?, generation=generation+1, schedule_requested_at=-1 WHERE id=?',
        )
        .run(next.intervalDuration, next.flexDuration, next.initialDelay, next.backoffPolicy, next.backoffDelayDuration, id);
      this.db.db.prepare('DELETE FROM worktag WHERE work_spec_id=?').run(id);
      for (const tag of new Set([old.workerClassName, ...tags])) this.db.insertWorkTag(tag, id);
    });
    if (!this.running.has(id)) this.schedule();
  }

  /** CancelWorkRunnable for one id: CANCELLED when unfinished, job cancelled. */
  private cancelWorkSpec(id: string): void {
    const state = this.db.getState(id);
    if (state !== undefined && !isFinished(state)) this.db.setState(id, WorkState.CANCELLED);
    this.running.get(id)?.wrapper.interrupt(-256);
    this.cancelJobsOf(id);
  }

  // ---- Scheduling ---------------------------------------------------------------------------

  /** Schedulers.schedule: the eligible unscheduled work (limit 20) goes to JobScheduler. */
  schedule(): void {
    const eligible = this.db.transaction(() => {
      const specs = this.db.getEligibleWorkForScheduling(MAX_SCHEDULER_LIMIT);
      const now = this.now();
      for (const s of specs) this.db.markScheduled(s.id, now);
      return specs;
    });
    for (const spec of eligible) this.scheduleSpec(spec.id);
  }

  /** SystemJobScheduler.schedule for one WorkSpec. */
  private scheduleSpec(id: string): void {
    const current = this.db.getWorkSpec(id);
    if (current === undefined) {
      this.logger.warning(TAG_SCHEDULER, `Skipping scheduling ${id} because it's no longer in the DB`);
      return;
    }
    if (current.state !== WorkState.ENQUEUED) {
      this.logger.warning(TAG_SCHEDULER, `Skipping scheduling ${id} because it is no longer enqueued`);
      return;
    }
    const jobId = this.db.transaction(() => {
      const known = this.db.getSystemIdInfo(current.id, current.generation);
      if (known !== undefined) return known;
      const fresh = this.db.nextJobSchedulerId();
      this.db.insertSystemIdInfo(current.id, current.generation, fresh);
      return fresh;
    });
    this.logger.debug(TAG_SCHEDULER, `Scheduling work ID ${current.id}Job ID ${jobId}`);
    this.jobs.schedule(this.convert(current, jobId));
  }

  /** SystemJobInfoConverter.convert. */
  private convert(spec: WorkSpec, jobId: number): JobInfoSpec {
    const offset = Math.max(calculateNextRunTime(spec) - this.now(), 0);
    return buildJobInfo(
      jobId,
      { packageName: this.context.packageName, className: SYSTEM_JOB_SERVICE },
      {
        minLatencyMs: offset,
        backoffPolicy: spec.backoffPolicy === BackoffPolicy.LINEAR ? JobBackoffPolicy.LINEAR : JobBackoffPolicy.EXPONENTIAL,
        initialBackoffMs: spec.backoffDelayDuration,
        extras: { [EXTRA_WORK_SPEC_ID]: spec.id, [EXTRA_WORK_SPEC_GENERATION]: spec.generation, [EXTRA_IS_PERIODIC]: isPeriodic(spec) },
      },
    );
  }

  /** SystemJobScheduler.cancel(workSpecId): cancels its jobs and drops its SystemIdInfo. */
  private cancelJobsOf(workSpecId: string): void {
    const ids = this.pendingWorkManagerJobs()
      .filter((j) => j.extras[EXTRA_WORK_SPEC_ID] === workSpecId)
      .map((j) => j.id);
    if (ids.length === 0) return;
    for (const id of ids) this.jobs.cancel(id);
    this.db.removeSystemIdInfo(workSpecId);
  }

  // ---- Execution (SystemJobService, Processor) -------------------------------------------------

  /** SystemJobService.onStartJob. */
  onStartJob(params: JobParameters): boolean {
    const id = params.extras[EXTRA_WORK_SPEC_ID];
    const generation = params.extras[EXTRA_WORK_SPEC_GENERATION];
    if (typeof id !== 'string') {
      this.logger.error(TAG_JOB_SERVICE, 'WorkSpec id not found!');
      return false;
    }
    if (this.running.has(id)) {
      this.logger.debug(TAG_JOB_SERVICE, `Job is already being executed by SystemJobService: WorkGenerationalId(workSpecId=${id}, generation=${String(generation)})`);
      return false;
    }
    const spec = this.db.getWorkSpec(id);
    if (spec === undefined) {
      this.logger.warning(TAG_PROCESSOR, `Didn't find WorkSpec for id WorkGenerationalId(workSpecId=${id}, generation=${String(generation)})`);
      queueMicrotask(() => this.onExecuted(id, false, params));
      return true;
    }
    if (typeof generation === 'number' && spec.generation !== generation) {
      queueMicrotask(() => this.onExecuted(id, false, params));
      return true;
    }
    this.startWork(spec, params);
    return true;
  }

  /** SystemJobService.onStopJob: the system stops the job; the worker is interrupted. */
  onStopJob(params: JobParameters): boolean {
    const id = params.extras[EXTRA_WORK_SPEC_ID];
    if (typeof id !== 'string') return false;
    const run = this.running.get(id);
    if (run === undefined) return false;
    run.wrapper.interrupt(1);
    return true;
  }

  private startWork(spec: WorkSpec, params: JobParameters | undefined): void {
    const wrapper = new WorkerWrapper({
      db: this.db,
      workSpec: spec,
      tags: this.db.getTagsForWorkSpecId(spec.id),
      logger: this.logger,
      factory: this.factory,
      now: () => this.now(),
      process: this.context.process,
    });
    this.running.set(spec.id, { wrapper, params });
    wrapper.launch().then(
      (outcome: WrapperOutcome) => {
        this.running.delete(spec.id);
        this.onExecuted(spec.id, outcome.needsReschedule, params);
      },
      (e: unknown) => {
        this.running.delete(spec.id);
        if (isProcessDeath(e)) return;
        this.logger.error(TAG_PROCESSOR, `${spec.id} executed with an unexpected error: ${e instanceof Error ? e.message : String(e)}`);
        this.onExecuted(spec.id, false, params);
      },
    );
  }

  /**
   * Processor.onExecuted listeners, in the order they were added: Schedulers.registerRescheduling
   * (WorkManagerImpl's constructor), which posts to the task executor the cancel of the job and
   * a schedule again unless the work is already scheduled; then SystemJobService.onExecuted
   * (added in its onCreate), which calls jobFinished at once. The re-scheduling is then done on
   * WorkManager's thread, a little later, unless the process has died meanwhile.
   */
  private onExecuted(id: string, needsReschedule: boolean, params: JobParameters | undefined): void {
    if (!this.context.process.alive) return;
    this.taskExecutor.execute(() => {
      if (!this.context.process.alive) return;
      if (!this.db.isScheduled(id)) {
        this.cancelJobsOf(id);
        this.schedule();
      }
    });
    params?.jobFinished(needsReschedule);
  }

  /** True while a worker for this WorkSpec runs in this process. */
  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  // ---- Diagnostics ------------------------------------------------------------------------------

  /** DiagnosticsReceiver.onReceive: enqueues a OneTimeWorkRequest of DiagnosticsWorker. */
  requestDiagnostics(): void {
    this.logger.debug(TAG_DIAGNOSTICS_RCVR, 'Requesting diagnostics');
    this.enqueue({ workerClassName: DIAGNOSTICS_WORKER });
  }

  private createDiagnosticsWorker(): ListenableWorker {
    return {
      startWork: () => {
        const now = this.now();
        const completed = this.db.getRecentlyCompletedWork(now - 24 * 60 * 60 * 1000);
        const running = this.db.getRunningWork();
        const enqueued = this.db.getAllEligibleWorkSpecsForScheduling(200);
        if (completed.length > 0) {
          this.logger.info(TAG_DIAGNOSTICS, 'Recently completed work:\n\n');
          this.logger.info(TAG_DIAGNOSTICS, this.workSpecRows(completed));
        }
        if (running.length > 0) {
          this.logger.info(TAG_DIAGNOSTICS, 'Running work:\n\n');
          this.logger.info(TAG_DIAGNOSTICS, this.workSpecRows(running));
        }
        if (enqueued.length > 0) {
          this.logger.info(TAG_DIAGNOSTICS, 'Enqueued work:\n\n');
          this.logger.info(TAG_DIAGNOSTICS, this.workSpecRows(enqueued));
        }
        return Promise.resolve(Result.success());
      },
    };
  }

  /** DiagnosticsWorker.workSpecRows ("Job Id" column on API 23+). */
  private workSpecRows(specs: readonly WorkSpec[]): string {
    let out = '\n Id \t Class Name\t Job Id\t State\t Unique Name\t Tags\t';
    for (const spec of specs) {
      const systemId = this.db.getSystemIdInfo(spec.id, spec.generation);
      const names = this.db.getNamesForWorkSpecId(spec.id).join(',');
      const tags = this.db.getTagsForWorkSpecId(spec.id).join(',');
      out += `\n${spec.id}\t ${spec.workerClassName}\t ${systemId === undefined ? 'null' : String(systemId)}\t ${WORK_STATE_NAMES[spec.state]}\t ${names}\t ${tags}\t`;
    }
    return out;
  }
}
