/**
 * `doctor`'s probe run (not part of the suite, not in index.ts): one forced run of the app's
 * periodic work against an empty feed, so that it notifies and stores nothing, in a session that
 * saves and restores the device like any run. Its history says whether the app fetched the feed
 * where the config serves it (`fetched` in a 2xx response: pass), or why not (`no-fetch`).
 */
import type { Scenario } from '../harness/types.js';

export const feedProbe: Scenario = {
  name: 'feed-probe',
  summary: 'One forced run against an empty feed: does the app fetch the feed where the config serves it?',
  seed: { file: 'docs/sources/000_83062cdfb17c0f84.txt', quote: 'Retry the whole fetch, not individual items.' },
  catches: [],
  needs: {},
  async run(h) {
    await h.serveFeed([]);
    h.step('one forced run against an empty feed');
    const r = await h.forceRun();
    h.note(`the probe run ended ${r.outcome}; feed fetches: ${r.fetchStatuses.length === 0 ? 'none' : r.fetchStatuses.join(', ')}`);
  },
};
