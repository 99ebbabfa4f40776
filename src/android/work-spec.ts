/**
 * WorkManager's WorkSpec as stored in `androidx.work.workdb` and the one computation the
 * harness needs from it: when WorkerWrapper will let a run through (docs/design.md §3).
 *
 * Integer encodings: androidx `work/work-runtime/src/main/java/androidx/work/impl/model/
 * WorkTypeConverters.kt` @5491d79b (state ENQUEUED 0 … CANCELLED 5; backoff EXPONENTIAL 0,
 * LINEAR 1). Constants: `WorkRequest.kt` @a9b06aaf (MAX_BACKOFF_MILLIS = 5 h,
 * DEFAULT_BACKOFF_DELAY_MILLIS = 30 s), `PeriodicWorkRequest` MIN_PERIODIC_INTERVAL_MILLIS = 15 min.
 *
 * Two scheduling models, told apart by the WorkSpec columns (Room schema JSONs
 * `work/work-runtime/src/schemas/androidx.work.impl.WorkDatabase/N.json`, fixtures/workdb/):
 * - 'period-start' (schema ≤ 14, WorkManager ≤ 2.7.x and 2.8.0-alpha01): `period_start_time`,
 *   0 until the first run of periodic work, then the end of the last run; no `period_count`.
 * - 'last-enqueue' (schema ≥ 15): `last_enqueue_time` (set at enqueue and on every reschedule)
 *   and `period_count`; `AutoMigration_14_15` renames the column and sets period_count = 1 on
 *   periodic rows with a non-zero time (WorkDatabaseMigrations.kt @a9b06aaf).
 */

export const WorkState = { ENQUEUED: 0, RUNNING: 1, SUCCEEDED: 2, FAILED: 3, BLOCKED: 4, CANCELLED: 5 } as const;
export type WorkStateName = keyof typeof WorkState;

export const BackoffPolicy = { EXPONENTIAL: 0, LINEAR: 1 } as const;
export type BackoffPolicyName = keyof typeof BackoffPolicy;

export const MAX_BACKOFF_MILLIS = 5 * 60 * 60 * 1000;
export const MIN_PERIODIC_INTERVAL_MILLIS = 15 * 60 * 1000;

/** Which WorkSpec.calculateNextRunTime the workdb's WorkManager runs (see the file comment). */
export type WorkSpecModel = 'period-start' | 'last-enqueue';

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
  /**
   * Wall-clock ms of `last_enqueue_time` (schema ≥ 15), or of `period_start_time` (schema ≤ 14:
   * 0 before the first run of periodic work).
   */
  readonly lastEnqueueTime: number;
  /** `period_count`; 0 when the column is absent (schema ≤ 14). */
  readonly periodCount: number;
  readonly generation: number;
  /** `next_schedule_time_override`; null when it is Long.MAX_VALUE (no override) or absent. */
  readonly nextScheduleTimeOverride: number | null;
  /**
   * The model of the columns the row was read from; readWorkDatabase always sets it. Absent
   * means 'last-enqueue' (the current WorkManager).
   */
  readonly model?: WorkSpecModel;
}

export function workStateName(state: number): WorkStateName | `UNKNOWN(${number})` {
  const entry = Object.entries(WorkState).find(([, value]) => value === state);
  return entry === undefined ? `UNKNOWN(${state})` : (entry[0] as WorkStateName);
}

export function isPeriodic(spec: Pick<WorkSpecRow, 'intervalDuration'>): boolean {
  return spec.intervalDuration !== 0;
}

/**
 * `state == ENQUEUED && runAttemptCount > 0`, the same in both models: WorkSpec.kt @a9b06aaf
 * `isBackedOff` and WorkSpec.java @c2d0084309c13c09bb98b5b52e9e66ad8cd6d6d0 `isBackedOff()`.
 */
export function isBackedOff(spec: Pick<WorkSpecRow, 'state' | 'runAttemptCount'>): boolean {
  return spec.state === WorkState.ENQUEUED && spec.runAttemptCount > 0;
}

/**
 * The backoff delay, capped at MAX_BACKOFF_MILLIS; the same in both models:
 * - WorkSpec.kt @a9b06aaf: `LINEAR ? delay * attempts : Math.scalb(delay.toFloat(), attempts - 1)
 *   .toLong()`, then `coerceAtMost(MAX_BACKOFF_MILLIS)`;
 * - WorkSpec.java @c2d0084309c13c09bb98b5b52e9e66ad8cd6d6d0: `LINEAR ? delay * attempts :
 *   (long) Math.scalb(delay, attempts - 1)` (the long argument resolves to scalb(float, int)),
 *   then `Math.min(MAX_BACKOFF_MILLIS, delay)`.
 */
function backoffDelay(spec: Pick<WorkSpecRow, 'backoffPolicy' | 'backoffDelayDuration' | 'runAttemptCount'>): number {
  // Math.scalb(float, n) multiplies a float32 by 2^n; the cast to long truncates toward zero.
  const delay =
    spec.backoffPolicy === BackoffPolicy.LINEAR
      ? spec.backoffDelayDuration * spec.runAttemptCount
      : Math.trunc(Math.fround(Math.fround(spec.backoffDelayDuration) * 2 ** (spec.runAttemptCount - 1)));
  return Math.min(delay, MAX_BACKOFF_MILLIS);
}

/**
 * WorkSpec.calculateNextRunTime() of the spec's model, with `now` standing for
 * System.currentTimeMillis() (read only by the 'period-start' model while period_start_time is 0).
 *
 * 'last-enqueue': port of the companion `calculateNextRunTime(...)` in androidx
 * `work/work-runtime/src/main/java/androidx/work/impl/model/WorkSpec.kt` @a9b06aaf:
 * - override (periodic only): periodCount 0 → override, else max(override, last + 15 min);
 * - backed off: last + backoffDelay;
 * - periodic: (periodCount 0 ? last + initialDelay : last + interval), plus (interval − flex) on
 *   the first period when flex ≠ interval;
 * - one-time: never enqueued (last = −1) → Long.MAX_VALUE, else last + initialDelay.
 *
 * 'period-start': port of `calculateNextRunTime()` in androidx
 * `work/work-runtime/src/main/java/androidx/work/impl/model/WorkSpec.java`
 * @c2d0084309c13c09bb98b5b52e9e66ad8cd6d6d0 (start = period_start_time):
 * - backed off: start + backoffDelay;
 * - periodic: base = start == 0 ? now + initialDelay : start; flex ≠ interval →
 *   base + interval − (start == 0 ? flex : 0), else base + (start == 0 ? 0 : interval);
 * - one-time: (start == 0 ? now : start) + initialDelay.
 */
export function calculateNextRunTime(spec: WorkSpecRow, now: number): number {
  return spec.model === 'period-start' ? periodStartNextRunTime(spec, now) : lastEnqueueNextRunTime(spec);
}

/** WorkSpec.kt @a9b06aaf companion calculateNextRunTime (see calculateNextRunTime). */
function lastEnqueueNextRunTime(spec: WorkSpecRow): number {
  const periodic = isPeriodic(spec);
  if (spec.nextScheduleTimeOverride !== null && periodic) {
    return spec.periodCount === 0
      ? spec.nextScheduleTimeOverride
      : Math.max(spec.nextScheduleTimeOverride, spec.lastEnqueueTime + MIN_PERIODIC_INTERVAL_MILLIS);
  }
  if (isBackedOff(spec)) return spec.lastEnqueueTime + backoffDelay(spec);
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

/**
 * WorkSpec.java @c2d0084309c13c09bb98b5b52e9e66ad8cd6d6d0 calculateNextRunTime() (see
 * calculateNextRunTime); `lastEnqueueTime` holds period_start_time.
 */
function periodStartNextRunTime(spec: WorkSpecRow, now: number): number {
  const periodStartTime = spec.lastEnqueueTime;
  if (isBackedOff(spec)) return periodStartTime + backoffDelay(spec);
  if (isPeriodic(spec)) {
    const start = periodStartTime === 0 ? now + spec.initialDelay : periodStartTime;
    if (spec.flexDuration !== spec.intervalDuration) {
      const offset = periodStartTime === 0 ? -spec.flexDuration : 0;
      return start + spec.intervalDuration + offset;
    }
    return start + (periodStartTime === 0 ? 0 : spec.intervalDuration);
  }
  return (periodStartTime === 0 ? now : periodStartTime) + spec.initialDelay;
}

/**
 * The wall-clock ms from which WorkerWrapper lets a run of the spec through at device time
 * `now` ("Delaying execution … because it is being executed before schedule" before it):
 * - 'last-enqueue', WorkerWrapper.kt @aa889ef7: periodic or backed-off work waits for
 *   `now >= calculateNextRunTime()`; other work is not held → `now`.
 * - 'period-start', WorkerWrapper.java @10eb8742fc667f7d2a341cdad466730a1b109c54: the same,
 *   except that the first run of periodic work (`isFirstRun = periodStartTime == 0`) is never
 *   held → `now`; EnqueueRunnable.java @10eb8742 stores period_start_time 0 for periodic work.
 */
export function nextAllowedRunTime(spec: WorkSpecRow, now: number): number {
  if (!isPeriodic(spec) && !isBackedOff(spec)) return now;
  if (spec.model === 'period-start' && spec.lastEnqueueTime === 0) return now;
  return calculateNextRunTime(spec, now);
}

/**
 * What a run did, read from its WorkSpec row before and after it, for a device whose WorkManager
 * logs no `Worker result …` line (an app's Configuration raised the minimum logging level above
 * Log.INFO). Read it only once JobScheduler has let the job go: WorkerWrapper writes the row in
 * its launch() transaction before the future that ends the job completes (Processor.onExecuted →
 * SystemJobService.onExecuted → jobFinished).
 *
 * How each outcome changes the row, from androidx
 * work/work-runtime/src/main/java/androidx/work/impl/WorkerWrapper.kt @07c97258:
 * - trySetRunning: state RUNNING, `run_attempt_count` + 1 (every run that reaches the worker);
 * - Result.success / Result.failure of periodic work: handleResult → resetPeriodic():
 *   `last_enqueue_time` = now, state ENQUEUED, `run_attempt_count` = 0, `period_count` + 1. The two
 *   leave the same row, so the outcome is `finished` (success or failure);
 * - Result.retry: reschedule(): state ENQUEUED, `last_enqueue_time` = now, `run_attempt_count`
 *   kept (one more than before the run), `period_count` unchanged;
 * - one-time work: setSucceeded() → SUCCEEDED, setFailed() → FAILED; a worker that threw is
 *   setFailed() too (Resolution.Failed), periodic or not;
 * - a stopped worker: resetWorkerStatus(): state ENQUEUED, `last_enqueue_time` kept, the attempt
 *   counted: not an outcome of the app's;
 * - the early-run guard ("Delaying execution … before schedule", runWorker) and a WorkSpec that
 *   is not ENQUEUED return before trySetRunning: nothing changes.
 * WorkManager ≤ 2.7 (schema ≤ 14, the 'period-start' model) resets and reschedules the same way
 * with `period_start_time`, which `lastEnqueueTime` holds (WorkerWrapper.java of that line:
 * rescheduleAndResolve and resetPeriodicAndResolve both setPeriodStartTime(now); only the reset
 * zeroes run_attempt_count).
 */
export type RowOutcome =
  | { readonly kind: 'success' | 'failure' | 'finished' | 'retry' }
  /** The worker has not returned yet (state RUNNING): look again later. */
  | { readonly kind: 'running' }
  /** Nothing changed: WorkerWrapper returned before trySetRunning (delayed, or not ENQUEUED). */
  | { readonly kind: 'not-run' }
  | { readonly kind: 'undecided'; readonly why: string };

/**
 * `before`: the row read before the run (undefined when no read is known to precede it);
 * `after`: the row read once JobScheduler no longer has the job active or pending;
 * `workerRan`: the run showed that its worker ran (it fetched the feed), so trySetRunning had
 * counted the attempt and an ENQUEUED row means the worker has returned.
 */
export function outcomeFromRows(before: WorkSpecRow | undefined, after: WorkSpecRow | undefined, workerRan: boolean): RowOutcome {
  if (after === undefined) return { kind: 'undecided', why: `WorkSpec ${before?.id ?? ''} is no longer unfinished work in the workdb` };
  switch (after.state) {
    case WorkState.SUCCEEDED:
      return { kind: 'success' };
    case WorkState.FAILED:
      return { kind: 'failure' };
    case WorkState.RUNNING:
      return { kind: 'running' };
    case WorkState.ENQUEUED:
      break;
    default:
      return { kind: 'undecided', why: `WorkSpec ${after.id} is ${workStateName(after.state)}` };
  }
  const moved = before !== undefined && after.lastEnqueueTime !== before.lastEnqueueTime;
  const counted = before !== undefined && after.periodCount > before.periodCount;
  const unchanged = before !== undefined && !moved && !counted && after.runAttemptCount === before.runAttemptCount && before.state === WorkState.ENQUEUED;
  if (unchanged && !workerRan) return { kind: 'not-run' };
  if (isPeriodic(after) && after.runAttemptCount === 0 && (workerRan || moved || counted)) return { kind: 'finished' };
  if (after.runAttemptCount > 0 && !counted && (moved || (before === undefined && workerRan))) return { kind: 'retry' };
  if (before !== undefined && after.runAttemptCount > 0 && !moved) {
    return {
      kind: 'undecided',
      why: `WorkSpec ${after.id} has run_attempt_count ${after.runAttemptCount} but kept its ${before.model === 'period-start' ? 'period_start_time' : 'last_enqueue_time'}: WorkManager stopped the worker (resetWorkerStatus), or the row was read after the run`,
    };
  }
  return { kind: 'undecided', why: `WorkSpec ${after.id} changed in a way no single run explains (run_attempt_count ${before?.runAttemptCount ?? '?'} → ${after.runAttemptCount}, period_count ${before?.periodCount ?? '?'} → ${after.periodCount})` };
}

/** The columns outcomeFromRows read, before → after, for a run's evidence. */
export function describeRowChange(before: WorkSpecRow | undefined, after: WorkSpecRow | undefined): string {
  const row = after ?? before;
  if (row === undefined) return 'no WorkSpec row';
  if (after === undefined) return `WorkSpec ${row.id}: gone from the unfinished work`;
  const time = after.model === 'period-start' ? 'period_start_time' : 'last_enqueue_time';
  const was = <T>(f: (r: WorkSpecRow) => T): string => (before === undefined ? '' : `${String(f(before))} → `);
  return `WorkSpec ${after.id}: state ${was((r) => workStateName(r.state))}${workStateName(after.state)}, run_attempt_count ${was((r) => r.runAttemptCount)}${after.runAttemptCount}, ${time} ${was((r) => r.lastEnqueueTime)}${after.lastEnqueueTime}${after.model === 'period-start' ? '' : `, period_count ${was((r) => r.periodCount)}${after.periodCount}`}`;
}
