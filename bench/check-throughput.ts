/**
 * Throughput and memory of `dedup-verify check` (the streaming reader and the checker).
 *
 *   node --import tsx bench/check-throughput.ts [--sizes 1e5,1e6,1e7] [--distinct 10000] [--heap-mb N]
 *
 * For each size it writes a history of that many events to a temp file (a daily run fetching
 * the 20 newest items, posting and recording the 10 new ones; item keys cycle through
 * `--distinct` keys, each reuse preceded by a `forgotten` of the rows, so the number of distinct
 * items stays fixed while the events grow), then checks it in a fresh child process through the
 * same code as the CLI, and prints events/s and the child's peak RSS as a markdown table.
 * `--distinct 0` gives every item its own key (memory then grows with the distinct items).
 * `--heap-mb N` caps the child's V8 old space at N MB: the check must then fit in it.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { HistoryEvent } from '../src/history/events.js';

const H = 3_600_000;
const MIN = 60_000;
const T0 = Date.UTC(2024, 0, 1);

interface ChildResult {
  events: number;
  ms: number;
  verdict: string;
  maxRssKb: number;
  baselineRssKb: number;
  peakHeapUsedBytes: number;
  eligibleCount: number;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Writes `total` events; returns the number written. */
async function generate(path: string, total: number, distinct: number): Promise<number> {
  const out = createWriteStream(path);
  let written = 0;
  const write = async (e: HistoryEvent): Promise<void> => {
    written += 1;
    if (!out.write(`${JSON.stringify(e)}\n`)) await once(out, 'drain');
  };
  const key = (seq: number): string => `https://feed.example/items/${distinct > 0 ? seq % distinct : seq}`;
  await write({ type: 'config', windowMs: 48 * H, intervalMs: 24 * H, allowedDuplicates: 0 });
  let seq = 0;
  let previous: string[] = [];
  for (let run = 1; written < total; run++) {
    const now = T0 + run * 24 * H;
    const fresh = Array.from({ length: 10 }, (_, j) => key(seq + j));
    if (distinct > 0 && seq >= distinct) await write({ type: 'forgotten', t: now - 2 * H, items: fresh });
    for (const [j, item] of fresh.entries()) {
      await write({ type: 'published', t: now - H, item, publishedAt: now - (60 - j) * MIN, title: `Item ${seq + j}` });
    }
    seq += 10;
    await write({ type: 'run-started', t: now, run, deviceTime: now });
    await write({ type: 'fetched', t: now + 100, run, items: [...previous, ...fresh], status: 200 });
    for (const [j, item] of fresh.entries()) {
      await write({ type: 'notified', t: now + 200 + j, run, item, status: 'post' });
      await write({ type: 'stored', t: now + 300 + j, run, item });
    }
    await write({ type: 'run-finished', t: now + 400, run, outcome: 'success' });
    previous = fresh;
  }
  out.end();
  await once(out, 'close');
  return written;
}

async function child(path: string): Promise<void> {
  const { checkHistoryFile } = await import('../src/cli/commands/check.js');
  const baselineRssKb = process.resourceUsage().maxRSS;
  let peakHeapUsedBytes = 0;
  const sample = (): void => {
    peakHeapUsedBytes = Math.max(peakHeapUsedBytes, process.memoryUsage().heapUsed);
  };
  const timer = setInterval(sample, 20);
  const started = process.hrtime.bigint();
  const summary = await checkHistoryFile(path);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  clearInterval(timer);
  sample();
  const result: ChildResult = {
    events: summary.events,
    ms,
    verdict: summary.result.verdict,
    maxRssKb: process.resourceUsage().maxRSS,
    baselineRssKb,
    peakHeapUsedBytes,
    eligibleCount: summary.result.counts.eligibleCount,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(path: string, heapMb: number | undefined): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const heap = heapMb !== undefined ? [`--max-old-space-size=${heapMb}`] : [];
    const proc = spawn(process.execPath, [...heap, '--import', 'tsx', script, '--child', path], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d: string) => {
      out += d;
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) reject(new Error(`checking ${path} exited ${String(code)}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as ChildResult);
    });
  });
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

async function parent(): Promise<void> {
  const sizes = (argValue('--sizes') ?? '1e5,1e6').split(',').map((s) => Math.round(Number(s)));
  const distinct = Number(argValue('--distinct') ?? '10000');
  const heapArg = argValue('--heap-mb');
  const heapMb = heapArg !== undefined ? Number(heapArg) : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'dv-bench-'));
  const rows: string[] = [];
  try {
    for (const size of sizes) {
      const path = join(dir, `history-${size}.jsonl`);
      const written = await generate(path, size, distinct);
      const bytes = (await stat(path)).size;
      const r = await runChild(path, heapMb);
      if (r.events !== written || r.verdict !== 'pass') throw new Error(`unexpected check result for ${size} events: ${JSON.stringify(r)}`);
      rows.push(`| ${written.toLocaleString('en-US')} | ${distinct > 0 ? distinct.toLocaleString('en-US') : `${r.eligibleCount.toLocaleString('en-US')} (all)`} | ${mb(bytes)} | ${(r.ms / 1000).toFixed(2)} | ${Math.round(r.events / (r.ms / 1000)).toLocaleString('en-US')} | ${mb(r.maxRssKb * 1024)} | ${mb(r.baselineRssKb * 1024)} | ${mb(r.peakHeapUsedBytes)} | ${r.verdict} |`);
      await rm(path, { force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write([
    `check throughput (Node ${process.version}, ${process.platform}/${process.arch}${heapMb !== undefined ? `, child heap capped at ${heapMb} MB` : ''})`,
    '',
    '| events | distinct item keys | file (MB) | check (s) | events/s | peak RSS (MB) | RSS before check (MB) | peak heap used (MB) | verdict |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
  ].join('\n'));
}

const childPath = argValue('--child');
if (childPath !== undefined) await child(childPath);
else await parent();
