/**
 * `npm run bench` (node --import tsx bench/run.ts): runs the benchmarks and writes
 * bench/results.md (every figure with the command that reproduces it) and docs/speed.md
 * (the speed page the README links to, quoting the same figures).
 *
 *   npm run bench                       all benchmarks
 *   npm run bench -- --only NAME        one (repeatable, or NAME,NAME); other sections are kept
 *   npm run bench -- --quick            fewer repetitions, no 10^7-event check
 *   npm run bench -- --list             the names
 *   npm run bench -- --render           measures nothing: writes both files again from the
 *                                       sections bench/results.md holds (after an edit of the prose)
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
  render: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { only: [], quick: false, list: false, help: false, render: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--only') {
      const v = argv[++i];
      if (v === undefined) throw new Error('--only needs a benchmark name (see --list)');
      args.only.push(...v.split(',').filter((x) => x !== ''));
    } else if (a.startsWith('--only=')) args.only.push(...a.slice(7).split(',').filter((x) => x !== ''));
    else if (a === '--quick') args.quick = true;
    else if (a === '--list') args.list = true;
    else if (a === '--render') args.render = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else throw new Error(`unknown argument "${a}" (use --only NAME, --quick, --list, --render)`);
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
 * after them (`node --import tsx bench/trips.ts`, 2026-12-06) and the goals' status, from the
 * latency section's figures of that day.
 */
const SLOW_LINK: readonly string[] = [
  "## On a slow link",
  "",
  "On the loopback one adb round trip (one service opened on the device: a shell command, a sync",
  "session, a reverse rule) costs about 2 ms; where dedup-verify runs it costs 5–15 ms over USB, 30–100 ms",
  "to a remote adb server and 100–300 ms for an Appium `mobile: shell` call. `--latency MS`",
  "(`virtual-device`, `run --virtual`) holds every packet the virtual device sends for MS ms, and the",
  "`latency` benchmark times the same suite at 0, 20 and 100 ms side by side. A shell command that",
  "prints anything costs two link delays however short it is (its output, then, once the host has",
  "acknowledged it, its exit status), so what counts is how many shell invocations the harness waits",
  "for one after another. What the harness does so that each round trip it does not make is time",
  "saved on such a link:",
  "",
  "- **the device clock from the host clock** plus an offset (`src/harness/device-clock.ts`), measured",
  "  with a `date +%s%3N` that goes out with reads the harness sends anyway, again with the next reads",
  "  after each `set-time` and at the start of each scenario;",
  "- **several reads in one shell invocation** (`src/device/shell-batch.ts`: each command's stdout,",
  "  stderr and exit status given back apart). The history keeps each of those commands as a `read`",
  "  event of its own, saying which command of the invocation it was;",
  "- **a change with the change it prepares**: once `cmd alarm set-time` has set the device's clock in",
  "  the session, a move of the clock waits for the next command that changes the device and goes in",
  "  the same shell invocation (`cmd alarm set-time` then `cmd jobscheduler run -f`), device time being",
  "  reckoned from the set meanwhile; `am force-stop` goes with the `am start` after it. Each command",
  "  runs only after the one before it exited 0 and is its own `action` event, saying so; the repro",
  "  script sends each on its own;",
  "- **a run's end waited for on the device**: a forced run that nothing interrupts sends, after",
  "  `cmd jobscheduler run -f` and in the same invocation, a read-only wait that asks",
  "  `cmd jobscheduler get-job-state` until the job is neither pending nor active (then, for at most",
  "  half a second, until the app's job is listed again, as WorkManager re-registers it), and then the",
  "  reads the harness makes after every run: WorkManager's database with its -wal, the app's jobs and",
  "  the dedup table. The read after the run takes them only when the WorkSpec's row shows the run's",
  "  end (`outcomeFromRows`: `last_enqueue_time`, `period_count` or `run_attempt_count` moved) and no",
  "  command that changed the device came since; otherwise it reads again. The run's end is still",
  "  WorkManager's result line in the session's logcat stream; a kill run and a probe are sent as",
  "  before. The next run plans from the same reads while nothing has changed (`src/harness/seams/scheduling.ts`);",
  "- **a start's schedule waited for on the device**: `am start` (or `am force-stop` then `am start`,",
  "  or the broadcast that starts the process without an activity) is followed in its invocation by a",
  "  read-only wait until `dumpsys jobscheduler PKG` lists the app's WorkManager job, then by the reads",
  "  the harness makes to see the app's work scheduled; the scenario's set-up is one invocation;",
  "- **the reads a command needs go with it**: `pm clear` with the `dumpsys package` reads of the",
  "  grants before and after it, and the `pm grant` that gives POST_NOTIFICATIONS back with the start",
  "  of the app after it (a change that waits for the next one, `DeviceSteps.deferChange`); a run to",
  "  be killed with a signal with the `pidof` of the app's process; a kill with a wait on the device",
  "  until `pidof` finds no process of the app, then the reads after the run (which go on after a",
  "  read that failed: a `-wal` that is not there is a result); the two `dumpsys` outputs kept as a",
  "  scenario's evidence first in the next scenario's first invocation, before its `am force-stop`",
  "  (the device is then as the scenario left it; the last scenario's at the close); the logcat",
  "  stream's start marker and `settings put global auto_time 0` with the backup's `am force-stop` and",
  "  listing; the session's first move of the clock with the run it prepares, as every later one;",
  "- **reads not sent again**: the schedule a scenario reads as it starts is the one read with the",
  "  app's start; `readDatabase` right after a run copies the run's own read of the dedup table; an",
  "  edit of the database is read back once (the check copy, whose main file must be the bytes",
  "  written) and the store takes the table from it; the first device time comes from the `date`",
  "  read with the session's checks; a run the app makes by itself as it starts is collected before",
  "  the schedule guard, which then plans from the reads made after it;",
  "- **events instead of polls**: a run ends with WorkManager's result line in the session's logcat",
  "  stream; JobScheduler's state is asked only while a run shows no sign of life, and not while the",
  "  app's requests still come in; a process killed with `kill -9` is gone when ActivityManager's",
  "  `Process … has died` line comes through the stream;",
  "- **independent commands at once** on the one transport: the session's checks and the state it",
  "  saves; the reverse rules and the runtime grants put back while the clock and the app's data go",
  "  back; the app's files are backed up 16 per shell invocation.",
  "",
  "Round trips of the whole suite at 0 ms (`node --import tsx bench/trips.ts`), at 5518b64, at 0cd024b",
  "(the device-side waits), at bcb8aff and now (726 at 2f3a946, before any batching; 298 at 5fbcc91,",
  "with reads batched). The counts leave out the evidence dumps `run --out` reads after each scenario",
  "(one invocation each before 9912a28, now none but the last scenario's):",
  "",
  "| round trips for | 5518b64 | 0cd024b | bcb8aff | now |",
  "| --- | ---: | ---: | ---: | ---: |",
  "| invocations that only read (WorkManager's database, the jobs, the dedup table, the clock) | 93 | 30 | 27 | 19 |",
  "| a forced run's command (with the set of the clock; since 0cd024b with the wait for its end and the reads after it) | 35 | 35 | 35 | 35 |",
  "| a start of the app (with the `am force-stop` before it; since 0cd024b with the wait for its job and the reads) | 30 | 30 | 30 | 30 |",
  "| JobScheduler's state (`get-job-state`; since bcb8aff with the sync marker) | 3 | 1 | 1 | 1 |",
  "| the log stream's sync marker on its own | 9 | 9 | 0 | 0 |",
  "| `pm clear`, its grant reads and grants; kills and `pidof`; database edits | 22 | 13 | 13 | 8 |",
  "| the session's open and close (checks, save, restore) | 25 | 25 | 12 | 9 |",
  "| **the suite** | **217** | **143** | **118** | **102** |",
  "| one forced run | 2–5 | 1–5 | 1–4 | 1–3 |",
  "",
  "What went since 0cd024b: the session's four checks (`getprop` ×2, `pm path`, `run-as id -u`) in one",
  "invocation, the state it saves (`date`, `settings get global auto_time`, `dumpsys package`) in",
  "another, the backup's `am force-stop` with the listing of the app's files; the restore's",
  "`am force-stop`, `cmd alarm set-time`, `settings put global auto_time`, `dumpsys package` and",
  "listing in one invocation, the removals of what the runs wrote in another (session: 14 + 11 → 8 +",
  "4); the sync marker with the reads it precedes (a run the device made by itself), with the",
  "`get-job-state` that asks about a run with no sign of life, or with the `pidof` after a",
  "force-stop kill; an edit's `am force-stop` with its copy of the database.",
  "",
  "What went since bcb8aff: a kill's `pidof` check and the reads after the killed run into the kill's",
  "invocation (4 kills: 11 invocations → 4); the scenario's schedule read (2), `readDatabase` after a",
  "run (2), the edit's separate read-back and the store's read after it (2), the first scenario's",
  "`date` and lone `set-time` (2) and its reads after the run the app made by itself as it started (1)",
  "not sent again; the grant after `pm clear` with the start after it (2); the stream's start marker",
  "and `settings put global auto_time 0` with the backup (2). The evidence dumps of each scenario go",
  "with the next scenario's first invocation: 14 invocations fewer in a `run --out`, which the counts",
  "above leave out and the 100 ms wall time below includes.",
  "",
  "`node --import tsx bench/trips.ts [--latency MS] [--scenario NAME]` prints these counts per scenario",
  "and per kind of command, and the services each forced run opened. The reads vary by a few from",
  "one run to the next (101 to 111 at 0 ms this round): a read WorkManager writes to meanwhile, or a",
  "job it has not listed again yet, is read again.",
  "",
  "Side by side with 5518b64 (its tree built apart, the same CLI, runs one after the other on",
  "2026-12-06, on a machine that another engineer's tests kept at a 1-minute load average of 3 to 6):",
  "at 100 ms one-way, 49.8 s against 76.0 s (0.65×, one pair); at 0 ms, 1.14× the earlier version's",
  "time (median of 3 pairs run later at a load average of 1.5, 1.03×–1.15×: 7.18 s against 6.32 s,",
  "7.41 s against 6.44 s, 6.31 s against 6.10 s; at a load average of 4 to 6, 0.91×–1.27×), with",
  "about 8% more CPU time: the device-side waits ask `cmd jobscheduler get-job-state` and",
  "`dumpsys jobscheduler` every 5 to 20 ms, which on the embedded virtual device runs in the",
  "harness's own process.",
  "",
  "The virtual device itself sends a stream's CLSE right behind its last WRTE when the command had",
  "already ended, as adbd does (`adb/sockets.cpp` local_socket_flush_outgoing closes the socket when",
  "the read that filled the WRTE met EOF); it used to wait for that WRTE's OKAY, a link delay more",
  "for every `adb shell` of the adb client and every `mobile: shell` of an Appium server.",
  "",
  "The goals, from the `latency` section (`npm run bench -- --only latency`, at 9912a28, load average",
  "1.4 at its start). **The suite on a 100 ms one-way link within 2× its floor: met, 1.82×** (33.4 s",
  "against a floor of 18.4 s: the loopback time, 3.08 s, plus 100 ms for each of the app's 118",
  "requests and 35 result lines; the same benchmark gave 2.11× at a42ab4f, 1.94× at 0e4f512).",
  "What is left above the floor is about 200 ms for each of the ~90 shell invocations the harness",
  "waits for one after another: a shell command that prints anything costs two link delays, its",
  "output and then its exit status, which adbd sends only once the host has acknowledged the output",
  "(one WRTE in flight per stream; `adb/sockets.cpp`), and one forced run or one start of the app",
  "is one invocation already. **A forced run opens at most 6 services: met**: one in most runs, 3",
  "at most (a run killed with `kill -9`). **The suite in at most 120 adb round trips: met**: 102 at",
  "0 ms, 94 at 20 ms, 92 at 100 ms",
  "(`bench/trips.ts`: 101 to 111 at 0 ms). **At most as many WebDriver requests on the Appium path:",
  "met**: 103 (103–104) at 0 ms and 100 at 20 ms one-way (`npm run bench -- --only appium-path`; 138",
  "and 133 at bcb8aff): each shell invocation of the adb path is one `mobile: shell` there. **At 0 ms",
  "no slower than before: not met**: 1.11× the time of 5518b64 (`dedup-verify run --virtual`, each",
  "tree built apart, seven interleaved pairs: 2.92 s against 2.67 s wall at 998dc4f; 1.12× in seven",
  "more pairs at 9912a28 on a busier machine, 4.03 s against 3.45 s; 1.20× at bcb8aff). Where it goes:",
  "each device-side wait sees what it waits for at its next ask (pauses of 5 to 20 ms) where the",
  "earlier version reacted to the result line at once and then paid one loopback round trip of a few",
  "ms; the scenarios' own times, with the device in a process of its own, add up to 2.82 s against",
  "2.42 s (title-edit 130 ms against 84: two runs of 34–36 ms in one invocation each, against",
  "3 ms + the run + 10 ms). Shorter pauses (2 to 5 ms) and no wait for WorkManager's re-registration",
  "both measured 1.11× too. Choosing the earlier way on a fast link would bring back one round trip",
  "per forced run (about 35), against the goal of 120 round trips.",
  "",
  "The reference app's HTTP client behaves as OkHttp 4.12 does (src/virtual-device/apps/feed-notifier/http-client.ts,",
  "with the OkHttp sources it follows): one pooled keep-alive connection per process, reused by the",
  "next request, and one silent retry, on a new connection, of a request that failed on a pooled one",
  "(a connection the fixture server closed while idle). On a 100 ms link that alone took the suite",
  "from 76.2 s to 65.5 s on the same machine (`dedup-verify run --virtual --latency 100`, one run",
  "each, before and after).",
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
      args.list ? `${names}\n` : `usage: npm run bench [-- --only NAME[,NAME]] [--quick] [--list] [--render]\n\nbenchmarks:\n${names}\n\nwrites bench/results.md and docs/speed.md\n`,
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
  if (args.render) {
    await writeFile(RESULTS, renderResults(machine, stored));
    await mkdir(dirname(README_SECTION), { recursive: true });
    await writeFile(README_SECTION, renderReadme(machine, stored));
    log(`wrote ${RESULTS} and ${README_SECTION} from the stored sections (nothing measured)`);
    return 0;
  }
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
