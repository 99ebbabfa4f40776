/**
 * Precision on patterns taken from real apps: each fixture under fixtures/lint/<rule>/ names the
 * app, commit and path it reproduces. The good ones were false alarms when calls were linked by
 * bare name and a title comparison, a sort or a date fallback anywhere counted; the bad ones
 * are traps the rules missed (an exception subclass carrying a 401, the date forms of real
 * helpers, a random UUID primary key).
 */
import { expect } from 'chai';
import { lintPaths } from '../../../src/lint/lint.js';
import type { LintResult } from '../../../src/lint/model.js';

const where = (r: LintResult, root: string): string[] => r.findings.map((f) => `${f.file.slice(root.length + 1)}:${f.line}:${f.column} ${f.rule}`);

async function expectNoFinding(dir: string, filesScanned: number): Promise<void> {
  const r = await lintPaths([dir]);
  expect({ findings: r.findings, filesScanned: r.filesScanned, unresolved: r.unresolved }).to.deep.equal({ findings: [], filesScanned, unresolved: [] });
}

describe('lint precision on patterns from real apps', () => {
  describe('dedup-on-title', () => {
    it('is silent on folder titles in a drawer, an "already subscribed" filter and a share subject (screens, not the notifier)', async () => {
      await expectNoFinding('fixtures/lint/dedup-on-title/good-ui', 4);
    });

    it('is silent on an opt-in title filter through two wrappers when the worker looks items up by guid', async () => {
      await expectNoFinding('fixtures/lint/dedup-on-title/good-extra-filter', 5);
    });

    it('is silent on an opt-in title filter after the worker dropped stored entries by id', async () => {
      await expectNoFinding('fixtures/lint/dedup-on-title/good-ids-then-titles', 1);
    });

    it('is silent on a genre tag picked by title and a substring test on a locale name', async () => {
      await expectNoFinding('fixtures/lint/dedup-on-title/good-text-search', 1);
    });

    it('is silent on a folder found by its title on the worker path', async () => {
      await expectNoFinding('fixtures/lint/dedup-on-title/good-folder-lookup', 1);
    });

    it('flags the title check once where it is made (not at each wrapper), and the DAO query, when the title is the only identity', async () => {
      const D = 'fixtures/lint/dedup-on-title/bad-wrappers';
      const r = await lintPaths([D]);
      expect(where(r, D)).to.deep.equal([
        'src/main/java/com/example/reader/SyncWorker.kt:38:55 dedup-on-title',
        'src/main/java/com/example/reader/SyncWorker.kt:45:5 dedup-on-title',
      ]);
      expect(r.findings[0]?.message).to.match(/^dedup check `dao\.titleExists\(plainTitle = title\)` is keyed on the title: a title edited upstream/);
    });
  });

  describe('window-vs-interval', () => {
    it('does not take a local page size named `window` for the window', async () => {
      const r = await lintPaths(['fixtures/lint/window-vs-interval/good-page-size']);
      expect(r.findings).to.deep.equal([]);
      expect(r.unresolved.map((u) => u.message)).to.deep.equal([
        'no window constant found for SourcesWorker (looked for a comparison of `now - publishedAt` with a constant, and names like WINDOW_MS)',
      ]);
    });


    it('does not take the age of a feed refresh, or a 300-second timeout on a screen, for the window of new items', async () => {
      const D = 'fixtures/lint/window-vs-interval/good-other-ages/src/main/java/com/example/podcasts';
      const r = await lintPaths(['fixtures/lint/window-vs-interval/good-other-ages']);
      expect(r.findings).to.deep.equal([]);
      expect(r.unresolved).to.deep.equal([
        {
          file: `${D}/FeedUpdateWorker.java`,
          line: 23,
          rule: 'window-vs-interval',
          message: 'no window constant found for FeedUpdateWorker (looked for a comparison of `now - publishedAt` with a constant, and names like WINDOW_MS)',
        },
        {
          file: `${D}/MaintenanceWorker.java`,
          line: 21,
          rule: 'window-vs-interval',
          message: 'no window constant found for MaintenanceWorker (looked for a comparison of `now - publishedAt` with a constant, and names like WINDOW_MS)',
        },
      ]);
    });
  });

  describe('newest-first', () => {
    it('is silent on a view model that shows a log newest first', async () => {
      await expectNoFinding('fixtures/lint/newest-first/good-viewmodel', 1);
    });

    it('is silent on statistics sorted newest first for a screen, and on a list adapter update() that shares a name with the notifier', async () => {
      await expectNoFinding('fixtures/lint/newest-first/good-statistics', 4);
    });
  });

  describe('date-defaults-to-now', () => {
    it('is silent on "now" read in the branch where the date parsed, and on an import started from a screen', async () => {
      await expectNoFinding('fixtures/lint/date-defaults-to-now/good-paths', 2);
    });

    it('finds `?: now(clock)` in a catch, a fallback parameter given now (directly, by a local, by a default) and the app\'s own clock', async () => {
      const D = 'fixtures/lint/date-defaults-to-now/bad-forms';
      const r = await lintPaths([D]);
      expect(where(r, D)).to.deep.equal([
        'src/main/java/com/example/news/Article.kt:17:28 date-defaults-to-now',
        'src/main/java/com/example/news/Dates.kt:19:54 date-defaults-to-now',
        'src/main/java/com/example/news/Dates.kt:26:96 date-defaults-to-now',
        'src/main/java/com/example/news/NewsWorker.kt:15:52 date-defaults-to-now',
        'src/main/java/com/example/news/NewsWorker.kt:16:50 date-defaults-to-now',
      ]);
      const m = r.findings.map((f) => f.message);
      expect(m[0]).to.match(/^`ZonedDateTime\.now\(clock\)` is the catch block of a date parse: /);
      expect(m[1]).to.match(/^the default `whenInvalid = System\.currentTimeMillis\(\)` of parseOrNow\(\) is the value parseOrNow\(\) returns when the date does not parse \(the catch block of a date parse\), and doWork\(\) leaves it out: /);
      expect(m[2]).to.match(/^`TimeSource\.currentTime\(\)` is the fallback of a failed date parse: /);
      expect(m[3]).to.match(/^`System\.currentTimeMillis\(\)` \(the current time\) passed to parseOr\(\) as `fallback` is the value parseOr\(\) returns when the date does not parse \(the `\?:` fallback of a date parse\): /);
      expect(m[4]).to.match(/^`now` \(the current time\) passed to parseOr\(\) as `fallback`/);
      // nothing on this worker's path looks items up by a stable id: it notifies every run
      for (const x of m) expect(x).to.contain('looks new on every run of NewsWorker and, with no stable id to deduplicate it, is notified every run');
    });

    it('finds an early `return now` for a missing date and a catch-block now, and says a stable id stops the repeats', async () => {
      const D = 'fixtures/lint/date-defaults-to-now/bad-stable-id';
      const r = await lintPaths([D]);
      expect(where(r, D)).to.deep.equal([
        'src/main/java/com/example/rss/DateUtils.kt:14:20 date-defaults-to-now',
        'src/main/java/com/example/rss/DateUtils.kt:20:13 date-defaults-to-now',
      ]);
      expect(r.findings[0]?.message).to.equal(
        '`LocalDateTime.now()` is returned for a missing date before the date is parsed: a missing date becomes "now": the dedup (`itemExists()` by `remote_id`) ' +
          'keeps the entry from repeating, but an old entry with a bad date passes the look-back window and is notified as new, sorted as the newest, on the run of ' +
          'SyncWorker that first sees it; yield 0 instead and skip items whose publishedAt is not > 0',
      );
      expect(r.findings[1]?.message).to.match(/^`LocalDateTime\.now\(\)` is the catch block of a date parse: an unparseable date becomes "now": the dedup/);
      expect(r.findings.every((f) => !f.message.includes('notified every run'))).to.equal(true);
    });
  });

  describe('retry-on-auth-failure', () => {
    it('follows a 401 thrown as a subclass of the service exception to catch (Exception) + instanceof, and to catch (e: SyncServiceException)', async () => {
      const D = 'fixtures/lint/retry-on-auth-failure/bad-exception';
      const r = await lintPaths([D]);
      expect(where(r, D)).to.deep.equal([
        'src/main/java/com/example/sync/SyncWorker.java:26:24 retry-on-auth-failure',
        'src/main/java/com/example/sync/UploadWorker.kt:16:13 retry-on-auth-failure',
      ]);
      const S = `${D}/src/main/java/com/example/sync`;
      expect(r.findings[0]?.message).to.equal(
        `HTTP 401 is thrown as \`GpodderAuthenticationException\` (extends GpodderServiceException → SyncServiceException) at ${S}/GpodderService.java:41 ` +
          'and reaches Result.retry() through `catch (Exception)` and `(e instanceof SyncServiceException)` (HTTP 403 too): ' +
          'an authorization failure does not heal by retrying, so the worker backs off and retries without end and hides the sign-in the user must do; ' +
          'return Result.failure() for the authentication error',
      );
      expect(r.findings[0]?.related).to.deep.equal([{ file: `${S}/GpodderService.java`, line: 41, what: 'HTTP 401 thrown as GpodderAuthenticationException' }]);
      expect(r.findings[1]?.message).to.contain('through `catch (SyncServiceException)`');
    });

    it('is silent when the authentication exception is caught first, or told apart, and turned into a failure', async () => {
      await expectNoFinding('fixtures/lint/retry-on-auth-failure/good-exception', 7);
    });
  });

  describe('key-not-unique', () => {
    it('does not take a primary key filled with UUID.randomUUID() as the natural key of a feed item', async () => {
      const D = 'fixtures/lint/key-not-unique/bad-uuid';
      const r = await lintPaths([D]);
      expect(where(r, D)).to.deep.equal(['app/schemas/com.example.rssreader.data.ReaderDatabase/1.json:25:27 key-not-unique']);
      expect(r.findings[0]?.message).to.contain(
        `and the primary key \`id\` is a random UUID (${D}/app/src/main/java/com/example/rssreader/model/Item.kt:16), so it identifies nothing across fetches`,
      );
    });

    it('accepts a paging table keyed by its own composite primary key', async () => {
      await expectNoFinding('fixtures/lint/key-not-unique/good-composite-key', 2);
    });

    it('accepts the same table once the link is unique', async () => {
      await expectNoFinding('fixtures/lint/key-not-unique/good-uuid', 2);
    });
  });
});
