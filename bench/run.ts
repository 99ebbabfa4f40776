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
import { appiumPath } from './appium-path.js';
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

const BENCHMARKS: readonly Benchmark[] = [forcedRun, suite, check, dbPull, startup, adbThroughput, latency, lint, appiumPath];
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
  'appium-path':
    'The suite through a real local Appium 3 server and its UiAutomator2 driver (`dedup-verify run --appium`) at 0 and 20 ms one way, beside `run --device` (adb) on the same kind of device, with the WebDriver requests and adb services each makes',
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
  '  history keeps each of those commands as a `read` event of its own, saying it was batched;',
  '- **a change with the change it prepares**: once `cmd alarm set-time` has set the device\'s clock in',
  '  the session, a move of the clock waits for the next command that changes the device and goes in',
  '  the same shell invocation (`cmd alarm set-time` then `cmd jobscheduler run -f`), device time being',
  '  reckoned from the set meanwhile; `am force-stop` goes with the `am start` after it. Each command',
  '  runs only after the one before it exited 0 and is its own `action` event, saying so; the repro',
  '  script sends each on its own;',
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
  'Round trips of the whole suite at 0 ms (`node --import tsx bench/trips.ts`) at commit 2f3a946, before',
  'any of this, at 5fbcc91, with reads batched, and now:',
  '',
  '| round trips for | 2f3a946 | 5fbcc91 | now |',
  '| --- | ---: | ---: | ---: |',
  '| the device clock alone (`date +%s%3N`) | 146 | 1 (51 more ride along with reads) | 2 (51 more ride along) |',
  '| WorkManager\'s database (main, -wal) and `dumpsys jobscheduler` | 97 + 97 + 68 | 67 shell invocations | 52 shell invocations |',
  '| the dedup table (main, -wal) | 63 + 62 | 43 shell invocations (15 more with the workdb) | 44 (15 more with the workdb) |',
  '| JobScheduler\'s state while a run shows no sign of life (`get-job-state`) | 10 | 1 | 1 |',
  '| commands that change the device (`set-time`, `run -f`, `am force-stop`, `am start`, kills, edits) | 135, each on its own | 135, each on its own | 135 in 78 shell invocations |',
  '| **the suite**, with the session\'s open and close | **726** | **298** | **227** |',
  '| one forced run | 9–14 | 2–6 | 2–5 |',
  '',
  '`node --import tsx bench/trips.ts [--latency MS] [--scenario NAME]` prints these counts per scenario',
  'and per kind of command, and the services each forced run opened. Side by side with 5fbcc91 (the',
  'same CLI, each commit built in its own checkout, runs paired A B A B, 2026-12-01): at 0 ms 4.56 s',
  'against 4.84 s (0.93× pair by pair, median of 6 pairs), so no slower on the loopback; at 20 ms',
  '16.5 s against 19.7 s (0.84×, 3 pairs); at 100 ms 66.9 s against 76.7 s (0.87×, one pair).',
  '',
  'The virtual device itself sends a stream\'s CLSE right behind its last WRTE when the command had',
  'already ended, as adbd does (`adb/sockets.cpp` local_socket_flush_outgoing closes the socket when',
  'the read that filled the WRTE met EOF); it used to wait for that WRTE\'s OKAY, a link delay more',
  'for every `adb shell` of the adb client and every `mobile: shell` of an Appium server.',
  '',
  'The goals. **A forced run opens at most 6 services: met**: 5 at most in the suite (a run killed',
  'with `kill -9`: the reads before it, `set-time` with `run -f`, the kill, the log stream\'s sync',
  'marker, the reads after it); a forced run that first collects a run the device made by itself (the',
  'first scenario on a fresh device, where WorkManager runs the work as soon as the app schedules it)',
  'opens up to 7, two of them for that other run. **The suite on a 100 ms one-way link within 3× its',
  'loopback time: not met (73.4 s against 5.40 s, 13.6×, in the `latency` section), and no harness',
  'can meet it on this suite.** The app\'s own work crosses the same link: its 115 requests to the',
  'fixture server go through `adb reverse` one after another (the worker fetches, then posts each',
  'item\'s receipt in order), each at least one link delay even on a connection kept alive, and the',
  'result line of each of the 37 runs WorkManager ends leaves the device after the app\'s last request.',
  'That alone is 15.2 s at 100 ms: the loopback suite plus those delays is already about 4× the',
  'loopback time (3.81× in that run) before the harness sends a single command; the `latency` section',
  'prints this floor from each run\'s history. What is left over the floor is the harness\'s own 228',
  'round trips, two to three link delays each: a shell command\'s output and its exit status are two',
  'packets with adb 29, the second sent only after the host acknowledged the first.',
  '',
  'The reference app\'s HTTP client behaves as OkHttp 4.12 does (src/virtual-device/apps/feed-notifier/http-client.ts,',
  'with the OkHttp sources it follows): one pooled keep-alive connection per process, reused by the',
  'next request, and one silent retry, on a new connection, of a request that failed on a pooled one',
  '(a connection the fixture server closed while idle). On a 100 ms link that alone took the suite',
  'from 76.2 s to 65.5 s on the same machine (`dedup-verify run --virtual --latency 100`, one run',
  'each, before and after); the figures above were measured before it.',
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
    'npm run bench                          # all of them (about 25 minutes: 8 of them latency, 6 appium-path), then bench/results.md',
    'npm run bench -- --only forced-run     # one: forced-run, suite, check, db-pull, startup, adb-throughput, latency, lint, appium-path',
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
