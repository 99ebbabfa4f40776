import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const oldestFirst: Scenario = {
  name: 'oldest-first',
  summary: 'Posts arrive in publication order, whatever the order of the feed.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote:
      'Oldest-first is not cosmetic. Two reasons, both real: notifications arrive in publication order, and — because the loop notifies and records item-by-item — a run killed partway through has handled the oldest items.',
  },
  catches: ['newest-first'],
  needs: {},
  checksOrder: true,
  async run(h) {
    // Served in an order that is neither oldest- nor newest-first.
    await h.serveFeed([3, 1, 6, 2, 5, 4].map((n) => ({ label: `aged-${n}h`, title: `Published ${n}h ago`, ageMs: n * HOUR })));
    h.step('forced run: posts must come oldest first');
    const r = await h.forceRun();
    h.note(`post order: ${r.posted.map((p) => p.slice(p.lastIndexOf('/') + 1)).join(', ')}`);
  },
};
