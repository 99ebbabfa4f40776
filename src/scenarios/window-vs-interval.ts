import { WINDOW_PROBE_LABEL, requiredWindowMs } from '../checker/properties/index.js';
import type { Scenario } from '../harness/types.js';
import { readSchedule } from './schedule.js';
import { HOUR, formatDuration } from './time.js';

export { requiredWindowMs } from '../checker/properties/index.js';

export const windowVsInterval: Scenario = {
  name: 'window-vs-interval',
  summary: "The schedule's interval (+flex), read from WorkManager's database, against the window: window ≥ 2 × interval, configured and as the app behaves.",
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote:
      'Confirm the window really is wider than the interval: the schedule lives at the enqueue site, not next to the constant. […] These two numbers are edited by different people at different times and drift apart silently.',
  },
  catches: ['window-equals-interval'],
  needs: {},
  properties: ['schedule', 'window'],
  async run(h) {
    const spec = await readSchedule(h);
    if (!spec) return;
    const required = requiredWindowMs(spec.intervalDuration, spec.flexDuration);
    const window = h.config.windowMs;
    h.note(
      `WorkSpec ${spec.id}: interval_duration=${spec.intervalDuration} (${formatDuration(spec.intervalDuration)}), flex_duration=${spec.flexDuration}; ` +
        `required window ≥ ${formatDuration(required)}; configured window ${formatDuration(window)}`,
    );
    // Probe the app's real window: an item as old as the far edge of a missed run must notify,
    // one just past one interval must notify, one beyond the configured window must not.
    const edge = Math.min(required, window) - HOUR;
    await h.serveFeed([
      { label: WINDOW_PROBE_LABEL, title: `Aged ${formatDuration(edge)}`, ageMs: edge },
      { label: 'one-interval', title: `Aged ${formatDuration(spec.intervalDuration + HOUR)}`, ageMs: spec.intervalDuration + HOUR },
      { label: 'fresh', title: 'Aged 1h', ageMs: HOUR },
      { label: 'beyond-window', title: `Aged ${formatDuration(window + 2 * HOUR)}`, ageMs: window + 2 * HOUR },
    ]);
    h.step('forced run with items at the edges of the window');
    await h.forceRun();
  },
};
