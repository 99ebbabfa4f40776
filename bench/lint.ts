/**
 * Benchmark 8: `dedup-verify lint` time and peak memory on real apps. The sources are not
 * fetched at run time: they are read from LINT_BENCH_APPS (default `$TMPDIR/lint-bench`), one
 * directory per app at the commit the figures and the docs/lint.md findings were taken from.
 * AntennaPod is required and the section fails, saying how to get it, when it is missing;
 * Feeder, Tusky, Infinity for Reddit and Mihon (the largest: 945 files) are measured when present
 * and reported as missing otherwise. The budget is 5 s for every app.
 *
 * Each measurement is a fresh process (`node --import tsx bench/lint.ts --measure DIR`) that
 * times `lintPaths(DIR)` (the file walk, reading, parsing, resolution and every rule) and
 * reports its peak RSS.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, runChecked } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { summarize } from './lib/stats.js';

const SCRIPT = join(ROOT, 'bench', 'lint.ts');
const BUDGET_S = 5;

/** The apps, the commit each was measured at, and where its sources are cloned from. */
export const LINT_BENCH_APPS = [
  { dir: 'AntennaPod', repo: 'AntennaPod/AntennaPod', commit: 'b7ee12ccfc026b7fe6ca7206a925a05a23e15cca', required: true },
  { dir: 'Tusky', repo: 'tuskyapp/Tusky', commit: '43ae0bb4556392393a3d759ce42a93f3a003e83a', required: false },
  { dir: 'Feeder', repo: 'spacecowboy/Feeder', commit: '091ca126272dfd6de4535bf508e4c73adec6e274', required: false },
  // the two largest apps lint was tried on: 714 and 945 files
  { dir: 'Infinity', repo: 'Docile-Alligator/Infinity-For-Reddit', commit: 'af7ccefc29977a50cb136dfcd3403b40a9653f37', required: false },
  { dir: 'Mihon', repo: 'mihonapp/mihon', commit: 'a2c24ff0429ad2502b612c9ab1f2b09966629f73', required: false },
] as const;

export function appsRoot(): string {
  return process.env['LINT_BENCH_APPS'] ?? join(tmpdir(), 'lint-bench');
}

/** The commands that put the sources where the benchmark reads them. */
export function fetchCommands(root: string): string {
  return LINT_BENCH_APPS.map(
    (a) => `git clone --filter=blob:none https://github.com/${a.repo} ${join(root, a.dir)} && git -C ${join(root, a.dir)} checkout ${a.commit}`,
  ).join('\n');
}

export const lint: Benchmark = {
  name: 'lint',
  title: '`lint` on real apps: time and peak memory',
  summary: 'lintPaths on AntennaPod (required), Tusky, Feeder, Infinity for Reddit and Mihon sources under LINT_BENCH_APPS, each run in a fresh process',
  run: runLintBench,
};

interface Measure {
  readonly ms: number;
  readonly rssMb: number;
  readonly files: number;
  readonly findings: number;
  readonly notes: number;
}

async function measureOnce(dir: string): Promise<Measure> {
  const r = await runChecked(process.execPath, ['--import', 'tsx', SCRIPT, '--measure', dir], { timeoutMs: 120_000 });
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Measure;
}

async function runLintBench(options: BenchOptions): Promise<BenchSection> {
  const root = appsRoot();
  const missingRequired = LINT_BENCH_APPS.filter((a) => a.required && !existsSync(join(root, a.dir)));
  if (missingRequired.length > 0) {
    throw new Error(
      `lint benchmark: no sources at ${missingRequired.map((a) => join(root, a.dir)).join(', ')}. The benchmark reads them from disk and never fetches them; ` +
        `put them there (or set LINT_BENCH_APPS to a directory holding them) with:\n${fetchCommands(root)}`,
    );
  }
  const reps = options.quick ? 3 : 5;
  const rows: string[][] = [];
  const missing: string[] = [];
  let largest: { app: string; median: number; rss: number; files: number } | undefined;
  for (const app of LINT_BENCH_APPS) {
    const dir = join(root, app.dir);
    if (!existsSync(dir)) {
      missing.push(app.dir);
      continue;
    }
    options.log(`lint: ${app.dir} × ${reps}`);
    const runs: Measure[] = [];
    for (let i = 0; i < reps; i++) runs.push(await measureOnce(dir));
    const t = summarize(runs.map((m) => m.ms));
    const rss = Math.max(...runs.map((m) => m.rssMb));
    const first = runs[0] as Measure;
    rows.push([app.dir, app.commit.slice(0, 12), String(first.files), (t.median / 1000).toFixed(2), `${(t.min / 1000).toFixed(2)}–${(t.max / 1000).toFixed(2)}`, String(rss), String(first.findings), String(first.notes)]);
    if (!largest || first.files > largest.files) largest = { app: app.dir, median: t.median, rss, files: first.files };
  }
  if (!largest) throw new Error('lint benchmark: nothing measured');
  const over = rows.filter((r) => Number(r[3]) > BUDGET_S).map((r) => r[0] as string);
  const within = over.length === 0;
  const body = [
    `\`lintPaths\` on each app's whole source tree (the CLI's walk: test source sets and build output skipped), ${reps} runs each, every run in a fresh process; the time covers reading, tokenizing, declarations, call resolution and every rule. Sources from \`${root}\` (LINT_BENCH_APPS).`,
    '',
    table(['app', 'commit', 'files', 'median (s)', 'min–max (s)', 'peak RSS (MB)', 'findings', 'notes'], rows, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r']),
    '',
    `Budget: ${BUDGET_S} s for every app; the largest, ${largest.app}, took ${(largest.median / 1000).toFixed(2)} s (median)${within ? '' : ` — OVER BUDGET: ${over.join(', ')}`}.`,
    ...(missing.length > 0 ? ['', `Not measured (no sources under ${root}): ${missing.join(', ')}.`] : []),
    '',
    `Direct command for one run: \`node --import tsx bench/lint.ts --measure ${join(root, 'AntennaPod')}\`. To get the sources:`,
    '',
    '```sh',
    fetchCommands(root),
    '```',
  ].join('\n');
  return {
    name: lint.name,
    title: lint.title,
    command: benchCommand(lint.name),
    body,
    headline: `${largest.app} (${largest.files} files): ${(largest.median / 1000).toFixed(2)} s median, peak RSS ${largest.rss} MB (budget ${BUDGET_S} s${within ? '' : `, OVER: ${over.join(', ')}`})`,
  };
}

/** The child: one timed lint of DIR, printed as one JSON line. */
async function measure(dir: string): Promise<void> {
  const { lintPaths } = await import('../src/lint/lint.js');
  const started = process.hrtime.bigint();
  const result = await lintPaths([dir], ROOT);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const rssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const out: Measure = { ms, rssMb, files: result.filesScanned, findings: result.findings.length, notes: result.notes.length };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--measure');
  const dir = at >= 0 ? process.argv[at + 1] : undefined;
  if (dir === undefined) {
    process.stderr.write(`usage: node --import tsx bench/lint.ts --measure DIR (the benchmark itself: ${benchCommand('lint')})\n`);
    process.exitCode = 2;
  } else {
    await measure(dir);
  }
}
