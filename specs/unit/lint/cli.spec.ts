/**
 * `dedup-verify lint` through the CLI entry: exit codes 0/1/2, the `path:line: rule-id: message`
 * line format, --json, and one-line usage errors.
 */
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { CliIo } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import { lintPaths } from '../../../src/lint/lint.js';

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) };
  const code = await main(['node', 'dedup-verify', 'lint', ...args], io);
  return { code, stdout, stderr };
}

describe('dedup-verify lint (CLI)', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'dv-lint-'));
  });
  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('exits 0 and prints no finding for clean code', async () => {
    expect(await run('fixtures/lint/clean-app')).to.deep.equal({ code: 0, stdout: '', stderr: 'no findings in 15 files\n' });
  });

  it('exits 1 and prints one sorted `path:line: rule-id: message` line per finding', async () => {
    const D = 'fixtures/lint/window-vs-interval/bad-java/src/main/java/com/example/articles';
    const r = await run('fixtures/lint/window-vs-interval/bad-java', 'fixtures/lint/periodic-without-unique-name/bad');
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal('3 findings in 6 files\n');
    const lines = r.stdout.split('\n');
    expect(lines.pop()).to.equal('');
    expect(lines).to.have.length(3);
    for (const l of lines) expect(l).to.match(/^fixtures\/lint\/[^:]+:\d+: [a-z-]+: \S.*$/);
    expect(lines.map((l) => l.split(': ').slice(0, 2).join(': '))).to.deep.equal([
      'fixtures/lint/periodic-without-unique-name/bad/src/main/java/com/example/weather/BootReceiver.java:14: periodic-without-unique-name',
      'fixtures/lint/periodic-without-unique-name/bad/src/main/java/com/example/weather/WeatherApp.kt:12: periodic-without-unique-name',
      `${D}/ArticleScheduler.java:14: window-vs-interval`,
    ]);
    expect(lines[2]).to.equal(
      `${D}/ArticleScheduler.java:14: window-vs-interval: window WINDOW_MS = 24 h (${D}/Constants.java:7) is shorter than 2 × the repeat interval 24 h = 48 h: ` +
        'items published while one run is missed age out before the next run sees them',
    );
  });

  it('--json prints { findings, filesScanned, unresolved } exactly as the library returns it', async () => {
    const r = await run('fixtures/lint/window-vs-interval/bad-forms', '--json');
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal('');
    const parsed = JSON.parse(r.stdout) as unknown;
    expect(parsed).to.deep.equal(JSON.parse(JSON.stringify(await lintPaths(['fixtures/lint/window-vs-interval/bad-forms']))));
    expect(Object.keys(parsed as object)).to.deep.equal(['findings', 'filesScanned', 'unresolved', 'notes']);
    expect((parsed as { unresolved: unknown[] }).unresolved).to.have.length(1);
  });

  it('says on stderr how many values could not be evaluated', async () => {
    const r = await run('fixtures/lint/window-vs-interval/bad-forms');
    expect(r.code).to.equal(1);
    expect(r.stdout.split('\n')).to.have.length(5);
    expect(r.stderr).to.equal('4 findings in 2 files (1 value could not be evaluated; --json lists it under "unresolved")\n');
  });

  it('--json with no findings exits 0', async () => {
    const r = await run('--json', 'fixtures/lint/comments-and-strings');
    expect(r.code).to.equal(0);
    const parsed = JSON.parse(r.stdout) as { notes: Array<{ message: string }> };
    expect({ ...parsed, notes: [] }).to.deep.equal({ findings: [], filesScanned: 2, unresolved: [], notes: [] });
    expect(parsed.notes.map((n) => n.message.split(';')[0])).to.deep.equal(['no WorkManager periodic work found (no PeriodicWorkRequest)']);
  });

  it('exits 2 with one line naming the fix for a path that does not exist', async () => {
    const r = await run('fixtures/lint/no-such-dir');
    expect(r).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: 'error: No such file or directory: fixtures/lint/no-such-dir. Pass the app\'s source directory, e.g. dedup-verify lint app/src/main app/schemas\n',
    });
  });

  it('exits 2 when there is nothing to lint', async () => {
    await writeFile(join(tmp, 'README.md'), '# not source\n');
    await writeFile(join(tmp, '1.json'), '{"not": "a room schema"}\n');
    const rel = relative(process.cwd(), tmp);
    const r = await run(rel);
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.equal(
      `error: Nothing to lint in ${rel}: no .kt, .java or Room schema <version>.json files. Pass the app's source directory, e.g. dedup-verify lint app/src/main app/schemas\n`,
    );
  });

  it('exits 2 without a path (commander usage error)', async () => {
    const r = await run();
    expect(r.code).to.equal(2);
    expect(r.stderr).to.contain("missing required argument 'path'");
  });

  it('lints a single file given by name and reports paths relative to the working directory', async () => {
    const file = join(tmp, 'Dates.kt');
    await writeFile(file, 'object Dates {\n    fun parse(s: String): Long = fmt.parse(s)?.time ?: System.currentTimeMillis()\n}\n');
    const rel = relative(process.cwd(), file);
    const r = await run(file);
    expect(r.code).to.equal(1);
    expect(r.stdout.split(': ').slice(0, 2).join(': ')).to.equal(`${rel}:2: date-defaults-to-now`);
  });
});
