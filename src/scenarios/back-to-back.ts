import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const backToBack: Scenario = {
  name: 'back-to-back',
  summary: 'Two forced runs with no feed change: the second posts nothing.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote: 'Run the worker twice back-to-back with no feed change. The second run must post nothing.',
  },
  catches: ['no-db-check'],
  needs: {},
  async run(h) {
    await h.serveFeed([1, 2, 3, 4, 5].map((n) => ({ label: `item-${n}`, title: `Back to back ${n}`, ageMs: n * HOUR })));
    h.step('first forced run');
    await h.forceRun();
    // As a user would, clear them first, so that a re-notification is a new post: an update of a
    // notification still on screen is a repeat too, but NotificationManagerService rate-limits
    // updates (5 per second per package) and may shed it without a log line. adb has no command
    // that dismisses another app's notifications: force-stop removes them (NMS's
    // mPackageIntentReceiver cancels them with REASON_PACKAGE_CHANGED on ACTION_PACKAGE_RESTARTED),
    // and the relaunch reschedules the work.
    h.step('clear the notifications (force-stop, relaunch)');
    await h.restartApp();
    h.step('second forced run, same feed');
    const second = await h.forceRun();
    h.note(`second run posted ${second.posted.length} notification(s)`);
  },
};
