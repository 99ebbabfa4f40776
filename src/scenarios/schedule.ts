import type { Harness, ScheduledSpec } from '../harness/harness.js';

/**
 * The periodic work the app scheduled, read from its WorkManager database (and recorded as a
 * `schedule` event: the `schedule` property check reports `no-schedule` when there is none);
 * undefined when there is none (the scenario has nothing to measure against).
 */
export async function readSchedule(h: Harness): Promise<ScheduledSpec | undefined> {
  const spec = (await h.readWork('schedule', { sinceLastChange: true })).primary;
  if (!spec) h.note(`no unfinished periodic work ${h.config.work.scheduler === 'workmanager' ? `named "${h.config.work.uniqueName}" in the WorkManager database` : 'of the app in JobScheduler'}`);
  return spec;
}
