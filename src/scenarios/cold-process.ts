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
  /**
   * After the pm clear the feed is attached again (feed.attach) before the run: an intent or deep
   * link step starts an activity of the app, whose onCreate may create the channel (the
   * `channel-in-activity` bug would be hidden), so the process is not one where no activity ran.
   * An sql step inserts the subscription with the app stopped and keeps the process cold.
   */
  notApplicable(config) {
    // The process is started by WorkManager's exported DiagnosticsReceiver (AppControl); an app
    // without WorkManager has no receiver the shell may start it with, and after the pm clear its
    // job is gone until the app starts (JobScheduler drops a cleared package's jobs).
    if (config.work.scheduler === 'jobscheduler') {
      return 'work.scheduler is "jobscheduler": the process is started without an activity through WorkManager\'s DiagnosticsReceiver, which an app without WorkManager does not have, and after the pm clear the app\'s job exists only once the app has started';
    }
    const steps = config.feed.attach ?? [];
    const index = steps.findIndex((step) => !('sql' in step));
    if (index < 0) return undefined;
    const kind = 'intent' in steps[index]! ? 'intent' : 'deepLink';
    return `feed.attach step ${index + 1} (${kind}) starts an activity of the app after the pm clear, so the run would not be in a process where no activity ran; an attach made only of "sql" steps (inserting the subscription with the app stopped) lets this scenario run`;
  },
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
