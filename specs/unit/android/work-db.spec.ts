import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { findUniqueWork, readWorkDatabase, workSpecModel } from '../../../src/android/work-db.js';

/**
 * WorkSpec / SystemIdInfo / WorkName / WorkTag as androidx declares them
 * (work/work-runtime/src/main/java/androidx/work/impl/model/ WorkSpec.kt @a9b06aaf,
 * SystemIdInfo.kt @eea81ab9, WorkName.kt @a90d889f, WorkTag.kt @9264c63e).
 */
const CURRENT_SCHEMA = `
CREATE TABLE WorkSpec (id TEXT NOT NULL, state INTEGER NOT NULL, worker_class_name TEXT NOT NULL, input_merger_class_name TEXT NOT NULL,
  input BLOB NOT NULL, output BLOB NOT NULL, initial_delay INTEGER NOT NULL, interval_duration INTEGER NOT NULL, flex_duration INTEGER NOT NULL,
  run_attempt_count INTEGER NOT NULL, backoff_policy INTEGER NOT NULL, backoff_delay_duration INTEGER NOT NULL, last_enqueue_time INTEGER NOT NULL DEFAULT -1,
  minimum_retention_duration INTEGER NOT NULL, schedule_requested_at INTEGER NOT NULL, run_in_foreground INTEGER NOT NULL, out_of_quota_policy INTEGER NOT NULL,
  period_count INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0, next_schedule_time_override INTEGER NOT NULL DEFAULT 9223372036854775807,
  next_schedule_time_override_generation INTEGER NOT NULL DEFAULT 0, stop_reason INTEGER NOT NULL DEFAULT -256, PRIMARY KEY(id));
CREATE TABLE SystemIdInfo (work_spec_id TEXT NOT NULL, generation INTEGER NOT NULL DEFAULT 0, system_id INTEGER NOT NULL, PRIMARY KEY(work_spec_id, generation));
CREATE TABLE WorkName (name TEXT NOT NULL, work_spec_id TEXT NOT NULL, PRIMARY KEY(name, work_spec_id));
CREATE TABLE WorkTag (tag TEXT NOT NULL, work_spec_id TEXT NOT NULL, PRIMARY KEY(tag, work_spec_id));
`;

describe('workdb reader', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dv-workdb-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the unique work with the job id of its current generation, in WAL mode', () => {
    const path = join(dir, 'androidx.work.workdb');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec(CURRENT_SCHEMA);
    db.prepare(
      `INSERT INTO WorkSpec (id, state, worker_class_name, input_merger_class_name, input, output, initial_delay, interval_duration, flex_duration,
        run_attempt_count, backoff_policy, backoff_delay_duration, last_enqueue_time, minimum_retention_duration, schedule_requested_at,
        run_in_foreground, out_of_quota_policy, period_count, generation)
       VALUES (?, 0, 'com.example.feednotifier.FeedPollWorker', 'androidx.work.OverwritingInputMerger', x'', x'', 0, 86400000, 86400000, 0, 0, 30000, 1717000000000, 0, 1717000000000, 0, 0, 2, 1)`,
    ).run('a1');
    db.prepare(`INSERT INTO SystemIdInfo VALUES (?, ?, ?)`).run('a1', 0, 4);
    db.prepare(`INSERT INTO SystemIdInfo VALUES (?, ?, ?)`).run('a1', 1, 5);
    db.prepare(`INSERT INTO WorkName VALUES ('feed-poll', 'a1')`).run();
    db.prepare(`INSERT INTO WorkTag VALUES ('com.example.feednotifier.FeedPollWorker', 'a1')`).run();
    // Read while the writer still holds the data in the WAL, as a pulled copy would be.
    const snapshot = readWorkDatabase(path);
    db.close();
    expect(snapshot.workSpecs).to.deep.equal([
      {
        id: 'a1',
        state: 0,
        workerClassName: 'com.example.feednotifier.FeedPollWorker',
        initialDelay: 0,
        intervalDuration: 86400000,
        flexDuration: 86400000,
        runAttemptCount: 0,
        backoffPolicy: 0,
        backoffDelayDuration: 30000,
        lastEnqueueTime: 1717000000000,
        periodCount: 2,
        generation: 1,
        nextScheduleTimeOverride: null,
        model: 'last-enqueue',
      },
    ]);
    expect(findUniqueWork(snapshot, 'feed-poll')).to.deep.equal([
      { name: 'feed-poll', spec: snapshot.workSpecs[0], systemId: 5, tags: ['com.example.feednotifier.FeedPollWorker'] },
    ]);
    expect(findUniqueWork(snapshot, 'other')).to.deep.equal([]);
  });

  it('reads an old schema (period_start_time, no period_count/generation)', () => {
    const path = join(dir, 'old.workdb');
    const db = new Database(path);
    db.exec(`CREATE TABLE WorkSpec (id TEXT NOT NULL PRIMARY KEY, state INTEGER NOT NULL, worker_class_name TEXT NOT NULL, initial_delay INTEGER NOT NULL,
      interval_duration INTEGER NOT NULL, flex_duration INTEGER NOT NULL, run_attempt_count INTEGER NOT NULL, backoff_policy INTEGER NOT NULL,
      backoff_delay_duration INTEGER NOT NULL, period_start_time INTEGER NOT NULL);
      CREATE TABLE SystemIdInfo (work_spec_id TEXT NOT NULL PRIMARY KEY, system_id INTEGER NOT NULL);
      CREATE TABLE WorkName (name TEXT NOT NULL, work_spec_id TEXT NOT NULL);`);
    db.exec(`INSERT INTO WorkSpec VALUES ('b2', 0, 'W', 0, 900000, 900000, 1, 1, 10000, 1600000000000);
      INSERT INTO SystemIdInfo VALUES ('b2', 9); INSERT INTO WorkName VALUES ('n', 'b2');`);
    db.close();
    const snapshot = readWorkDatabase(path);
    expect(snapshot.workSpecs[0]).to.deep.include({
      lastEnqueueTime: 1600000000000,
      periodCount: 0,
      generation: 0,
      runAttemptCount: 1,
      backoffPolicy: 1,
      model: 'period-start',
    });
    expect(snapshot.tags).to.deep.equal([]);
    expect(findUniqueWork(snapshot, 'n')[0]?.systemId).to.equal(9);
  });

  it('tells the model from the WorkSpec columns', () => {
    expect(workSpecModel(new Set(['id', 'period_start_time']))).to.equal('period-start');
    expect(workSpecModel(new Set(['id', 'last_enqueue_time', 'period_count']))).to.equal('last-enqueue');
    expect(workSpecModel(new Set(['id']))).to.equal('period-start');
  });
});
