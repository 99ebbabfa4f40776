/**
 * The WorkManager state a scenario reads: the unfinished periodic WorkSpecs of the unique work
 * and of the worker class, each with its JobScheduler id, from a pulled workdb.
 */
import type { AndroidDevice } from '../device/android-device.js';
import type { Config } from '../config/types.js';
import { findUniqueWork, readDeviceWorkDatabase } from '../android/work-db.js';
import { isPeriodic, nextAllowedRunTime, WorkState, type WorkSpecRow } from '../android/work-spec.js';
import type { ScheduledSpec, WorkSnapshot } from './harness.js';

const FINISHED: ReadonlySet<number> = new Set([WorkState.SUCCEEDED, WorkState.FAILED, WorkState.CANCELLED]);

function isUnfinishedPeriodic(spec: WorkSpecRow): boolean {
  return isPeriodic(spec) && !FINISHED.has(spec.state);
}

export async function readWorkSnapshot(device: AndroidDevice, config: Config): Promise<WorkSnapshot> {
  const db = await readDeviceWorkDatabase(device, config.app.package);
  const jobOf = (spec: WorkSpecRow): number | undefined =>
    db.systemIds.find((s) => s.workSpecId === spec.id && s.generation === spec.generation)?.systemId;
  const namedSpecs: ScheduledSpec[] = findUniqueWork(db, config.work.uniqueName)
    .filter((u) => isUnfinishedPeriodic(u.spec))
    .map((u) => ({ ...u.spec, systemId: u.systemId ?? undefined }));
  const workerClass = config.work.workerClass;
  const workerSpecs: ScheduledSpec[] = db.workSpecs
    .filter((spec) => isUnfinishedPeriodic(spec) && (workerClass === undefined || spec.workerClassName === workerClass))
    .map((spec) => ({ ...spec, systemId: jobOf(spec) }));
  const newest = [...workerSpecs].sort((a, b) => b.lastEnqueueTime - a.lastEnqueueTime)[0];
  return { namedSpecs, workerSpecs, primary: namedSpecs[0] ?? newest };
}

/**
 * When WorkerWrapper lets the next run through at device time `now` (androidx
 * WorkSpec.calculateNextRunTime of the workdb's schema; see nextAllowedRunTime).
 */
export function nextRunTime(spec: WorkSpecRow, now: number): number {
  return nextAllowedRunTime(spec, now);
}
