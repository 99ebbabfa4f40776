/** `dedup-verify check` through the CLI entry (main), on the example histories and temp files. */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURES = 'fixtures/histories';
const A = 'http://127.0.0.1:8765/items/a';
const B = 'http://127.0.0.1:8765/items/b';
const C = 'http://127.0.0.1:8765/items/c';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(...args: string[]): Promise<Outcome> {
  // Loaded with import() so that main and the command it imports share one module graph
  // (ESM), as in the installed CLI: errors thrown by the command are then main's own classes.
  const { main } = await import('../../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'dedup-verify', ...args], {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

const COUNTS_KEYS = ['lostCount', 'duplicatedCount', 'unexpectedCount', 'outOfOrderCount', 'notifiedCount', 'recoveredCount', 'shedCount', 'eligibleCount'];

describe('dedup-verify check', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dv-check-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 on a passing history and prints the verdict and counts', async () => {
    const out = await cli('check', `${FIXTURES}/passing.jsonl`);
    expect(out).to.deep.equal({
      code: 0,
      stderr: '',
      stdout: [
        `${FIXTURES}/passing.jsonl: PASS`,
        '  window 48 h (172800000 ms), allowed duplicates 0, 16 events',
        '  eligible 3, notified 3, lost 0, duplicated 0, unexpected 0, out-of-order 0, recovered 0, os-shed 0',
        'no anomalies',
        '',
      ].join('\n'),
    });
  });

  it('exits 1 on a failing history and names each duplicated item and its runs', async () => {
    const out = await cli('check', `${FIXTURES}/failing-duplicated.jsonl`);
    expect(out.code).to.equal(1);
    expect(out.stderr).to.equal('');
    const lines = out.stdout.split('\n');
    expect(lines[0]).to.equal(`${FIXTURES}/failing-duplicated.jsonl: FAIL`);
    expect(lines[2]).to.equal('  eligible 3, notified 6, lost 0, duplicated 3, unexpected 0, out-of-order 0, recovered 0, os-shed 0');
    expect(lines[3]).to.equal('anomalies (3):');
    expect(lines[4]).to.equal(`  duplicated  ${A}  runs 1,2: notified 2 times in epoch 0: runs 1 and 2; run 1, which notified it before, ended success, not killed: the app should have found its row in run 2`);
    expect(lines[5]).to.match(/^ {6}evidence: \d+\.\d{3} +1511 +1511 I notification_enqueue: \[10190,/);
  });

  it('prints exactly { verdict, counts, anomalies } with --json', async () => {
    const out = await cli('check', `${FIXTURES}/failing-duplicated.jsonl`, '--json');
    expect(out.code).to.equal(1);
    const json = JSON.parse(out.stdout) as { verdict: string; counts: Record<string, number>; anomalies: { kind: string; item: string; runs: number[]; detail: string }[] };
    expect(Object.keys(json)).to.deep.equal(['verdict', 'counts', 'anomalies']);
    expect(json.verdict).to.equal('fail');
    expect(Object.keys(json.counts)).to.have.members(COUNTS_KEYS);
    expect(json.counts['duplicatedCount']).to.equal(3);
    expect(json.anomalies.map((a) => [a.kind, a.item, a.runs, a.detail])).to.deep.equal([
      ['duplicated', A, [1, 2], 'notified 2 times in epoch 0: runs 1 and 2; run 1, which notified it before, ended success, not killed: the app should have found its row in run 2'],
      ['duplicated', B, [1, 2], 'notified 2 times in epoch 0: runs 1 and 2; run 1, which notified it before, ended success, not killed: the app should have found its row in run 2'],
      ['duplicated', C, [1, 2], 'notified 2 times in epoch 0: runs 1 and 2; run 1, which notified it before, ended success, not killed: the app should have found its row in run 2'],
    ]);
  });

  it('exits 2 on a refused run (unknown), naming the run', async () => {
    const out = await cli('check', `${FIXTURES}/refused-run.jsonl`, '--json');
    expect(out.code).to.equal(2);
    const json = JSON.parse(out.stdout) as { verdict: string; anomalies: unknown[] };
    expect(json.verdict).to.equal('unknown');
    expect(json.anomalies).to.deep.equal([{
      kind: 'refused-run', item: '', run: 2,
      detail: 'run 2 was refused: the worker did not run, so the history cannot show what it would have notified',
      evidence: ['WM-WorkerWrapper: Delaying execution for com.example.feednotifier.FeedPollWorker because it is being executed before schedule.'],
    }]);
  });

  it('lets --allowed-duplicates override the config line, which never excuses repeats no kill explains', async () => {
    // failing-duplicated: run 2 repeats A, B and C after a run that finished normally.
    const out = await cli('check', `${FIXTURES}/failing-duplicated.jsonl`, '--allowed-duplicates', '1', '--json');
    expect(out.code).to.equal(1);
    const json = JSON.parse(out.stdout) as { verdict: string; anomalies: { tolerated?: boolean }[] };
    expect(json.verdict).to.equal('fail');
    expect(json.anomalies.map((a) => a.tolerated)).to.deep.equal([undefined, undefined, undefined]);
    // A repeat after a kill that came before the row: the config line's 0 fails it, --allowed-duplicates 1 tolerates it.
    const killed = join(dir, 'killed-repeat.jsonl');
    await writeFile(killed, [
      { type: 'config', windowMs: 172800000, allowedDuplicates: 0 },
      { type: 'published', t: 1000, item: A, publishedAt: 900, title: 'A' },
      { type: 'run-started', t: 1000, run: 1, deviceTime: 1000 },
      { type: 'fetched', t: 1001, run: 1, items: [A], status: 200 },
      { type: 'notified', t: 1002, run: 1, item: A, status: 'post' },
      { type: 'run-finished', t: 1003, run: 1, outcome: 'killed' },
      { type: 'run-started', t: 2000, run: 2, deviceTime: 2000 },
      { type: 'fetched', t: 2001, run: 2, items: [A], status: 200 },
      { type: 'notified', t: 2002, run: 2, item: A, status: 'update' },
      { type: 'stored', t: 2003, run: 2, item: A },
      { type: 'run-finished', t: 2004, run: 2, outcome: 'success' },
    ].map((e) => JSON.stringify(e)).join('\n') + '\n');
    expect((await cli('check', killed)).code).to.equal(1);
    const tolerant = await cli('check', killed, '--allowed-duplicates', '1', '--json');
    expect(tolerant.code).to.equal(0);
    const parsed = JSON.parse(tolerant.stdout) as { anomalies: { kind: string; tolerated?: boolean; excusedBy?: number }[] };
    expect(parsed.anomalies.map((a) => [a.kind, a.tolerated, a.excusedBy])).to.deep.equal([['duplicated', true, 1]]);
  });

  it('lets --window override the config line (a 1 h window makes every post unexpected)', async () => {
    const out = await cli('check', `${FIXTURES}/passing.jsonl`, '--window', '3600000', '--json');
    expect(out.code).to.equal(1);
    const json = JSON.parse(out.stdout) as { counts: Record<string, number> };
    expect(json.counts['unexpectedCount']).to.equal(2);
    expect(json.counts['eligibleCount']).to.equal(1);
  });

  it('without a config line needs --window, and says so on one line (exit 2)', async () => {
    const text = (await readFile(`${FIXTURES}/passing.jsonl`, 'utf8')).split('\n').slice(1).join('\n');
    const path = join(dir, 'no-config.jsonl');
    await writeFile(path, text);
    const out = await cli('check', path);
    expect(out).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: `error: history ${path} has no config line ({"type":"config","windowMs":...} on line 1); pass the app's window with --window MS, e.g. --window 172800000 for 48 h\n`,
    });
    expect((await cli('check', path, '--window', '172800000')).code).to.equal(0);
  });

  it('rejects a non-positive --window (exit 2)', async () => {
    const out = await cli('check', `${FIXTURES}/passing.jsonl`, '--window', '0');
    expect(out.code).to.equal(2);
    expect(out.stderr).to.equal('error: --window must be a positive number of milliseconds, got 0 (e.g. --window 172800000 for 48 h)\n');
  });

  it('exits 2 with one line, no stack, for a missing file', async () => {
    const path = join(dir, 'missing.jsonl');
    const out = await cli('check', path);
    expect(out).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: `error: cannot read history ${path}: no such file; check the path (run --out DIR writes DIR/history.jsonl)\n`,
    });
  });

  it('exits 2 with one line naming the line for a malformed history', async () => {
    const path = join(dir, 'bad.jsonl');
    await writeFile(path, '{"type":"config","windowMs":172800000}\n{"type":"notified","t":1,"run":1,"item":"x","status":"shown"}\n');
    const out = await cli('check', path);
    expect(out.code).to.equal(2);
    expect(out.stdout).to.equal('');
    expect(out.stderr.split('\n')).to.have.length(2);
    expect(out.stderr).to.match(new RegExp(`^error: history ${path} line 2: "notified" event: "status" must be "post" or "update", got "shown"; fix the line, e\\.g\\. `));
    expect(out.stderr).not.to.match(/\n\s+at /);
  });

  it('exits 2 and says why when the history is inconsistent', async () => {
    const path = join(dir, 'inconsistent.jsonl');
    await writeFile(path, '{"type":"config","windowMs":172800000}\n{"type":"run-started","t":1,"run":2,"deviceTime":1}\n{"type":"run-started","t":2,"run":1,"deviceTime":2}\n');
    const out = await cli('check', path);
    expect(out.code).to.equal(2);
    expect(out.stdout).to.contain(': UNKNOWN\n');
    expect(out.stdout).to.contain('  could not decide: history is inconsistent at event #3: run 1 started after run 2; runs must be numbered in start order, each started once\n');
  });

  it('checks each config segment with its own settings and merges the verdicts', async () => {
    // Segment 1 tolerates one duplicate (kill-mid-run); segment 2 tolerates none.
    // Each segment: a run notifies the item and is killed before its row, the next run repeats it.
    const seg = (scenario: string, allowed: number, item: string, run: number): string[] =>
      [
        { type: 'config', windowMs: 172800000, allowedDuplicates: allowed, scenario },
        { type: 'published', t: 1000, item, publishedAt: 900, title: item },
        { type: 'run-started', t: 1000, run, deviceTime: 1000 },
        { type: 'fetched', t: 1001, run, items: [item], status: 200 },
        { type: 'notified', t: 1002, run, item, status: 'post' },
        { type: 'run-finished', t: 1003, run, outcome: 'killed' },
        { type: 'run-started', t: 2000, run: run + 1, deviceTime: 2000 },
        { type: 'fetched', t: 2001, run: run + 1, items: [item], status: 200 },
        { type: 'notified', t: 2002, run: run + 1, item, status: 'post' },
        { type: 'run-finished', t: 2003, run: run + 1, outcome: 'success' },
      ].map((e) => JSON.stringify(e));
    const tolerant = join(dir, 'segments-pass.jsonl');
    await writeFile(tolerant, [...seg('kill-mid-run', 1, A, 1)].join('\n') + '\n');
    expect((await cli('check', tolerant)).code).to.equal(0);
    const mixed = join(dir, 'segments-fail.jsonl');
    await writeFile(mixed, [...seg('kill-mid-run', 1, A, 1), ...seg('back-to-back', 0, B, 3)].join('\n') + '\n');
    const out = await cli('check', mixed, '--json');
    expect(out.code).to.equal(1);
    const parsed = JSON.parse(out.stdout) as { verdict: string; anomalies: { kind: string; item: string; scenario?: string; tolerated?: boolean }[] };
    expect(parsed.verdict).to.equal('fail');
    expect(parsed.anomalies.map((a) => [a.kind, a.item, a.scenario, a.tolerated === true])).to.deep.equal([
      ['duplicated', A, 'kill-mid-run', true],
      ['duplicated', B, 'back-to-back', false],
    ]);
  });
});
