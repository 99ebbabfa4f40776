import type { Scenario } from '../harness/types.js';
import { DAY, HOUR } from './time.js';

export const firstInstall: Scenario = {
  name: 'first-install',
  summary: 'Fresh app data and a feed holding items far older than the window: only in-window items notify.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote: 'Take the window away and a first install fires a notification for every item ever published.',
  },
  catches: ['no-window'],
  needs: {},
  async run(h) {
    h.step('wipe the app data (backed up first): a first install');
    await h.clearAppData();
    await h.startApp();
    await h.openGuard();
    await h.serveFeed([
      { label: 'year-old', title: 'A year ago', ageMs: 365 * DAY },
      { label: 'month-old', title: 'A month ago', ageMs: 30 * DAY },
      { label: 'week-old', title: 'A week ago', ageMs: 7 * DAY },
      { label: 'three-days', title: 'Three days ago', ageMs: 3 * DAY },
      { label: 'recent-1', title: 'Five hours ago', ageMs: 5 * HOUR },
      { label: 'recent-2', title: 'Two hours ago', ageMs: 2 * HOUR },
    ]);
    h.step('first run after install');
    await h.forceRun();
  },
};
