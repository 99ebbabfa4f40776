/**
 * The traps as real apps write them: a date parse followed by what it returns (through a local
 * and a helper not named like a parser), a JobScheduler job followed as a worker path, and a
 * PeriodicWorkRequest that nothing schedules beside the job that runs.
 */
import { expect } from 'chai';
import { lintPaths, lintSources } from '../../../src/lint/lint.js';
import type { LintResult } from '../../../src/lint/model.js';

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
