/**
 * WorkerWrapper: runs one WorkSpec's worker and records the outcome in the database.
 * Source: androidx work/work-runtime/src/main/java/androidx/work/impl/WorkerWrapper.kt @aa889ef7
 * (runWorker's early-run guard, trySetRunning, handleResult, resetPeriodic, reschedule,
 * resetWorkerStatus, setSucceeded, setFailed, the "Worker result ..." INFO lines).
 *
 * A process death while the worker runs aborts everything at the next await (ProcessDeath), so
 * the row stays RUNNING until ForceStopRunnable.cleanUp() in the next process, as on a device.
 */
import { isProcessDeath, type AppProcess } from '../../system/app-process.js';
import type { WorkDatabase } from './work-database.js';
import { calculateNextRunTime, isBackedOff, isPeriodic, STOP_REASON_NOT_STOPPED, STOP_REASON_UNKNOWN, SCHEDULE_NOT_REQUESTED_YET, WORK_STATE_NAMES, WorkState, isFinished, type WorkSpec } from './work-spec.js';
import { WorkLogger, type WorkerFactory, type WorkerResult } from './worker.js';

const TAG = WorkLogger.tag('WorkerWrapper');

/** The outcome of `launch()`: whether the job must be rescheduled (Processor's needsReschedule). */
export interface WrapperOutcome {
  readonly needsReschedule: boolean;
  /** What happened, for the virtual device's own tests. */
  readonly resolution: 'not-enqueued' | 'delayed' | 'success' | 'retry' | 'failure' | 'failed' | 'stopped';
}

/** Thrown into a worker that WorkManager stopped (WorkerStoppedException). */
export class WorkerStopped extends Error {
  readonly reason: number;
  constructor(reason: number) {
    super(`worker stopped (reason ${reason})`);
    this.name = 'WorkerStopped';
    this.reason = reason;
  }
}

export class WorkerWrapper {
  private readonly db: WorkDatabase;
  private readonly workSpec: WorkSpec;
  private readonly tags: readonly string[];
  private readonly logger: WorkLogger;
  private readonly factory: WorkerFactory;
  private readonly now: () => number;
  private readonly process: AppProcess;
  private stopReason: number | undefined;

  constructor(args: { db: WorkDatabase; workSpec: WorkSpec; tags: readonly string[]; logger: WorkLogger; factory: WorkerFactory; now: () => number; process: AppProcess }) {
    this.db = args.db;
    this.workSpec = args.workSpec;
    this.tags = args.tags;
    this.logger = args.logger;
    this.factory = args.factory;
    this.now = args.now;
    this.process = args.process;
  }

  get workSpecId(): string {
    return this.workSpec.id;
  }

  /** `Work [ id=<uuid>, tags={ a,b } ]` (createWorkDescription). */
  get workDescription(): string {
    return `Work [ id=${this.workSpec.id}, tags={ ${this.tags.join(',')} } ]`;
  }

  /** WorkerWrapper.interrupt(stopReason). */
  interrupt(stopReason: number): void {
    this.stopReason ??= stopReason;
  }

  async launch(): Promise<WrapperOutcome> {
    let resolution: { kind: 'finished'; result: WorkerResult } | { kind: 'failed' } | { kind: 'reset'; reason: number; why: 'not-enqueued' | 'delayed' | 'stopped' };
    try {
      resolution = await this.runWorker();
    } catch (e) {
      if (isProcessDeath(e)) throw e;
      if (e instanceof WorkerStopped) resolution = { kind: 'reset', reason: e.reason, why: 'stopped' };
      else {
        this.logger.error(TAG, `${this.workDescription} failed because it threw an exception/error`);
        resolution = { kind: 'failed' };
      }
    }
    this.process.throwIfDead();
    return this.db.transaction(() => {
      switch (resolution.kind) {
        case 'finished':
          return this.onWorkFinished(resolution.result);
        case 'failed':
          this.setFailed();
          return { needsReschedule: false, resolution: 'failed' as const };
        case 'reset':
          return { needsReschedule: this.resetWorkerStatus(resolution.reason), resolution: resolution.why };
        default: {
          const unreachable: never = resolution;
          return unreachable;
        }
      }
    });
  }

  private async runWorker(): Promise<{ kind: 'finished'; result: WorkerResult } | { kind: 'reset'; reason: number; why: 'not-enqueued' | 'delayed' }> {
    const spec = this.workSpec;
    const exit = this.db.transaction((): 'not-enqueued' | 'delayed' | undefined => {
      if (spec.state !== WorkState.ENQUEUED) {
        this.logger.debug(TAG, `${spec.workerClassName} is not in ENQUEUED state. Nothing more to do`);
        return 'not-enqueued';
      }
      // Case 1 (backed-off work) and case 2 (periodic work run more than once per interval):
      // the wall clock must have reached calculateNextRunTime().
      if (isPeriodic(spec) || isBackedOff(spec)) {
        if (this.now() < calculateNextRunTime(spec)) {
          this.logger.debug(TAG, `Delaying execution for ${spec.workerClassName} because it is being executed before schedule.`);
          return 'delayed';
        }
      }
      return undefined;
    });
    if (exit !== undefined) return { kind: 'reset', reason: STOP_REASON_NOT_STOPPED, why: exit };

    const worker = this.factory(spec.workerClassName, {
      id: spec.id,
      tags: this.tags,
      runAttemptCount: spec.runAttemptCount,
      generation: spec.generation,
    });
    if (worker === undefined) {
      this.logger.error(TAG, `Could not create Worker ${spec.workerClassName}`);
      throw new Error('worker creation failed');
    }
    if (!this.trySetRunning()) return { kind: 'reset', reason: STOP_REASON_NOT_STOPPED, why: 'not-enqueued' };
    this.logger.debug(TAG, `Starting work for ${spec.workerClassName}`);
    const result = await this.process.guard(worker.startWork());
    if (this.stopReason !== undefined) {
      this.logger.info(TAG, `${this.workDescription} was cancelled`);
      throw new WorkerStopped(this.stopReason);
    }
    return { kind: 'finished', result };
  }

  private trySetRunning(): boolean {
    return this.db.transaction(() => {
      if (this.db.getState(this.workSpec.id) !== WorkState.ENQUEUED) return false;
      this.db.setState(this.workSpec.id, WorkState.RUNNING);
      this.db.incrementRunAttemptCount(this.workSpec.id);
      this.db.setStopReason(this.workSpec.id, STOP_REASON_NOT_STOPPED);
      return true;
    });
  }

  private onWorkFinished(result: WorkerResult): WrapperOutcome {
    const state = this.db.getState(this.workSpec.id);
    if (state === undefined) return { needsReschedule: false, resolution: 'failed' };
    if (state === WorkState.RUNNING) return this.handleResult(result);
    if (!isFinished(state)) {
      this.reschedule(STOP_REASON_UNKNOWN);
      return { needsReschedule: true, resolution: 'retry' };
    }
    return { needsReschedule: false, resolution: 'failed' };
  }

  private handleResult(result: WorkerResult): WrapperOutcome {
    switch (result.type) {
      case 'success':
        this.logger.info(TAG, `Worker result SUCCESS for ${this.workDescription}`);
        if (isPeriodic(this.workSpec)) this.resetPeriodic();
        else this.setSucceeded();
        return { needsReschedule: false, resolution: 'success' };
      case 'retry':
        this.logger.info(TAG, `Worker result RETRY for ${this.workDescription}`);
        this.reschedule(STOP_REASON_NOT_STOPPED);
        return { needsReschedule: true, resolution: 'retry' };
      case 'failure':
        this.logger.info(TAG, `Worker result FAILURE for ${this.workDescription}`);
        if (isPeriodic(this.workSpec)) this.resetPeriodic();
        else this.setFailed();
        return { needsReschedule: false, resolution: 'failure' };
      default: {
        const unreachable: never = result;
        return unreachable;
      }
    }
  }

  /** resetWorkerStatus: back to ENQUEUED, schedule request cleared; true when not finished. */
  private resetWorkerStatus(stopReason: number): boolean {
    const state = this.db.getState(this.workSpec.id);
    if (state !== undefined && !isFinished(state)) {
      this.logger.debug(TAG, `Status for ${this.workSpec.id} is ${WORK_STATE_NAMES[state]}; not doing any work and rescheduling for later execution`);
      this.db.setState(this.workSpec.id, WorkState.ENQUEUED);
      this.db.setStopReason(this.workSpec.id, stopReason);
      this.db.markScheduled(this.workSpec.id, SCHEDULE_NOT_REQUESTED_YET);
      return true;
    }
    this.logger.debug(TAG, `Status for ${this.workSpec.id} is ${state === undefined ? 'null' : WORK_STATE_NAMES[state]} ; not doing any work`);
    return false;
  }

  /** reschedule (Result.retry): ENQUEUED, last_enqueue_time = now, attempts kept. */
  private reschedule(stopReason: number): void {
    const id = this.workSpec.id;
    this.db.setState(id, WorkState.ENQUEUED);
    this.db.setLastEnqueueTime(id, this.now());
    this.db.resetNextScheduleTimeOverride(id);
    this.db.markScheduled(id, SCHEDULE_NOT_REQUESTED_YET);
    this.db.setStopReason(id, stopReason);
  }

  /** resetPeriodic: last_enqueue_time = now, ENQUEUED, attempts 0, period_count + 1. */
  private resetPeriodic(): void {
    const id = this.workSpec.id;
    this.db.setLastEnqueueTime(id, this.now());
    this.db.setState(id, WorkState.ENQUEUED);
    this.db.resetRunAttemptCount(id);
    this.db.resetNextScheduleTimeOverride(id);
    this.db.incrementPeriodCount(id);
    this.db.markScheduled(id, SCHEDULE_NOT_REQUESTED_YET);
  }

  private setSucceeded(): void {
    this.db.setState(this.workSpec.id, WorkState.SUCCEEDED);
  }

  private setFailed(): void {
    if (this.db.getState(this.workSpec.id) !== WorkState.CANCELLED) this.db.setState(this.workSpec.id, WorkState.FAILED);
    this.db.resetNextScheduleTimeOverride(this.workSpec.id);
  }
}
