/**
 * readWorkDatabase + the next-run computation against workdb files built with the WorkSpec,
 * SystemIdInfo, WorkName and WorkTag tables of each Room schema version 11–24 of WorkManager
 * (fixtures/workdb/schemas.json, written from androidx `work/.../schemas/
 * androidx.work.impl.WorkDatabase/N.json`; the source path and commit are in each entry).
 *
 * Rows are what WorkManager of that schema holds for a periodic request:
 * - schema ≤ 14 (WorkSpec.java / WorkerWrapper.java / EnqueueRunnable.java, androidx
 *   `work/work-runtime/src/main/java/androidx/work/impl/` @10eb8742 and @c2d00843):
 *   period_start_time 0 after enqueue; after a run resetPeriodicAndResolve stores the time the
 *   run ended; a retry (rescheduleAndResolve) stores its time and keeps run_attempt_count;
 *   input_merger_class_name NULL for periodic work (OneTimeWorkRequest alone sets one).
 * - schema ≥ 15 (WorkSpec.kt @a9b06aaf, WorkerWrapper.kt @aa889ef7): last_enqueue_time set at
 *   enqueue and on every re-enqueue, period_count incremented after each finished period.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { findUniqueWork, readWorkDatabase } from '../../../src/android/work-db.js';
import { calculateNextRunTime, nextAllowedRunTime, type WorkSpecRow } from '../../../src/android/work-spec.js';

interface SchemaVersion {
  readonly version: number;
  readonly identityHash: string;
  readonly source: { readonly repo: string; readonly path: string; readonly commit: string };
  readonly createSql: { readonly WorkSpec: string; readonly SystemIdInfo: string; readonly WorkName: string; readonly WorkTag: string };
}

const SCHEMAS = (
  JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/workdb/schemas.json', import.meta.url)), 'utf8')) as {
    versions: SchemaVersion[];
  }
).versions;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** When the app enqueued the periodic work. */
const ENQUEUED_AT = Date.UTC(2024, 5, 1, 8, 0, 0);
/** When the first run ended (WorkerWrapper re-enqueues the periodic work at that moment). */
const FIRST_RUN_END = ENQUEUED_AT + 3 * MINUTE;
/** Device time the harness reads before forcing a run. */
const NOW = ENQUEUED_AT + 10 * MINUTE;

const WORKER = 'com.example.feednotifier.FeedPollWorker';
const UNIQUE_NAME = 'feed-poll';
const SPEC_ID = '0b5c1a7e-6f43-4c1d-9a51-3c2f4d8e9a10';
const JOB_ID = 7;

/** One WorkSpec state of the periodic work, in the terms of both models. */
interface Case {
  readonly title: string;
  readonly flex?: number;
  readonly initialDelay?: number;
  readonly attempts?: number;
  readonly backoffPolicy?: 0 | 1;
  /** period_start_time (schema ≤ 14). */
  readonly periodStart: number;
  /** last_enqueue_time and period_count (schema ≥ 15). */
  readonly lastEnqueue: number;
  readonly periodCount: number;
  /** Expected calculateNextRunTime(spec, NOW) per model. */
  readonly nextPeriodStart: number;
  readonly nextLastEnqueue: number;
  /** Expected nextAllowedRunTime(spec, NOW) per model. */
  readonly allowedPeriodStart: number;
  readonly allowedLastEnqueue: number;
}

const CASES: readonly Case[] = [
  {
    title: 'before the first run, flex = interval',
    periodStart: 0,
    lastEnqueue: ENQUEUED_AT,
    periodCount: 0,
    nextPeriodStart: NOW,
    nextLastEnqueue: ENQUEUED_AT,
    allowedPeriodStart: NOW,
    allowedLastEnqueue: ENQUEUED_AT,
  },
  {
    title: 'before the first run, with an initial delay',
    initialDelay: 30 * MINUTE,
    periodStart: 0,
    lastEnqueue: ENQUEUED_AT,
    periodCount: 0,
    nextPeriodStart: NOW + 30 * MINUTE,
    nextLastEnqueue: ENQUEUED_AT + 30 * MINUTE,
    allowedPeriodStart: NOW,
    allowedLastEnqueue: ENQUEUED_AT + 30 * MINUTE,
  },
  {
    title: 'before the first run, flex 2 h of 24 h',
    flex: 2 * HOUR,
    periodStart: 0,
    lastEnqueue: ENQUEUED_AT,
    periodCount: 0,
    nextPeriodStart: NOW + DAY - 2 * HOUR,
    nextLastEnqueue: ENQUEUED_AT + DAY - 2 * HOUR,
    allowedPeriodStart: NOW,
    allowedLastEnqueue: ENQUEUED_AT + DAY - 2 * HOUR,
  },
  {
    title: 'after the first run, flex = interval',
    periodStart: FIRST_RUN_END,
    lastEnqueue: FIRST_RUN_END,
    periodCount: 1,
    nextPeriodStart: FIRST_RUN_END + DAY,
    nextLastEnqueue: FIRST_RUN_END + DAY,
    allowedPeriodStart: FIRST_RUN_END + DAY,
    allowedLastEnqueue: FIRST_RUN_END + DAY,
  },
  {
    title: 'after the first run, flex 2 h of 24 h',
    flex: 2 * HOUR,
    periodStart: FIRST_RUN_END,
    lastEnqueue: FIRST_RUN_END,
    periodCount: 1,
    nextPeriodStart: FIRST_RUN_END + DAY,
    nextLastEnqueue: FIRST_RUN_END + DAY,
    allowedPeriodStart: FIRST_RUN_END + DAY,
    allowedLastEnqueue: FIRST_RUN_END + DAY,
  },
  {
    title: 'after the first run, with an initial delay (applies to the first period only)',
    initialDelay: 30 * MINUTE,
    periodStart: FIRST_RUN_END,
    lastEnqueue: FIRST_RUN_END,
    periodCount: 1,
    nextPeriodStart: FIRST_RUN_END + DAY,
    nextLastEnqueue: FIRST_RUN_END + DAY,
    allowedPeriodStart: FIRST_RUN_END + DAY,
    allowedLastEnqueue: FIRST_RUN_END + DAY,
  },
  {
    title: 'backed off after a third retry, exponential (30 s × 2²)',
    attempts: 3,
    periodStart: FIRST_RUN_END,
    lastEnqueue: FIRST_RUN_END,
    periodCount: 0,
    nextPeriodStart: FIRST_RUN_END + 120_000,
    nextLastEnqueue: FIRST_RUN_END + 120_000,
    allowedPeriodStart: FIRST_RUN_END + 120_000,
    allowedLastEnqueue: FIRST_RUN_END + 120_000,
  },
  {
    title: 'backed off after a third retry, linear (30 s × 3)',
    attempts: 3,
    backoffPolicy: 1,
    periodStart: FIRST_RUN_END,
    lastEnqueue: FIRST_RUN_END,
    periodCount: 0,
    nextPeriodStart: FIRST_RUN_END + 90_000,
    nextLastEnqueue: FIRST_RUN_END + 90_000,
    allowedPeriodStart: FIRST_RUN_END + 90_000,
    allowedLastEnqueue: FIRST_RUN_END + 90_000,
  },
];

/** The row WorkManager holds for the case, keyed by column; columns the version lacks are dropped. */
function workSpecValues(c: Case, columns: ReadonlySet<string>): Record<string, unknown> {
  const interval = DAY;
  const values: Record<string, unknown> = {
    id: SPEC_ID,
    state: 0, // ENQUEUED
    worker_class_name: WORKER,
    // WorkSpec.java leaves it null for periodic work; WorkSpec.kt defaults it to OverwritingInputMerger.
    input_merger_class_name: columns.has('period_start_time') ? null : 'androidx.work.OverwritingInputMerger',
    input: Buffer.alloc(0),
    output: Buffer.alloc(0),
    initial_delay: c.initialDelay ?? 0,
    interval_duration: interval,
    flex_duration: c.flex ?? interval,
    run_attempt_count: c.attempts ?? 0,
    backoff_policy: c.backoffPolicy ?? 0,
    backoff_delay_duration: 30_000,
    period_start_time: c.periodStart,
    last_enqueue_time: c.lastEnqueue,
    period_count: c.periodCount,
    minimum_retention_duration: 0,
    schedule_requested_at: ENQUEUED_AT,
    run_in_foreground: 0,
    out_of_quota_policy: 0,
    required_network_type: 1, // CONNECTED
    requires_charging: 0,
    requires_device_idle: 0,
    requires_battery_not_low: 0,
    requires_storage_not_low: 0,
    trigger_content_update_delay: -1,
    trigger_max_content_delay: -1,
    content_uri_triggers: Buffer.alloc(0),
  };
  return Object.fromEntries(Object.entries(values).filter(([column]) => columns.has(column)));
}

/** Builds `androidx.work.workdb` of the schema version holding the case's WorkSpec. */
function buildWorkDb(path: string, schema: SchemaVersion, c: Case): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(`${schema.createSql.WorkSpec}; ${schema.createSql.SystemIdInfo}; ${schema.createSql.WorkName}; ${schema.createSql.WorkTag};`);
    // Room keeps the schema version in SQLite's user_version.
    db.pragma(`user_version = ${schema.version}`);
    const info = db.prepare(`PRAGMA table_info("WorkSpec")`).all() as { name: string }[];
    const values = workSpecValues(c, new Set(info.map((col) => col.name)));
    const names = Object.keys(values);
    db.prepare(`INSERT INTO WorkSpec (${names.map((n) => `\`${n}\``).join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(values);
    // SystemIdInfo gets its generation column in schema 16 (default 0, the spec's generation).
    db.prepare(`INSERT INTO SystemIdInfo (work_spec_id, system_id) VALUES (?, ?)`).run(SPEC_ID, JOB_ID);
    db.prepare(`INSERT INTO WorkName (name, work_spec_id) VALUES (?, ?)`).run(UNIQUE_NAME, SPEC_ID);
    db.prepare(`INSERT INTO WorkTag (tag, work_spec_id) VALUES (?, ?)`).run(WORKER, SPEC_ID);
  } finally {
    db.close();
  }
}

describe('workdb of every WorkManager schema version (fixtures/workdb/schemas.json)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dv-workdb-versions-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('covers schema 11 to 24, each from its androidx schema JSON', () => {
    expect(SCHEMAS.map((s) => s.version)).to.deep.equal([11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
    for (const s of SCHEMAS) {
      expect(s.source.path).to.match(new RegExp(`/schemas/androidx\\.work\\.impl\\.WorkDatabase/${s.version}\\.json$`));
      expect(s.source.commit).to.match(/^[0-9a-f]{40}$/);
    }
  });

  for (const schema of SCHEMAS) {
    const model = schema.version >= 15 ? 'last-enqueue' : 'period-start';
    describe(`schema ${schema.version} (${model})`, () => {
      for (const c of CASES) {
        it(c.title, () => {
          const path = join(dir, 'androidx.work.workdb');
          buildWorkDb(path, schema, c);
          const snapshot = readWorkDatabase(path);
          const [unique] = findUniqueWork(snapshot, UNIQUE_NAME);
          expect(unique?.systemId).to.equal(JOB_ID);
          expect(unique?.tags).to.deep.equal([WORKER]);
          const spec = unique?.spec as WorkSpecRow;
          expect(spec).to.deep.include({
            model,
            lastEnqueueTime: model === 'period-start' ? c.periodStart : c.lastEnqueue,
            periodCount: model === 'period-start' ? 0 : c.periodCount,
            generation: 0,
            nextScheduleTimeOverride: null,
            runAttemptCount: c.attempts ?? 0,
          });
          if (model === 'period-start') {
            expect(calculateNextRunTime(spec, NOW)).to.equal(c.nextPeriodStart);
            expect(nextAllowedRunTime(spec, NOW)).to.equal(c.allowedPeriodStart);
          } else {
            expect(calculateNextRunTime(spec, NOW)).to.equal(c.nextLastEnqueue);
            expect(nextAllowedRunTime(spec, NOW)).to.equal(c.allowedLastEnqueue);
          }
        });
      }
    });
  }

  it('schema 14 after the first run: a forced run before period_start_time + interval is held, one after it is let through', () => {
    const path = join(dir, 'androidx.work.workdb');
    const schema = SCHEMAS.find((s) => s.version === 14)!;
    buildWorkDb(path, schema, CASES.find((c) => c.title === 'after the first run, flex = interval')!);
    const spec = readWorkDatabase(path).workSpecs[0]!;
    const due = nextAllowedRunTime(spec, FIRST_RUN_END + HOUR);
    expect(due).to.equal(FIRST_RUN_END + DAY);
    expect(FIRST_RUN_END + HOUR < due).to.equal(true);
    expect(nextAllowedRunTime(spec, due + 1000) <= due + 1000).to.equal(true);
  });
});
