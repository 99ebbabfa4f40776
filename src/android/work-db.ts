/**
 * WorkManager's database, `no_backup/androidx.work.workdb` (androidx `work/work-runtime/.../
 * impl/WorkDatabasePathHelper.kt` @aa889ef7: noBackupFilesDir on API 23+; WAL journal, so
 * pulled with -wal and -shm), read on a host copy.
 *
 * Tables (androidx work/work-runtime/src/main/java/androidx/work/impl/model/ WorkSpec.kt @a9b06aaf,
 * SystemIdInfo.kt @eea81ab9, WorkName.kt @a90d889f, WorkTag.kt @9264c63e): WorkSpec (columns
 * renamed across schema versions:
 * `period_start_time` → `last_enqueue_time` and `period_count` added in v15, `generation` in v16,
 * `next_schedule_time_override` in v18; androidx `work/work-runtime/src/schemas/
 * androidx.work.impl.WorkDatabase/{14,15,16,18}.json` @18f5bfa8, @f618fa9a, @2ecdd56a, @aa889ef7,
 * written out per version in fixtures/workdb/schemas.json), SystemIdInfo (`work_spec_id`, `generation`,
 * `system_id` = the JobScheduler job id; PK (work_spec_id, generation)), WorkName (`name`,
 * `work_spec_id`), WorkTag (`tag`, `work_spec_id`). The job of a WorkSpec is the SystemIdInfo
 * row of the WorkSpec's current generation:
 *   SELECT s.system_id FROM WorkSpec w JOIN SystemIdInfo s ON s.work_spec_id = w.id AND s.generation = w.generation
 */
import type Database from 'better-sqlite3';
import type { AndroidDevice } from '../device/android-device.js';
import { databaseRead, withDatabase, type PulledDatabase } from './app-data.js';
import { runReads, type ShellRead } from './shell-reads.js';
import type { WorkSpecModel, WorkSpecRow } from './work-spec.js';

export const WORK_DATABASE_PATH = 'no_backup/androidx.work.workdb';
/** Java Long.MAX_VALUE: "no override" in next_schedule_time_override. */
const LONG_MAX = 9223372036854775807n;

export interface SystemIdRow {
  readonly workSpecId: string;
  readonly generation: number;
  readonly systemId: number;
}

export interface WorkNameRow {
  readonly name: string;
  readonly workSpecId: string;
}

export interface WorkTagRow {
  readonly tag: string;
  readonly workSpecId: string;
}

export interface WorkDbSnapshot {
  readonly workSpecs: readonly WorkSpecRow[];
  readonly systemIds: readonly SystemIdRow[];
  readonly names: readonly WorkNameRow[];
  readonly tags: readonly WorkTagRow[];
}

export interface UniqueWork {
  readonly name: string;
  readonly spec: WorkSpecRow;
  /** JobScheduler job id for the spec's current generation; null when not scheduled. */
  readonly systemId: number | null;
  readonly tags: readonly string[];
}

/** Pulls the workdb with its -wal, as one snapshot (databaseRead), into a temp directory; call cleanup() when done. */
export async function pullWorkDatabase(device: AndroidDevice, pkg: string): Promise<PulledDatabase> {
  const [pulled] = await runReads(device, [databaseRead(device.serial, { pkg, db: WORK_DATABASE_PATH })]);
  return pulled;
}

/** Everything the harness reads from a host copy of the workdb. */
export function readWorkDatabase(dbPath: string): WorkDbSnapshot {
  return withDatabase(dbPath, true, (db) => ({
    workSpecs: readWorkSpecs(db),
    systemIds: readAll(db, 'SystemIdInfo').map((r) => ({
      workSpecId: String(r['work_spec_id']),
      generation: toNumber(r['generation'] ?? 0n),
      systemId: toNumber(r['system_id']),
    })),
    names: readAll(db, 'WorkName').map((r) => ({ name: String(r['name']), workSpecId: String(r['work_spec_id']) })),
    tags: readAll(db, 'WorkTag').map((r) => ({ tag: String(r['tag']), workSpecId: String(r['work_spec_id']) })),
  }));
}

/** Copy (-wal, main and -wal again in one shell invocation: one snapshot, databaseRead) + read + clean up. */
export async function readDeviceWorkDatabase(device: AndroidDevice, pkg: string): Promise<WorkDbSnapshot> {
  const [snapshot] = await runReads(device, [workDatabaseRead(device.serial, pkg)]);
  return snapshot;
}

/** readDeviceWorkDatabase as one read, to go out with others in one shell invocation (runReads). */
export function workDatabaseRead(serial: string, pkg: string): ShellRead<WorkDbSnapshot> {
  const copy = databaseRead(serial, { pkg, db: WORK_DATABASE_PATH });
  return {
    commands: copy.commands,
    parse: async (results) => {
      const pulled = await copy.parse(results);
      try {
        return readWorkDatabase(pulled.dbPath);
      } finally {
        await pulled.cleanup();
      }
    },
  };
}

/** The WorkSpecs enqueued under a unique work name, each with its job id. */
export function findUniqueWork(snapshot: WorkDbSnapshot, name: string): UniqueWork[] {
  const ids = new Set(snapshot.names.filter((n) => n.name === name).map((n) => n.workSpecId));
  return snapshot.workSpecs
    .filter((spec) => ids.has(spec.id))
    .map((spec) => ({
      name,
      spec,
      systemId: snapshot.systemIds.find((s) => s.workSpecId === spec.id && s.generation === spec.generation)?.systemId ?? null,
      tags: snapshot.tags.filter((t) => t.workSpecId === spec.id).map((t) => t.tag),
    }));
}

/**
 * The scheduling model of a WorkSpec table: `last_enqueue_time` and `period_count` come together
 * in schema v15 (AutoMigration_14_15, androidx `work/work-runtime/src/main/java/androidx/work/impl/
 * WorkDatabaseMigrations.kt` @a9b06aaf); without them the table has `period_start_time` (≤ v14).
 */
export function workSpecModel(columns: ReadonlySet<string>): WorkSpecModel {
  return columns.has('last_enqueue_time') || columns.has('period_count') ? 'last-enqueue' : 'period-start';
}

function readWorkSpecs(db: Database.Database): WorkSpecRow[] {
  const columns = new Set((db.prepare(`PRAGMA table_info("WorkSpec")`).all() as { name: string }[]).map((c) => c.name));
  const model = workSpecModel(columns);
  const lastEnqueue = model === 'last-enqueue' ? 'last_enqueue_time' : 'period_start_time';
  return readAll(db, 'WorkSpec').map((r) => ({
    id: String(r['id']),
    state: toNumber(r['state']),
    workerClassName: String(r['worker_class_name']),
    initialDelay: toNumber(r['initial_delay'] ?? 0n),
    intervalDuration: toNumber(r['interval_duration'] ?? 0n),
    flexDuration: toNumber(r['flex_duration'] ?? 0n),
    runAttemptCount: toNumber(r['run_attempt_count'] ?? 0n),
    backoffPolicy: toNumber(r['backoff_policy'] ?? 0n),
    backoffDelayDuration: toNumber(r['backoff_delay_duration'] ?? 30000n),
    lastEnqueueTime: toNumber(r[lastEnqueue] ?? 0n),
    periodCount: toNumber(r['period_count'] ?? 0n),
    generation: toNumber(r['generation'] ?? 0n),
    nextScheduleTimeOverride:
      r['next_schedule_time_override'] === undefined || r['next_schedule_time_override'] === null || r['next_schedule_time_override'] === LONG_MAX
        ? null
        : toNumber(r['next_schedule_time_override']),
    model,
  }));
}

/** All rows with integers as BigInt (next_schedule_time_override holds Long.MAX_VALUE). */
function readAll(db: Database.Database, table: string): Record<string, unknown>[] {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table);
  if (exists === undefined) return [];
  return db.prepare(`SELECT * FROM "${table}"`).safeIntegers(true).all() as Record<string, unknown>[];
}

function toNumber(value: unknown): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  return Number(value);
}

export { calculateNextRunTime, nextAllowedRunTime } from './work-spec.js';
