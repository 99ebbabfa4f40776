import type { Harness, ScheduledSpec } from '../scenario/harness.js';

/**
 * The periodic work the app scheduled, read from its WorkManager database; when there is none,
 * a `no-schedule` finding and undefined (the scenario has nothing to measure against).
 */
export async function readSchedule(h: Harness): Promise<ScheduledSpec | undefined> {
  const spec = (await h.readWork()).primary;
  if (!spec) {
    h.finding({ kind: 'no-schedule', item: '', detail: `no unfinished periodic work named "${h.config.work.uniqueName}" in the WorkManager database` });
  }
  return spec;
}
