/**
 * Throughput and memory of `dedup-verify check` (the streaming reader and the composed checker).
 *
 *   node --import tsx bench/check-throughput.ts [--sizes 1e5,1e6,1e7] [--distinct 10000] [--heap-mb N]
 *
 * For each size it writes a history of that many events to a temp file, then checks it in a
 * fresh child process through the same code as the CLI, and prints events/s and the child's peak
 * RSS as a markdown table, followed by the event mix of the largest history.
 *
 * The history holds every event type but `aborted` and `unparsed` (which make the verdict unknown), and its
 * config line names every property check (src/checker/properties), so all of them run:
 *
 * - once, at the start: the dedup table's `schema` (unique index on the nullable key column,
 *   probe inserts as a correct app stores them), and the WorkManager `schedule` read before and
 *   after a relaunch (`force-stop`, `start-app` actions) with the same WorkSpec;
 * - per daily run: a `set-time` action, the 10 new items `published`, the run, a feed `request`
 *   and its `fetched` response (the 20 newest items), per new item `notified` (alertOnce false)
 *   and `stored`; then `run-finished`, a `rows` read of the dedup table (the 10 to 20 current
 *   keys), and every 10th run a `schedule` read labelled `after-run`;
 * - per new item in its first epoch, between `notified` and `stored`: a receipt `request` to the
 *   backend carrying the item's idempotency key and the backend's `effect`;
 * - run 1 also serves the window probe (an item labelled `missed-run-edge`, as old as the window)
 *   and has its first receipt's answer dropped after processing, then sent again with the same key.
 *
 * Item keys cycle through `--distinct` keys, each reuse preceded by a `forgotten` of the rows, so
 * the number of distinct items stays fixed while the events grow. The idempotency check counts
 * effects per item over the whole history, not per epoch, and keeps the requests of each
 * operation: receipts and effects are therefore written only in an item's first epoch (while
 * the item sequence is below `--distinct`), so every item has exactly one effect and the check's
 * state is bounded by the distinct items. Their share of the events falls as the history grows
 * past `--distinct` items.
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
import { PROPERTIES, WINDOW_PROBE_LABEL, BEFORE_RELAUNCH, AFTER_RELAUNCH } from '../src/checker/properties/index.js';
import type { HistoryEvent, ScheduleEvent } from '../src/history/events.js';

const H = 3_600_000;
const MIN = 60_000;
const T0 = Date.UTC(2024, 0, 1);
const WINDOW_MS = 48 * H;
const INTERVAL_MS = 24 * H;
const SCHEDULE_EVERY = 10;
const PACKAGE = 'com.example.feednotifier';
const UNIQUE_NAME = 'feed-poll';
const WORKER = `${PACKAGE}.FeedWorker`;
const WORK_ID = '3f6b2c1e-8d4a-4f0b-9c7e-5a1d2e3f4b6c';
const TABLE = 'notified_items';
const KEY_COLUMN = 'link';
const HEADER = 'Idempotency-Key';
const PROBE_KEY = 'ffffffff-ffff-4fff-bfff-ffffffffffff';

interface ChildResult {
  events: number;
  ms: number;
  verdict: string;
  anomalies: string[];
  maxRssKb: number;
  baselineRssKb: number;
  peakHeapUsedBytes: number;
  eligibleCount: number;
}

interface Generated {
  written: number;
  byType: Map<string, number>;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A uuid-shaped idempotency key, one per item index. */
function idempotencyKey(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** A read of WorkManager's database: the one named periodic WorkSpec. */
function scheduleRead(t: number, label: string, lastEnqueueTime: number): ScheduleEvent {
  return {
    type: 'schedule',
    t,
    label,
    uniqueName: UNIQUE_NAME,
    workerClass: WORKER,
    specs: [{ id: WORK_ID, named: true, workerClass: WORKER, state: 0, intervalMs: INTERVAL_MS, flexMs: INTERVAL_MS, lastEnqueueTime, runAttemptCount: 0, systemId: 7 }],
    primary: WORK_ID,
  };
}

/** Writes `total` events (or a few more: the opening block is written whole); returns the counts. */
async function generate(path: string, total: number, distinct: number): Promise<Generated> {
  const out = createWriteStream(path);
  const byType = new Map<string, number>();
  let written = 0;
  const write = async (e: HistoryEvent): Promise<void> => {
    written += 1;
    byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
    if (!out.write(`${JSON.stringify(e)}\n`)) await once(out, 'drain');
  };
  const index = (seq: number): number => (distinct > 0 ? seq % distinct : seq);
  const key = (seq: number): string => `https://feed.example/items/${index(seq)}`;
  const receipt = (t: number, run: number, key: string, item: string, dropped: boolean): HistoryEvent => ({
    type: 'request',
    t,
    run,
    route: 'receipts',
    method: 'POST',
    path: '/receipts',
    status: dropped ? 0 : 200,
    ...(dropped ? { dropped: true } : {}),
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ link: item }),
  });

  await write({ type: 'config', windowMs: WINDOW_MS, intervalMs: INTERVAL_MS, allowedDuplicates: 0, properties: [...PROPERTIES.keys()], idempotencyHeader: HEADER });
  await write({
    type: 'schema',
    t: T0,
    table: TABLE,
    keyColumn: KEY_COLUMN,
    columns: [
      { name: 'id', type: 'INTEGER', notnull: false, pk: true },
      { name: KEY_COLUMN, type: 'TEXT', notnull: false, pk: false },
      { name: 'notified_at', type: 'INTEGER', notnull: true, pk: false },
    ],
    indexes: [{ name: `index_${TABLE}_${KEY_COLUMN}`, unique: true, partial: false, columns: [KEY_COLUMN] }],
    nullKeyRowsStored: 2,
    replay: { key: key(0), rowsAdded: 0 },
  });
  await write(scheduleRead(T0 + 1000, BEFORE_RELAUNCH, T0));
  await write({ type: 'action', t: T0 + 2000, action: 'force-stop', argv: ['am', 'force-stop', PACKAGE] });
  await write({ type: 'action', t: T0 + 3000, action: 'start-app', argv: ['am', 'start', '-W', '-n', `${PACKAGE}/.MainActivity`] });
  await write(scheduleRead(T0 + 4000, AFTER_RELAUNCH, T0));

  const probe = 'https://feed.example/probe/missed-run-edge';
  let seq = 0;
  let previous: string[] = [];
  for (let run = 1; written < total; run++) {
    const now = T0 + run * INTERVAL_MS;
    const fresh = Array.from({ length: 10 }, (_, j) => key(seq + j));
    if (distinct > 0 && seq >= distinct) await write({ type: 'forgotten', t: now - 2 * H, items: fresh });
    if (run === 1) await write({ type: 'published', t: now - H, item: probe, publishedAt: now - WINDOW_MS, title: 'Probe', label: WINDOW_PROBE_LABEL });
    for (const [j, item] of fresh.entries()) {
      await write({ type: 'published', t: now - H, item, publishedAt: now - (60 - j) * MIN, title: `Item ${seq + j}` });
    }
    await write({ type: 'action', t: now - 1000, action: 'set-time', argv: ['cmd', 'alarm', 'set-time', String(now)] });
    await write({ type: 'run-started', t: now, run, deviceTime: now });
    await write({ type: 'request', t: now + 50, run, route: 'feed', method: 'GET', path: '/feed.xml', status: 200, headers: { accept: 'application/rss+xml' } });
    const served = run === 1 ? [probe, ...fresh] : [...previous, ...fresh];
    await write({ type: 'fetched', t: now + 100, run, items: served, status: 200 });
    const posts = run === 1 ? [{ item: probe, seq: -1, key: PROBE_KEY }] : [];
    posts.push(...fresh.map((item, j) => ({ item, seq: seq + j, key: idempotencyKey(index(seq + j)) })));
    let t = now + 200;
    for (const p of posts) {
      await write({ type: 'notified', t: t++, run, item: p.item, status: 'post', alertOnce: false });
      if (distinct === 0 || p.seq < distinct) {
        // The first receipt's answer is lost after the backend processed it; the app sends it again.
        if (p.seq === 0) await write(receipt(t++, run, p.key, p.item, true));
        await write({ type: 'effect', t: t++, key: p.key, item: p.item });
        await write(receipt(t++, run, p.key, p.item, false));
      }
      await write({ type: 'stored', t: t++, run, item: p.item });
    }
    seq += 10;
    await write({ type: 'run-finished', t: now + 400, run, outcome: 'success' });
    await write({ type: 'rows', t: now + 500, table: TABLE, keyColumn: KEY_COLUMN, keys: [...new Set([...previous, ...fresh])] });
    if (run % SCHEDULE_EVERY === 0) await write(scheduleRead(now + 600, 'after-run', now));
    previous = fresh;
  }
  out.end();
  await once(out, 'close');
  return { written, byType };
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
    anomalies: summary.result.anomalies.slice(0, 5).map((a) => `${a.kind}: ${a.detail}`),
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

/** Each event type's share of a history, largest first ("notified 21.3%, ..."). */
function eventMix(written: number, byType: Map<string, number>): string {
  return [...byType]
    .sort((a, b) => b[1] - a[1])
    .map(([type, n]) => `${type} ${n * 100 / written >= 0.1 ? `${(n * 100 / written).toFixed(1)}%` : `×${n.toLocaleString('en-US')}`}`)
    .join(', ');
}

async function parent(): Promise<void> {
  const sizes = (argValue('--sizes') ?? '1e5,1e6').split(',').map((s) => Math.round(Number(s)));
  const distinct = Number(argValue('--distinct') ?? '10000');
  const heapArg = argValue('--heap-mb');
  const heapMb = heapArg !== undefined ? Number(heapArg) : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'dv-bench-'));
  const rows: string[] = [];
  let mix: { written: number; byType: Map<string, number> } | undefined;
  try {
    for (const size of sizes) {
      const path = join(dir, `history-${size}.jsonl`);
      const { written, byType } = await generate(path, size, distinct);
      const bytes = (await stat(path)).size;
      const r = await runChild(path, heapMb);
      // Every property check must decide and pass: no anomaly at all, informational ones included.
      if (r.events !== written || r.verdict !== 'pass' || r.anomalies.length > 0) throw new Error(`unexpected check result for ${size} events: ${JSON.stringify(r)}`);
      rows.push(`| ${written.toLocaleString('en-US')} | ${distinct > 0 ? distinct.toLocaleString('en-US') : `${r.eligibleCount.toLocaleString('en-US')} (all)`} | ${mb(bytes)} | ${(r.ms / 1000).toFixed(2)} | ${Math.round(r.events / (r.ms / 1000)).toLocaleString('en-US')} | ${mb(r.maxRssKb * 1024)} | ${mb(r.baselineRssKb * 1024)} | ${mb(r.peakHeapUsedBytes)} | ${r.verdict} |`);
      await rm(path, { force: true });
      mix = { written, byType };
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
    `property checks run: ${[...PROPERTIES.keys()].join(', ')} (besides the notification checks)`,
    ...(mix ? [`event mix of the ${mix.written.toLocaleString('en-US')}-event history: ${eventMix(mix.written, mix.byType)}`] : []),
    '',
  ].join('\n'));
}

const childPath = argValue('--child');
if (childPath !== undefined) await child(childPath);
else await parent();
