/**
 * What the Scheduling implementations share: the wait for the app to schedule its work after a
 * start, and the `schedule` history event's specs made from a WorkSnapshot.
 */
import type { ScheduleSpec } from '../../history/events.js';
import { TimeoutError } from '../../errors.js';
import type { WorkSnapshot } from '../harness.js';
import { delay, type DeviceSteps } from '../device-steps.js';

/**
 * Asks `scheduled` (one read of the device) until it says the app has scheduled its work,
 * backing off from 25 to 500 ms; after timeouts.runMs a TimeoutError saying `why`. Neither
 * WorkManager nor JobScheduler logs a schedule above DEBUG, so there is no line to wait for.
 */
export async function pollForSchedule(steps: DeviceSteps, scheduled: () => Promise<boolean>, why: string): Promise<void> {
  const { config, ctx } = steps;
  const deadline = ctx.clock.monotonic() + config.timeouts.runMs;
  let delayMs = 25;
  for (;;) {
    if (await scheduled()) return;
    if (ctx.clock.monotonic() > deadline) throw new TimeoutError(why, config.timeouts.runMs);
    await delay(delayMs);
    delayMs = Math.min(delayMs * 2, 500);
  }
}

/** The specs of a `schedule` event: the named ones and the worker's (or service's), each once. */
export function scheduleSpecs(work: WorkSnapshot): ScheduleSpec[] {
  const byId = new Map<string, ScheduleSpec>();
  const named = new Set(work.namedSpecs.map((s) => s.id));
  for (const s of [...work.namedSpecs, ...work.workerSpecs]) {
    byId.set(s.id, {
      id: s.id,
      named: named.has(s.id),
      workerClass: s.workerClassName,
      state: s.state,
      intervalMs: s.intervalDuration,
      flexMs: s.flexDuration,
      lastEnqueueTime: s.lastEnqueueTime,
      runAttemptCount: s.runAttemptCount,
      systemId: s.systemId ?? null,
    });
  }
  return [...byId.values()];
}
