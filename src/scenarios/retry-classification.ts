import type { Scenario } from '../harness/types.js';
import { HOUR, MINUTE } from './time.js';

export { EXPECTED_OUTCOME } from '../checker/properties/index.js';

export const retryClassification: Scenario = {
  name: 'retry-classification',
  summary:
    '503, 429 and 408 retry with backoff and the whole feed is reprocessed without duplicates; 401 fails with no retry loop.',
  seed: {
    file: 'docs/sources/001_3eaf84dd3362095c.txt',
    quote:
      'Use exponential backoff for temporary failures. Retrying invalid input or an authorization failure forever wastes battery and hides the action the user must take.',
  },
  catches: ['retry-on-401'],
  needs: {},
  properties: ['retry'],
  async run(h) {
    await h.serveFeed([1, 2, 3].map((n) => ({ label: `item-${n}`, title: `Retried ${n}`, ageMs: n * HOUR })));
    h.fault('feed', { statuses: [503, 429, 408] });
    for (const status of [503, 429, 408]) {
      h.step(`feed answers ${status}`);
      const r = await h.forceRun();
      // Recorded as a schedule event: the retry check compares run_attempt_count with the retries.
      const attempts = (await h.readWork('after-run')).primary?.runAttemptCount;
      h.note(`after ${status}: outcome ${r.outcome}, run_attempt_count=${attempts ?? 'n/a'}`);
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
    const attempts = (await h.readWork('after-run')).primary?.runAttemptCount;
    h.note(`after 401: outcome ${denied.outcome}, run_attempt_count=${attempts ?? 'n/a'}`);
    h.step('probe: no run is due ten minutes later (well past any backoff, well before the next period)');
    await h.advanceClock(10 * MINUTE);
    const probe = await h.forceRun({ probe: true });
    h.note(`probe after 401: ${probe.outcome}`);
    h.clearFaults();
  },
};
