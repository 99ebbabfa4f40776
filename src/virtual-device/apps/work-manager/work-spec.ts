/**
 * WorkManager's WorkSpec as stored in `no_backup/androidx.work.workdb`, its integer encodings and
 * the next-run-time computation the early-run guard uses.
 *
 * Sources (androidx/androidx):
 * - work/work-runtime/src/main/java/androidx/work/impl/model/WorkSpec.kt @a9b06aaf
 *   (columns, isPeriodic, isBackedOff, calculateNextRunTime)
 * - work/work-runtime/src/main/java/androidx/work/impl/model/WorkTypeConverters.kt @5491d79b
 *   (StateIds, BackoffPolicyIds, NetworkTypeIds, OutOfPolicyIds)
 * - work/work-runtime/src/main/java/androidx/work/WorkRequest.kt (MIN/MAX backoff, defaults)
 */

/** WorkInfo.State as stored (WorkTypeConverters.StateIds). */
export const WorkState = { ENQUEUED: 0, RUNNING: 1, SUCCEEDED: 2, FAILED: 3, BLOCKED: 4, CANCELLED: 5 } as const;
export type WorkState = (typeof WorkState)[keyof typeof WorkState];

export const WORK_STATE_NAMES: Readonly<Record<WorkState, string>> = {
  0: 'ENQUEUED',
  1: 'RUNNING',
  2: 'SUCCEEDED',
  3: 'FAILED',
  4: 'BLOCKED',
  5: 'CANCELLED',
};

/** StateIds.COMPLETED_STATES. */
export const COMPLETED_STATES_SQL = '(2, 3, 5)';

export function isFinished(state: number): boolean {
  return state === WorkState.SUCCEEDED || state === WorkState.FAILED || state === WorkState.CANCELLED;
}

/** BackoffPolicy as stored (BackoffPolicyIds). */
export const BackoffPolicy = { EXPONENTIAL: 0, LINEAR: 1 } as const;
export type BackoffPolicy = (typeof BackoffPolicy)[keyof typeof BackoffPolicy];

/** WorkRequest constants (WorkRequest.kt companion object). */
export const DEFAULT_BACKOFF_DELAY_MILLIS = 30_000;
export const MAX_BACKOFF_MILLIS = 5 * 60 * 60 * 1000;
export const MIN_BACKOFF_MILLIS = 10_000;
/** PeriodicWorkRequest.MIN_PERIODIC_INTERVAL_MILLIS (15 min) and MIN_PERIODIC_FLEX_MILLIS (5 min). */
export const MIN_PERIODIC_INTERVAL_MILLIS = 15 * 60 * 1000;
export const MIN_PERIODIC_FLEX_MILLIS = 5 * 60 * 1000;
/** WorkSpec.SCHEDULE_NOT_REQUESTED_YET. */
export const SCHEDULE_NOT_REQUESTED_YET = -1;
/** WorkInfo.STOP_REASON_NOT_STOPPED / STOP_REASON_UNKNOWN. */
export const STOP_REASON_NOT_STOPPED = -256;
export const STOP_REASON_UNKNOWN = -512;
/** Long.MAX_VALUE, the default of next_schedule_time_override. */
export const LONG_MAX = 9223372036854775807n;

/** One WorkSpec row, with the columns the model reads and writes (the rest keep their defaults). */
export interface WorkSpec {
  id: string;
  state: WorkState;
  workerClassName: string;
  inputMergerClassName: string;
  initialDelay: number;
  intervalDuration: number;
  flexDuration: number;
  runAttemptCount: number;
  backoffPolicy: BackoffPolicy;
  backoffDelayDuration: number;
  lastEnqueueTime: number;
  minimumRetentionDuration: number;
  scheduleRequestedAt: number;
  periodCount: number;
  generation: number;
  /** null means Long.MAX_VALUE (no override). */
  nextScheduleTimeOverride: number | null;
  stopReason: number;
  traceTag: string | null;
}

export function isPeriodic(spec: Pick<WorkSpec, 'intervalDuration'>): boolean {
  return spec.intervalDuration !== 0;
}

/** WorkSpec.isBackedOff: ENQUEUED with at least one attempt. */
export function isBackedOff(spec: Pick<WorkSpec, 'state' | 'runAttemptCount'>): boolean {
  return spec.state === WorkState.ENQUEUED && spec.runAttemptCount > 0;
}

/** Math.scalb(float, n).toLong() for the exponential backoff (2^(attempts-1) * delay). */
function scalb(value: number, exponent: number): number {
  return Math.trunc(Math.fround(value * Math.pow(2, exponent)));
}

/**
 * WorkSpec.calculateNextRunTime (WorkSpec.kt companion): override (periodic only), then backoff
 * (`lastEnqueueTime + min(delay, MAX_BACKOFF_MILLIS)`, LINEAR `delay*attempts`, EXPONENTIAL
 * `delay*2^(attempts-1)`), then periodic (`lastEnqueueTime + interval`; the first period
 * `lastEnqueueTime + initialDelay`, plus `interval - flex` when flex is set), else
 * `lastEnqueueTime + initialDelay` (Long.MAX_VALUE when never enqueued).
 */
export function calculateNextRunTime(spec: WorkSpec): number {
  const periodic = isPeriodic(spec);
  if (spec.nextScheduleTimeOverride !== null && periodic) {
    return spec.periodCount === 0 ? spec.nextScheduleTimeOverride : Math.max(spec.nextScheduleTimeOverride, spec.lastEnqueueTime + MIN_PERIODIC_INTERVAL_MILLIS);
  }
  if (isBackedOff(spec)) {
    const delay = spec.backoffPolicy === BackoffPolicy.LINEAR ? spec.backoffDelayDuration * spec.runAttemptCount : scalb(spec.backoffDelayDuration, spec.runAttemptCount - 1);
    return spec.lastEnqueueTime + Math.min(delay, MAX_BACKOFF_MILLIS);
  }
  if (periodic) {
    let schedule = spec.periodCount === 0 ? spec.lastEnqueueTime + spec.initialDelay : spec.lastEnqueueTime + spec.intervalDuration;
    if (spec.flexDuration !== spec.intervalDuration && spec.periodCount === 0) schedule += spec.intervalDuration - spec.flexDuration;
    return schedule;
  }
  if (spec.lastEnqueueTime === -1) return Number.MAX_SAFE_INTEGER;
  return spec.lastEnqueueTime + spec.initialDelay;
}

/** A new WorkSpec with WorkRequest.Builder's defaults (WorkSpec.kt constructor defaults). */
export function newWorkSpec(id: string, workerClassName: string): WorkSpec {
  return {
    id,
    state: WorkState.ENQUEUED,
    workerClassName,
    inputMergerClassName: 'androidx.work.OverwritingInputMerger',
    initialDelay: 0,
    intervalDuration: 0,
    flexDuration: 0,
    runAttemptCount: 0,
    backoffPolicy: BackoffPolicy.EXPONENTIAL,
    backoffDelayDuration: DEFAULT_BACKOFF_DELAY_MILLIS,
    lastEnqueueTime: -1,
    minimumRetentionDuration: 0,
    scheduleRequestedAt: SCHEDULE_NOT_REQUESTED_YET,
    periodCount: 0,
    generation: 0,
    nextScheduleTimeOverride: null,
    stopReason: STOP_REASON_NOT_STOPPED,
    traceTag: null,
  };
}

/** WorkRequest.Builder.build(): the trace tag defaults to the worker's simple class name. */
export function deriveTraceTag(workerClassName: string): string {
  const simple = workerClassName.slice(workerClassName.lastIndexOf('.') + 1);
  return simple.slice(0, 127);
}
