import type { Harness, RunOutcome } from '../scenario/harness.js';
import type { Scenario } from '../scenario/types.js';
import { HOUR, MINUTE } from './time.js';

/** What seed 001 says each HTTP status must produce. */
export const EXPECTED_OUTCOME: ReadonlyMap<number, RunOutcome> = new Map([
  [503, 'retry'],
  [429, 'retry'],
  [408, 'retry'],
  [401, 'failure'],
]);

async function attemptCount(h: Harness): Promise<number | undefined> {
  return (await h.readWork()).primary?.runAttemptCount;
}

export const retryClassification: Scenario = {
  name: 'retry-classification',
  summary:
    '503, 429 and 408 retry with backoff and the whole feed is reprocessed without duplicates; 401 fails with no retry loop.',
  seed: {
    file: 'seeds/001_3eaf84dd3362095c.txt',
    quote:
      'Use exponential backoff for temporary failures. Retrying invalid input or an authorization failure forever wastes battery and hides the action the user must take.',
  },
  catches: ['retry-on-401'],
  needs: {},
  async run(h) {
    await h.serveFeed([1, 2, 3].map((n) => ({ label: `item-${n}`, title: `Retried ${n}`, ageMs: n * HOUR })));
    h.fault('feed', { statuses: [503, 429, 408] });
    let expectedAttempts = 0;
    for (const status of [503, 429, 408]) {
      h.step(`feed answers ${status}`);
      const r = await h.forceRun();
      expectedAttempts += 1;
      checkOutcome(h, status, r.outcome, r.run);
      const attempts = await attemptCount(h);
      h.note(`after ${status}: outcome ${r.outcome}, run_attempt_count=${attempts ?? 'n/a'}`);
      if (r.outcome === 'retry' && attempts !== expectedAttempts) {
        h.finding({ kind: 'no-backoff', item: '', run: r.run, detail: `after a retry on ${status}, run_attempt_count is ${attempts ?? 'missing'}, expected ${expectedAttempts}: the retry is not a WorkManager backoff` });
      }
    }
    h.step('feed recovers: the whole feed is reprocessed, each item notified once');
    const ok = await h.forceRun();
    h.note(`after recovery: outcome ${ok.outcome}, posted ${ok.posted.length}`);
    h.clearFaults();

    await h.openGuard();
    await h.serveFeed([1, 2].map((n) => ({ label: `auth-${n}`, title: `Behind auth ${n}`, ageMs: n * HOUR })));
    h.fault('feed', { status: 401 });
    h.step('feed answers 401: a failure, not a retry');
    const denied = await h.forceRun();
    checkOutcome(h, 401, denied.outcome, denied.run);
    const attempts = await attemptCount(h);
    h.note(`after 401: outcome ${denied.outcome}, run_attempt_count=${attempts ?? 'n/a'}`);
    h.step('probe: no run is due ten minutes later (well past any backoff, well before the next period)');
    await h.advanceClock(10 * MINUTE);
    const probe = await h.forceRun({ probe: true });
    if (probe.outcome !== 'refused') {
      h.finding({
        kind: 'retry-loop',
        item: '',
        run: denied.run,
        detail: `a 401 was followed by another attempt one backoff later (probe outcome ${probe.outcome}, fetches ${probe.fetchStatuses.join(',') || 'none'}): authorization failures must not be retried`,
        evidence: probe.evidence,
      });
    }
    h.clearFaults();
  },
};

function checkOutcome(h: Harness, status: number, outcome: RunOutcome, run: number): void {
  const expected = EXPECTED_OUTCOME.get(status);
  if (expected !== undefined && outcome !== expected && outcome !== 'refused') {
    h.finding({
      kind: 'misclassified-status',
      item: '',
      run,
      detail: `HTTP ${status} from the feed ended the run with ${outcome}, expected ${expected}`,
    });
  }
}
