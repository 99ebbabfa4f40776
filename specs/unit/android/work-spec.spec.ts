import { expect } from 'chai';
import { calculateNextRunTime, nextAllowedRunTime, workStateName, type WorkSpecRow } from '../../../src/android/work-spec.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const T0 = 1717000000000;
/** Device time handed to the computations; only the period-start model reads it. */
const NOW = T0 + 7 * HOUR;

function spec(overrides: Partial<WorkSpecRow>): WorkSpecRow {
  return {
    id: 'id',
    state: 0,
    workerClassName: 'com.example.feednotifier.FeedPollWorker',
    initialDelay: 0,
    intervalDuration: DAY,
    flexDuration: DAY,
    runAttemptCount: 0,
    backoffPolicy: 0,
    backoffDelayDuration: 30_000,
    lastEnqueueTime: T0,
    periodCount: 0,
    generation: 0,
    nextScheduleTimeOverride: null,
    ...overrides,
  };
}

describe('WorkSpec.calculateNextRunTime, last-enqueue model (androidx WorkSpec.kt @a9b06aaf)', () => {
  it('periodic, first period, flex = interval: runs at once (plus initial delay)', () => {
    expect(calculateNextRunTime(spec({}), NOW)).to.equal(T0);
    expect(calculateNextRunTime(spec({ initialDelay: 5000 }), NOW)).to.equal(T0 + 5000);
    expect(calculateNextRunTime(spec({ model: 'last-enqueue' }), NOW)).to.equal(T0);
  });

  it('periodic, first period, flex < interval: waits interval - flex', () => {
    expect(calculateNextRunTime(spec({ flexDuration: 2 * HOUR }), NOW)).to.equal(T0 + DAY - 2 * HOUR);
  });

  it('periodic, later periods: last enqueue + interval (flex no longer applies)', () => {
    expect(calculateNextRunTime(spec({ periodCount: 3 }), NOW)).to.equal(T0 + DAY);
    expect(calculateNextRunTime(spec({ periodCount: 3, flexDuration: 2 * HOUR }), NOW)).to.equal(T0 + DAY);
  });

  it('backed off, exponential: delay × 2^(attempts-1), capped at 5 h', () => {
    expect(calculateNextRunTime(spec({ runAttemptCount: 1 }), NOW)).to.equal(T0 + 30_000);
    expect(calculateNextRunTime(spec({ runAttemptCount: 3 }), NOW)).to.equal(T0 + 120_000);
    expect(calculateNextRunTime(spec({ runAttemptCount: 20 }), NOW)).to.equal(T0 + 5 * HOUR);
    expect(calculateNextRunTime(spec({ runAttemptCount: 200 }), NOW)).to.equal(T0 + 5 * HOUR);
  });

  it('backed off, linear: delay × attempts', () => {
    expect(calculateNextRunTime(spec({ runAttemptCount: 3, backoffPolicy: 1 }), NOW)).to.equal(T0 + 90_000);
  });

  it('only ENQUEUED work with attempts counts as backed off', () => {
    expect(calculateNextRunTime(spec({ runAttemptCount: 3, state: 1, periodCount: 2 }), NOW)).to.equal(T0 + DAY);
  });

  it('an override wins for periodic work, not below last + 15 min after the first period', () => {
    expect(calculateNextRunTime(spec({ nextScheduleTimeOverride: T0 + 1000 }), NOW)).to.equal(T0 + 1000);
    expect(calculateNextRunTime(spec({ nextScheduleTimeOverride: T0 + 1000, periodCount: 1 }), NOW)).to.equal(T0 + 15 * 60_000);
    expect(calculateNextRunTime(spec({ nextScheduleTimeOverride: T0 + HOUR, periodCount: 1, runAttemptCount: 2 }), NOW)).to.equal(T0 + HOUR);
  });

  it('one-time work: last + initial delay; never enqueued (-1) never runs', () => {
    expect(calculateNextRunTime(spec({ intervalDuration: 0, initialDelay: 10 }), NOW)).to.equal(T0 + 10);
    expect(calculateNextRunTime(spec({ intervalDuration: 0, lastEnqueueTime: -1 }), NOW)).to.equal(Number.MAX_SAFE_INTEGER);
  });

  it('does not read now', () => {
    expect(calculateNextRunTime(spec({ periodCount: 1 }), NOW)).to.equal(calculateNextRunTime(spec({ periodCount: 1 }), NOW + DAY));
  });
});

describe('WorkSpec.calculateNextRunTime, period-start model (androidx WorkSpec.java @c2d00843)', () => {
  const old = (overrides: Partial<WorkSpecRow>): WorkSpecRow => spec({ model: 'period-start', ...overrides });

  it('periodic, never run (period_start_time 0): now + initial delay', () => {
    expect(calculateNextRunTime(old({ lastEnqueueTime: 0 }), NOW)).to.equal(NOW);
    expect(calculateNextRunTime(old({ lastEnqueueTime: 0, initialDelay: 5000 }), NOW)).to.equal(NOW + 5000);
  });

  it('periodic, never run, flex < interval: now + initial delay + interval - flex', () => {
    expect(calculateNextRunTime(old({ lastEnqueueTime: 0, flexDuration: 2 * HOUR }), NOW)).to.equal(NOW + DAY - 2 * HOUR);
    expect(calculateNextRunTime(old({ lastEnqueueTime: 0, flexDuration: 2 * HOUR, initialDelay: 60_000 }), NOW)).to.equal(NOW + 60_000 + DAY - 2 * HOUR);
  });

  it('periodic, after a run: period_start_time + interval, with or without flex or initial delay, at any now', () => {
    expect(calculateNextRunTime(old({}), NOW)).to.equal(T0 + DAY);
    expect(calculateNextRunTime(old({ flexDuration: 2 * HOUR }), NOW)).to.equal(T0 + DAY);
    expect(calculateNextRunTime(old({ initialDelay: 5000 }), NOW)).to.equal(T0 + DAY);
    expect(calculateNextRunTime(old({}), NOW + DAY)).to.equal(T0 + DAY);
  });

  it('backed off: period_start_time + the same capped backoff as the current model', () => {
    expect(calculateNextRunTime(old({ runAttemptCount: 1 }), NOW)).to.equal(T0 + 30_000);
    expect(calculateNextRunTime(old({ runAttemptCount: 3 }), NOW)).to.equal(T0 + 120_000);
    expect(calculateNextRunTime(old({ runAttemptCount: 20 }), NOW)).to.equal(T0 + 5 * HOUR);
    expect(calculateNextRunTime(old({ runAttemptCount: 3, backoffPolicy: 1 }), NOW)).to.equal(T0 + 90_000);
    expect(calculateNextRunTime(old({ runAttemptCount: 3, state: 1 }), NOW)).to.equal(T0 + DAY);
  });

  it('has no override (the column does not exist before schema 18)', () => {
    expect(calculateNextRunTime(old({ nextScheduleTimeOverride: T0 + 1000 }), NOW)).to.equal(T0 + DAY);
  });

  it('one-time work: (period_start_time, or now when 0) + initial delay', () => {
    expect(calculateNextRunTime(old({ intervalDuration: 0, initialDelay: 10 }), NOW)).to.equal(T0 + 10);
    expect(calculateNextRunTime(old({ intervalDuration: 0, lastEnqueueTime: 0, initialDelay: 10 }), NOW)).to.equal(NOW + 10);
  });
});

describe('nextAllowedRunTime (WorkerWrapper guard)', () => {
  it('last-enqueue model: periodic or backed-off work waits for calculateNextRunTime', () => {
    expect(nextAllowedRunTime(spec({ periodCount: 2 }), NOW)).to.equal(T0 + DAY);
    expect(nextAllowedRunTime(spec({ flexDuration: 2 * HOUR }), NOW)).to.equal(T0 + DAY - 2 * HOUR);
    expect(nextAllowedRunTime(spec({ intervalDuration: 0, runAttemptCount: 2 }), NOW)).to.equal(T0 + 60_000);
  });

  it('period-start model: the first periodic run (period_start_time 0) is never held', () => {
    expect(nextAllowedRunTime(spec({ model: 'period-start', lastEnqueueTime: 0, flexDuration: 2 * HOUR, initialDelay: HOUR }), NOW)).to.equal(NOW);
    expect(nextAllowedRunTime(spec({ model: 'period-start' }), NOW)).to.equal(T0 + DAY);
    expect(nextAllowedRunTime(spec({ model: 'period-start', runAttemptCount: 1 }), NOW)).to.equal(T0 + 30_000);
  });

  it('one-time work that is not backed off is not held', () => {
    expect(nextAllowedRunTime(spec({ intervalDuration: 0, initialDelay: DAY }), NOW)).to.equal(NOW);
  });
});

describe('WorkSpec states', () => {
  it('names states', () => {
    expect(workStateName(0)).to.equal('ENQUEUED');
    expect(workStateName(5)).to.equal('CANCELLED');
    expect(workStateName(9)).to.equal('UNKNOWN(9)');
  });
});
