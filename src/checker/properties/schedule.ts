/**
 * The properties read from WorkManager's database (`schedule` events):
 *
 * - `schedule`: the app has unfinished periodic work of the unique name (otherwise nothing the
 *   scenario measures against exists: unknown, not fail);
 * - `window` (seed 000: "Confirm the window really is wider than the interval"): the window
 *   covers one missed run, 2 × interval plus the early part of a flex, both as configured and as
 *   the app behaves (the item labelled `missed-run-edge`, as old as a missed run's far edge, is
 *   notified by the run that fetched it and went through the feed: ended `success`, or
 *   `finished`, the success-or-failure read from the workdb when no result line came);
 * - `unique-work` (seed 001: "Unique work prevents duplicate local schedules … KEEP"): after
 *   relaunching, exactly one unfinished periodic WorkSpec for the unique name, at most one for
 *   the worker class, the same id and `last_enqueue_time` as before. For an app's own
 *   JobService (`scheduler: "jobscheduler"`): one periodic job as the config names it, at most
 *   one of its service, and the same JobStatus (its id carries the identity hash).
 */
import type { HistoryEvent, ScheduleEvent, ScheduleSpec } from '../../history/events.js';
import { formatDuration } from '../describe.js';
import type { Anomaly } from '../types.js';
import { notObserved, type PropertyChecker, type PropertyDefinition, type PropertyOptions } from './property.js';

/** The label of the item that probes the app's real window (its age: a missed run's far edge). */
export const WINDOW_PROBE_LABEL = 'missed-run-edge';
/** Labels of the two schedule reads `unique-work` compares. */
export const BEFORE_RELAUNCH = 'before-relaunch';
export const AFTER_RELAUNCH = 'after-relaunch';

/**
 * The window a missed run needs. With flex, a run may come as late as the end of its period, so
 * the widest gap between two runs around a missed one is two intervals; a flex shorter than the
 * interval lets the first run come `interval - flex` early, widening it by that.
 */
export function requiredWindowMs(intervalMs: number, flexMs: number): number {
  const early = flexMs > 0 && flexMs < intervalMs ? intervalMs - flexMs : 0;
  return 2 * intervalMs + early;
}

function primaryOf(event: ScheduleEvent): ScheduleSpec | undefined {
  return event.primary === null ? undefined : event.specs.find((s) => s.id === event.primary);
}

function describeSpec(s: ScheduleSpec): string {
  return `WorkSpec ${s.id} state=${s.state} interval=${s.intervalMs} last_enqueue_time=${s.lastEnqueueTime}`;
}

class SchedulePresentChecker implements PropertyChecker {
  private first: ScheduleEvent | undefined;
  add(event: HistoryEvent): void {
    if (event.type === 'schedule') this.first ??= event;
  }
  finish(): Anomaly[] {
    if (!this.first) return [notObserved('schedule', 'read of the WorkManager database (`schedule` event)')];
    if (this.first.primary !== null) return [];
    const where = this.first.scheduler === 'jobscheduler' ? `no ${this.first.uniqueName} of the app is a periodic job in dumpsys jobscheduler` : `no unfinished periodic work named "${this.first.uniqueName}" in the WorkManager database`;
    return [{ kind: 'no-schedule', item: '', detail: where }];
  }
}

class WindowChecker implements PropertyChecker {
  private spec: ScheduleSpec | undefined;
  private probe: { item: string; publishedAt: number } | undefined;
  /** Runs that fetched the probe inside a 2xx response, with their clock. */
  private readonly fetchedIn = new Map<number, number | undefined>();
  private readonly runClock = new Map<number, number>();
  private notified = false;
  private verdictRun: { run: number; ageMs: number } | undefined;

  constructor(private readonly options: PropertyOptions) {}

  add(event: HistoryEvent): void {
    if (event.type === 'schedule') {
      this.spec ??= primaryOf(event);
    } else if (event.type === 'published') {
      if (event.label === WINDOW_PROBE_LABEL) this.probe = { item: event.item, publishedAt: event.publishedAt };
    } else if (event.type === 'run-started') {
      // Only runs in progress are kept (deleted when they finish): memory stays bounded.
      this.runClock.set(event.run, event.deviceTime);
    } else if (event.type === 'fetched') {
      if (this.probe && event.status >= 200 && event.status <= 299 && event.items.includes(this.probe.item)) this.fetchedIn.set(event.run, this.runClock.get(event.run) ?? event.t);
    } else if (event.type === 'notified') {
      if (this.probe && event.item === this.probe.item) this.notified = true;
    } else if (event.type === 'run-finished') {
      const now = this.fetchedIn.get(event.run);
      if (this.probe && now !== undefined && (event.outcome === 'success' || event.outcome === 'finished') && !this.notified && this.verdictRun === undefined) {
        this.verdictRun = { run: event.run, ageMs: now - this.probe.publishedAt };
      }
      this.runClock.delete(event.run);
      this.fetchedIn.delete(event.run);
    }
  }

  finish(): Anomaly[] {
    if (!this.spec) return [notObserved('window', 'periodic WorkSpec read from the WorkManager database')];
    const anomalies: Anomaly[] = [];
    const required = requiredWindowMs(this.spec.intervalMs, this.spec.flexMs);
    const window = this.options.windowMs;
    if (window < required) {
      anomalies.push({
        kind: 'window-too-narrow',
        item: '',
        detail: `configured window ${formatDuration(window)} is narrower than 2 × interval${required !== 2 * this.spec.intervalMs ? ' + early flex' : ''} = ${formatDuration(required)} (WorkSpec ${this.spec.id}: interval_duration ${this.spec.intervalMs}, flex_duration ${this.spec.flexMs}): one missed run loses items`,
      });
    }
    if (this.probe && this.verdictRun) {
      anomalies.push({
        kind: 'window-too-narrow',
        item: this.probe.item,
        run: this.verdictRun.run,
        detail: `the app did not notify an item aged ${formatDuration(this.verdictRun.ageMs)} in run ${this.verdictRun.run}: its effective window is shorter than that, but a missed run needs ${formatDuration(required)}`,
      });
    }
    return anomalies;
  }
}

class UniqueWorkChecker implements PropertyChecker {
  private before: ScheduleEvent | undefined;
  private after: ScheduleEvent | undefined;
  add(event: HistoryEvent): void {
    if (event.type !== 'schedule') return;
    if (event.label === BEFORE_RELAUNCH) this.before ??= event;
    else if (event.label === AFTER_RELAUNCH) this.after = event;
  }
  finish(): Anomaly[] {
    if (!this.before || !this.after) return [notObserved('unique-work', `\`schedule\` events labelled ${BEFORE_RELAUNCH} and ${AFTER_RELAUNCH}`)];
    const anomalies: Anomaly[] = [];
    const name = this.after.uniqueName;
    const named = this.after.specs.filter((s) => s.named);
    const workerClass = this.after.workerClass;
    const ofWorker = this.after.specs.filter((s) => workerClass === undefined || s.workerClass === workerClass);
    if (named.length !== 1) {
      anomalies.push({
        kind: 'duplicate-schedule',
        item: '',
        detail:
          this.after.scheduler === 'jobscheduler'
            ? `${named.length} periodic jobs are ${name} after relaunching: expected exactly 1`
            : `${named.length} unfinished periodic WorkSpecs are named "${name}" after relaunching: expected exactly 1`,
        evidence: named.map(describeSpec),
      });
    }
    if (ofWorker.length > 1) {
      anomalies.push({
        kind: 'duplicate-schedule',
        item: '',
        detail: `${ofWorker.length} periodic ${this.after.scheduler === 'jobscheduler' ? 'jobs' : 'WorkSpecs'} run ${workerClass ?? 'the worker'} after relaunching: each schedules its own runs`,
        evidence: ofWorker.map(describeSpec),
      });
    }
    const first = this.before.specs.find((s) => s.named);
    const kept = first === undefined ? undefined : named.find((s) => s.id === first.id);
    if (first && named.length === 1 && !kept) {
      anomalies.push({
        kind: 'schedule-reset',
        item: '',
        detail:
          this.after.scheduler === 'jobscheduler'
            ? `relaunching replaced job ${first.id} with ${named[0]?.id ?? '?'} (a new JobStatus): the app schedules its job again at every start, which restarts its period; schedule it only when it is not pending (JobScheduler.getPendingJob)`
            : `relaunching replaced WorkSpec ${first.id} with ${named[0]?.id ?? '?'}: KEEP must keep the existing work`,
      });
    } else if (first && kept && this.after.scheduler !== 'jobscheduler' && kept.lastEnqueueTime !== first.lastEnqueueTime) {
      // A JobScheduler job's Enqueue time is printed relative to the dump, so two reads of the
      // same job differ by the reads' timing: its replacement shows in its id (identity hash) instead.
      anomalies.push({
        kind: 'schedule-reset',
        item: '',
        detail: `relaunching moved last_enqueue_time of WorkSpec ${first.id} from ${first.lastEnqueueTime} to ${kept.lastEnqueueTime}: the schedule restarts on every launch`,
      });
    }
    return anomalies;
  }
}

export const schedulePresent: PropertyDefinition = {
  name: 'schedule',
  verifies: 'the app has unfinished periodic work of the unique name',
  create: () => new SchedulePresentChecker(),
};

export const windowCoversMissedRun: PropertyDefinition = {
  name: 'window',
  verifies: 'the window covers one missed run (2 × interval + early flex), configured and as the app behaves',
  create: (options) => new WindowChecker(options),
};

export const uniqueWork: PropertyDefinition = {
  name: 'unique-work',
  verifies: 'relaunching keeps exactly one periodic WorkSpec for the unique name, with its id and last_enqueue_time',
  create: () => new UniqueWorkChecker(),
};
