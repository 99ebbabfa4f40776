/**
 * `npm run bench` (node --import tsx bench/run.ts): runs the benchmarks and writes
 * bench/results.md (every figure with the command that reproduces it) and docs/speed.md
 * (the speed page the README links to, quoting the same figures).
 *
 *   npm run bench                       all benchmarks
 *   npm run bench -- --only NAME        one (repeatable, or NAME,NAME); other sections are kept
 *   npm run bench -- --quick            fewer repetitions, no 10^7-event check
 *   npm run bench -- --list             the names
 *
 * Every benchmark starts its own adb server on a free port and its own virtual devices, and
 * stops only those. Benchmarks are not part of the test suite.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { adbThroughput } from './adb-throughput-section.js';
import { check } from './check-section.js';
import { dbPull } from './db-pull.js';
import { forcedRun } from './forced-run.js';
import { latency } from './latency.js';
import { describeMachine, formatMachine, loadNow, type Machine } from './lib/machine.js';
import { ROOT } from './lib/processes.js';
import type { BenchSection, Benchmark } from './lib/section.js';
import { startup } from './startup.js';
import { suite } from './suite.js';

const BENCHMARKS: readonly Benchmark[] = [forcedRun, suite, check, dbPull, startup, adbThroughput, latency];
const RESULTS = join(ROOT, 'bench', 'results.md');
const README_SECTION = join(ROOT, 'docs', 'speed.md');

interface Args {
  only: string[];
  quick: boolean;
  list: boolean;
  help: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { only: [], quick: false, list: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--only') {
      const v = argv[++i];
      if (v === undefined) throw new Error('--only needs a benchmark name (see --list)');
      args.only.push(...v.split(',').filter((x) => x !== ''));
    } else if (a.startsWith('--only=')) args.only.push(...a.slice(7).split(',').filter((x) => x !== ''));
    else if (a === '--quick') args.quick = true;
    else if (a === '--list') args.list = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else throw new Error(`unknown argument "${a}" (use --only NAME, --quick, --list)`);
  }
  const unknown = args.only.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; the benchmarks are ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  return args;
}

/** A section as stored in results.md, between its markers. */
interface Stored {
  readonly name: string;
  readonly text: string;
  readonly headline: string;
  readonly command: string;
}

const BLOCK = /<!-- bench:([\w-]+) -->\n([\s\S]*?)<!-- \/bench:\1 -->/g;

function readStored(markdown: string): Map<string, Stored> {
  const found = new Map<string, Stored>();
  for (const m of markdown.matchAll(BLOCK)) {
    const [, name = '', text = ''] = m;
    const headline = /^\*\*In one line:\*\* (.*)$/m.exec(text)?.[1] ?? '';
    const command = /^Command: `([^`]*)`/m.exec(text)?.[1] ?? '';
    found.set(name, { name, text, headline, command });
  }
  return found;
}

function renderSection(index: number, s: BenchSection, machine: Machine, quick: boolean, startedAt: Date, load: string): string {
  return [
    `## ${index}. ${s.title}`,
    '',
    `Command: \`${s.command}\`${quick ? ' (these figures: `--quick`)' : ''}`,
    '',
    `Measured ${startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC on ${formatMachine(machine)}; 1-minute load average ${load} at the start.`,
    '',
    `**In one line:** ${s.headline}`,
    '',
    s.body,
    '',
  ].join('\n');
}

function renderResults(machine: Machine, stored: Map<string, Stored>): string {
  const rows = BENCHMARKS.filter((b) => stored.has(b.name)).map((b) => {
    const s = stored.get(b.name);
    return `| ${b.name} | ${s?.headline ?? ''} | \`${s?.command ?? ''}\` |`;
  });
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts); last written ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC on ${formatMachine(machine)}. Each section below says when and on what it was measured and the exact command that reproduces it. Every benchmark starts its own adb server on a free port and its own virtual devices, and stops only those.`,
    '',
    '| benchmark | figures | command |',
    '| --- | --- | --- |',
    ...rows,
    '',
    ...BENCHMARKS.filter((b) => stored.has(b.name)).map((b) => `<!-- bench:${b.name} -->\n${stored.get(b.name)?.text ?? ''}<!-- /bench:${b.name} -->\n`),
  ].join('\n');
}

/** What each benchmark measures, as the README's table says it. */
const README_WHAT: Readonly<Record<string, string>> = {
  'forced-run':
    'One forced run end to end (clock past the guard, `cmd jobscheduler run -f`, wait for the result line, collect posts and rows): `DeviceHarness.forceRun()` against a raw-adb script with no sleeps (`bench/scripts/forced-run.sh`) and with the usual `sleep 2` / `sleep 5`',
  suite: 'The whole suite (`dedup-verify run --virtual`) on one virtual device, with the adb round trips and forced runs it makes',
  check: '`dedup-verify check` on 10^5, 10^6 and 10^7 events, and the peak RSS of each',
  'db-pull': 'Copying a 50 MB app database with its -wal to the host: the harness against `adb pull` of the same bytes',
  startup: 'Start-up of the built CLI: `--help`, and `check` on a 5-line history',
  'adb-throughput': 'Raw `adb push`/`adb pull` of 50 MiB through the virtual device, against a plain file copy',
  latency:
    'The suite (`dedup-verify run --virtual --latency MS`) and one forced run on a slow link: every packet the device sends delayed by 0, 20 and 100 ms one way, with the adb round trips each makes',
};

/** The README's "Speed" section: the same figures, each with its command. */
function renderReadme(machine: Machine, stored: Map<string, Stored>): string {
  const rows = BENCHMARKS.map((b) => {
    const s = stored.get(b.name);
    return `| ${README_WHAT[b.name] ?? b.title} | ${s?.headline ?? 'not measured yet'} | \`${s?.command ?? `npm run bench -- --only ${b.name}`}\` |`;
  });
  return [
    '# Speed',
    '',
    'A device suite is trusted when it is fast and never waits for nothing. `npm run bench` measures',
    'the harness against the device\'s own work and writes every figure, with its spread, the machine',
    'and the exact command, to [bench/results.md](../bench/results.md). Each benchmark starts its own adb',
    'server on a free port and its own virtual devices, and stops only those; benchmarks are not part',
    'of `npm test`.',
    '',
    '```sh',
    'npm run bench                          # all of them (about 17 minutes, 9 of them latency), then bench/results.md',
    'npm run bench -- --only forced-run     # one: forced-run, suite, check, db-pull, startup, adb-throughput, latency',
    'npm run bench -- --quick               # fewer repetitions, no 10^7-event check',
    '```',
    '',
    `Figures from ${machine.cpus} CPUs, ${machine.memoryGiB.toFixed(0)} GiB RAM, Node ${machine.node}, adb ${machine.adb}, on the virtual device:`,
    '',
    '| what | figures | command |',
    '| --- | --- | --- |',
    ...rows,
    '',
    'The forced-run **ratio** is the harness\'s time over the raw script\'s, taken pair by pair (the two',
    'legs interleaved, each starting from the same state and each required to post and record the same',
    'three items) and reported as the median of the pairs; the target is 1.3× at most. The harness makes',
    'about as many round trips as the script, each over one long-lived adbkit connection where the script',
    'starts an `adb` client process per command. [bench/results.md](../bench/results.md) lists the services',
    'each side opens, the round trips of every scenario, and what the figures show to be waste, priced as',
    'count × unit cost.',
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.help || args.list) {
    const names = BENCHMARKS.map((b) => `  ${b.name.padEnd(16)} ${b.summary}`).join('\n');
    process.stdout.write(
      args.list ? `${names}\n` : `usage: npm run bench [-- --only NAME[,NAME]] [--quick] [--list]\n\nbenchmarks:\n${names}\n\nwrites bench/results.md and docs/speed.md\n`,
    );
    return 0;
  }
  const selected = args.only.length > 0 ? BENCHMARKS.filter((b) => args.only.includes(b.name)) : BENCHMARKS;
  const machine = await describeMachine();
  const log = (text: string): void => {
    process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  };
  log(`${formatMachine(machine)}`);
  const stored = existsSync(RESULTS) ? readStored(await readFile(RESULTS, 'utf8')) : new Map<string, Stored>();
  const failed: string[] = [];
  for (const b of selected) {
    const startedAt = new Date();
    const load = loadNow();
    log(`${b.name}: ${b.summary}`);
    try {
      const section = await b.run({ quick: args.quick, log });
      const index = BENCHMARKS.indexOf(b) + 1;
      stored.set(b.name, { name: b.name, text: renderSection(index, section, machine, args.quick, startedAt, load), headline: section.headline, command: section.command });
      log(`${b.name}: ${section.headline}`);
      // Written after every benchmark, so an interrupted run keeps what it measured.
      await writeFile(RESULTS, renderResults(machine, stored));
      await mkdir(dirname(README_SECTION), { recursive: true });
      await writeFile(README_SECTION, renderReadme(machine, stored));
    } catch (e) {
      failed.push(b.name);
      log(`${b.name} FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }
  log(`wrote ${RESULTS} and ${README_SECTION}${failed.length > 0 ? `; FAILED: ${failed.join(', ')} (their earlier figures, if any, are kept)` : ''}`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  return 2;
});
