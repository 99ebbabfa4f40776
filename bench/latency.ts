/**
 * Benchmark 7: the suite and one forced run where devices really are, behind a slow link.
 *
 * The virtual device's `--latency MS` delays every packet it sends by MS milliseconds, in order
 * (src/virtual-device/adbd/delayed-link.ts); the host's packets are not delayed, so each adb
 * request/response costs about MS more. At 0, 20 and 100 ms:
 *
 * - wall time of `dedup-verify run --virtual --latency MS` (the built CLI with its embedded
 *   virtual device, on a private adb server of the benchmark);
 * - adb round trips and forced runs of the whole suite: the same scenarios through DeviceSession
 *   (what `run` uses) against a virtual device in a process of its own, at the same latency,
 *   that records every service the host opens (one OPEN = one round trip), as the suite
 *   benchmark counts them; forced runs by timing each DeviceHarness.forceRun call of that pass;
 * - one forced run end to end (DeviceHarness.forceRun, three new items posted and recorded)
 *   and the services it opens.
 *
 * The 100 ms suite is run fewer times than the others: it takes minutes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdbDevice } from '../src/device/adb-device.js';
import { loadConfig } from '../src/config/load-config.js';
import type { Config } from '../src/config/types.js';
import { DeviceSession } from '../src/harness/device-session.js';
import { DeviceHarness } from '../src/harness/device-harness.js';
import type { ForceRunOptions, RunResult } from '../src/harness/harness.js';
import { SCENARIOS } from '../src/scenarios/index.js';
import type { RunReport } from '../src/report/types.js';
import { startBenchAdbServer, type BenchAdbServer } from './lib/adb-server.js';
import { BUILT_CLI, ensureBuilt } from './lib/build.js';
import { startDeviceProcess, type DeviceProcess } from './lib/device-process.js';
import { openHarnessContext } from './lib/harness-context.js';
import { loadNow } from './lib/machine.js';
import { ROOT, runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, formatRatio, median, summarize, timeMs } from './lib/stats.js';

/** One-way delays measured, in ms. */
const LATENCIES = [0, 20, 100] as const;
/** CLI runs of the suite per latency (`--quick`: one each). */
const SUITE_RUNS: Readonly<Record<(typeof LATENCIES)[number], number>> = { 0: 3, 20: 3, 100: 1 };
/** Forced runs timed per latency (`--quick`: one each). */
const FORCED_RUNS = 3;
const ITEMS_PER_RUN = 3;
const HOUR = 3_600_000;
/** The project's goal: the suite on a 100 ms link within this many times its floor (floorMs). */
const GOAL_FLOOR_RATIO = 2;
/** The project's goal: the whole suite in at most this many adb round trips. */
const GOAL_TRIPS = 120;
/** The project's goal: one forced run opens at most this many services on the device. */
const GOAL_SERVICES = 6;

export const latency: Benchmark = {
  name: 'latency',
  title: 'The suite and one forced run on a slow link (`--latency`)',
  summary: '`dedup-verify run --virtual --latency MS` wall time, adb round trips and one forced run at 0, 20 and 100 ms one-way',
  run: runLatency,
};

interface CliRun {
  readonly ms: number;
  readonly code: number;
  readonly verdict: string;
  /** Requests the app made to the fixture server (history `request` events), and runs that ended with WorkManager's result line. */
  readonly appRequests: number;
  readonly runs: number;
}

interface Counted {
  /** OPENs of the whole suite (session open, every scenario, session close). */
  readonly trips: number;
  readonly forced: number;
  readonly refused: number;
  /** Services opened by each forced run of the suite (between its start and its end). */
  readonly perForced: readonly number[];
  /** Wall time of the counting pass (in-process DeviceSession, device in its own process). */
  readonly ms: number;
  readonly verdicts: readonly string[];
}

interface ForcedRuns {
  readonly ms: readonly number[];
  readonly trips: readonly number[];
  /** Time spent in the harness's own adb commands during each run (their recorded durations, summed). */
  readonly adbMs: readonly number[];
}

interface AtLatency {
  readonly latencyMs: number;
  readonly load: string;
  readonly cli: readonly CliRun[];
  readonly counted: Counted;
  readonly forcedRuns: ForcedRuns;
}

async function runLatency(options: BenchOptions): Promise<BenchSection> {
  await ensureBuilt(options.log);
  const config = await loadConfig(join(ROOT, 'fixtures', 'reference-app.config.json'));
  const state = await mkdtemp(join(tmpdir(), 'dv-bench-state-'));
  const previousState = process.env['XDG_STATE_HOME'];
  // DeviceSession writes its restore record under $XDG_STATE_HOME: keep it in the temp dir.
  process.env['XDG_STATE_HOME'] = state;
  const results: AtLatency[] = [];
  try {
    for (const latencyMs of LATENCIES) {
      const load = loadNow();
      const runs = options.quick ? 1 : SUITE_RUNS[latencyMs];
      const cli: CliRun[] = [];
      for (let i = 0; i < runs; i++) {
        cli.push(await timeCliRun(latencyMs, state));
        const last = cli.at(-1)!;
        options.log(`latency ${latencyMs} ms: suite run ${i + 1}/${runs}: ${formatMs(last.ms)} wall, exit ${last.code}, verdict ${last.verdict} (load ${loadNow()})`);
      }
      const counted = await countSuite(latencyMs, config, options);
      options.log(`latency ${latencyMs} ms: ${counted.trips} round trips, ${counted.forced} forced runs (counting pass ${formatMs(counted.ms)})`);
      const forcedRuns = await timeForcedRuns(latencyMs, config, options.quick ? 1 : FORCED_RUNS);
      options.log(`latency ${latencyMs} ms: one forced run ${formatMs(median(forcedRuns.ms))}, ${median(forcedRuns.trips)} round trips`);
      results.push({ latencyMs, load, cli, counted, forcedRuns });
    }
  } finally {
    if (previousState === undefined) delete process.env['XDG_STATE_HOME'];
    else process.env['XDG_STATE_HOME'] = previousState;
    await rm(state, { recursive: true, force: true });
  }
  return render(results, options.quick);
}

/** `dedup-verify run --virtual --latency MS` once; a failing run is recorded, not thrown. */
async function timeCliRun(latencyMs: number, state: string): Promise<CliRun> {
  const adb = await startBenchAdbServer();
  const out = await mkdtemp(join(tmpdir(), 'dv-bench-latency-'));
  try {
    const r = await runProcess(process.execPath, [BUILT_CLI, 'run', '--virtual', '--latency', String(latencyMs), '--adb-port', String(adb.port), '--out', out], {
      env: { ...adb.env, XDG_STATE_HOME: state },
      timeoutMs: 1_800_000,
    });
    const report = await readFile(join(out, 'report.json'), 'utf8').then(
      (text) => JSON.parse(text) as RunReport,
      () => undefined,
    );
    const history = await readFile(join(out, 'history.jsonl'), 'utf8').catch(() => '');
    const events = history
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { type?: string; outcome?: string });
    return {
      ms: r.ms,
      code: r.code,
      verdict: report?.verdict ?? `none (${r.stderr.trim().split('\n').at(-1) ?? ''})`,
      appRequests: events.filter((e) => e.type === 'request').length,
      runs: events.filter((e) => e.type === 'run-finished' && ['success', 'retry', 'failure'].includes(e.outcome ?? '')).length,
    };
  } finally {
    await adb.stop().catch(() => undefined);
    await rm(out, { recursive: true, force: true });
  }
}

/** The suite through DeviceSession against a recording device process at this latency. */
async function countSuite(latencyMs: number, config: Config, options: BenchOptions): Promise<Counted> {
  const dev = await startDeviceProcess({ latencyMs });
  let adb: BenchAdbServer | undefined;
  let device: AdbDevice | undefined;
  let forced = 0;
  let refused = 0;
  const perForced: number[] = [];
  // The services opened outside forced runs, kept for the suite's total.
  const between: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with its harness below and put back
  const forceRun = DeviceHarness.prototype.forceRun;
  DeviceHarness.prototype.forceRun = async function countedForceRun(this: DeviceHarness, o?: ForceRunOptions): Promise<RunResult> {
    between.push(...(await dev.takeOpened()));
    const result = await forceRun.call(this, o);
    const during = await dev.takeOpened();
    between.push(...during);
    perForced.push(during.length);
    forced++;
    if (result.outcome === 'refused') refused++;
    return result;
  };
  try {
    adb = await startBenchAdbServer();
    await adb.connect(dev.serial);
    const d = await AdbDevice.open({ serial: dev.serial, host: '127.0.0.1', port: adb.port });
    device = d;
    await dev.takeOpened();
    const { ms, value } = await timeMs(async () => {
      const session = await DeviceSession.open({ device: d, config, adb: { host: '127.0.0.1', port: adb!.port }, progress: () => undefined });
      const verdicts: string[] = [];
      for (const scenario of SCENARIOS) {
        const outcome = await session.runScenario(scenario);
        verdicts.push(outcome.report.verdict);
        options.log(`latency ${latencyMs} ms: counting: ${scenario.name} ${outcome.report.verdict}`);
      }
      await session.close();
      return verdicts;
    });
    const trips = between.length + (await dev.takeOpened()).length;
    return { trips, forced, refused, perForced, ms, verdicts: value };
  } finally {
    DeviceHarness.prototype.forceRun = forceRun;
    await device?.close().catch(() => undefined);
    await adb?.stop().catch(() => undefined);
    await dev.stop();
  }
}

/** DeviceHarness.forceRun with three new items, as the forced-run benchmark's harness leg. */
async function timeForcedRuns(latencyMs: number, config: Config, n: number): Promise<ForcedRuns> {
  const dev: DeviceProcess = await startDeviceProcess({ latencyMs });
  let adb: BenchAdbServer | undefined;
  let device: AdbDevice | undefined;
  try {
    adb = await startBenchAdbServer();
    await adb.connect(dev.serial);
    const d = await AdbDevice.open({ serial: dev.serial, host: '127.0.0.1', port: adb.port });
    device = d;
    const ctx = await openHarnessContext(d, config);
    const ms: number[] = [];
    const trips: number[] = [];
    const adbMs: number[] = [];
    try {
      // One untimed run first: the app's first start and the first database reads.
      for (let i = -1; i < n; i++) {
        const label = i < 0 ? 'warm' : `l${latencyMs}-${i}`;
        const h = ctx.harness(`bench-${label}`);
        await h.forceStop();
        await h.startApp();
        await h.serveFeed(Array.from({ length: ITEMS_PER_RUN }, (_, k) => ({ label: `${label}-${k + 1}`, title: `Bench ${label} ${k + 1}`, ageMs: (k + 1) * HOUR })));
        await h.primeStoredKeys();
        await dev.takeOpened();
        const eventsBefore = h.events.length;
        const run = await timeMs(() => h.forceRun());
        const opened = await dev.takeOpened();
        // Each command's recorded duration once (reads sent in one shell invocation carry the
        // invocation's duration each: counted on the first of them only).
        const inAdb = h.events
          .slice(eventsBefore)
          .reduce((sum, e) => sum + (e.type === 'action' && !/^command ([2-9]|\d\d+) of \d+ sent in one shell invocation/.test(e.detail ?? '') ? (e.durationMs ?? 0) : 0), 0);
        const r = run.value;
        if (r.outcome !== 'success' || r.posted.length !== ITEMS_PER_RUN || r.stored.length !== ITEMS_PER_RUN) {
          throw new Error(`forced run ${label} at ${latencyMs} ms: outcome ${r.outcome}, ${r.posted.length} posted, ${r.stored.length} stored (expected success, ${ITEMS_PER_RUN}, ${ITEMS_PER_RUN})`);
        }
        if (i >= 0) {
          ms.push(run.ms);
          trips.push(opened.length);
          adbMs.push(inAdb);
        }
      }
    } finally {
      await ctx.close();
    }
    return { ms, trips, adbMs };
  } finally {
    await device?.close().catch(() => undefined);
    await adb?.stop().catch(() => undefined);
    await dev.stop();
  }
}

/**
 * The least the suite can take at this latency whatever the harness does: the loopback time, plus
 * one link delay for each of the app's requests (sequential, each crossing the link at least once)
 * and one for each run's result line (it leaves the device after the app's last request).
 */
function floorMs(baseWall: number, r: AtLatency): number {
  const run = r.cli[0];
  if (run === undefined) return NaN;
  return baseWall + (run.appRequests + run.runs) * r.latencyMs;
}

function render(results: readonly AtLatency[], quick: boolean): BenchSection {
  const base = results.find((r) => r.latencyMs === 0);
  const baseWall = base !== undefined ? median(base.cli.map((c) => c.ms)) : NaN;
  const baseForced = base !== undefined ? median(base.forcedRuns.ms) : NaN;
  const range = (xs: readonly number[]): string => (xs.length === 0 ? '–' : Math.min(...xs) === Math.max(...xs) ? String(xs[0]) : `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`);
  const rows = results.map((r) => {
    const w = summarize(r.cli.map((c) => c.ms));
    const wall = r.cli.length === 1 ? formatMs(w.median) : `${formatMs(w.median)} (median of ${w.n}; ${formatMs(w.min)}–${formatMs(w.max)})`;
    const failed = r.cli.filter((c) => c.code !== 0).length;
    const perTrip = r.latencyMs === 0 ? '–' : `${formatMs((w.median - baseWall) / r.counted.trips)} (${((w.median - baseWall) / r.counted.trips / r.latencyMs).toFixed(1)} × MS)`;
    const forced = median(r.forcedRuns.ms);
    const adb = median(r.forcedRuns.adbMs);
    const floor = floorMs(baseWall, r);
    return [
      `${r.latencyMs} ms`,
      wall,
      r.latencyMs === 0 ? '1×' : formatRatio(w.median / baseWall),
      `${r.cli.map((c) => c.verdict).join(', ')}${failed > 0 ? ` (${failed} exited non-zero)` : ''}`,
      String(r.counted.trips),
      `${r.counted.forced}${r.counted.refused > 0 ? ` (${r.counted.refused} refused)` : ''}`,
      `${median(r.counted.perForced)} (max ${Math.max(...r.counted.perForced)})`,
      (r.counted.trips / r.counted.forced).toFixed(1),
      perTrip,
      r.latencyMs === 0 ? '–' : `${formatMs(floor)} (${formatRatio(floor / baseWall)})`,
      r.latencyMs === 0 ? '–' : formatRatio(w.median / floor),
      `${formatMs(forced)}${r.latencyMs === 0 ? '' : ` (${formatRatio(forced / baseForced)})`}`,
      range(r.forcedRuns.trips),
      `${formatMs(adb)} / ${formatMs(Math.max(0, forced - adb))}`,
      r.load,
    ];
  });
  const at100 = results.find((r) => r.latencyMs === 100);
  const wall100 = at100 !== undefined ? median(at100.cli.map((c) => c.ms)) : NaN;
  const ratio100 = wall100 / baseWall;
  const floor100 = at100 !== undefined ? floorMs(baseWall, at100) / baseWall : NaN;
  const overFloor100 = at100 !== undefined ? wall100 / floorMs(baseWall, at100) : NaN;
  const mostTrips = Math.max(...results.map((r) => r.counted.trips));
  const tripsVerdict = mostTrips <= GOAL_TRIPS ? `within the goal of ${GOAL_TRIPS}` : `above the goal of ${GOAL_TRIPS}`;
  const requests100 = at100?.cli[0]?.appRequests ?? NaN;
  const runs100 = at100?.cli[0]?.runs ?? NaN;
  const verdict = overFloor100 <= GOAL_FLOOR_RATIO ? `within the ${GOAL_FLOOR_RATIO}× goal` : `above the ${GOAL_FLOOR_RATIO}× goal`;
  const maxPerForced = Math.max(...results.flatMap((r) => r.counted.perForced));
  const servicesVerdict = maxPerForced <= GOAL_SERVICES ? `within the goal of ${GOAL_SERVICES}` : `above the goal of ${GOAL_SERVICES}`;
  const runsText = quick ? 'one CLI run per latency (`--quick`)' : LATENCIES.map((l) => `${SUITE_RUNS[l]} at ${l} ms`).join(', ');
  const body = [
    `Suite on a 100 ms link / its floor: **${formatRatio(overFloor100)}** (${verdict}: the project wants the suite on a 100 ms one-way link within ${GOAL_FLOOR_RATIO}× the floor below); / suite at 0 ms: ${formatRatio(ratio100)}. adb round trips of the suite: at most **${mostTrips}** (${tripsVerdict}). Services opened by one forced run of the suite: at most **${maxPerForced}** (${servicesVerdict}).`,
    '',
    `The floor no harness can go below at 100 ms: **${formatRatio(floor100)}** of the loopback time. The app's own ${requests100} requests to the fixture server cross the link through \`adb reverse\`, one after another (the worker fetches, then posts each item's receipt in order), each at least one link delay even on a kept-alive connection; and each of the ${runs100} runs that WorkManager ended ends with its result line, which crosses the link once after the app's last request. "Floor for any harness": the 0 ms wall time plus (app requests + forced runs) × MS, with no time at all for the harness's own commands.`,
    '',
    `Method: \`--latency MS\` holds every packet the virtual device sends for MS milliseconds before writing it (in order; the host's packets are not delayed), so each adb request/response (OPEN → OKAY, WRTE → OKAY, a sync request → its reply) costs about MS more, and so does every packet of the app's own connections to the fixture server through \`adb reverse\`. Suite wall time: the built CLI, \`dedup-verify run --virtual --latency MS\`, ${runsText}, each on a fresh private adb server. Round trips and forced runs: a second pass of the ${SCENARIOS.length} scenarios through \`DeviceSession\` against a virtual device in its own process at the same latency that records every service the host opens (one OPEN = one round trip), as the suite benchmark counts them, and the services opened between the start and the end of each \`DeviceHarness.forceRun\` of that pass. One forced run: \`DeviceHarness.forceRun()\` posting and recording three new items, median of ${quick ? 1 : FORCED_RUNS} after one untimed run, split into the time of the harness's own adb commands (their recorded durations; reads sent in one shell invocation counted once; the run command's invocation holds the wait on the device for the run's end, so most of the run counts here) and the rest: waiting for the app's run (its feed fetch and three receipt POSTs through \`adb reverse\`, its posts, WorkManager's result line through the log stream). "Cost per round trip" is the suite's extra wall time over the 0 ms one divided by its round trips, in ms and in units of the one-way delay. The 1-minute load average at the start of each latency is in the last column: other work on this machine slows every figure.`,
    '',
    table(
      [
        'one-way latency',
        'suite wall (`run --virtual`)',
        '× 0 ms',
        'verdicts',
        'adb round trips (suite)',
        'forced runs (suite)',
        'services per forced run (suite)',
        'suite round trips ÷ forced runs',
        'cost per round trip',
        'floor for any harness',
        '× floor',
        'one forced run',
        'round trips (one forced run)',
        'one forced run: adb commands / waiting for the app',
        'load (1 min)',
      ],
      rows,
      ['r', 'r', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Counting passes: ${results.map((r) => `${formatMs(r.counted.ms)} at ${r.latencyMs} ms (verdicts ${[...new Set(r.counted.verdicts)].join(', ')})`).join('; ')}.`,
  ].join('\n');
  const wallAt = (l: number): string => {
    const r = results.find((x) => x.latencyMs === l);
    return r === undefined ? '?' : formatMs(median(r.cli.map((c) => c.ms)));
  };
  const perForced = results.map((r) => String(median(r.forcedRuns.trips)));
  const forcedMs = results.map((r) => formatMs(median(r.forcedRuns.ms)));
  return {
    name: latency.name,
    title: latency.title,
    command: benchCommand(latency.name),
    body,
    headline: `suite ${LATENCIES.map((l) => `${wallAt(l)} at ${l} ms`).join(', ')} one-way: ${formatRatio(overFloor100)} its floor at 100 ms (goal ≤ ${GOAL_FLOOR_RATIO}×), ${formatRatio(ratio100)} its 0 ms time; ${results.map((r) => r.counted.trips).join(' / ')} adb round trips (goal ≤ ${GOAL_TRIPS}); at most ${maxPerForced} services per forced run (goal ≤ ${GOAL_SERVICES}); one forced run ${perForced.join(' / ')} round trips, ${forcedMs.join(' / ')}`,
  };
}
