/**
 * Every rule against its fixtures: `fixtures/lint/<rule>/bad*` must produce exactly the findings
 * listed here (file, line, column, rule), `fixtures/lint/<rule>/good` must produce none.
 */
import { expect } from 'chai';
import { lintPaths } from '../../../src/lint/lint.js';
import type { Finding, LintResult } from '../../../src/lint/model.js';

interface Where {
  file: string;
  line: number;
  column: number;
  rule: string;
}
const where = (f: Finding): Where => ({ file: f.file, line: f.line, column: f.column, rule: f.rule });

async function lintDir(dir: string): Promise<LintResult> {
  return lintPaths([dir]);
}

/** The result without `notes` (what could not be checked: specs/unit/lint/schedule.spec.ts checks them). */
async function lintCore(dir: string): Promise<Omit<LintResult, 'notes'>> {
  const { notes: _notes, ...core } = await lintPaths([dir]);
  return core;
}

async function expectClean(dir: string, filesScanned: number): Promise<void> {
  expect(await lintCore(dir)).to.deep.equal({ findings: [], filesScanned, unresolved: [] });
}

describe('lint rules on fixtures', () => {
  describe('window-vs-interval', () => {
    it('flags a 24 h window against a 24 h interval held in a companion object in another file (whole result)', async () => {
      const D = 'fixtures/lint/window-vs-interval/bad-companion/src/main/java/com/example/digest';
      expect(await lintCore('fixtures/lint/window-vs-interval/bad-companion')).to.deep.equal({
        findings: [
          {
            file: `${D}/schedule/DigestScheduler.kt`,
            line: 13,
            column: 23,
            rule: 'window-vs-interval',
            message:
              `window MAX_AGE_MS = 24 h (${D}/worker/DigestWorker.kt:23) is shorter than 2 × the repeat interval 24 h = 48 h: ` +
              'items published while one run is missed age out before the next run sees them',
            related: [
              { file: `${D}/worker/DigestWorker.kt`, line: 23, what: 'window MAX_AGE_MS = 24 h' },
              { file: `${D}/schedule/DigestScheduler.kt`, line: 18, what: 'repeat interval REPEAT_INTERVAL' },
            ],
          },
        ],
        filesScanned: 2,
        unresolved: [],
      });
    });

    it('reads every enqueue form: Duration, Builder with TimeUnit.DAYS, kotlin.time, flex; notes a run-time interval', async () => {
      const D = 'fixtures/lint/window-vs-interval/bad-forms/src/main/java/com/example/sync';
      const r = await lintDir('fixtures/lint/window-vs-interval/bad-forms');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/Schedules.kt`, line: 15, column: 19, rule: 'window-vs-interval' }, // Duration.ofHours(24)
        { file: `${D}/Schedules.kt`, line: 17, column: 26, rule: 'window-vs-interval' }, // Builder(…, 1, TimeUnit.DAYS)
        { file: `${D}/Schedules.kt`, line: 19, column: 33, rule: 'window-vs-interval' }, // 24.hours.toJavaDuration()
        { file: `${D}/Schedules.kt`, line: 22, column: 22, rule: 'window-vs-interval' }, // 16 h + 6 h flex
      ]);
      expect(r.findings[3]?.message).to.contain('2 × the repeat interval 16 h + flex 6 h = 38 h');
      expect(r.findings.every((f) => f.message.startsWith(`window LOOKBACK = 36 h (${D}/SyncWorker.kt:9)`))).to.equal(true);
      // TimeUnit.HOURS.toMillis(12) ms → 2 × 12 h fits the 36 h window: no finding on line 24
      expect(r.unresolved).to.deep.equal([
        {
          file: `${D}/Schedules.kt`,
          line: 26,
          rule: 'window-vs-interval',
          message: 'repeat interval could not be evaluated: `intervalHours` is a parameter of fromServer(): its value is known only at run time',
        },
      ]);
    });

    it('follows Java constants across classes: new PeriodicWorkRequest.Builder(W.class, REPEAT_HOURS, TimeUnit.HOURS)', async () => {
      const D = 'fixtures/lint/window-vs-interval/bad-java/src/main/java/com/example/articles';
      const r = await lintDir('fixtures/lint/window-vs-interval/bad-java');
      expect(r.findings.map(where)).to.deep.equal([{ file: `${D}/ArticleScheduler.java`, line: 14, column: 17, rule: 'window-vs-interval' }]);
      expect(r.findings[0]?.related).to.deep.equal([
        { file: `${D}/Constants.java`, line: 7, what: 'window WINDOW_MS = 24 h' },
        { file: `${D}/ArticleScheduler.java`, line: 10, what: 'repeat interval REPEAT_HOURS' },
      ]);
    });

    it('accepts a 48 h window for 24 h, 1 day and 20 h + 8 h flex', async () => {
      await expectClean('fixtures/lint/window-vs-interval/good', 2);
    });
  });

  describe('date-defaults-to-now', () => {
    it('flags elvis, catch, getOrElse and ternary fallbacks of a date parse', async () => {
      const D = 'fixtures/lint/date-defaults-to-now/bad/src/main/java/com/example/reader';
      const r = await lintDir('fixtures/lint/date-defaults-to-now/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/DateUtil.java`, line: 16, column: 20, rule: 'date-defaults-to-now' },
        { file: `${D}/DateUtil.java`, line: 22, column: 52, rule: 'date-defaults-to-now' },
        { file: `${D}/EntryDates.kt`, line: 15, column: 48, rule: 'date-defaults-to-now' },
        { file: `${D}/EntryDates.kt`, line: 21, column: 13, rule: 'date-defaults-to-now' },
        { file: `${D}/EntryDates.kt`, line: 26, column: 56, rule: 'date-defaults-to-now' },
      ]);
      expect(r.findings[2]?.message).to.equal(
        // nothing scanned calls this helper: the message says what follows where it feeds a notifier, no more
        '`System.currentTimeMillis()` is the `?:` fallback of a date parse: an unparseable date becomes "now", so the entry looks just published: ' +
          "where it feeds a notifier's look-back window it passes it on every run, and without a stable dedup id it is notified every run; " +
          'yield 0 instead and skip items whose publishedAt is not > 0',
      );
    });

    it('accepts 0 on failure, a logged time, and "now" where it means now', async () => {
      await expectClean('fixtures/lint/date-defaults-to-now/good', 2);
    });
  });

  describe('dedup-on-title', () => {
    it('flags title-keyed existence checks, keys, notification ids, entity keys and DAO queries', async () => {
      const D = 'fixtures/lint/dedup-on-title/bad/src/main/java/com/example/alerts';
      const r = await lintDir('fixtures/lint/dedup-on-title/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/AlertFilter.java`, line: 13, column: 18, rule: 'dedup-on-title' },
        { file: `${D}/AlertWorker.kt`, line: 18, column: 17, rule: 'dedup-on-title' },
        { file: `${D}/AlertWorker.kt`, line: 19, column: 17, rule: 'dedup-on-title' },
        { file: `${D}/AlertWorker.kt`, line: 24, column: 21, rule: 'dedup-on-title' },
        { file: `${D}/AlertWorker.kt`, line: 25, column: 34, rule: 'dedup-on-title' },
        { file: `${D}/data/SeenDao.kt`, line: 10, column: 5, rule: 'dedup-on-title' },
      ]);
      expect(r.findings[1]?.message).to.equal(
        'dedup check `dao.isNotificationExists(alert.title)` is keyed on the title: a title edited upstream makes the same item look new and notify again; key on the link (or another stable id)',
      );
      // AlertFilter.unseen() is called by nothing scanned: the message says only what follows where it decides
      expect(r.findings[0]?.message).to.equal(
        'dedup check `seenTitles.contains(a.getTitle())` is keyed on the title: where it decides what is notified, a title edited upstream makes the same item look new and notify again; key on the link (or another stable id)',
      );
    });

    it('accepts link keys, titles shown in notifications and title search queries', async () => {
      await expectClean('fixtures/lint/dedup-on-title/good', 3);
    });
  });

  describe('newest-first', () => {
    it('flags sortedByDescending and Comparator…reversed() before posting', async () => {
      const D = 'fixtures/lint/newest-first/bad/src/main/java/com/example/podcasts';
      const r = await lintDir('fixtures/lint/newest-first/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/EpisodeWorker.kt`, line: 17, column: 14, rule: 'newest-first' },
        { file: `${D}/LegacyEpisodeTask.java`, line: 19, column: 86, rule: 'newest-first' },
      ]);
    });

    it('accepts oldest-first posting and newest-first lists that post nothing', async () => {
      await expectClean('fixtures/lint/newest-first/good', 3);
    });
  });

  describe('new-key-per-attempt', () => {
    it('flags a fresh UUID passed to a Retrofit @Header("Idempotency-Key") and to an OkHttp header', async () => {
      const D = 'fixtures/lint/new-key-per-attempt/bad/src/main/java/com/example/orders';
      const r = await lintDir('fixtures/lint/new-key-per-attempt/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/SubmitOrderWorker.kt`, line: 20, column: 23, rule: 'new-key-per-attempt' },
        { file: `${D}/SubmitOrderWorker.kt`, line: 32, column: 40, rule: 'new-key-per-attempt' },
      ]);
      expect(r.findings[0]?.related).to.deep.equal([
        { file: `${D}/SubmitOrderWorker.kt`, line: 21, what: 'used as the @Header("Idempotency-Key") parameter `operationId` of `createOrder(…)`' },
      ]);
      expect(r.findings[1]?.message).to.contain('in confirm() (run from doWork())').and.contain('the Idempotency-Key header of `header(…)`');
    });

    it('accepts a key created once and persisted, and a UUID used only for logging', async () => {
      await expectClean('fixtures/lint/new-key-per-attempt/good', 2);
    });
  });

  describe('retry-on-auth-failure', () => {
    it('flags 401/403 routed to Result.retry() by when, else, !isSuccessful and a Java switch', async () => {
      const D = 'fixtures/lint/retry-on-auth-failure/bad/src/main/java/com/example/sync';
      const r = await lintDir('fixtures/lint/retry-on-auth-failure/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/InboxSyncWorker.kt`, line: 18, column: 86, rule: 'retry-on-auth-failure' },
        { file: `${D}/InboxSyncWorker.kt`, line: 30, column: 20, rule: 'retry-on-auth-failure' },
        { file: `${D}/InboxSyncWorker.kt`, line: 44, column: 21, rule: 'retry-on-auth-failure' },
        { file: `${D}/UploadWorker.java`, line: 31, column: 24, rule: 'retry-on-auth-failure' },
      ]);
      expect(r.findings.map((f) => /\(([^)]*`[^:]*?)\): an authorization/.exec(f.message)?.[1])).to.deep.equal([
        '`HttpURLConnection.HTTP_UNAUTHORIZED, HttpURLConnection.HTTP_FORBIDDEN ->`',
        '`if (!response.isSuccessful)`',
        '`else ->` of a `when` on the status',
        '`case 401`, `case 403`',
      ]);
    });

    it('accepts 401/403 → failure, an early return before !isSuccessful, and retry only for 408/429/5xx', async () => {
      await expectClean('fixtures/lint/retry-on-auth-failure/good', 2);
    });
  });

  describe('channel-only-in-activity', () => {
    it('flags a channel created only in an Activity while a Worker posts (whole result)', async () => {
      const D = 'fixtures/lint/channel-only-in-activity/bad/src/main/java/com/example/deals';
      expect(await lintCore('fixtures/lint/channel-only-in-activity/bad')).to.deep.equal({
        findings: [
          {
            file: `${D}/MainActivity.kt`,
            line: 16,
            column: 63,
            rule: 'channel-only-in-activity',
            message:
              'the notification channel is created only here, in an Activity (onCreate), but a Worker posts notifications: when the worker runs in a fresh process ' +
              'no Activity has run and the post goes to a channel that does not exist; create the channel (idempotent) right before posting',
            related: [{ file: `${D}/DealNotifier.kt`, line: 15, what: 'the worker posts here (post)' }],
          },
        ],
        filesScanned: 3,
        unresolved: [],
      });
    });

    it('accepts the same Activity when Application.onCreate also creates the channel', async () => {
      await expectClean('fixtures/lint/channel-only-in-activity/good', 4);
    });
  });

  describe('memory-only-dedup', () => {
    it('flags companion, object and static sets used as the only dedup check', async () => {
      const D = 'fixtures/lint/memory-only-dedup/bad/src/main/java/com/example/bank';
      const r = await lintDir('fixtures/lint/memory-only-dedup/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/AlertPoller.java`, line: 9, column: 38, rule: 'memory-only-dedup' },
        { file: `${D}/CapturePipeline.kt`, line: 16, column: 21, rule: 'memory-only-dedup' },
        { file: `${D}/SeenLinks.kt`, line: 4, column: 9, rule: 'memory-only-dedup' },
      ]);
      expect(r.findings.map((f) => f.related)).to.deep.equal([
        [{ file: `${D}/AlertPoller.java`, line: 13, what: 'dedup check on NOTIFIED' }],
        [{ file: `${D}/CapturePipeline.kt`, line: 8, what: 'dedup check on sessionKeys' }],
        [{ file: `${D}/StatementWorker.kt`, line: 10, what: 'dedup check on links' }],
      ]);
    });

    it('accepts a session set in front of a unique insert (ADR-0073) and a per-run set in front of the database', async () => {
      await expectClean('fixtures/lint/memory-only-dedup/good', 2);
    });
  });

  describe('periodic-without-unique-name', () => {
    it('flags enqueue() of a periodic request, by variable and inline', async () => {
      const D = 'fixtures/lint/periodic-without-unique-name/bad/src/main/java/com/example/weather';
      const r = await lintDir('fixtures/lint/periodic-without-unique-name/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/BootReceiver.java`, line: 14, column: 46, rule: 'periodic-without-unique-name' },
        { file: `${D}/WeatherApp.kt`, line: 12, column: 39, rule: 'periodic-without-unique-name' },
      ]);
    });

    it('accepts enqueueUniquePeriodicWork and enqueue() of one-time work', async () => {
      await expectClean('fixtures/lint/periodic-without-unique-name/good', 2);
    });
  });

  describe('key-not-unique', () => {
    it('flags the dedup key column without a UNIQUE index in the latest schema (whole result)', async () => {
      const S = 'fixtures/lint/key-not-unique/bad/app/schemas/com.example.bank.data.BankDatabase';
      expect(await lintCore('fixtures/lint/key-not-unique/bad')).to.deep.equal({
        findings: [
          {
            file: `${S}/9.json`,
            line: 91,
            column: 27,
            rule: 'key-not-unique',
            message:
              'dedup key `unmatched.notificationKey` has no UNIQUE index in schema version 9 (`index_unmatched_notificationKey` is not unique): ' +
              'a replay after process death or two overlapping runs insert the same item twice and nothing rejects the second row; ' +
              'declare Index(value = ["notificationKey"], unique = true) and insert with OnConflictStrategy.IGNORE',
          },
        ],
        filesScanned: 3,
        unresolved: [],
      });
    });

    it('accepts a unique key, and a table keyed by its own natural primary key', async () => {
      await expectClean('fixtures/lint/key-not-unique/good', 3);
    });
  });

  describe('migration-backfill', () => {
    it('flags a NOT NULL key in the schema diff, ALTER … NOT NULL, UPDATE … SET and INSERT … SELECT back-fills', async () => {
      const D = 'fixtures/lint/migration-backfill/bad/app';
      const r = await lintDir('fixtures/lint/migration-backfill/bad');
      expect(r.findings.map(where)).to.deep.equal([
        { file: `${D}/schemas/com.example.bank.data.BankDatabase/9.json`, line: 91, column: 27, rule: 'migration-backfill' },
        { file: `${D}/src/main/java/com/example/bank/data/BankDatabase.kt`, line: 15, column: 20, rule: 'migration-backfill' },
        { file: `${D}/src/main/java/com/example/bank/data/BankDatabase.kt`, line: 16, column: 20, rule: 'migration-backfill' },
        { file: `${D}/src/main/java/com/example/bank/data/LegacyMigrations.java`, line: 19, column: 16, rule: 'migration-backfill' },
      ]);
      expect(r.findings.map((f) => f.message.split(':')[0])).to.deep.equal([
        'key column `unmatched.notificationKey` is new in version 9 and NOT NULL',
        "migration 8→9 adds key column `unmatched.notificationKey` as NOT NULL DEFAULT ''",
        'migration 8→9 fills key column `unmatched.notificationKey` in for existing rows (UPDATE … SET)',
        'migration 9→10 fills key column `unmatched_new.notificationKey` in for existing rows (INSERT … SELECT)',
      ]);
      expect(r.unresolved).to.deep.equal([]);
    });

    it('accepts ADR-0073: a nullable key, a unique index, no back-fill; and back-fills of other columns', async () => {
      await expectClean('fixtures/lint/migration-backfill/good', 4);
    });
  });
});
