import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const coldProcess: Scenario = {
  name: 'cold-process',
  summary: 'The worker starts in a fresh process where no activity ever ran: it still has a channel and posts.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote:
      'Channel creation is idempotent, and doing it at the post site means a fresh process that starts inside the worker (rather than in the launcher activity) still has a channel to post into.',
  },
  catches: ['channel-in-activity'],
  needs: {},
  async run(h) {
    h.step('wipe the app data (backed up first): no channel, no process');
    await h.clearAppData();
    h.step('start the process without an activity, as a broadcast would');
    await h.startProcessWithoutActivity();
    await h.openGuard();
    await h.serveFeed([1, 2, 3].map((n) => ({ label: `cold-${n}`, title: `Cold start ${n}`, ageMs: n * HOUR })));
    h.step('forced run in the cold process');
    const r = await h.forceRun();
    h.note(`the cold-process run posted ${r.posted.length} notification(s)`);
  },
};
