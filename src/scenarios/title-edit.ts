import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const titleEdit: Scenario = {
  name: 'title-edit',
  summary: 'Same link, title edited upstream between two runs: no second notification.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote: 'Key the dedup on a stable identifier, not on display text. […] A title is what you show, and a title can be edited upstream between two runs.',
  },
  catches: ['key-on-title'],
  needs: {},
  async run(h) {
    const served = await h.serveFeed([
      { label: 'edited', title: 'Original headline', ageMs: 3 * HOUR },
      { label: 'untouched', title: 'Untouched headline', ageMs: 2 * HOUR },
    ]);
    h.step('first forced run');
    await h.forceRun();
    h.step('the title is edited upstream; same link');
    await h.serveFeed(served.map((s) => ({ label: s.label, title: s.label === 'edited' ? 'Original headline (corrected)' : s.title, atMs: s.publishedAt })));
    h.step('second forced run: nothing re-notifies');
    await h.forceRun();
  },
};
