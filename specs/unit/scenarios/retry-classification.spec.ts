import { expect } from 'chai';
import { retryClassification } from '../../../src/scenarios/retry-classification.js';
import { fakeSpec, link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

describe('scenario retry-classification (fake harness)', () => {
  it('faults the feed with 503, 429, 408 (reading the schedule after each), recovers, then 401 and a probe ten minutes later', async () => {
    const { h } = await play(retryClassification);
    expect(h.steps.filter((s) => !s.startsWith('step:') && !s.startsWith('serveFeed'))).to.deep.equal([
      'fault feed {"statuses":[503,429,408]}',
      'forceRun', 'readWork after-run', 'forceRun', 'readWork after-run', 'forceRun', 'readWork after-run',
      'forceRun', 'clearFaults', 'openGuard',
      'fault feed {"status":401}', 'forceRun', 'readWork after-run', 'advanceClock +10m', 'forceRun probe', 'clearFaults',
    ]);
  });

  /** Run n of the scripted app: the feed answers as faulted; `on401` is what the app makes of a 401. */
  const app = (on401: 'failure' | 'retry') => (h: Parameters<Parameters<typeof play>[1] & object>[0]): void => {
    let attempts = 0;
    h.onRun = (n, options) => {
      if (options.probe === true) return { outcome: on401 === 'retry' ? 'retry' : 'refused', fetchStatuses: on401 === 'retry' ? [401] : [] };
      const status = [503, 429, 408, 200, 401][n - 1] ?? 200;
      const outcome = status === 200 ? 'success' : status === 401 ? on401 : 'retry';
      attempts = outcome === 'retry' ? attempts + 1 : 0;
      // The recovered run processes the whole feed, oldest first: each item notified once.
      const items = status === 200 ? [3, 2, 1].map((i) => link(`item-${i}`)) : [];
      return { outcome, fetchStatuses: [status], posted: items, stored: items };
    };
    h.onReadWork = () => {
      const spec = fakeSpec({ runAttemptCount: attempts });
      return { namedSpecs: [spec], workerSpecs: [spec], primary: spec };
    };
  };

  it('passes retries counted by WorkManager and a 401 that fails with no retry', async () => {
    const { check } = await play(retryClassification, app('failure'));
    expect(check.verdict).to.equal('pass');
    expect(check.anomalies).to.deep.equal([]);
  });

  it('fails a 401 retried: misclassified, and a retry loop shown by the probe', async () => {
    const { check } = await play(retryClassification, app('retry'));
    expect(failing(check)).to.deep.equal(['misclassified-status', 'retry-loop']);
  });
});
