/**
 * `retry` (seed 001: "Use exponential backoff for temporary failures. Retrying invalid input or
 * an authorization failure forever wastes battery"): from the feed fetches, the runs' results,
 * WorkManager's schedule and the probe runs:
 *
 * - misclassified-status: a run whose (first) feed fetch answered 503, 429 or 408 ends `retry`,
 *   one answered 401 ends `failure` (or `finished`, read from the workdb without a result line:
 *   periodic work is reset the same way after success and failure, so what the workdb shows is
 *   that the 401 was not retried, which is what this property is about);
 * - no-backoff: after n consecutive `retry` results, the next read of the schedule shows
 *   `run_attempt_count` n on the driven WorkSpec (WorkManager's backoff, not the app's own loop),
 *   or, for an app's own JobService job, `Num failures` n (JobScheduler's backoff after
 *   jobFinished(params, true));
 * - retry-loop: a probe run forced after a run whose feed answered 401 is refused (no retry).
 */
import type { ActionEvent, HistoryEvent, RunFinishedEvent, RunOutcome, ScheduleEvent } from '../../history/events.js';
import type { Anomaly } from '../types.js';
import type { PropertyChecker, PropertyDefinition } from './property.js';

/** What seed 001 says each HTTP status must produce. */
export const EXPECTED_OUTCOME: ReadonlyMap<number, RunOutcome> = new Map([
  [503, 'retry'],
  [429, 'retry'],
  [408, 'retry'],
  [401, 'failure'],
]);

class RetryChecker implements PropertyChecker {
  private readonly anomalies: Anomaly[] = [];
  /** The first feed status of each run in progress. */
  private readonly firstStatus = new Map<number, number>();
  private consecutiveRetries = 0;
  /** Set after a run ended retry: the next schedule read must show the count. */
  private awaitingCount: { run: number; status: number | undefined } | undefined;
  /** The last finished run and its feed status. */
  private lastRun: { run: number; status: number | undefined } | undefined;

  add(event: HistoryEvent): void {
    if (event.type === 'run-started') this.awaitingCount = undefined;
    else if (event.type === 'fetched') {
      if (!this.firstStatus.has(event.run)) this.firstStatus.set(event.run, event.status);
    } else if (event.type === 'run-finished') this.runFinished(event);
    else if (event.type === 'schedule') this.scheduleRead(event);
    else if (event.type === 'action') this.probeRun(event);
  }

  private runFinished(event: RunFinishedEvent): void {
    const status = this.firstStatus.get(event.run);
    this.firstStatus.delete(event.run);
    if (event.outcome === 'refused') return;
    const expected = status === undefined ? undefined : EXPECTED_OUTCOME.get(status);
    if (expected !== undefined && event.outcome !== expected && !(expected === 'failure' && event.outcome === 'finished')) {
      this.anomalies.push({
        kind: 'misclassified-status',
        item: '',
        run: event.run,
        detail: `HTTP ${status} from the feed ended run ${event.run} with ${event.outcome}, expected ${expected}`,
        ...(event.evidence ? { evidence: [...event.evidence] } : {}),
      });
    }
    if (event.outcome === 'retry') {
      this.consecutiveRetries += 1;
      this.awaitingCount = { run: event.run, status };
    } else if (event.outcome !== 'killed') {
      this.consecutiveRetries = 0;
    }
    this.lastRun = { run: event.run, status };
  }

  private scheduleRead(event: ScheduleEvent): void {
    const pending = this.awaitingCount;
    if (!pending) return;
    this.awaitingCount = undefined;
    const attempts = event.primary === null ? undefined : event.specs.find((s) => s.id === event.primary)?.runAttemptCount;
    if (attempts !== this.consecutiveRetries) {
      this.anomalies.push({
        kind: 'no-backoff',
        item: '',
        run: pending.run,
        detail:
          event.scheduler === 'jobscheduler'
            ? `after run ${pending.run} ended retry${pending.status !== undefined ? ` on HTTP ${pending.status}` : ''}, the job's Num failures is ${attempts ?? 'missing'}, expected ${this.consecutiveRetries}: the retry is not JobScheduler's backoff (jobFinished(params, true))`
            : `after run ${pending.run} ended retry${pending.status !== undefined ? ` on HTTP ${pending.status}` : ''}, run_attempt_count is ${attempts ?? 'missing'}, expected ${this.consecutiveRetries}: the retry is not a WorkManager backoff`,
      });
    }
  }

  private probeRun(event: ActionEvent): void {
    if (event.action !== 'probe-run' || this.lastRun?.status !== 401 || event.outcome === 'refused') return;
    this.anomalies.push({
      kind: 'retry-loop',
      item: '',
      run: this.lastRun.run,
      detail: `run ${this.lastRun.run} got HTTP 401 and a probe run forced later was not refused (outcome ${event.outcome ?? 'unknown'}, feed fetches ${event.statuses?.join(',') || 'none'}): authorization failures must not be retried`,
      ...(event.evidence ? { evidence: [...event.evidence] } : {}),
    });
  }

  finish(): Anomaly[] {
    return this.anomalies;
  }
}

export const retry: PropertyDefinition = {
  name: 'retry',
  verifies: '503/429/408 end in retry with WorkManager backoff, 401 in failure with no retry',
  create: () => new RetryChecker(),
};
