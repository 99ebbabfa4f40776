import { AFTER_RELAUNCH, BEFORE_RELAUNCH } from '../checker/properties/index.js';
import type { Scenario } from '../harness/types.js';

export const uniqueWork: Scenario = {
  name: 'unique-work',
  summary: 'Relaunching the app (also after force-stop) keeps exactly one periodic WorkSpec for the unique name (or one job of its own JobService), and KEEP does not reset its schedule.',
  seed: {
    file: 'docs/sources/001_3eaf84dd3362095c.txt',
    quote: 'Unique work prevents duplicate local schedules […] KEEP: retain existing unfinished work.',
  },
  catches: ['duplicate-schedule'],
  needs: {},
  properties: ['unique-work'],
  async run(h) {
    // A run first, so the work is not overdue: relaunching must then leave its schedule alone
    // (overdue work would rightly run at once and move last_enqueue_time).
    await h.serveFeed([]);
    h.step('one forced run, so the next run is a full interval away');
    await h.forceRun();
    const before = await h.readWork(BEFORE_RELAUNCH);
    for (let i = 1; i <= 3; i++) {
      h.step(`launch the app (${i}/3)`);
      await h.startApp();
    }
    const work = h.config.work;
    let after;
    if (work.scheduler === 'jobscheduler') {
      // JobScheduler drops every job of a force-stopped package (its ACTION_PACKAGE_RESTARTED
      // receiver cancels them, JobSchedulerService), so after a force-stop the app must schedule
      // its job anew. The relaunch compared is one after a process death, which keeps the jobs:
      // Application.onCreate then runs with the job still pending. The restart after a force-stop
      // only has to bring the job back.
      h.step('the process dies (low-memory killer: its job stays), then launch again');
      await h.killProcess();
      await h.startApp();
      after = await h.readWork(AFTER_RELAUNCH);
      h.step('force-stop (JobScheduler drops the app\'s jobs), then launch again: the app schedules its job again');
      await h.restartApp();
    } else {
      h.step('force-stop, then launch again');
      await h.restartApp();
      after = await h.readWork(AFTER_RELAUNCH);
    }
    h.note(
      work.scheduler === 'workmanager'
        ? `periodic WorkSpecs named "${work.uniqueName}": ${before.namedSpecs.length} before, ${after.namedSpecs.length} after; ` +
            `periodic WorkSpecs of ${work.workerClass ?? 'the worker'}: ${after.workerSpecs.length}`
        : `periodic jobs as the config names them: ${before.namedSpecs.length} before, ${after.namedSpecs.length} after (${before.namedSpecs.map((s) => s.id).join(', ')} → ${after.namedSpecs.map((s) => s.id).join(', ')}); ` +
            `periodic jobs of the app's service: ${after.workerSpecs.length}`,
    );
  },
};
