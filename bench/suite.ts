/**
 * Benchmark 2: the whole suite on one virtual device.
 *
 * - Wall time of `dedup-verify run --virtual` (the built CLI, its embedded virtual device, a
 *   private adb server of the benchmark), three runs; per-scenario times from each run's
 *   report.json.
 * - adb round trips per scenario: the same scenarios through DeviceSession (what `run` uses),
 *   against a virtual device in a process of its own that records every service the host opens
 *   (one OPEN = one round trip: a shell command, a sync session, a reverse rule).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdbDevice } from '../src/device/adb-device.js';
import { loadConfig } from '../src/config/load-config.js';
import { DeviceSession } from '../src/scenario/device-session.js';
import { SCENARIOS } from '../src/scenarios/index.js';
import type { RunReport } from '../src/report/types.js';
import { startBenchAdbServer, type BenchAdbServer } from './lib/adb-server.js';
import { BUILT_CLI, ensureBuilt } from './lib/build.js';
import { classifyService, startDeviceProcess } from './lib/device-process.js';
import { ROOT, runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, median, summarize } from './lib/stats.js';

const RUNS = 3;

export const suite: Benchmark = {
  name: 'suite',
  title: 'The whole suite on one virtual device',
  summary: '`dedup-verify run --virtual` wall time (median of 3) and adb round trips per scenario',
  run: runSuite,
};

interface Counted {
  readonly name: string;
  readonly opened: readonly string[];
  readonly ms: number;
  readonly verdict: string;
}

async function runSuite(options: BenchOptions): Promise<BenchSection> {
  await ensureBuilt(options.log);
  const state = await mkdtemp(join(tmpdir(), 'dv-bench-state-'));
  try {
    const wall = await timeCliRuns(options, state);
    const counted = await countRoundTrips(options, state);
    return render(wall, counted);
  } finally {
    await rm(state, { recursive: true, force: true });
  }
}

async function timeCliRuns(options: BenchOptions, state: string): Promise<{ walls: number[]; perScenario: Map<string, number[]>; verdicts: string[] }> {
  const walls: number[] = [];
  const perScenario = new Map<string, number[]>();
  const verdicts: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const adb = await startBenchAdbServer();
    const out = await mkdtemp(join(tmpdir(), 'dv-bench-suite-'));
    try {
      const r = await runProcess(process.execPath, [BUILT_CLI, 'run', '--virtual', '--adb-port', String(adb.port), '--out', out], {
        env: { ...adb.env, XDG_STATE_HOME: state },
        timeoutMs: 600_000,
      });
      if (r.code !== 0) throw new Error(`dedup-verify run --virtual exited ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`);
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunReport;
      walls.push(r.ms);
      verdicts.push(report.verdict);
      for (const s of report.scenarios) perScenario.set(s.name, [...(perScenario.get(s.name) ?? []), s.durationMs]);
      options.log(`suite: run ${i + 1}/${RUNS}: ${formatMs(r.ms)} wall, verdict ${report.verdict}`);
    } finally {
      await adb.stop().catch(() => undefined);
      await rm(out, { recursive: true, force: true });
    }
  }
  return { walls, perScenario, verdicts };
}

async function countRoundTrips(options: BenchOptions, state: string): Promise<{ open: readonly string[]; scenarios: Counted[]; close: readonly string[] }> {
  process.env['XDG_STATE_HOME'] = state;
  const config = await loadConfig(join(ROOT, 'fixtures', 'reference-app.config.json'));
  const dev = await startDeviceProcess();
  let adb: BenchAdbServer | undefined;
  let device: AdbDevice | undefined;
  try {
    adb = await startBenchAdbServer();
    await adb.connect(dev.serial);
    device = await AdbDevice.open({ serial: dev.serial, host: '127.0.0.1', port: adb.port });
    await dev.takeOpened();
    const session = await DeviceSession.open({ device, config, adb: { host: '127.0.0.1', port: adb.port }, progress: () => undefined });
    const open = await dev.takeOpened();
    const scenarios: Counted[] = [];
    for (const scenario of SCENARIOS) {
      const outcome = await session.runScenario(scenario, 1);
      const opened = await dev.takeOpened();
      scenarios.push({ name: scenario.name, opened, ms: outcome.report.durationMs, verdict: outcome.report.verdict });
      options.log(`suite: ${scenario.name}: ${opened.length} round trips, ${formatMs(outcome.report.durationMs)}`);
    }
    await session.close();
    const close = await dev.takeOpened();
    return { open, scenarios, close };
  } finally {
    await device?.close().catch(() => undefined);
    await adb?.stop().catch(() => undefined);
    await dev.stop();
  }
}

function tally(names: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of names) {
    const k = classifyService(n);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function top(m: Map<string, number>, n: number): string {
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${v}× \`${k}\``)
    .join(', ');
}

function render(
  wall: { walls: number[]; perScenario: Map<string, number[]>; verdicts: string[] },
  counted: { open: readonly string[]; scenarios: Counted[]; close: readonly string[] },
): BenchSection {
  const w = summarize(wall.walls);
  const rows = counted.scenarios.map((s) => {
    const times = wall.perScenario.get(s.name) ?? [];
    return [s.name, String(s.opened.length), times.length > 0 ? formatMs(median(times)) : '–', formatMs(s.ms), s.verdict, top(tally(s.opened), 3)];
  });
  const totalTrips = counted.scenarios.reduce((n, s) => n + s.opened.length, 0) + counted.open.length + counted.close.length;
  rows.unshift(['(session open: checks, state save, server, reverse, logcat)', String(counted.open.length), '', '', '', top(tally(counted.open), 3)]);
  rows.push(['(session close: restore)', String(counted.close.length), '', '', '', top(tally(counted.close), 3)]);
  rows.push(['**total**', `**${totalTrips}**`, `**${formatMs(w.median)}** wall`, '', '', '']);
  const all = tally([...counted.open, ...counted.scenarios.flatMap((s) => s.opened), ...counted.close]);
  const allRows = [...all.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => [`\`${k}\``, String(v)]);
  const body = [
    `\`dedup-verify run --virtual\` (all ${counted.scenarios.length} scenarios, built CLI, embedded virtual device): **${formatMs(w.median)}** wall, median of ${w.n} (range ${formatMs(w.min)}–${formatMs(w.max)}); verdicts ${wall.verdicts.join(', ')}.`,
    '',
    table(
      ['scenario', 'adb round trips (OPENs)', 'time, CLI (median of 3)', 'time, counted run', 'verdict', 'most opened'],
      rows,
      ['l', 'r', 'r', 'r', 'l', 'l'],
    ),
    '',
    'Round trips of the whole suite by service (top 15):',
    '',
    table(['service', 'OPENs'], allRows, ['l', 'r']),
  ].join('\n');
  return {
    name: suite.name,
    title: suite.title,
    command: benchCommand(suite.name),
    body,
    headline: `whole suite on one virtual device: ${formatMs(w.median)} wall (median of ${w.n}), ${totalTrips} adb round trips`,
  };
}
