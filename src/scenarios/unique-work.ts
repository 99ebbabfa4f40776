import type { Scenario } from '../scenario/types.js';

export const uniqueWork: Scenario = {
  name: 'unique-work',
  summary: 'Relaunching the app (also after force-stop) keeps exactly one periodic WorkSpec for the unique name, and KEEP does not reset its schedule.',
  seed: {
    file: 'seeds/001_3eaf84dd3362095c.txt',
    quote: 'Unique work prevents duplicate local schedules […] KEEP: retain existing unfinished work.',
  },
  catches: ['duplicate-schedule'],
  needs: {},
  async run(h) {
    // A run first, so the work is not overdue: relaunching must then leave its schedule alone
    // (overdue work would rightly run at once and move last_enqueue_time).
    await h.serveFeed([]);
    h.step('one forced run, so the next run is a full interval away');
    await h.forceRun();
    const before = await h.readWork();
    const first = before.namedSpecs[0];
    for (let i = 1; i <= 3; i++) {
      h.step(`launch the app (${i}/3)`);
      await h.startApp();
    }
    h.step('force-stop, then launch again');
    await h.forceStop();
    await h.startApp();
    const after = await h.readWork();
    h.note(
      `periodic WorkSpecs named "${h.config.work.uniqueName}": ${before.namedSpecs.length} before, ${after.namedSpecs.length} after; ` +
        `periodic WorkSpecs of ${h.config.work.workerClass}: ${after.workerSpecs.length}`,
    );
    if (after.namedSpecs.length !== 1) {
      h.finding({
        kind: 'duplicate-schedule',
        item: '',
        detail: `${after.namedSpecs.length} unfinished periodic WorkSpecs are named "${h.config.work.uniqueName}" after relaunching: expected exactly 1`,
        evidence: after.namedSpecs.map((s) => `WorkSpec ${s.id} state=${s.state} interval=${s.intervalDuration}`),
      });
    }
    if (after.workerSpecs.length > 1) {
      h.finding({
        kind: 'duplicate-schedule',
        item: '',
        detail: `${after.workerSpecs.length} periodic WorkSpecs run ${h.config.work.workerClass} after relaunching: each schedules its own runs`,
        evidence: after.workerSpecs.map((s) => `WorkSpec ${s.id} state=${s.state} last_enqueue_time=${s.lastEnqueueTime}`),
      });
    }
    const kept = after.namedSpecs.find((s) => s.id === first?.id);
    if (first && after.namedSpecs.length === 1 && !kept) {
      h.finding({ kind: 'schedule-reset', item: '', detail: `relaunching replaced WorkSpec ${first.id} with ${after.namedSpecs[0]?.id}: KEEP must keep the existing work` });
    } else if (first && kept && kept.lastEnqueueTime !== first.lastEnqueueTime) {
      h.finding({
        kind: 'schedule-reset',
        item: '',
        detail: `relaunching moved last_enqueue_time of WorkSpec ${first.id} from ${first.lastEnqueueTime} to ${kept.lastEnqueueTime}: the schedule restarts on every launch`,
      });
    }
  },
};
