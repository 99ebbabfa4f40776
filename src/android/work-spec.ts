/**
 * WorkManager's WorkSpec as stored in `androidx.work.workdb` and the one computation the
 * harness needs from it: when WorkerWrapper will let a run through (docs/design.md §3).
 *
 * Integer encodings: androidx `work/work-runtime/src/main/java/androidx/work/impl/model/
 * WorkTypeConverters.kt` @5491d79b (state ENQUEUED 0 … CANCELLED 5; backoff EXPONENTIAL 0,
 * LINEAR 1). Constants: `WorkRequest.kt` @a9b06aaf (MAX_BACKOFF_MILLIS = 5 h,
 * DEFAULT_BACKOFF_DELAY_MILLIS = 30 s), `PeriodicWorkRequest` MIN_PERIODIC_INTERVAL_MILLIS = 15 min.
 */

export const WorkState = { ENQUEUED: 0, RUNNING: 1, SUCCEEDED: 2, FAILED: 3, BLOCKED: 4, CANCELLED: 5 } as const;
export type WorkStateName = keyof typeof WorkState;

export const BackoffPolicy = { EXPONENTIAL: 0, LINEAR: 1 } as const;
export type BackoffPolicyName = keyof typeof BackoffPolicy;

export const MAX_BACKOFF_MILLIS = 5 * 60 * 60 * 1000;
export const MIN_PERIODIC_INTERVAL_MILLIS = 15 * 60 * 1000;

export interface WorkSpecRow {
  readonly id: string;
  readonly state: number;
  readonly workerClassName: string;
  readonly initialDelay: number;
  readonly intervalDuration: number;
  readonly flexDuration: number;
  readonly runAttemptCount: number;
  readonly backoffPolicy: number;
  readonly backoffDelayDuration: number;
  /** Wall-clock ms when the work was last enqueued (`period_start_time` before schema v15). */
  readonly lastEnqueueTime: number;
  readonly periodCount: number;
  readonly generation: number;
  /** `next_schedule_time_override`; null when it is Long.MAX_VALUE (no override) or absent. */
  readonly nextScheduleTimeOverride: number | null;
}

export function workStateName(state: number): WorkStateName | `UNKNOWN(${number})` {
  const entry = Object.entries(WorkState).find(([, value]) => value === state);
  return entry === undefined ? `UNKNOWN(${state})` : (entry[0] as WorkStateName);
}

export function isPeriodic(spec: Pick<WorkSpecRow, 'intervalDuration'>): boolean {
  return spec.intervalDuration !== 0;
}

export function isBackedOff(spec: Pick<WorkSpecRow, 'state' | 'runAttemptCount'>): boolean {
  return spec.state === WorkState.ENQUEUED && spec.runAttemptCount > 0;
}

/**
 * The wall-clock ms before which WorkerWrapper delays a run ("Delaying execution … because it
 * is being executed before schedule", WorkerWrapper.kt @aa889ef7: `now < calculateNextRunTime()`
 * for periodic or backed-off work). Port of the companion `calculateNextRunTime(...)` in androidx
 * `work/work-runtime/src/main/java/androidx/work/impl/model/WorkSpec.kt` @a9b06aaf:
 * - override (periodic only): periodCount 0 → override, else max(override, last + 15 min);
 * - backed off: last + min(LINEAR ? delay × attempts : scalb(float delay, attempts − 1), 5 h);
 * - periodic: (periodCount 0 ? last + initialDelay : last + interval), plus (interval − flex) on
 *   the first period when flex ≠ interval;
 * - one-time: never enqueued (last = −1) → Long.MAX_VALUE, else last + initialDelay.
 */
export function calculateNextRunTime(spec: WorkSpecRow): number {
  const periodic = isPeriodic(spec);
  if (spec.nextScheduleTimeOverride !== null && periodic) {
    return spec.periodCount === 0
      ? spec.nextScheduleTimeOverride
      : Math.max(spec.nextScheduleTimeOverride, spec.lastEnqueueTime + MIN_PERIODIC_INTERVAL_MILLIS);
  }
  if (isBackedOff(spec)) {
    const linear = spec.backoffPolicy === BackoffPolicy.LINEAR;
    // Math.scalb(float, n) multiplies a float32 by 2^n; .toLong() truncates toward zero.
    const delay = linear
      ? spec.backoffDelayDuration * spec.runAttemptCount
      : Math.trunc(Math.fround(Math.fround(spec.backoffDelayDuration) * 2 ** (spec.runAttemptCount - 1)));
    return spec.lastEnqueueTime + Math.min(delay, MAX_BACKOFF_MILLIS);
  }
  if (periodic) {
    let schedule = spec.periodCount === 0 ? spec.lastEnqueueTime + spec.initialDelay : spec.lastEnqueueTime + spec.intervalDuration;
    if (spec.flexDuration !== spec.intervalDuration && spec.periodCount === 0) {
      schedule += spec.intervalDuration - spec.flexDuration;
    }
    return schedule;
  }
  if (spec.lastEnqueueTime === -1) return Number.MAX_SAFE_INTEGER;
  return spec.lastEnqueueTime + spec.initialDelay;
}
