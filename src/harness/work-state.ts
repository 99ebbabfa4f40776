/**
 * The WorkManager state a scenario reads: the unfinished periodic WorkSpecs of the unique work
 * and of the worker class, each with its JobScheduler id, from a pulled workdb.
 */
import type { AndroidDevice } from '../device/android-device.js';
import type { Config, WorkManagerWork } from '../config/types.js';
import { findUniqueWork, workDatabaseRead, type WorkDbSnapshot } from '../android/work-db.js';
import { runReads, type ShellRead } from '../android/shell-reads.js';
import { isPeriodic, nextAllowedRunTime, WorkState, type WorkSpecRow } from '../android/work-spec.js';
import type { ScheduledSpec, WorkSnapshot } from './harness.js';

const FINISHED: ReadonlySet<number> = new Set([WorkState.SUCCEEDED, WorkState.FAILED, WorkState.CANCELLED]);

function isUnfinishedPeriodic(spec: WorkSpecRow): boolean {
  return isPeriodic(spec) && !FINISHED.has(spec.state);
}

export async function readWorkSnapshot(device: AndroidDevice, config: Config, work: WorkManagerWork): Promise<WorkSnapshot> {
  const [snapshot] = await runReads(device, [workSnapshotRead(device.serial, config, work)]);
  return snapshot;
}

/** readWorkSnapshot as one read, to go out with others in one shell invocation (runReads). */
export function workSnapshotRead(serial: string, config: Config, work: WorkManagerWork): ShellRead<WorkSnapshot> {
  const db = workDatabaseRead(serial, config.app.package);
  return { commands: db.commands, parse: async (results) => snapshotOf(await db.parse(results), work) };
}

function snapshotOf(db: WorkDbSnapshot, work: WorkManagerWork): WorkSnapshot {
  const jobOf = (spec: WorkSpecRow): number | undefined =>
    db.systemIds.find((s) => s.workSpecId === spec.id && s.generation === spec.generation)?.systemId;
  const namedSpecs: ScheduledSpec[] = findUniqueWork(db, work.uniqueName)
    .filter((u) => isUnfinishedPeriodic(u.spec))
    .map((u) => ({ ...u.spec, systemId: u.systemId ?? undefined }));
  const workerClass = work.workerClass;
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
