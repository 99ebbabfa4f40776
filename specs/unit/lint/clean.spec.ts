/**
 * Clean code produces nothing, and neither do comments and strings that mention every trap.
 * The positive control lints the commented-out sample as code, proving the silence is the
 * tokenizer's doing and not rules that never fire.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintPaths, lintSources } from '../../../src/lint/lint.js';

const PITFALLS_KT = 'fixtures/lint/comments-and-strings/src/main/java/com/example/notes/Pitfalls.kt';

describe('lint on clean code', () => {
  it('the reference-style Kotlin app (worker, scheduler, Room entity and DAO, schemas 8 and 9, migration) has no finding and nothing unresolved', async () => {
    expect(await lintPaths(['fixtures/lint/clean-app'])).to.deep.equal({ findings: [], filesScanned: 15, unresolved: [], notes: [] });
  });

  it('the Java app has no finding', async () => {
    expect(await lintPaths(['fixtures/lint/clean-java'])).to.deep.equal({ findings: [], filesScanned: 3, unresolved: [], notes: [] });
  });

  it('comments and strings that mention PeriodicWorkRequestBuilder, UUID.randomUUID(), 401 and the rest produce nothing', async () => {
    const r = await lintPaths(['fixtures/lint/comments-and-strings']);
    expect({ findings: r.findings, filesScanned: r.filesScanned, unresolved: r.unresolved }).to.deep.equal({ findings: [], filesScanned: 2, unresolved: [] });
    // the schedule in the comments is not code: nothing schedules work here, and the result says so
    expect(r.notes.map((n) => n.message.split(';')[0])).to.deep.equal(['no WorkManager periodic work found (no PeriodicWorkRequest)']);
  });

  it('positive control: the same sample, uncommented, is found by seven rules', async () => {
    const text = await readFile(PITFALLS_KT, 'utf8');
    const begin = text.indexOf('code-sample-begin\n');
    const end = text.indexOf(' * code-sample-end');
    expect(begin).to.be.greaterThan(0);
    expect(end).to.be.greaterThan(begin);
    const code = text.slice(begin + 'code-sample-begin\n'.length, end);
    const r = lintSources([{ path: 'Sample.kt', text: code }]);
    expect(r.findings.map((f) => `${f.line} ${f.rule}`)).to.deep.equal([
      '4 new-key-per-attempt',
      '6 retry-on-auth-failure',
      '7 newest-first',
      '7 dedup-on-title',
      '14 date-defaults-to-now',
      '17 window-vs-interval',
      '18 periodic-without-unique-name',
    ]);
  });

  it('skips test source sets when walking a directory, but lints a test file given by name', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dv-lint-walk-'));
    try {
      const bad = 'object Dates {\n    fun parse(s: String): Long = fmt.parse(s)?.time ?: System.currentTimeMillis()\n}\n';
      await mkdir(join(root, 'app/src/main/java'), { recursive: true });
      await mkdir(join(root, 'app/src/test/java'), { recursive: true });
      await mkdir(join(root, 'app/build/generated'), { recursive: true });
      await writeFile(join(root, 'app/src/main/java/Dates.kt'), bad);
      await writeFile(join(root, 'app/src/test/java/DatesTest.kt'), bad);
      await writeFile(join(root, 'app/build/generated/Gen.kt'), bad);
      const walked = await lintPaths(['app'], root);
      expect(walked.findings.map((f) => `${f.file}:${f.line}: ${f.rule}`)).to.deep.equal(['app/src/main/java/Dates.kt:2: date-defaults-to-now']);
      expect(walked.filesScanned).to.equal(1);
      const named = await lintPaths(['app/src/test/java/DatesTest.kt'], root);
      expect(named.findings.map((f) => `${f.file}:${f.line}: ${f.rule}`)).to.deep.equal(['app/src/test/java/DatesTest.kt:2: date-defaults-to-now']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
