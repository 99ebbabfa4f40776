/**
 * Benchmark 5: start-up time of the built CLI: `node bin/dedup-verify.js --help` and `check` on a
 * 5-line history, against `node -e 0` (Node's own start), median of 10 each, interleaved.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_CLI, ensureBuilt } from './lib/build.js';
import { runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, summarize, type Summary } from './lib/stats.js';

const RUNS = 10;
const H = 3_600_000;

export const startup: Benchmark = {
  name: 'startup',
  title: 'Start-up time of the CLI',
  summary: '`node bin/dedup-verify.js --help` and `check` on a 5-line history (built), median of 10',
  run: runStartup,
};

/** A passing 5-line history: one run that fetches and posts one item. */
function fiveLines(): string {
  const t = Date.UTC(2024, 0, 2);
  const item = 'https://feed.example/items/1';
  return [
    { type: 'config', windowMs: 48 * H, intervalMs: 24 * H, allowedDuplicates: 0 },
    { type: 'published', t: t - H, item, publishedAt: t - H, title: 'Item 1' },
    { type: 'run-started', t, run: 1, deviceTime: t },
    { type: 'fetched', t: t + 100, run: 1, items: [item], status: 200 },
    { type: 'notified', t: t + 200, run: 1, item, status: 'post' },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n')
    .concat('\n');
}

async function runStartup(options: BenchOptions): Promise<BenchSection> {
  await ensureBuilt(options.log);
  const dir = await mkdtemp(join(tmpdir(), 'dv-bench-startup-'));
  try {
    const history = join(dir, 'history.jsonl');
    await writeFile(history, fiveLines());
    const legs: { what: string; args: string[]; expect: number }[] = [
      { what: '`node -e 0` (Node alone)', args: ['-e', '0'], expect: 0 },
      { what: '`node bin/dedup-verify.js --help`', args: [BUILT_CLI, '--help'], expect: 0 },
      { what: '`node bin/dedup-verify.js check history.jsonl` (5 lines, PASS)', args: [BUILT_CLI, 'check', history], expect: 0 },
    ];
    const samples = legs.map(() => [] as number[]);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, leg] of legs.entries()) {
        const r = await runProcess(process.execPath, leg.args);
        if (r.code !== leg.expect) throw new Error(`${leg.what} exited ${r.code}, expected ${leg.expect}: ${(r.stderr || r.stdout).trim().slice(0, 400)}`);
        samples[k]?.push(r.ms);
      }
    }
    const s = samples.map((x) => summarize(x));
    const rows = legs.map((leg, k) => {
      const x = s[k] as Summary;
      return [leg.what, formatMs(x.median), `${formatMs(x.p25)}–${formatMs(x.p75)}`, `${formatMs(x.min)}–${formatMs(x.max)}`];
    });
    const node = s[0]?.median ?? 0;
    const help = s[1]?.median ?? 0;
    const check = s[2]?.median ?? 0;
    const body = [
      `Median of ${RUNS} (interleaved), wall time from spawn to exit, after \`npm run build\`.`,
      '',
      table(['command', 'median', 'IQR', 'range'], rows, ['l', 'r', 'r', 'r']),
      '',
      `dedup-verify's own start-up on top of Node: ${formatMs(help - node)} for \`--help\`, ${formatMs(check - node)} for \`check\`.`,
    ].join('\n');
    return {
      name: startup.name,
      title: startup.title,
      command: benchCommand(startup.name),
      body,
      headline: `\`dedup-verify --help\` ${formatMs(help)}, \`check\` on 5 lines ${formatMs(check)} (Node alone ${formatMs(node)})`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
