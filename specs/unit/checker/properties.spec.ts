/**
 * The property checks (src/checker/properties) composed with the notification checks
 * (src/checker/compose.ts), in Jepsen's shape: tiny histories from the builders, empty / sane /
 * pathological cases, the whole result compared with deep.equal.
 */
import { expect } from 'chai';
import { checkSegment, type CheckResult } from '../../../src/checker/index.js';
import { PROPERTIES } from '../../../src/checker/properties/index.js';
import type { HistoryEvent, SchemaEvent } from '../../../src/history/events.js';
import {
  A, B, H, T, WINDOW, ZERO, counts, effect, fetched, goodSchema, notified, probeRun, published, receipt, rows, run, runFinished,
  runStarted, schedule, spec,
} from './builders.js';

const check = (properties: string[], events: HistoryEvent[], over: { windowMs?: number } = {}): CheckResult =>
  checkSegment(events, { windowMs: over.windowMs ?? WINDOW, allowedDuplicates: 0, properties });

const PASS: CheckResult = { verdict: 'pass', counts: ZERO, anomalies: [] };

describe('property checks', () => {
  describe('compose', () => {
    it('runs only the notification checks when the config line names no property', () => {
      const events = [published(T, A, T - H), ...run(1, T, [A], [A]), rows(T + 1, [A, A])];
      expect(checkSegment(events, { windowMs: WINDOW, allowedDuplicates: 0 })).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 1, eligibleCount: 1 }), anomalies: [] });
    });

    it('makes a property the history names but this version does not know undecided, not passing', () => {
      expect(check(['no-such-check'], [])).to.deep.equal({
        verdict: 'unknown',
        counts: ZERO,
        anomalies: [{
          kind: 'checker-error', item: '',
          detail: `the no-such-check check could not decide: the history names the property check "no-such-check", which this version does not know (known: ${[...PROPERTIES.keys()].join(', ')})`,
        }],
      });
    });

    it('turns a crash inside one property into checker-error for that property; the others still decide', () => {
      // A schedule whose specs are not an array makes the unique-work check throw; rows still fails.
      const broken = { ...schedule(T + H, [spec('w1')], 'after-relaunch'), specs: null } as unknown as HistoryEvent;
      const result = check(['unique-work', 'rows'], [published(T, A, T - H), schedule(T, [spec('w1')], 'before-relaunch'), broken, rows(T, [A, A])]);
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies.map((a) => a.kind)).to.deep.equal(['checker-error', 'duplicate-row']);
      expect(result.anomalies[0]!.detail).to.match(/^the unique-work check could not decide: /);
    });

    it('fails over unknown: a failing property with an undecided one fails', () => {
      const result = check(['schema', 'rows'], [published(T, A, T - H), rows(T, [A, A])]);
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies.map((a) => a.kind)).to.deep.equal(['not-observed', 'duplicate-row']);
    });
  });

  describe('idempotency', () => {
    const retried = (secondKey: string): HistoryEvent[] => [
      receipt(T, 1, A, 'k-a', 'dropped'), effect(T, A, 'k-a'),
      receipt(T + 1, 1, B, 'k-b', 503),
      receipt(T + H, 2, A, secondKey), ...(secondKey === 'k-a' ? [] : [effect(T + H, A, secondKey)]),
      receipt(T + H + 1, 2, B, 'k-b'), effect(T + H + 1, B, 'k-b'),
    ];

    it('is undecided on a history where no answer was lost (nothing exercised the retry)', () => {
      expect(check(['idempotency'], [])).to.deep.equal({
        verdict: 'unknown', counts: ZERO,
        anomalies: [{ kind: 'no-receipt', item: '', detail: 'the backend dropped no answer after processing (0 backend request(s)): the retry of a lost answer could not be exercised' }],
      });
    });

    it('passes a retry that reuses the persisted key: one effect per operation', () => {
      expect(check(['idempotency'], retried('k-a'))).to.deep.equal(PASS);
    });

    it('fails a retry with a new key: two effects for one operation, with the keys and the requests', () => {
      expect(check(['idempotency'], retried('k-a2'))).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [{
          kind: 'duplicate-effect', item: A,
          detail: 'the backend recorded 2 effects for one operation: its 2 request(s) used 2 different keys (k-a and k-a2)',
          evidence: ['POST /receipts Idempotency-Key: k-a → dropped', 'POST /receipts Idempotency-Key: k-a2 → 200'],
        }],
      });
    });

    it('fails a request without a key, and a lost answer never sent again', () => {
      const events = [receipt(T, 1, A, '', 'dropped'), effect(T, A, null)];
      expect(check(['idempotency'], events)).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [
          { kind: 'missing-idempotency-key', item: A, detail: 'a backend request for this item carried no Idempotency-Key header', evidence: ['POST /receipts Idempotency-Key: (none) → dropped'] },
          { kind: 'receipt-not-retried', item: A, detail: 'the request whose answer was lost was sent once: it must be sent again until acknowledged', evidence: ['POST /receipts Idempotency-Key: (none) → dropped'] },
        ],
      });
    });

    it('reads the key from the header the config line names', () => {
      const custom = { ...receipt(T, 1, A, '', 'dropped'), headers: { 'x-op': 'k-a' } };
      const again = { ...receipt(T + H, 2, A, ''), headers: { 'x-op': 'k-a' } };
      expect(checkSegment([custom, effect(T, A, 'k-a'), again], { windowMs: WINDOW, allowedDuplicates: 0, properties: ['idempotency'], idempotencyHeader: 'X-Op' })).to.deep.equal(PASS);
    });
  });

  describe('schedule and window', () => {
    const probe = (notifyProbe: boolean): HistoryEvent[] => [
      schedule(T, [spec('w1')], 'schedule'),
      { ...published(T, A, T - 47 * H), label: 'missed-run-edge' },
      published(T, B, T - H),
      runStarted(T, 1), fetched(T + 1, 1, [A, B]),
      ...(notifyProbe ? [notified(T + 2, 1, A)] : []), notified(T + 3, 1, B), runFinished(T + 4, 1),
    ];

    it('is undecided without a read of the schedule, or with no periodic work of the unique name', () => {
      expect(check(['schedule'], []).anomalies.map((a) => a.kind)).to.deep.equal(['not-observed']);
      expect(check(['schedule'], [schedule(T, [], 'schedule', null)])).to.deep.equal({
        verdict: 'unknown', counts: ZERO,
        anomalies: [{ kind: 'no-schedule', item: '', detail: 'no unfinished periodic work named "feed-poll" in the WorkManager database' }],
      });
    });

    it('passes a 48 h window for a 24 h interval whose app notifies the item at a missed run\'s far edge', () => {
      expect(check(['schedule', 'window'], probe(true))).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [] });
    });

    it('fails a configured window narrower than 2 × interval + early flex', () => {
      const result = check(['window'], [schedule(T, [spec('w1', { flexMs: 6 * H })])]);
      expect(result).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [{
          kind: 'window-too-narrow', item: '',
          detail: 'configured window 48 h is narrower than 2 × interval + early flex = 66 h (WorkSpec w1: interval_duration 86400000, flex_duration 21600000): one missed run loses items',
        }],
      });
    });

    it('fails an app whose real window is shorter than the configured one (the edge item is not notified)', () => {
      const result = check(['window'], probe(false));
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies).to.deep.equal([
        { kind: 'lost', item: A, run: 1, epoch: 0, detail: 'never notified in epoch 0, although eligible from run 1 on ("A", published 2024-05-30T13:00:00.000Z)' },
        {
          kind: 'window-too-narrow', item: A, run: 1,
          detail: 'the app did not notify an item aged 47 h in run 1: its effective window is shorter than that, but a missed run needs 48 h',
        },
      ]);
    });
  });

  describe('unique-work', () => {
    const relaunch = (before: ReturnType<typeof spec>[], after: ReturnType<typeof spec>[]): HistoryEvent[] =>
      [schedule(T, before, 'before-relaunch'), schedule(T + H, after, 'after-relaunch')];

    it('is undecided without both reads', () => {
      expect(check(['unique-work'], [schedule(T, [spec('w1')], 'before-relaunch')]).verdict).to.equal('unknown');
    });

    it('passes one WorkSpec kept with its id and last_enqueue_time (KEEP)', () => {
      expect(check(['unique-work'], relaunch([spec('w1')], [spec('w1')]))).to.deep.equal(PASS);
    });

    it('fails a second WorkSpec for the name and the worker class, naming both', () => {
      const result = check(['unique-work'], relaunch([spec('w1')], [spec('w1'), spec('w2', { lastEnqueueTime: T })]));
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies.map((a) => [a.kind, a.detail])).to.deep.equal([
        ['duplicate-schedule', '2 unfinished periodic WorkSpecs are named "feed-poll" after relaunching: expected exactly 1'],
        ['duplicate-schedule', '2 periodic WorkSpecs run com.example.FeedWorker after relaunching: each schedules its own runs'],
      ]);
    });

    it('fails a schedule replaced (REPLACE) or restarted on every launch', () => {
      expect(check(['unique-work'], relaunch([spec('w1')], [spec('w2')])).anomalies.map((a) => a.kind)).to.deep.equal(['schedule-reset']);
      expect(check(['unique-work'], relaunch([spec('w1')], [spec('w1', { lastEnqueueTime: T + H })])).anomalies).to.deep.equal([{
        kind: 'schedule-reset', item: '',
        detail: `relaunching moved last_enqueue_time of WorkSpec w1 from ${T - H} to ${T + H}: the schedule restarts on every launch`,
      }]);
    });
  });

  describe('unique-work of an app\'s own JobService job (scheduler jobscheduler)', () => {
    const jobs = (t: number, specs: ReturnType<typeof spec>[], label: string): HistoryEvent => ({ ...schedule(t, specs, label), scheduler: 'jobscheduler', uniqueName: 'job 2', workerClass: 'com.example.SyncJobService' });
    const job = (id: string, over: Parameters<typeof spec>[1] = {}): ReturnType<typeof spec> => spec(id, { workerClass: 'com.example.SyncJobService', ...over });

    it('passes the same JobStatus, whatever the enqueue time read (printed relative to the dump)', () => {
      expect(check(['unique-work'], [jobs(T, [job('#u0a190/2 5e6f7a8')], 'before-relaunch'), jobs(T + H, [job('#u0a190/2 5e6f7a8', { lastEnqueueTime: T + 3 })], 'after-relaunch')])).to.deep.equal(PASS);
    });

    it('fails a job scheduled again (a new JobStatus) and a second job of the service, each said of jobs', () => {
      const replaced = check(['unique-work'], [jobs(T, [job('#u0a190/2 5e6f7a8')], 'before-relaunch'), jobs(T + H, [job('#u0a190/2 9abcdef')], 'after-relaunch')]);
      expect(replaced.anomalies.map((a) => [a.kind, a.detail])).to.deep.equal([
        ['schedule-reset', 'relaunching replaced job #u0a190/2 5e6f7a8 with #u0a190/2 9abcdef (a new JobStatus): the app schedules its job again at every start, which restarts its period; schedule it only when it is not pending (JobScheduler.getPendingJob)'],
      ]);
      const second = check(['unique-work'], [jobs(T, [job('#u0a190/2 5e6f7a8')], 'before-relaunch'), jobs(T + H, [job('#u0a190/2 5e6f7a8'), job('#u0a190/3 1234567', { named: false })], 'after-relaunch')]);
      expect(second.anomalies.map((a) => [a.kind, a.detail])).to.deep.equal([['duplicate-schedule', '2 periodic jobs run com.example.SyncJobService after relaunching: each schedules its own runs']]);
    });
  });

  describe('retry', () => {
    const failedRun = (n: number, t: number, status: number, outcome: 'retry' | 'failure' | 'success'): HistoryEvent[] =>
      [runStarted(t, n), fetched(t + 1, n, [], status), runFinished(t + 2, n, outcome)];

    it('passes 503, 429, 408 retried with WorkManager backoff, then 401 failing with no retry', () => {
      const events = [
        ...failedRun(1, T, 503, 'retry'), schedule(T + 3, [spec('w1', { runAttemptCount: 1 })]),
        ...failedRun(2, T + H, 429, 'retry'), schedule(T + H + 3, [spec('w1', { runAttemptCount: 2 })]),
        ...failedRun(3, T + 2 * H, 408, 'retry'), schedule(T + 2 * H + 3, [spec('w1', { runAttemptCount: 3 })]),
        ...run(4, T + 3 * H, [], []),
        ...failedRun(5, T + 4 * H, 401, 'failure'), schedule(T + 4 * H + 3, [spec('w1', { runAttemptCount: 0 })]),
        probeRun(T + 4 * H + 10, 'refused'),
      ];
      expect(check(['retry'], events)).to.deep.equal(PASS);
    });

    it('fails a 401 retried: misclassified, and the probe ran (a retry loop)', () => {
      const events = [...failedRun(1, T, 401, 'retry'), schedule(T + 3, [spec('w1', { runAttemptCount: 1 })]), probeRun(T + 10, 'retry', [401])];
      expect(check(['retry'], events)).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [
          { kind: 'misclassified-status', item: '', run: 1, detail: 'HTTP 401 from the feed ended run 1 with retry, expected failure' },
          {
            kind: 'retry-loop', item: '', run: 1,
            detail: 'run 1 got HTTP 401 and a probe run forced later was not refused (outcome retry, feed fetches 401): authorization failures must not be retried',
          },
        ],
      });
    });

    it('fails a retry that WorkManager did not count (the app looping by itself)', () => {
      const result = check(['retry'], [...failedRun(1, T, 503, 'retry'), schedule(T + 3, [spec('w1', { runAttemptCount: 0 })])]);
      expect(result.anomalies).to.deep.equal([{
        kind: 'no-backoff', item: '', run: 1,
        detail: 'after run 1 ended retry on HTTP 503, run_attempt_count is 0, expected 1: the retry is not a WorkManager backoff',
      }]);
    });

    it('takes a 401 that ended finished (read from the workdb: success or failure) as not retried, and a 503 that ended finished as misclassified', () => {
      const failedFinished = (n: number, t: number, status: number): HistoryEvent[] => [runStarted(t, n), fetched(t + 1, n, [], status), runFinished(t + 2, n, 'finished')];
      expect(check(['retry'], [...failedFinished(1, T, 401), schedule(T + 3, [spec('w1', { runAttemptCount: 0 })]), probeRun(T + 10, 'refused')])).to.deep.equal(PASS);
      expect(check(['retry'], failedFinished(1, T, 503)).anomalies.map((a) => a.detail)).to.deep.equal(['HTTP 503 from the feed ended run 1 with finished, expected retry']);
    });

    it('fails a 503 that ended the work (failure)', () => {
      expect(check(['retry'], failedRun(1, T, 503, 'failure')).anomalies.map((a) => a.detail)).to.deep.equal(['HTTP 503 from the feed ended run 1 with failure, expected retry']);
    });
  });

  describe('rows and schema', () => {
    it('passes one row per served item; ignores rows of items the segment did not serve', () => {
      expect(check(['rows'], [published(T, A, T - H), rows(T, [A, B, B, null, null])])).to.deep.equal(PASS);
    });

    it('fails a served item with two rows (the last read decides)', () => {
      expect(check(['rows'], [published(T, A, T - H), rows(T, [A]), rows(T + H, [A, A])])).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [{ kind: 'duplicate-row', item: A, detail: '2 rows of notified_items carry this key: the database did not refuse the second row' }],
      });
    });

    it('passes the seed\'s schema: nullable key, unique index on it, NULLs coexist, a replay is ignored', () => {
      expect(check(['schema'], [goodSchema()])).to.deep.equal(PASS);
    });

    it('fails every broken clause of the schema, each on its own', () => {
      const bad = goodSchema({
        columns: [{ name: 'link', type: 'TEXT', notnull: true, pk: false, default: "''" }],
        indexes: [{ name: 'ix_partial', unique: true, partial: true, columns: ['link'] }, { name: 'ix_pair', unique: false, partial: false, columns: ['link', 'title'] }],
        nullKeyRowsStored: 1,
        replay: { key: A, rowsAdded: 1 },
      });
      expect(check(['schema'], [bad])).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [
          {
            kind: 'no-unique-index', item: '',
            detail: 'no UNIQUE index on notified_items.link (indexes: ix_partial (unique) (partial) on link; ix_pair on link, title): the database cannot refuse a second row for the same notification',
          },
          {
            kind: 'key-not-nullable', item: '',
            detail: "notified_items.link is NOT NULL DEFAULT '': rows without an identity of their own all get '', and a UNIQUE index keeps only one of them (nullable is load-bearing)",
          },
          { kind: 'null-keys-collide', item: '', detail: 'inserting two rows with a NULL link stored 1: legacy rows cannot coexist' },
          { kind: 'replayed-insert-duplicated', item: A, detail: 'inserting the existing key again added 1 row(s) instead of being ignored' },
        ],
      });
    });

    it('keeps failing a NOT NULL key in a history that does not record column defaults (written before they were)', () => {
      expect(check(['schema'], [goodSchema({ columns: [{ name: 'link', type: 'TEXT', notnull: true, pk: false }] })])).to.deep.equal({
        verdict: 'fail', counts: ZERO,
        anomalies: [{ kind: 'key-not-nullable', item: '', detail: 'notified_items.link is NOT NULL: legacy rows without an identity cannot coexist (nullable is load-bearing)' }],
      });
    });

    /** Feeder's feed_items as Room creates it: guid TEXT NOT NULL, UNIQUE (guid, feed_id); no NULL probe (the key is NOT NULL). */
    const feederSchema = (feedIdNotNull: boolean, over: Partial<SchemaEvent> = {}): SchemaEvent => {
      const { nullKeyRowsStored: _notProbed, ...schema } = goodSchema({ table: 'feed_items', keyColumn: 'guid', ...feederTable(feedIdNotNull) });
      return { ...schema, ...over };
    };
    const feederTable = (feedIdNotNull: boolean): Pick<SchemaEvent, 'columns' | 'indexes'> => ({
      columns: [
        { name: 'id', type: 'INTEGER', notnull: true, pk: true, default: null },
        { name: 'guid', type: 'TEXT', notnull: true, pk: false, default: null },
        { name: 'notified', type: 'INTEGER', notnull: true, pk: false, default: null },
        { name: 'feed_id', type: 'INTEGER', notnull: feedIdNotNull, pk: false, default: null },
      ],
      indexes: [
        { name: 'index_feed_items_guid_feed_id', unique: true, partial: false, columns: ['guid', 'feed_id'] },
        { name: 'index_feed_items_feed_id', unique: false, partial: false, columns: ['feed_id'] },
      ],
    });
    const keyRequired = {
      kind: 'key-required', item: '',
      detail:
        "feed_items.guid is NOT NULL with no default: every row carries its item's key and a row without one cannot be stored; " +
        'the key cannot have been added by ALTER TABLE (SQLite wants a default for a NOT NULL column it adds), so the table had it from its creation and no legacy rows without an identity to keep',
    };

    it('passes a NOT NULL key with no default and a UNIQUE index of the key with another column (Feeder), saying what each implies', () => {
      expect(check(['schema'], [feederSchema(true)])).to.deep.equal({
        verdict: 'pass', counts: ZERO,
        anomalies: [
          {
            kind: 'key-unique-per-columns', item: '',
            detail: 'feed_items.guid is unique only together with feed_id (UNIQUE index index_feed_items_guid_feed_id on guid, feed_id): a second row with the same guid is refused only when that column holds the same value',
          },
          keyRequired,
        ],
      });
    });

    it('says that a nullable column of the composite index lets a row through when it is NULL', () => {
      expect(check(['schema'], [feederSchema(false)]).anomalies[0]).to.deep.equal({
        kind: 'key-unique-per-columns', item: '',
        detail:
          'feed_items.guid is unique only together with feed_id (UNIQUE index index_feed_items_guid_feed_id on guid, feed_id): a second row with the same guid is refused only when that column holds the same value, ' +
          'and never when feed_id is NULL (SQLite counts every NULL distinct)',
      });
    });

    it('names the narrowest UNIQUE index holding the key, and none when one is on the key alone', () => {
      const schema = feederSchema(true, {
        indexes: [
          { name: 'ix_wide', unique: true, partial: false, columns: ['feed_id', 'guid', 'notified'] },
          { name: 'ix_pair', unique: true, partial: false, columns: ['guid', 'feed_id'] },
        ],
      });
      expect(check(['schema'], [schema]).anomalies.map((a) => a.detail.split(':')[0])).to.deep.equal([
        'feed_items.guid is unique only together with feed_id (UNIQUE index ix_pair on guid, feed_id)',
        'feed_items.guid is NOT NULL with no default',
      ]);
      const alone = { ...schema, indexes: [...schema.indexes, { name: 'ix_guid', unique: true, partial: false, columns: ['guid'] }] };
      expect(check(['schema'], [alone])).to.deep.equal({ verdict: 'pass', counts: ZERO, anomalies: [keyRequired] });
    });

    it('fails the row-id shape whose (guid, feed_id) index is not UNIQUE, or only partial (the no-unique-index switch)', () => {
      for (const ix of [{ unique: false, partial: false }, { unique: true, partial: true }]) {
        const result = check(['schema'], [feederSchema(true, { indexes: [{ name: 'index_feed_items_guid_feed_id', columns: ['guid', 'feed_id'], ...ix }], replay: { key: A, rowsAdded: 1 } })]);
        expect(result.verdict).to.equal('fail');
        expect(result.anomalies.map((a) => a.kind)).to.deep.equal(['no-unique-index', 'key-required', 'replayed-insert-duplicated']);
      }
    });

    it('is undecided when the key column is missing (a config that names another column)', () => {
      expect(check(['schema'], [goodSchema({ keyColumn: 'url' })]).verdict).to.equal('unknown');
    });
  });
});
