/**
 * `run --out DIR` deletes or replaces only files it wrote (its manifest), refuses a folder with
 * files it did not write unless --force, and opens nothing through a symbolic link: the
 * folder's checks on real files, and `run` refusing such a folder before any device is reached.
 */
import { expect } from 'chai';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from '../../../src/cli/main.js';
import { MANIFEST_FILE, OutputDirectory } from '../../../src/cli/out-dir.js';
import { UsageError } from '../../../src/errors.js';
import { HistoryRecorder } from '../../../src/history/jsonl.js';
import { writeJsonReport } from '../../../src/report/json.js';

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    expect(e).to.be.instanceOf(UsageError);
    return (e as Error).message;
  }
  return expect.fail('not refused');
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}

describe('run --out: the folder', () => {
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-out-'));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('an empty folder: the files written are listed in the manifest, and the next run deletes only those', async () => {
    const out = await OutputDirectory.prepare(work, 'out', false);
    await mkdir(join(work, 'repro', 'feeds'), { recursive: true });
    await writeFile(join(work, 'report.json'), '{}');
    await writeFile(join(work, 'repro', 'feeds', 'a.xml'), '<rss/>');
    await out.finish();
    expect(JSON.parse(await readFile(join(work, MANIFEST_FILE), 'utf8'))).to.deep.equal({ tool: 'dedup-verify', files: ['report.json', 'repro/feeds/a.xml'] });
    await OutputDirectory.prepare(work, 'out', false);
    expect(await readdir(work)).to.deep.equal([MANIFEST_FILE]);
  });

  it('a foreign report.json and evidence/keep.txt: refused in one line naming them; with --force, kept', async () => {
    await mkdir(join(work, 'evidence'));
    await writeFile(join(work, 'report.json'), '{"name":"other tool"}');
    await writeFile(join(work, 'evidence', 'keep.txt'), 'keep');
    const message = await refusal(OutputDirectory.prepare(work, 'out', false));
    expect(message).to.equal(
      '--out out holds 2 files dedup-verify did not write (evidence/keep.txt, report.json): pass a new or empty directory, or --force to write beside them (kept, but for report.json, junit.xml, history.jsonl and report.html, which are replaced).',
    );
    expect(await readFile(join(work, 'evidence', 'keep.txt'), 'utf8')).to.equal('keep');
    const forced = await OutputDirectory.prepare(work, 'out', true);
    await writeFile(join(work, 'evidence', 'mine.txt'), 'mine');
    await forced.finish();
    expect(await readFile(join(work, 'evidence', 'keep.txt'), 'utf8')).to.equal('keep');
    expect((JSON.parse(await readFile(join(work, MANIFEST_FILE), 'utf8')) as { files: string[] }).files).to.deep.equal(['evidence/mine.txt']);
    // The next run deletes its own file, keeps the foreign ones (and still needs --force for them).
    const again = await OutputDirectory.prepare(work, 'out', true);
    expect(await exists(join(work, 'evidence', 'mine.txt'))).to.equal(false);
    expect(await readFile(join(work, 'evidence', 'keep.txt'), 'utf8')).to.equal('keep');
    expect(await readFile(join(work, 'report.json'), 'utf8')).to.equal('{"name":"other tool"}');
    // A foreign report.json the run replaces is its own from then on; keep.txt still is not.
    await writeJsonReport(join(work, 'report.json'), { verdict: 'pass', device: 'd', app: { package: 'p.q' }, startedAt: '', durationMs: 0, scenarios: [] });
    await again.finish();
    expect((JSON.parse(await readFile(join(work, MANIFEST_FILE), 'utf8')) as { files: string[] }).files).to.deep.equal(['report.json']);
  });

  it('a manifest that lists a file outside the folder deletes nothing outside it', async () => {
    await writeFile(join(work, 'victim'), 'precious');
    const dir = join(work, 'out');
    await mkdir(dir);
    await writeFile(join(dir, MANIFEST_FILE), JSON.stringify({ tool: 'dedup-verify', files: ['../victim', '/etc/hostname', 'report.json'] }));
    await writeFile(join(dir, 'report.json'), '{}');
    await OutputDirectory.prepare(dir, 'out', false);
    expect(await readFile(join(work, 'victim'), 'utf8')).to.equal('precious');
    expect(await exists(join(dir, 'report.json'))).to.equal(false);
  });

  it('a symbolic link where the tool writes is refused, even with --force, and its target is untouched', async () => {
    await writeFile(join(work, 'victim'), 'precious');
    for (const name of ['history.jsonl', 'evidence', 'repro/feeds']) {
      const dir = join(work, name.replace('/', '-'));
      await mkdir(join(dir, 'repro'), { recursive: true });
      await symlink(join(work, 'victim'), join(dir, name));
      await writeFile(join(dir, MANIFEST_FILE), JSON.stringify({ tool: 'dedup-verify', files: [name] }));
      const message = await refusal(OutputDirectory.prepare(dir, 'out', true));
      expect(message).to.equal(`--out out: ${name} is a symbolic link, and dedup-verify writes nothing through one: remove it, or pass another directory.`);
      expect(await readFile(join(work, 'victim'), 'utf8')).to.equal('precious');
    }
  });

  it('the writers replace a symbolic link at their name instead of writing through it', async () => {
    await writeFile(join(work, 'victim'), 'precious');
    await symlink(join(work, 'victim'), join(work, 'history.jsonl'));
    await symlink(join(work, 'victim'), join(work, 'report.json'));
    const message = await HistoryRecorder.open(join(work, 'history.jsonl')).then(
      () => 'opened',
      (e: Error) => e.message,
    );
    expect(message).to.match(/^cannot write history .*history\.jsonl: it is a symbolic link, which the recorder does not write through; /);
    await writeJsonReport(join(work, 'report.json'), { verdict: 'pass', device: 'd', app: { package: 'p.q' }, startedAt: '', durationMs: 0, scenarios: [] });
    expect((await lstat(join(work, 'report.json'))).isSymbolicLink()).to.equal(false);
    expect(await readFile(join(work, 'victim'), 'utf8')).to.equal('precious');
  });

  it('run refuses a folder with a foreign file before any device is reached, and --force without --out', async () => {
    await writeFile(join(work, 'report.json'), '{"name":"other tool"}');
    let err = '';
    const io: CliIo = { stdout: () => undefined, stderr: (t) => (err += t) };
    expect(await main(['node', 'dedup-verify', 'run', '--virtual', '--out', work, '--adb-port', '1'], io)).to.equal(2);
    expect(err).to.match(/^error: --out .* holds a file dedup-verify did not write \(report\.json\): pass a new or empty directory, or --force to write beside them .*\n$/);
    err = '';
    expect(await main(['node', 'dedup-verify', 'run', '--virtual', '--force', '--adb-port', '1'], io)).to.equal(2);
    expect(err).to.equal('error: --force lets run write into an --out folder holding files it did not write: use it with --out DIR.\n');
    expect(await readFile(join(work, 'report.json'), 'utf8')).to.equal('{"name":"other tool"}');
  });
});
