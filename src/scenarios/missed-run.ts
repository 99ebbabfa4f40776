import type { Scenario } from '../harness/types.js';
import { readSchedule } from './schedule.js';
import { HOUR, formatDuration } from './time.js';

export const missedRun: Scenario = {
  name: 'missed-run',
  summary: 'Skip a scheduled run (clock past one interval): items published in the gap still arrive.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote: 'Set the device clock forward past one interval, or skip a run, and confirm items published in the gap still arrive.',
  },
  catches: ['window-equals-interval'],
  needs: {},
  properties: ['schedule'],
  async run(h) {
    const spec = await readSchedule(h);
    if (!spec) return;
    const interval = spec.intervalDuration;
    await h.serveFeed([
      { label: 'before-1', title: 'Before the gap 1', ageMs: 2 * HOUR },
      { label: 'before-2', title: 'Before the gap 2', ageMs: 1 * HOUR },
    ]);
    h.step('forced run at T0');
    const first = await h.forceRun();
    const t0 = first.deviceTime;
    // The run due at T0 + interval never happens; the next one comes one interval later.
    const nextRunAt = t0 + 2 * interval - HOUR;
    h.step(`skip the run due at T0+${formatDuration(interval)}: clock to T0+${formatDuration(nextRunAt - t0)}`);
    const now = await h.deviceNow();
    await h.advanceClock(nextRunAt - now);
    await h.serveFeed([
      { label: 'before-1', title: 'Before the gap 1', atMs: t0 - 2 * HOUR },
      { label: 'before-2', title: 'Before the gap 2', atMs: t0 - 1 * HOUR },
      { label: 'gap-early', title: 'Published early in the gap', atMs: t0 + Math.round(0.1 * interval) },
      { label: 'gap-middle', title: 'Published mid-gap', atMs: t0 + Math.round(0.5 * interval) },
      { label: 'gap-late', title: 'Published late in the gap', atMs: t0 + Math.round(0.9 * interval) },
    ]);
    h.step('forced run after the missed one');
    const after = await h.forceRun();
    h.note(`after the missed run, ${after.posted.length} gap item(s) were posted`);
  },
};
