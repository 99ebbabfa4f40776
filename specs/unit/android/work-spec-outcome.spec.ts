/**
 * A run's outcome from its WorkSpec row before and after it, when WorkManager logs no result
 * line: each case is what androidx WorkerWrapper.kt @07c97258 writes for that outcome
 * (trySetRunning, resetPeriodic, reschedule, resetWorkerStatus, setSucceeded, setFailed).
 */
import { expect } from 'chai';
import { describeRowChange, outcomeFromRows, WorkState, type WorkSpecRow } from '../../../src/android/work-spec.js';

const T0 = 1717000000000;
const RUN_END = T0 + 86_400_000 + 5_000;

function row(overrides: Partial<WorkSpecRow> = {}): WorkSpecRow {
  return {
    id: 'w1',
    state: WorkState.ENQUEUED,
    workerClassName: 'com.example.feednotifier.FeedPollWorker',
    initialDelay: 0,
    intervalDuration: 86_400_000,
    flexDuration: 86_400_000,
    runAttemptCount: 0,
    backoffPolicy: 0,
    backoffDelayDuration: 30_000,
    lastEnqueueTime: T0,
    periodCount: 1,
    generation: 0,
    nextScheduleTimeOverride: null,
    model: 'last-enqueue',
    ...overrides,
  };
}

describe('outcomeFromRows: how each WorkerWrapper outcome leaves the WorkSpec row', () => {
  it('success or failure of periodic work (resetPeriodic: attempts 0, period_count + 1, last_enqueue_time now) is finished', () => {
    expect(outcomeFromRows(row(), row({ lastEnqueueTime: RUN_END, periodCount: 2 }), true)).to.deep.equal({ kind: 'finished' });
    // After retries the reset zeroes the attempts too.
    expect(outcomeFromRows(row({ runAttemptCount: 2 }), row({ lastEnqueueTime: RUN_END, periodCount: 2 }), true)).to.deep.equal({ kind: 'finished' });
  });

  it('retry (reschedule: attempts + 1 kept, last_enqueue_time now, period_count unchanged) is retry', () => {
    expect(outcomeFromRows(row(), row({ runAttemptCount: 1, lastEnqueueTime: RUN_END }), true)).to.deep.equal({ kind: 'retry' });
    expect(outcomeFromRows(row({ runAttemptCount: 1 }), row({ runAttemptCount: 2, lastEnqueueTime: RUN_END }), true)).to.deep.equal({ kind: 'retry' });
  });

  it('one-time work: SUCCEEDED is success, FAILED is failure (a worker that threw is FAILED too)', () => {
    const oneTime = row({ intervalDuration: 0, flexDuration: 0 });
    expect(outcomeFromRows(oneTime, { ...oneTime, state: WorkState.SUCCEEDED, runAttemptCount: 1 }, true)).to.deep.equal({ kind: 'success' });
    expect(outcomeFromRows(row(), row({ state: WorkState.FAILED, runAttemptCount: 1 }), true)).to.deep.equal({ kind: 'failure' });
  });

  it('a row still RUNNING is not an end: look again', () => {
    expect(outcomeFromRows(row(), row({ state: WorkState.RUNNING, runAttemptCount: 1 }), true)).to.deep.equal({ kind: 'running' });
  });

  it('an unchanged row with no fetch is a run WorkerWrapper did not let through (the early-run guard)', () => {
    expect(outcomeFromRows(row(), row(), false)).to.deep.equal({ kind: 'not-run' });
  });

  it('a stopped worker (resetWorkerStatus: attempt counted, last_enqueue_time kept) is undecided, not a retry', () => {
    const result = outcomeFromRows(row(), row({ runAttemptCount: 1 }), true);
    expect(result.kind).to.equal('undecided');
    expect(result.kind === 'undecided' ? result.why : '').to.match(/resetWorkerStatus/);
  });

  it('without a row read before the run, a worker that ran and left the row ENQUEUED ended: attempts 0 finished, attempts > 0 retry', () => {
    expect(outcomeFromRows(undefined, row({ lastEnqueueTime: RUN_END, periodCount: 2 }), true)).to.deep.equal({ kind: 'finished' });
    expect(outcomeFromRows(undefined, row({ runAttemptCount: 1, lastEnqueueTime: RUN_END }), true)).to.deep.equal({ kind: 'retry' });
  });

  it('a read taken when the worker was RUNNING (the attempt already counted) still tells a retry from a reset', () => {
    const running = row({ state: WorkState.RUNNING, runAttemptCount: 1 });
    expect(outcomeFromRows(running, row({ runAttemptCount: 1, lastEnqueueTime: RUN_END }), true)).to.deep.equal({ kind: 'retry' });
    expect(outcomeFromRows(running, row({ lastEnqueueTime: RUN_END, periodCount: 2 }), true)).to.deep.equal({ kind: 'finished' });
  });

  it('WorkManager 2.7 and older (period_start_time, no period_count) reset and reschedule the same way', () => {
    const old = row({ model: 'period-start', periodCount: 0 });
    expect(outcomeFromRows(old, { ...old, lastEnqueueTime: RUN_END }, true)).to.deep.equal({ kind: 'finished' });
    expect(outcomeFromRows(old, { ...old, lastEnqueueTime: RUN_END, runAttemptCount: 1 }, true)).to.deep.equal({ kind: 'retry' });
  });

  it('a WorkSpec gone from the unfinished work is undecided', () => {
    expect(outcomeFromRows(row(), undefined, true).kind).to.equal('undecided');
  });

  it('names the columns it read, before and after', () => {
    expect(describeRowChange(row(), row({ runAttemptCount: 1, lastEnqueueTime: RUN_END }))).to.equal(
      `WorkSpec w1: state ENQUEUED → ENQUEUED, run_attempt_count 0 → 1, last_enqueue_time ${T0} → ${RUN_END}, period_count 1 → 1`,
    );
  });
});
