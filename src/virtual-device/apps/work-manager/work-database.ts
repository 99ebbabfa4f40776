/**
 * WorkManager's Room database `no_backup/androidx.work.workdb`, created with the exact schema
 * Room generates for the latest androidx version and read/written the way WorkManager's DAOs do.
 *
 * Sources (androidx/androidx):
 * - work/work-runtime/src/schemas/androidx.work.impl.WorkDatabase/24.json @31adf48a (every
 *   CREATE statement, index, default, the room_master_table identity hash)
 * - work/work-runtime/src/main/java/androidx/work/impl/WorkDatabasePathHelper.kt @aa889ef7
 *   (name `androidx.work.workdb` in noBackupFilesDir)
 * - work/work-runtime/src/main/java/androidx/work/impl/WorkDatabase.kt (CleanupCallback pruning)
 * - work/work-runtime/src/main/java/androidx/work/impl/model/WorkSpecDao.kt (queries)
 * - work/work-runtime/src/main/java/androidx/work/impl/utils/IdGenerator.kt @b35effe6
 *   (Preference `next_job_scheduler_id`)
 * Room's default JournalMode.AUTOMATIC resolves to WRITE_AHEAD_LOGGING (androidx Room runtime,
 * RoomDatabase.JournalMode.resolve).
 * android.database.sqlite.SQLiteDatabase adds `android_metadata (locale TEXT)`.
 */
import Database from 'better-sqlite3';
import { EMPTY_DATA } from './data-blob.js';
import { COMPLETED_STATES_SQL, SCHEDULE_NOT_REQUESTED_YET, WorkState, type WorkSpec } from './work-spec.js';

export const WORK_DATABASE_NAME = 'androidx.work.workdb';
/** Room @Database(version = 24) of the newest WorkManager (schemas/.../24.json). */
export const WORK_DATABASE_VERSION = 24;
const IDENTITY_HASH = '08b926448d86528e697981ddd30459f7';

const CREATE_STATEMENTS: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS `Dependency` (`work_spec_id` TEXT NOT NULL, `prerequisite_id` TEXT NOT NULL, PRIMARY KEY(`work_spec_id`, `prerequisite_id`), FOREIGN KEY(`work_spec_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE , FOREIGN KEY(`prerequisite_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE )',
  'CREATE INDEX IF NOT EXISTS `index_Dependency_work_spec_id` ON `Dependency` (`work_spec_id`)',
  'CREATE INDEX IF NOT EXISTS `index_Dependency_prerequisite_id` ON `Dependency` (`prerequisite_id`)',
  "CREATE TABLE IF NOT EXISTS `WorkSpec` (`id` TEXT NOT NULL, `state` INTEGER NOT NULL, `worker_class_name` TEXT NOT NULL, `input_merger_class_name` TEXT NOT NULL, `input` BLOB NOT NULL, `output` BLOB NOT NULL, `initial_delay` INTEGER NOT NULL, `interval_duration` INTEGER NOT NULL, `flex_duration` INTEGER NOT NULL, `run_attempt_count` INTEGER NOT NULL, `backoff_policy` INTEGER NOT NULL, `backoff_delay_duration` INTEGER NOT NULL, `last_enqueue_time` INTEGER NOT NULL DEFAULT -1, `minimum_retention_duration` INTEGER NOT NULL, `schedule_requested_at` INTEGER NOT NULL, `run_in_foreground` INTEGER NOT NULL, `out_of_quota_policy` INTEGER NOT NULL, `period_count` INTEGER NOT NULL DEFAULT 0, `generation` INTEGER NOT NULL DEFAULT 0, `next_schedule_time_override` INTEGER NOT NULL DEFAULT 9223372036854775807, `next_schedule_time_override_generation` INTEGER NOT NULL DEFAULT 0, `stop_reason` INTEGER NOT NULL DEFAULT -256, `trace_tag` TEXT, `backoff_on_system_interruptions` INTEGER, `required_network_type` INTEGER NOT NULL, `required_network_request` BLOB NOT NULL DEFAULT x'', `requires_charging` INTEGER NOT NULL, `requires_device_idle` INTEGER NOT NULL, `requires_battery_not_low` INTEGER NOT NULL, `requires_storage_not_low` INTEGER NOT NULL, `trigger_content_update_delay` INTEGER NOT NULL, `trigger_max_content_delay` INTEGER NOT NULL, `content_uri_triggers` BLOB NOT NULL, PRIMARY KEY(`id`))",
  'CREATE INDEX IF NOT EXISTS `index_WorkSpec_schedule_requested_at` ON `WorkSpec` (`schedule_requested_at`)',
  'CREATE INDEX IF NOT EXISTS `index_WorkSpec_last_enqueue_time` ON `WorkSpec` (`last_enqueue_time`)',
  'CREATE TABLE IF NOT EXISTS `WorkTag` (`tag` TEXT NOT NULL, `work_spec_id` TEXT NOT NULL, PRIMARY KEY(`tag`, `work_spec_id`), FOREIGN KEY(`work_spec_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE )',
  'CREATE INDEX IF NOT EXISTS `index_WorkTag_work_spec_id` ON `WorkTag` (`work_spec_id`)',
  'CREATE TABLE IF NOT EXISTS `SystemIdInfo` (`work_spec_id` TEXT NOT NULL, `generation` INTEGER NOT NULL DEFAULT 0, `system_id` INTEGER NOT NULL, PRIMARY KEY(`work_spec_id`, `generation`), FOREIGN KEY(`work_spec_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE )',
  'CREATE TABLE IF NOT EXISTS `WorkName` (`name` TEXT NOT NULL, `work_spec_id` TEXT NOT NULL, PRIMARY KEY(`name`, `work_spec_id`), FOREIGN KEY(`work_spec_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE )',
  'CREATE INDEX IF NOT EXISTS `index_WorkName_work_spec_id` ON `WorkName` (`work_spec_id`)',
  'CREATE TABLE IF NOT EXISTS `WorkProgress` (`work_spec_id` TEXT NOT NULL, `progress` BLOB NOT NULL, PRIMARY KEY(`work_spec_id`), FOREIGN KEY(`work_spec_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE )',
  'CREATE TABLE IF NOT EXISTS `Preference` (`key` TEXT NOT NULL, `long_value` INTEGER, PRIMARY KEY(`key`))',
  'CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)',
  `INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '${IDENTITY_HASH}')`,
];

interface WorkSpecRow {
  id: string;
  state: number;
  worker_class_name: string;
  input_merger_class_name: string;
  initial_delay: number;
  interval_duration: number;
  flex_duration: number;
  run_attempt_count: number;
  backoff_policy: number;
  backoff_delay_duration: number;
  last_enqueue_time: number;
  minimum_retention_duration: number;
  schedule_requested_at: number;
  period_count: number;
  generation: number;
  next_schedule_time_override: bigint;
  stop_reason: number;
  trace_tag: string | null;
}

const LONG_MAX = 9223372036854775807n;

function fromRow(r: WorkSpecRow): WorkSpec {
  return {
    id: r.id,
    state: r.state as WorkState,
    workerClassName: r.worker_class_name,
    inputMergerClassName: r.input_merger_class_name,
    initialDelay: r.initial_delay,
    intervalDuration: r.interval_duration,
    flexDuration: r.flex_duration,
    runAttemptCount: r.run_attempt_count,
    backoffPolicy: r.backoff_policy === 1 ? 1 : 0,
    backoffDelayDuration: r.backoff_delay_duration,
    lastEnqueueTime: r.last_enqueue_time,
    minimumRetentionDuration: r.minimum_retention_duration,
    scheduleRequestedAt: r.schedule_requested_at,
    periodCount: r.period_count,
    generation: r.generation,
    nextScheduleTimeOverride: r.next_schedule_time_override === LONG_MAX ? null : Number(r.next_schedule_time_override),
    stopReason: r.stop_reason,
    traceTag: r.trace_tag,
  };
}

const SELECT_SPEC =
  'SELECT id, state, worker_class_name, input_merger_class_name, initial_delay, interval_duration, flex_duration, run_attempt_count, backoff_policy, backoff_delay_duration, last_enqueue_time, minimum_retention_duration, schedule_requested_at, period_count, generation, next_schedule_time_override, stop_reason, trace_tag FROM workspec';

/** Opens (creating on first use) the WorkManager database at a host path. */
export class WorkDatabase {
  readonly db: Database.Database;

  private constructor(db: Database.Database) {
    this.db = db;
  }

  static open(hostPath: string, nowMs: number): WorkDatabase {
    const db = new Database(hostPath);
    db.defaultSafeIntegers(false);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === 0) {
      db.transaction(() => {
        db.exec("CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT); INSERT INTO android_metadata VALUES ('en_US')");
        for (const sql of CREATE_STATEMENTS) db.exec(sql);
        db.pragma(`user_version = ${WORK_DATABASE_VERSION}`);
      })();
    }
    const wdb = new WorkDatabase(db);
    wdb.prune(nowMs);
    return wdb;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * WorkDatabase.CleanupCallback.onOpen: finished work whose retention passed more than a day
   * ago, and with no unfinished dependents, is deleted.
   */
  private prune(nowMs: number): void {
    const dayAgo = nowMs - 24 * 60 * 60 * 1000;
    this.db
      .prepare(
        `DELETE FROM workspec WHERE state IN ${COMPLETED_STATES_SQL} AND (last_enqueue_time + minimum_retention_duration) < ? AND (SELECT COUNT(*)=0 FROM dependency WHERE prerequisite_id=id AND work_spec_id NOT IN (SELECT id FROM workspec WHERE state IN ${COMPLETED_STATES_SQL}))`,
      )
      .run(dayAgo);
  }

  insertWorkSpec(spec: WorkSpec): void {
    this.db
      .prepare(
        `INSERT INTO workspec (id, state, worker_class_name, input_merger_class_name, input, output, initial_delay, interval_duration, flex_duration, run_attempt_count, backoff_policy, backoff_delay_duration, last_enqueue_time, minimum_retention_duration, schedule_requested_at, run_in_foreground, out_of_quota_policy, period_count, generation, next_schedule_time_override, next_schedule_time_override_generation, stop_reason, trace_tag, backoff_on_system_interruptions, required_network_type, required_network_request, requires_charging, requires_device_idle, requires_battery_not_low, requires_storage_not_low, trigger_content_update_delay, trigger_max_content_delay, content_uri_triggers)
         VALUES (@id, @state, @workerClassName, @inputMergerClassName, @input, @output, @initialDelay, @intervalDuration, @flexDuration, @runAttemptCount, @backoffPolicy, @backoffDelayDuration, @lastEnqueueTime, @minimumRetentionDuration, @scheduleRequestedAt, 0, 0, @periodCount, @generation, @override, 0, @stopReason, @traceTag, 0, 0, x'', 0, 0, 0, 0, -1, -1, x'')`,
      )
      .run({
        ...spec,
        input: EMPTY_DATA,
        output: EMPTY_DATA,
        override: spec.nextScheduleTimeOverride === null ? LONG_MAX : BigInt(spec.nextScheduleTimeOverride),
      });
  }

  getWorkSpec(id: string): WorkSpec | undefined {
    const stmt = this.db.prepare(`${SELECT_SPEC} WHERE id=?`);
    stmt.safeIntegers(true);
    const row = stmt.get(id) as Record<string, unknown> | undefined;
    return row === undefined ? undefined : fromRow(normalize(row));
  }

  private selectSpecs(whereAndOrder: string, ...params: unknown[]): WorkSpec[] {
    const stmt = this.db.prepare(`${SELECT_SPEC} ${whereAndOrder}`);
    stmt.safeIntegers(true);
    return (stmt.all(...params) as Record<string, unknown>[]).map((r) => fromRow(normalize(r)));
  }

  getState(id: string): WorkState | undefined {
    const row = this.db.prepare('SELECT state FROM workspec WHERE id=?').get(id) as { state: number } | undefined;
    return row === undefined ? undefined : (row.state as WorkState);
  }

  setState(id: string, state: WorkState): void {
    this.db.prepare('UPDATE workspec SET state=? WHERE id=?').run(state, id);
  }

  setStopReason(id: string, reason: number): void {
    this.db.prepare('UPDATE workspec SET stop_reason=? WHERE id=?').run(reason, id);
  }

  setLastEnqueueTime(id: string, time: number): void {
    this.db.prepare('UPDATE workspec SET last_enqueue_time=? WHERE id=?').run(time, id);
  }

  incrementRunAttemptCount(id: string): void {
    this.db.prepare('UPDATE workspec SET run_attempt_count=run_attempt_count+1 WHERE id=?').run(id);
  }

  resetRunAttemptCount(id: string): void {
    this.db.prepare('UPDATE workspec SET run_attempt_count=0 WHERE id=?').run(id);
  }

  incrementPeriodCount(id: string): void {
    this.db.prepare('UPDATE workspec SET period_count=period_count+1 WHERE id=?').run(id);
  }

  markScheduled(id: string, at: number): void {
    this.db.prepare('UPDATE workspec SET schedule_requested_at=? WHERE id=?').run(at, id);
  }

  isScheduled(id: string): boolean {
    const row = this.db.prepare('SELECT COUNT(*) > 0 AS s FROM workspec WHERE state NOT IN ' + COMPLETED_STATES_SQL + ' AND id=? AND schedule_requested_at <> -1').get(id) as { s: number };
    return row.s === 1;
  }

  /** WorkSpecDao.resetScheduledState: unfinished work forgets it was scheduled. */
  resetScheduledState(): void {
    this.db.prepare(`UPDATE workspec SET schedule_requested_at=${SCHEDULE_NOT_REQUESTED_YET} WHERE state NOT IN ${COMPLETED_STATES_SQL}`).run();
  }

  resetNextScheduleTimeOverride(id: string): void {
    this.db.prepare('UPDATE workspec SET next_schedule_time_override=9223372036854775807 WHERE id=?').run(id);
  }

  deleteWorkSpec(id: string): void {
    this.db.prepare('DELETE FROM workspec WHERE id=?').run(id);
  }

  getRunningWork(): WorkSpec[] {
    return this.selectSpecs(`WHERE state=${WorkState.RUNNING}`);
  }

  /** WorkSpecDao.getEligibleWorkForScheduling(schedulerLimit). */
  getEligibleWorkForScheduling(limit: number): WorkSpec[] {
    return this.selectSpecs(
      `WHERE state=${WorkState.ENQUEUED} AND schedule_requested_at=${SCHEDULE_NOT_REQUESTED_YET} ORDER BY last_enqueue_time LIMIT (SELECT MAX(?-COUNT(*), 0) FROM workspec WHERE schedule_requested_at<>${SCHEDULE_NOT_REQUESTED_YET} AND LENGTH(content_uri_triggers)=0 AND state NOT IN ${COMPLETED_STATES_SQL})`,
      limit,
    );
  }

  /** WorkSpecDao.getAllEligibleWorkSpecsForScheduling(maxLimit). */
  getAllEligibleWorkSpecsForScheduling(limit: number): WorkSpec[] {
    return this.selectSpecs(`WHERE state=${WorkState.ENQUEUED} ORDER BY last_enqueue_time LIMIT ?`, limit);
  }

  /** WorkSpecDao.getRecentlyCompletedWork(startingAt). */
  getRecentlyCompletedWork(startingAt: number): WorkSpec[] {
    return this.selectSpecs(`WHERE last_enqueue_time >= ? AND state IN ${COMPLETED_STATES_SQL} ORDER BY last_enqueue_time DESC`, startingAt);
  }

  /** WorkSpecDao.getWorkSpecIdAndStatesForName. */
  getIdAndStatesForName(name: string): { id: string; state: WorkState }[] {
    return this.db.prepare('SELECT id, state FROM workspec WHERE id IN (SELECT work_spec_id FROM workname WHERE name=?)').all(name) as {
      id: string;
      state: WorkState;
    }[];
  }

  insertWorkName(name: string, id: string): void {
    this.db.prepare('INSERT OR IGNORE INTO workname (name, work_spec_id) VALUES (?, ?)').run(name, id);
  }

  insertWorkTag(tag: string, id: string): void {
    this.db.prepare('INSERT OR IGNORE INTO worktag (tag, work_spec_id) VALUES (?, ?)').run(tag, id);
  }

  getTagsForWorkSpecId(id: string): string[] {
    return (this.db.prepare('SELECT DISTINCT tag FROM worktag WHERE work_spec_id=?').all(id) as { tag: string }[]).map((r) => r.tag);
  }

  getNamesForWorkSpecId(id: string): string[] {
    return (this.db.prepare('SELECT name FROM workname WHERE work_spec_id=?').all(id) as { name: string }[]).map((r) => r.name);
  }

  getSystemIdInfo(id: string, generation: number): number | undefined {
    const row = this.db.prepare('SELECT system_id FROM SystemIdInfo WHERE work_spec_id=? AND generation=?').get(id, generation) as { system_id: number } | undefined;
    return row?.system_id;
  }

  insertSystemIdInfo(id: string, generation: number, systemId: number): void {
    this.db.prepare('INSERT OR REPLACE INTO SystemIdInfo (work_spec_id, generation, system_id) VALUES (?, ?, ?)').run(id, generation, systemId);
  }

  removeSystemIdInfo(id: string): void {
    this.db.prepare('DELETE FROM SystemIdInfo where work_spec_id=?').run(id);
  }

  getSystemIdWorkSpecIds(): string[] {
    return (this.db.prepare('SELECT DISTINCT work_spec_id FROM SystemIdInfo').all() as { work_spec_id: string }[]).map((r) => r.work_spec_id);
  }

  deleteAllProgress(): void {
    this.db.prepare('DELETE FROM WorkProgress').run();
  }

  getPreference(key: string): number | undefined {
    const row = this.db.prepare('SELECT long_value FROM Preference where `key`=?').get(key) as { long_value: number | null } | undefined;
    return row?.long_value ?? undefined;
  }

  setPreference(key: string, value: number): void {
    this.db.prepare('INSERT OR REPLACE INTO `Preference` (`key`,`long_value`) VALUES (?,?)').run(key, value);
  }

  /**
   * IdGenerator.nextJobSchedulerIdWithRange(min, max): returns the stored `next_job_scheduler_id`
   * (0 at first) and stores the next one, wrapping to `min` outside the range.
   */
  nextJobSchedulerId(min = 0, max = 2147483647): number {
    return this.transaction(() => {
      const value = this.getPreference('next_job_scheduler_id') ?? 0;
      const next = value === 2147483647 ? 0 : value + 1;
      this.setPreference('next_job_scheduler_id', next);
      if (value < min || value > max) {
        this.setPreference('next_job_scheduler_id', min + 1);
        return min;
      }
      return value;
    });
  }
}

function normalize(row: Record<string, unknown>): WorkSpecRow {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = typeof v === 'bigint' && k !== 'next_schedule_time_override' ? Number(v) : v;
  }
  return out as unknown as WorkSpecRow;
}
