/**
 * The traps as real apps write them: a date parse followed by what it returns (through a local
 * and a helper not named like a parser), a JobScheduler job followed as a worker path, and a
 * PeriodicWorkRequest that nothing schedules beside the job that runs.
 */
import { expect } from 'chai';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lintPaths, lintSources } from '../../../src/lint/lint.js';
import type { LintResult } from '../../../src/lint/model.js';

/** The fixture's files as lintPaths reads them, for a variant changed in memory. */
async function readSources(dir: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out.push({ path, text: await readFile(path, 'utf8') });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

const where = (r: LintResult, root: string): string[] => r.findings.map((f) => `${f.file.slice(root.length + 1)}:${f.line}:${f.column} ${f.rule}`);

describe('lint recall on real apps\' forms', () => {
  it('follows a nullable date helper into a local whose ?: falls back to now (Twine)', async () => {
    const D = 'fixtures/lint/date-defaults-to-now/bad-local-helper';
    const r = await lintPaths([D]);
    expect(where(r, D)).to.deep.equal(['src/main/kotlin/dev/sasikanth/rss/reader/XmlContentParser.kt:12:7 date-defaults-to-now']);
    expect(r.findings[0]?.message).to.match(/^`postPubDateInMillis` holds a date parse that yields null on failure, and `Clock\.System\.now\(\)\.toEpochMilliseconds\(\)` \(line 19\) is the `\?:` fallback of a date parse/);
  });

  it('does not take a local that holds no date parse for one', () => {
    const r = lintSources([{
      path: 'A.kt',
      text: 'fun cached(key: String): Long? = cache[key]\nfun f(k: String): Long {\n  val ms = cached(k)\n  return ms ?: System.currentTimeMillis()\n}\n',
    }]);
    expect(r.findings).to.deep.equal([]);
  });

  it('follows a JobService as a worker path (Feeder)', async () => {
    const D = 'fixtures/lint/date-defaults-to-now/bad-jobservice';
    const r = await lintPaths([D]);
    expect(where(r, D)).to.deep.equal(['src/main/java/com/nononsenseapps/feeder/FeederJobService.kt:56:33 date-defaults-to-now']);
    expect(r.findings[0]?.message).to.include('FeederJobService');
  });

  it('notes a PeriodicWorkRequest that nothing schedules beside a JobScheduler job, and not one that is scheduled', () => {
    const job = {
      path: 'SyncJob.kt',
      text: 'class SyncJob : android.app.job.JobService() {\n  companion object {\n    fun schedule(ctx: Context) {\n' +
        '      ctx.getSystemService(JobScheduler::class.java).schedule(JobInfo.Builder(1, ComponentName(ctx, SyncJob::class.java)).setPeriodic(12 * 60 * 60 * 1000L).build())\n    }\n  }\n}\n',
    };
    const legacy = {
      path: 'LegacyWork.kt',
      text: 'object LegacyWork {\n  fun schedulePeriodicSync(ctx: Context) {\n' +
        '    WorkManager.getInstance(ctx).enqueueUniquePeriodicWork("sync", ExistingPeriodicWorkPolicy.KEEP, PeriodicWorkRequestBuilder<NoopWorker>(12, TimeUnit.HOURS).build())\n  }\n}\n',
    };
    const unused = lintSources([job, legacy]);
    expect(unused.notes.map((n) => `${n.file}:${n.line}`)).to.deep.equal(['SyncJob.kt:4']);
    expect(unused.notes[0]?.message).to.match(/^the PeriodicWorkRequest \(LegacyWork\.kt:3\) is built in a function nothing calls.*JobScheduler setPeriodic \(SyncJob\.kt:4\)/);
    const app = { path: 'App.kt', text: 'class App : android.app.Application() {\n  override fun onCreate() { super.onCreate(); LegacyWork.schedulePeriodicSync(this) }\n}\n' };
    expect(lintSources([job, legacy, app]).notes).to.deep.equal([]);
  });

  it('notes the unused PeriodicWorkRequest when another one is scheduled beside the JobScheduler job (Droid-ify)', async () => {
    const D = 'fixtures/lint/schedule/unused-periodic-beside-live';
    const S = `${D}/src/main/kotlin/com/example/store`;
    const r = await lintPaths([D]);
    expect(r.findings).to.deep.equal([]);
    expect(r.notes).to.deep.equal([{
      file: `${S}/work/SyncWorker.kt`,
      line: 22,
      message:
        `SyncWorker's PeriodicWorkRequest (${S}/work/SyncWorker.kt:22) is built in schedulePeriodicSync(), a function nothing calls, so WorkManager does not run SyncWorker periodically; ` +
        `found instead: JobScheduler setPeriodic (${S}/service/SyncService.kt:31): window-vs-interval read the unused request's interval, not the one that runs`,
    }]);
  });

  it('follows a 401 folded into a failed Boolean to Result.retry() (Droid-ify)', async () => {
    const D = 'fixtures/lint/retry-on-auth-failure/bad-folded-status';
    const S = `${D}/src/main/kotlin/com/example/store`;
    const r = await lintPaths([D]);
    // the catch-all retry (line 33) is not reached by a 401: nothing throws one
    expect(where(r, D)).to.deep.equal(['src/main/kotlin/com/example/store/work/SyncWorker.kt:30:17 retry-on-auth-failure']);
    expect(r.findings[0]?.message).to.equal(
      `HTTP 401 and 403 to a request sent with credentials (\`authentication()\`, ${S}/network/Downloader.kt:51) ` +
      `fail \`isSuccessful || code == HTTP_NOT_MODIFIED\` in \`asNetworkResponse()\` (${S}/network/Downloader.kt:44) like any other error, ` +
      `and nothing \`sync()\` (${S}/data/RepoRepository.kt:15) reaches tells them apart: \`sync()\` can answer false for them, and \`success\` false returns Result.retry(): ` +
      'an authorization failure folded into a failed Boolean does not heal by retrying, so the worker backs off and retries without end and hides the sign-in the user must do; ' +
      'carry the 401/403 out (a result or an exception of its own) and return Result.failure() for it',
    );
    expect(r.findings[0]?.related).to.deep.equal([
      { file: `${S}/network/Downloader.kt`, line: 44, what: 'HTTP 401/403 taken as any failure' },
      { file: `${S}/network/Downloader.kt`, line: 51, what: 'credentials sent' },
    ]);
  });

  it('is quiet when the 401 leaves the sync as an exception of its own that the worker fails on', async () => {
    const D = 'fixtures/lint/retry-on-auth-failure/bad-folded-status';
    const sources = await readSources(D);
    const edit = (name: string, from: string, to: string) => (s: { path: string; text: string }) => {
      if (!s.path.endsWith(name)) return s;
      expect(s.text).to.include(from);
      return { ...s, text: s.text.replace(from, to) };
    };
    // downloadIndex() reads the response and throws for 401; the worker fails on that exception
    const carried = sources
      .map(edit('EntrySyncable.kt', '    downloadToFile(\n', '    val response = downloadToFile(\n'))
      .map(edit('EntrySyncable.kt', '    return indexFile', '    if (response is NetworkResponse.Error.Http && response.statusCode == 401) throw AuthenticationException()\n    return indexFile'))
      .map(edit('EntrySyncable.kt', 'import java.io.File\n', 'import java.io.File\nimport com.example.store.network.NetworkResponse\nclass AuthenticationException : Exception()\n'))
      .map(edit('EntrySyncable.kt', '        } catch (t: Throwable) {', '        } catch (e: AuthenticationException) {\n            throw e\n        } catch (t: Throwable) {'))
      .map(edit('SyncWorker.kt', '        } catch (t: Throwable) {', '        } catch (e: com.example.store.sync.AuthenticationException) {\n            Result.failure()\n        } catch (t: Throwable) {'));
    expect(lintSources(sources).findings).to.have.length(1);
    expect(lintSources(carried).findings).to.deep.equal([]);
  });

  it('is quiet on a retry for a missing network, a Boolean no HTTP status reaches (AntennaPod FeedUpdateWorker.java:108-111)', () => {
    const text =
      'object NetworkUtils {\n  var connected = true\n  fun networkAvailable(): Boolean {\n    if (!connected) return false\n    return true\n  }\n}\n' +
      'class FeedUpdateWorker(c: Context, p: WorkerParameters) : CoroutineWorker(c, p) {\n' +
      '  override suspend fun doWork(): Result {\n    if (!NetworkUtils.networkAvailable()) return Result.retry()\n    return Result.success()\n  }\n}\n';
    expect(lintSources([{ path: 'FeedUpdateWorker.kt', text }]).findings).to.deep.equal([]);
  });

  it('takes a bare isSuccessful as the status test only in an extension of a response type, and judges only a request sent with credentials', () => {
    const worker = (receiver: string, header: string): string =>
      'class W(c: Context, p: WorkerParameters) : CoroutineWorker(c, p) {\n' +
      '  override suspend fun doWork(): Result {\n    val ok = fetch()\n    return if (ok) Result.success() else Result.retry()\n  }\n' +
      `  private fun fetch(): Boolean {\n    val r: ${receiver} = client.newCall(Request.Builder().url(URL).header("${header}", token).build()).execute()\n    return r.ok()\n  }\n}\n` +
      `private fun ${receiver}.ok(): Boolean = if (isSuccessful) true else false\n`;
    const rules = (text: string): string[] => lintSources([{ path: 'W.kt', text }]).findings.map((f) => `${f.line} ${f.rule}`);
    expect(rules(worker('Response', 'Authorization'))).to.deep.equal(['4 retry-on-auth-failure']);
    expect(rules(worker('Job', 'Authorization'))).to.deep.equal([]);
    // no credentials on the request: a 401 is not what its failure will be
    expect(rules(worker('Response', 'Idempotency-Key'))).to.deep.equal([]);
  });
});

describe('lint dedup-on-title: the title must be the key', () => {
  it('is quiet on a title passed beside the url to a constructor (Infinity for Reddit)', async () => {
    const r = await lintPaths(['fixtures/lint/dedup-on-title/good-title-argument']);
    expect(r.findings).to.deep.equal([]);
  });

  it('still reports a key that is the title, or a hash or format of it', () => {
    const text = 'fun f(item: Item) {\n  val key = item.title\n  val hashKey = item.title.hashCode()\n  val formatKey = String.format("%s|%s", item.title, item.feed)\n}\n';
    const r = lintSources([{ path: 'K.kt', text }]);
    expect(r.findings.map((f) => `${f.line} ${f.rule}`)).to.deep.equal(['2 dedup-on-title', '3 dedup-on-title', '4 dedup-on-title']);
  });
});

describe('lint window-vs-interval: a window that is a query parameter', () => {
  it('follows now.minus(24.hours) through a repository into a SQLDelight query\'s lower bound (Twine)', async () => {
    const good = await lintPaths(['fixtures/lint/window-vs-interval/good-query-parameter']);
    // hourly runs and a 24 h window: found, and wide enough (before: "no window constant found")
    expect(good.findings).to.deep.equal([]);
    expect(good.unresolved).to.deep.equal([]);
    // the same sources scheduled daily: the 24 h window is shorter than two intervals
    const D = 'fixtures/lint/window-vs-interval/good-query-parameter';
    const sources = await readSources(D);
    const daily = sources.map((s) => (s.path.endsWith('FeedsRefreshWorker.kt') ? { ...s, text: s.text.replace('Duration.ofHours(1)', 'Duration.ofHours(24)') } : s));
    expect(daily.some((s, i) => s.text !== sources[i]?.text)).to.equal(true);
    const bad = lintSources(daily);
    expect(where(bad, D)).to.deep.equal(['androidApp/src/main/kotlin/dev/sasikanth/rss/reader/FeedsRefreshWorker.kt:25:14 window-vs-interval']);
    expect(bad.findings[0]?.message).to.match(/^window `now\.minus\(24\.hours\)` \(the lower bound :postsAfter of the query at .*Post\.sq:20\) = 24 h .* is shorter than 2 × the repeat interval 24 h = 48 h/);
  });

  const sched = {
    path: 'Scheduling.kt',
    text: 'object Scheduling {\n  fun start(ctx: Context) {\n    WorkManager.getInstance(ctx).enqueueUniquePeriodicWork("poll", ExistingPeriodicWorkPolicy.KEEP, PeriodicWorkRequestBuilder<PollWorker>(24, TimeUnit.HOURS).build())\n  }\n}\n',
  };
  const worker = (arg: string): { path: string; text: string } => ({
    path: 'PollWorker.kt',
    text: 'import kotlin.time.Duration.Companion.hours\nclass PollWorker(c: Context, p: WorkerParameters) : CoroutineWorker(c, p) {\n  override suspend fun doWork(): Result {\n' +
      `    val after = ${arg}\n    for (post in dao.since(after)) { nm.notify(post.link.hashCode(), build(post)) }\n    return Result.success()\n  }\n}\n`,
  });
  const dao = (sql: string): { path: string; text: string } => ({
    path: 'PostDao.kt',
    text: `@Dao\ninterface PostDao {\n  @Query("${sql}")\n  suspend fun since(postsAfter: Long): List<PostRow>\n}\n`,
  });

  it('reads a Room @Query lower bound on a publication column, and not an upper bound or another column', () => {
    const lower = lintSources([sched, worker('Clock.System.now().minus(24.hours).toEpochMilliseconds()'), dao('SELECT * FROM posts WHERE published_at > :postsAfter')]);
    expect(lower.findings.map((f) => `${f.file}:${f.line} ${f.rule}`)).to.deep.equal(['Scheduling.kt:3 window-vs-interval']);
    const upper = lintSources([sched, worker('Clock.System.now().minus(24.hours).toEpochMilliseconds()'), dao('SELECT * FROM posts WHERE published_at < :postsAfter')]);
    expect(upper.findings).to.deep.equal([]);
    expect(upper.unresolved.map((u) => u.message)).to.deep.equal(['no window constant found for PollWorker (looked for a comparison of `now - publishedAt` with a constant, and names like WINDOW_MS)']);
    const other = lintSources([sched, worker('Clock.System.now().minus(24.hours).toEpochMilliseconds()'), dao('SELECT * FROM posts WHERE last_refresh_attempt > :postsAfter')]);
    expect(other.findings).to.deep.equal([]);
  });

  it('takes a per-feed refresh interval for an interval, not a window (Twine LocalSyncCoordinator.kt:248-252)', () => {
    const text = 'class Sync {\n  private fun shouldRefreshFeed(feed: Feed, now: Instant): Boolean {\n    val lastUpdatedAt = feed.lastUpdatedAt ?: return true\n' +
      '    val timeSinceLastUpdate = (now - lastUpdatedAt)\n    return timeSinceLastUpdate >= feed.refreshInterval\n  }\n}\n';
    const r = lintSources([sched, { path: 'Sync.kt', text }]);
    expect(r.unresolved.filter((u) => u.file === 'Sync.kt')).to.deep.equal([]);
    // the same comparison with an item's publication time and an unknown bound is still a window use
    const item = lintSources([sched, { path: 'Sync.kt', text: text.replace('feed.refreshInterval', 'feed.maxAge').replace(/lastUpdatedAt/g, 'publishedAt').replace('feed.publishedAt', 'item.publishedAt') }]);
    expect(item.unresolved.filter((u) => u.file === 'Sync.kt').map((u) => u.message)).to.have.length(1);
  });
});

describe('lint SQLDelight schemas', () => {
  it('judges a .sq table like a Room entity: the url a lookup matches has no unique index (Mihon)', async () => {
    const D = 'fixtures/lint/key-not-unique/bad-sqldelight';
    const r = await lintPaths([D]);
    expect(where(r, D)).to.deep.equal(['data/src/main/sqldelight/tachiyomi/data/chapters.sq:9:5 key-not-unique']);
    expect(r.findings[0]?.message).to.include('`chapters.url` has no UNIQUE index in the SQLDelight schema (`idx_chapters_url` is not unique)');
    expect(r.findings[0]?.message).to.include('CREATE UNIQUE INDEX manga_id_url_unique ON chapters(manga_id, url)');
    expect(r.notes).to.deep.equal([]);
  });

  it('accepts a composite primary key and a unique index made by a migration', async () => {
    const twine = await lintPaths(['fixtures/lint/window-vs-interval/good-query-parameter']);
    expect(twine.findings.filter((f) => f.rule === 'key-not-unique')).to.deep.equal([]);
    const sq = { path: 'db/Seen.sq', text: 'CREATE TABLE seen (\n  link TEXT NOT NULL,\n  title TEXT NOT NULL\n);\n\nisSeen:\nSELECT count(*) FROM seen WHERE link = ?;\n' };
    expect(lintSources([sq]).findings.map((f) => `${f.file}:${f.line} ${f.rule}`)).to.deep.equal(['db/Seen.sq:2 key-not-unique']);
    expect(lintSources([sq, { path: 'migrations/1.sqm', text: 'CREATE UNIQUE INDEX seen_link ON seen(link);\n' }]).findings).to.deep.equal([]);
    expect(lintSources([{ ...sq, text: sq.text.replace('link TEXT NOT NULL', 'link TEXT NOT NULL UNIQUE') }]).findings).to.deep.equal([]);
  });

  it('reads N.sqm as the migration N→N+1 for migration-backfill', () => {
    const sq = { path: 'db/Seen.sq', text: 'CREATE TABLE seen (\n  id INTEGER PRIMARY KEY,\n  link TEXT UNIQUE\n);\n' };
    const bad = lintSources([sq, { path: 'migrations/3.sqm', text: '-- key for the dedup\nALTER TABLE seen ADD COLUMN link TEXT NOT NULL DEFAULT \'\';\n' }]);
    expect(bad.findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule}`)).to.deep.equal(['migrations/3.sqm:2:1 migration-backfill']);
    expect(bad.findings[0]?.message).to.match(/^migration 3→4 adds key column `seen\.link` as NOT NULL DEFAULT ''/);
    expect(lintSources([sq, { path: 'migrations/3.sqm', text: 'ALTER TABLE seen ADD COLUMN link TEXT;\nCREATE UNIQUE INDEX seen_link ON seen(link);\n' }]).findings).to.deep.equal([]);
  });

  it('notes a Room database whose schema was not given, and not one whose schema was', async () => {
    const entity = { path: 'Seen.kt', text: '@Entity(tableName = "seen")\ndata class Seen(@PrimaryKey val link: String)\n' };
    const notes = lintSources([entity]).notes.filter((n) => n.message.startsWith('the sources use a database'));
    expect(notes.map((n) => `${n.file}:${n.line}`)).to.deep.equal(['Seen.kt:1']);
    expect(notes[0]?.message).to.match(/^the sources use a database \(Room @Entity Seen\) but no schema was found .*: key-not-unique and migration-backfill did not run/);
    expect((await lintPaths(['fixtures/lint/key-not-unique/bad'])).notes.filter((n) => n.message.startsWith('the sources use a database'))).to.deep.equal([]);
  });
});

describe('lint: an unresolved call on a worker\'s path may notify', () => {
  it('reports a title dedup before a notifier the sources do not define, softly', async () => {
    const D = 'fixtures/lint/dedup-on-title/bad-unresolved-notifier';
    const r = await lintPaths([D]);
    expect(where(r, D)).to.deep.equal(['src/main/java/com/example/digest/DigestWorker.kt:32:56 dedup-on-title']);
    expect(r.findings[0]?.message).to.match(/is keyed on the title: if Notify\.show\(\) \(.*DigestWorker\.kt:23\), which the sources do not define, posts a notification, a title edited upstream/);
  });

  it('does not take a logger or a library call for a notifier', async () => {
    expect((await lintPaths(['fixtures/lint/dedup-on-title/good-unresolved-logger'])).findings).to.deep.equal([]);
  });
});

describe('lint: code a library calls back runs where its object was made', () => {
  it('counts a Markwon plugin\'s callback, made by an Activity, as screen code (Infinity for Reddit)', async () => {
    expect((await lintPaths(['fixtures/lint/dedup-on-title/good-library-callback'])).findings).to.deep.equal([]);
  });

  it('follows a SAX handler made on a worker\'s path onto that path', () => {
    const handler = {
      path: 'FeedHandler.kt',
      text: 'class FeedHandler : DefaultHandler() {\n  val items = mutableListOf<Item>()\n  override fun endElement(uri: String, localName: String, qName: String) {\n' +
        '    val date = try { fmt.parse(text) } catch (e: ParseException) { Date() }\n    items.add(Item(link, date))\n  }\n}\n',
    };
    const worker = {
      path: 'PollWorker.kt',
      text: 'class PollWorker(c: Context, p: WorkerParameters) : CoroutineWorker(c, p) {\n  override suspend fun doWork(): Result {\n' +
        '    val h = FeedHandler()\n    parser.parse(stream, h)\n    for (i in h.items) nm.notify(i.link.hashCode(), build(i))\n    return Result.success()\n  }\n}\n',
    };
    const r = lintSources([handler, worker]);
    expect(r.findings.map((f) => `${f.file}:${f.line} ${f.rule}`)).to.deep.equal(['FeedHandler.kt:4 date-defaults-to-now']);
    expect(r.findings[0]?.message).to.include('PollWorker');
  });
});
