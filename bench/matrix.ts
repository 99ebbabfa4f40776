/**
 * The bug-detection matrix as measured: for every bug switch of the reference app, the whole
 * suite on a fresh virtual device, and which scenarios fail. Writes bench/matrix.md.
 *
 *   node --import tsx bench/matrix.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCENARIOS } from '../src/scenarios/index.js';
import { BUG_NAMES } from '../src/virtual-device/apps/feed-notifier/bugs.js';

function run(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'specs/support/cli-entry.ts', ...args], { env: { ...process.env, ...env }, stdio: 'ignore' });
    child.once('close', (code) => resolve(code ?? -1));
  });
}

async function adb(port: number, ...args: string[]): Promise<void> {
  await new Promise<void>((resolve) => spawn('adb', ['-P', String(port), ...args], { stdio: 'ignore' }).once('close', () => resolve()));
}

const work = await mkdtemp(join(tmpdir(), 'dv-matrix-'));
const port = 5000 + Math.floor(Math.random() * 1000);
await adb(port, 'start-server');
const rows: string[] = [];
try {
  for (const bug of ['(none)', ...BUG_NAMES]) {
    const out = join(work, bug);
    const args = ['run', '--virtual', '--out', out, ...(bug === '(none)' ? [] : ['--bug', bug])];
    const started = Date.now();
    await run(args, { ANDROID_ADB_SERVER_PORT: String(port) });
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { scenarios: { name: string; verdict: string }[] };
    const failing = report.scenarios.filter((s) => s.verdict !== 'pass').map((s) => `${s.name}${s.verdict === 'fail' ? '' : ` (${s.verdict})`}`);
    const expected = SCENARIOS.filter((s) => s.catches.includes(bug)).map((s) => s.name);
    const missed = expected.filter((e) => !failing.includes(e));
    const extra = failing.filter((f) => !expected.includes(f));
    rows.push(`| \`${bug}\` | ${expected.join(', ') || '—'} | ${missed.length === 0 ? 'yes' : `**no: ${missed.join(', ')}**`} | ${extra.join(', ') || '—'} | ${((Date.now() - started) / 1000).toFixed(1)} s |`);
    process.stdout.write(`${rows[rows.length - 1]}\n`);
  }
} finally {
  await adb(port, 'kill-server');
  await rm(work, { recursive: true, force: true });
}
const text = [
  '# Bug-detection matrix (measured)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/matrix.ts\`: the whole suite on a fresh virtual device (API 34) per bug switch.`,
  '',
  '| bug switch | must fail (docs/design.md §6) | caught | also fails | suite time |',
  '| --- | --- | --- | --- | --- |',
  ...rows,
  '',
].join('\n');
await writeFile('bench/matrix.md', text);
