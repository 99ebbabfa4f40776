import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const dbIsTruth: Scenario = {
  name: 'db-is-truth',
  summary: 'Delete the recorded rows and re-run: everything inside the window re-posts, once.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote:
      'Delete the recorded rows and re-run. Everything inside the window should re-post — that proves the database is genuinely the source of truth and the worker is not deduping some other way by accident.',
  },
  catches: ['dedup-elsewhere'],
  needs: {},
  notApplicable: (config) =>
    config.database === undefined ? 'the config has no "database": there is no record of the app\'s to delete, so no re-post can show that the record is what the app dedups on' : undefined,
  async run(h) {
    const served = await h.serveFeed([1, 2, 3, 4].map((n) => ({ label: `item-${n}`, title: `Source of truth ${n}`, ageMs: n * HOUR })));
    h.step('first forced run');
    await h.forceRun();
    h.step('delete the recorded rows (on a backed-up copy)');
    await h.forgetRows(served.map((s) => s.item));
    h.step('forced run after the delete: everything re-posts once');
    const again = await h.forceRun();
    h.note(`after the delete the run posted ${again.posted.length} of ${served.length} items`);
  },
};
