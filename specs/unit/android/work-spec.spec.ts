import { expect } from 'chai';
import { calculateNextRunTime, workStateName, type WorkSpecRow } from '../../../src/android/work-spec.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const T0 = 1717000000000;

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

describe('WorkSpec.calculateNextRunTime (androidx WorkSpec.kt @a9b06aaf)', () => {
  it('periodic, first period, flex = interval: runs at once (plus initial delay)', () => {
    expect(calculateNextRunTime(spec({}))).to.equal(T0);
    expect(calculateNextRunTime(spec({ initialDelay: 5000 }))).to.equal(T0 + 5000);
  });

  it('periodic, first period, flex < interval: waits interval - flex', () => {
    expect(calculateNextRunTime(spec({ flexDuration: 2 * HOUR }))).to.equal(T0 + DAY - 2 * HOUR);
  });

  it('periodic, later periods: last enqueue + interval (flex no longer applies)', () => {
    expect(calculateNextRunTime(spec({ periodCount: 3 }))).to.equal(T0 + DAY);
    expect(calculateNextRunTime(spec({ periodCount: 3, flexDuration: 2 * HOUR }))).to.equal(T0 + DAY);
  });

  it('backed off, exponential: delay × 2^(attempts-1), capped at 5 h', () => {
    expect(calculateNextRunTime(spec({ runAttemptCount: 1 }))).to.equal(T0 + 30_000);
    expect(calculateNextRunTime(spec({ runAttemptCount: 3 }))).to.equal(T0 + 120_000);
    expect(calculateNextRunTime(spec({ runAttemptCount: 20 }))).to.equal(T0 + 5 * HOUR);
  });

  it('backed off, linear: delay × attempts', () => {
    expect(calculateNextRunTime(spec({ runAttemptCount: 3, backoffPolicy: 1 }))).to.equal(T0 + 90_000);
  });

  it('only ENQUEUED work with attempts counts as backed off', () => {
    expect(calculateNextRunTime(spec({ runAttemptCount: 3, state: 1, periodCount: 2 }))).to.equal(T0 + DAY);
  });

  it('an override wins for periodic work, not below last + 15 min after the first period', () => {
    expect(calculateNextRunTime(spec({ nextScheduleTimeOverride: T0 + 1000 }))).to.equal(T0 + 1000);
    expect(calculateNextRunTime(spec({ nextScheduleTimeOverride: T0 + 1000, periodCount: 1 }))).to.equal(T0 + 15 * 60_000);
    expect(calculateNextRunTime(spec({ nextScheduleTimeOverride: T0 + HOUR, periodCount: 1, runAttemptCount: 2 }))).to.equal(T0 + HOUR);
  });

  it('one-time work: last + initial delay; never enqueued (-1) never runs', () => {
    expect(calculateNextRunTime(spec({ intervalDuration: 0, initialDelay: 10 }))).to.equal(T0 + 10);
    expect(calculateNextRunTime(spec({ intervalDuration: 0, lastEnqueueTime: -1 }))).to.equal(Number.MAX_SAFE_INTEGER);
  });

  it('names states', () => {
    expect(workStateName(0)).to.equal('ENQUEUED');
    expect(workStateName(5)).to.equal('CANCELLED');
    expect(workStateName(9)).to.equal('UNKNOWN(9)');
  });
});
