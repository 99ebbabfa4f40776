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
import { lint } from './lint.js';
import { describeMachine, formatMachine, loadNow, type Machine } from './lib/machine.js';
import { ROOT } from './lib/processes.js';
import type { BenchSection, Benchmark } from './lib/section.js';
import { startup } from './startup.js';
import { suite } from './suite.js';

const BENCHMARKS: readonly Benchmark[] = [forcedRun, suite, check, dbPull, startup, adbThroughput, latency, lint];
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

/**
 * What the harness does on a slow link, with the round trips counted before those changes and
 * after them (`node --import tsx bench/trips.ts`, 2026-12-01) and the goals' status, from the
 * latency section's figures of that day.
 */
const SLOW_LINK: readonly string[] = [
  '## On a slow link',
  '',
  'On the loopback one adb round trip (one service opened on the device: a shell command, a sync',
  'session, a reverse rule) costs about 2 ms; where dedup-verify runs it costs 5–15 ms over USB, 30–100 ms',
  'to a remote adb server and 100–300 ms for an Appium `mobile: shell` call. `--latency MS`',
  '(`virtual-device`, `run --virtual`) holds every packet the virtual device sends for MS ms, and the',
  '`latency` benchmark times the same suite at 0, 20 and 100 ms side by side. What the harness does so',
  'that each round trip it does not make is time saved on such a link:',
  '',
  '- **the device clock from the host clock** plus an offset (`src/harness/device-clock.ts`), measured',
  '  with a `date +%s%3N` that goes out with reads the harness sends anyway, again with the next reads',
  '  after each `set-time` and at the start of each scenario;',
  '- **several reads in one shell invocation** (`src/device/shell-batch.ts`: each command\'s stdout,',
  '  stderr and exit status given back apart): WorkManager\'s database with its -wal and the app\'s jobs',
  '  (`dumpsys jobscheduler PKG`) before a forced run, the dedup table with its -wal after it. The',
  '  history keeps each of those commands as a `read` event of its own, saying it was batched; every',
  '  command that changes the device is still sent on its own and recorded;',
  '- **the workdb read once per run**, the next run time computed on the host: the read made while',
  '  waiting for the app\'s job after it started serves the next forced run while no command that',
  '  changes the device was sent and the app fetched nothing;',
  '- **events instead of polls**: a run ends with WorkManager\'s result line in the session\'s logcat',
  '  stream; JobScheduler\'s state is asked only while a run shows no sign of life, first after one',
  '  round trip, then backing off; a process killed with `kill -9` is gone when ActivityManager\'s',
  '  `Process … has died` line comes through the stream (`pidof` and a sync marker only when it does',
  '  not); the job\'s registration, which Android logs only at DEBUG, is still polled, backing off;',
  '- **independent commands at once** on the one transport: the session\'s checks and the state it',
  '  saves; the app\'s files are backed up 16 per shell invocation.',
  '',
  'Round trips of the whole suite at 0 ms, before these changes (commit 2f3a946) and after:',
  '',
  '| round trips for | before | after |',
  '| --- | ---: | ---: |',
  '| the device clock alone (`date +%s%3N`) | 146 | 1 (51 more ride along with reads) |',
  '| WorkManager\'s database (main, -wal) and `dumpsys jobscheduler` | 97 + 97 + 68 | 67 shell invocations |',
  '| the dedup table (main, -wal) | 63 + 62 | 43 shell invocations (15 more with the workdb); 9 copies for edits and snapshots |',
  '| JobScheduler\'s state while a run shows no sign of life (`get-job-state`) | 10 | 1 |',
  '| around a kill: `pidof`, and the stream\'s sync marker | 7 + 12 | 4 + 9 |',
  '| other reads (`dumpsys package`, `run-as id -u`) | 5 | 5 |',
  '| commands that change the device, each on its own (`set-time`, `run -f`, `am force-stop`, `am start`, kills, edits) | 135 | 135 |',
  '| session open and close (checks, saving and restoring the device) | 24 | 24 |',
  '| **the suite** | **726** | **298** |',
  '| one forced run | 9–14 | 2–6 |',
  '',
  '`node --import tsx bench/trips.ts [--latency MS] [--scenario NAME]` prints these counts per scenario',
  'and per kind of command, and the services each forced run opened. Side by side with the previous',
  'version (the same CLI runs interleaved on one machine, 2026-12-01): at 0 ms 6.75, 7.00 and 5.60 s',
  'against 7.05, 7.16 and 6.58 s, so no slower on the loopback; at 20 ms 28.9 s against 48.2 s.',
  '',
  'The goals. **A forced run opens at most 6 services: met** (6 at most, for a run killed with',
  '`kill -9`: the reads before it, `set-time`, `run -f`, `pidof`, the kill, the reads after it). **The',
  'suite on a 100 ms one-way link within 3× its loopback time: not met**: 84.5 s against 6.77 s, 12.5×',
  '(it was 139.1 s against 8.16 s, 17×; at 20 ms 23.6 s, 3.5×, where it was 43.4 s). The 78 s the',
  '100 ms link adds split about as follows, and the first two alone are more than 3× the loopback suite:',
  '',
  '1. **The app\'s own work crosses the same link: about 30 s.** Each run fetches the feed and posts one',
  '   receipt per item to the fixture server through `adb reverse`, each request a new connection of',
  '   about two link round trips; one forced run of three items waits 846 ms for the app at 100 ms',
  '   (53 ms at 0 ms), and the suite makes 35 runs.',
  '2. **The 135 commands that change the device: about 25 s.** Each is sent on its own, one after',
  '   another, so that the history and the repro script hold it as it was sent. With adb 29 a shell',
  '   command\'s output and its exit status are two packets, the second sent only after the host',
  '   acknowledged the first: one to two link delays each.',
  '3. **The 163 reads left: the rest.** Two per forced run (the WorkSpec and its job before, the rows',
  '   after: each decides what the history says) and the polls for the job\'s registration after each',
  '   start of the app, which Android logs only at DEBUG.',
  '',
];

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
    ...SLOW_LINK,
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
