import type { Scenario } from '../scenario/types.js';
import { readSchedule } from './schedule.js';
import { HOUR, formatDuration } from './time.js';

/**
 * The window must cover one fully missed run. With flex, a run may come as late as the end of
 * its period, so the widest gap between two runs around a missed one is two intervals; a flex
 * shorter than the interval lets the first run come `interval - flex` early, widening it by that.
 */
export function requiredWindowMs(intervalMs: number, flexMs: number): number {
  const early = flexMs > 0 && flexMs < intervalMs ? intervalMs - flexMs : 0;
  return 2 * intervalMs + early;
}

export const windowVsInterval: Scenario = {
  name: 'window-vs-interval',
  summary: "The schedule's interval (+flex), read from WorkManager's database, against the window: window ≥ 2 × interval, configured and as the app behaves.",
  seed: {
    file: 'seeds/000_83062cdfb17c0f84.txt',
    quote:
      'Confirm the window really is wider than the interval: the schedule lives at the enqueue site, not next to the constant. These two numbers are edited by different people at different times and drift apart silently.',
  },
  catches: ['window-equals-interval'],
  needs: {},
  async run(h) {
    const spec = await readSchedule(h);
    if (!spec) return;
    const required = requiredWindowMs(spec.intervalDuration, spec.flexDuration);
    const window = h.config.windowMs;
    h.note(
      `WorkSpec ${spec.id}: interval_duration=${spec.intervalDuration} (${formatDuration(spec.intervalDuration)}), flex_duration=${spec.flexDuration}; ` +
        `required window ≥ ${formatDuration(required)}; configured window ${formatDuration(window)}`,
    );
    if (window < required) {
      h.finding({
        kind: 'window-too-narrow',
        item: '',
        detail: `configured window ${formatDuration(window)} is narrower than 2 × interval${required !== 2 * spec.intervalDuration ? ' + early flex' : ''} = ${formatDuration(required)}: one missed run loses items`,
      });
    }
    // Probe the app's real window: an item as old as the far edge of a missed run must notify,
    // one just past one interval must notify, one beyond the configured window must not.
    const edge = Math.min(required, window) - HOUR;
    await h.serveFeed([
      { label: 'missed-run-edge', title: `Aged ${formatDuration(edge)}`, ageMs: edge },
      { label: 'one-interval', title: `Aged ${formatDuration(spec.intervalDuration + HOUR)}`, ageMs: spec.intervalDuration + HOUR },
      { label: 'fresh', title: 'Aged 1h', ageMs: HOUR },
      { label: 'beyond-window', title: `Aged ${formatDuration(window + 2 * HOUR)}`, ageMs: window + 2 * HOUR },
    ]);
    h.step('forced run with items at the edges of the window');
    const r = await h.forceRun();
    const edgePosted = r.posted.some((p) => p.endsWith('/missed-run-edge'));
    if (!edgePosted && r.outcome === 'success') {
      h.finding({
        kind: 'window-too-narrow',
        item: '',
        run: r.run,
        detail: `the app did not notify an item aged ${formatDuration(edge)}: its effective window is shorter than ${formatDuration(edge)}, but a missed run needs ${formatDuration(required)}`,
      });
    }
  },
};
