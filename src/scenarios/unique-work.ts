import { AFTER_RELAUNCH, BEFORE_RELAUNCH } from '../checker/properties/index.js';
import type { Scenario } from '../harness/types.js';

export const uniqueWork: Scenario = {
  name: 'unique-work',
  summary: 'Relaunching the app (also after force-stop) keeps exactly one periodic WorkSpec for the unique name, and KEEP does not reset its schedule.',
  seed: {
    file: 'docs/sources/001_3eaf84dd3362095c.txt',
    quote: 'Unique work prevents duplicate local schedules […] KEEP: retain existing unfinished work.',
  },
  catches: ['duplicate-schedule'],
  needs: {},
  /**
   * Unique work is WorkManager's: the property counts the WorkSpecs of the unique name and
   * compares their last_enqueue_time. A JobService job has no such row, and its `Enqueue time`
   * is printed relative to the dump (JobStatus.dump), not as a time the two reads can compare.
   */
  notApplicable: (config) =>
    config.work.scheduler === 'jobscheduler'
      ? 'work.scheduler is "jobscheduler": unique work and KEEP are WorkManager\'s (its WorkSpecs of the unique name); the app\'s own job has no WorkSpec to count'
      : undefined,
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
    h.step('force-stop, then launch again');
    await h.restartApp();
    const after = await h.readWork(AFTER_RELAUNCH);
    const work = h.config.work;
    h.note(
      `periodic WorkSpecs named "${work.scheduler === 'workmanager' ? work.uniqueName : '?'}": ${before.namedSpecs.length} before, ${after.namedSpecs.length} after; ` +
        `periodic WorkSpecs of ${(work.scheduler === 'workmanager' ? work.workerClass : undefined) ?? 'the worker'}: ${after.workerSpecs.length}`,
    );
  },
};
