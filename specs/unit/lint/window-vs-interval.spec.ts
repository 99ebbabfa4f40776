/** The window rule on small inline sources: how the window is found, and when it is not. */
import { expect } from 'chai';
import { lintSources } from '../../../src/lint/lint.js';
import type { LintResult, SourceText } from '../../../src/lint/model.js';

const schedule = (interval: string, worker = 'PollWorker'): SourceText => ({
  path: 'Schedule.kt',
  text: `fun schedule(wm: WorkManager) {\n    val r = PeriodicWorkRequestBuilder<${worker}>(${interval}).build()\n    wm.enqueueUniquePeriodicWork("poll", ExistingPeriodicWorkPolicy.KEEP, r)\n}\n`,
});

function windowResult(r: LintResult): Array<{ line: number; window: string | undefined }> {
  return r.findings
    .filter((f) => f.rule === 'window-vs-interval')
    .map((f) => ({ line: f.line, window: /^window (.*?) \(/.exec(f.message)?.[1] }));
}

describe('lint window-vs-interval', () => {
  it('finds the window by its use through a local alias: val age = now - it.publishedAt; age <= LIMIT', () => {
    const worker: SourceText = {
      path: 'PollWorker.kt',
      text: [
        'class PollWorker(c: Context, p: WorkerParameters) : CoroutineWorker(c, p) {',
        '    override suspend fun doWork(): Result {',
        '        val now = System.currentTimeMillis()',
        '        for (it in load()) {',
        '            val age = now - it.publishedAt',
        '            if (age <= LIMIT) post(it)',
        '        }',
        '        return Result.success()',
        '    }',
        '    private companion object { const val LIMIT = 36 * 3_600_000L }',
        '}',
      ].join('\n'),
    };
    const r = lintSources([worker, schedule('24, TimeUnit.HOURS')]);
    expect(windowResult(r)).to.deep.equal([{ line: 2, window: 'LIMIT = 36 h' }]);
    expect(r.findings[0]?.related?.[0]).to.deep.equal({ file: 'PollWorker.kt', line: 10, what: 'window LIMIT = 36 h' });
  });

  it('finds the window in a class the worker calls: published >= now - WINDOW', () => {
    const sources: SourceText[] = [
      {
        path: 'PollWorker.kt',
        text: 'class PollWorker(c: Context, p: WorkerParameters) : Worker(c, p) {\n    override fun doWork(): Result { FeedFilter.fresh(load(), System.currentTimeMillis()); return Result.success() }\n}',
      },
      {
        path: 'FeedFilter.kt',
        text: 'object FeedFilter {\n    private val WINDOW = 30.hours.inWholeMilliseconds\n    fun fresh(items: List<Item>, now: Long) = items.filter { it.publishedAt >= now - WINDOW }\n}',
      },
      schedule('Duration.ofHours(24)'),
    ];
    expect(windowResult(lintSources(sources))).to.deep.equal([{ line: 2, window: 'WINDOW = 30 h' }]);
  });

  it('falls back to a window-named constant when no comparison is visible, taking its unit from the name', () => {
    const sources: SourceText[] = [
      { path: 'PollWorker.kt', text: 'class PollWorker(c: Context, p: WorkerParameters) : Worker(c, p) {\n    companion object { const val LOOKBACK_HOURS = 30 }\n}' },
      schedule('1, TimeUnit.DAYS'),
    ];
    expect(windowResult(lintSources(sources))).to.deep.equal([{ line: 2, window: 'LOOKBACK_HOURS = 30 h' }]);
    const ok = lintSources([{ path: 'PollWorker.kt', text: 'class PollWorker(c: Context, p: WorkerParameters) : Worker(c, p) {\n    companion object { const val LOOKBACK_HOURS = 48 }\n}' }, schedule('1, TimeUnit.DAYS')]);
    expect(ok).to.deep.equal({ findings: [], filesScanned: 2, unresolved: [], notes: [] });
  });

  it('notes, without a finding, a schedule whose worker has no window, and windows that disagree', () => {
    const none = lintSources([schedule('24, TimeUnit.HOURS')]);
    expect(none).to.deep.equal({
      findings: [],
      filesScanned: 1,
      unresolved: [
        {
          file: 'Schedule.kt',
          line: 2,
          rule: 'window-vs-interval',
          message: 'no window constant found for PollWorker (looked for a comparison of `now - publishedAt` with a constant, and names like WINDOW_MS)',
        },
      ],
      notes: [],
    });
    const two = lintSources([
      { path: 'A.kt', text: 'object A { const val WINDOW_MS = 48L * 3_600_000L }' },
      { path: 'B.kt', text: 'object B { const val WINDOW_MS = 12L * 3_600_000L }' },
      schedule('24, TimeUnit.HOURS', 'Unknown'),
    ]);
    expect(two.findings).to.deep.equal([]);
    expect(two.unresolved.map((u) => u.message)).to.deep.equal([
      'several windows with different values: WINDOW_MS = 48 h (A.kt:1), WINDOW_MS = 12 h (B.kt:1)',
    ]);
  });

  it('reads PeriodicWorkRequest.MIN_PERIODIC_INTERVAL_MILLIS (15 min) and MIN_PERIODIC_FLEX_MILLIS (5 min)', () => {
    const worker: SourceText = { path: 'PollWorker.kt', text: 'class PollWorker(c: Context, p: WorkerParameters) : Worker(c, p) {\n    companion object { const val WINDOW_MS = 20L * 60_000L }\n}' };
    const r = lintSources([worker, schedule('PeriodicWorkRequest.MIN_PERIODIC_INTERVAL_MILLIS, TimeUnit.MILLISECONDS, PeriodicWorkRequest.MIN_PERIODIC_FLEX_MILLIS, TimeUnit.MILLISECONDS')]);
    expect(r.unresolved).to.deep.equal([]);
    expect(r.findings.map((f) => f.message.split(':')[0])).to.deep.equal(['window WINDOW_MS = 20 min (PollWorker.kt']);
    expect(r.findings[0]?.message).to.contain('2 × the repeat interval 15 min + flex 5 min = 35 min');
  });

  it('treats an Int window that overflows as the negative number the JVM computes', () => {
    const sources: SourceText[] = [
      { path: 'PollWorker.kt', text: 'class PollWorker(c: Context, p: WorkerParameters) : Worker(c, p) {\n    companion object { const val WINDOW_MS = 30 * 24 * 60 * 60 * 1000 }\n}' },
      schedule('24, TimeUnit.HOURS'),
    ];
    expect(windowResult(lintSources(sources))).to.deep.equal([{ line: 2, window: 'WINDOW_MS = -1702967296 ms' }]);
  });
});
