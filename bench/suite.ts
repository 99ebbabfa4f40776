/**
 * Benchmark 2: the whole suite on one virtual device.
 *
 * - Wall time of `dedup-verify run --virtual` (the built CLI with its embedded virtual device,
 *   on a private adb server of the benchmark), three runs; per-scenario times from each run's
 *   report.json.
 * - adb round trips per scenario: the same scenarios through DeviceSession (what `run` uses),
 *   against a virtual device in a process of its own that records every service the host opens
 *   (one OPEN = one round trip: a shell command, a sync session, a reverse rule).
 * - Where the time goes: the unit cost of the services the suite opens most, and of the one
 *   fixed wait left in the harness (a refused run is declared after REFUSED_AFTER_MS), so each
 *   kind of waste is priced as count × unit cost.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdbDevice } from '../src/device/adb-device.js';
import type { AndroidDevice } from '../src/device/android-device.js';
import { loadConfig } from '../src/config/load-config.js';
import { tableDatabaseOf, workManagerWorkOf, type Config } from '../src/config/types.js';
import { DeviceSession } from '../src/harness/device-session.js';
import { DeviceHarness } from '../src/harness/device-harness.js';
import type { ForceRunOptions, RunResult } from '../src/harness/harness.js';
import { readWorkSnapshot } from '../src/harness/work-state.js';
import { SCENARIOS } from '../src/scenarios/index.js';
import type { RunReport } from '../src/report/types.js';
import { readDeviceTimeMs } from '../src/android/clock.js';
import { pullDatabase, readAppFile, withDatabase } from '../src/android/app-data.js';
import { findJob, getJobState, runJob, WORKMANAGER_JOB_SERVICE } from '../src/android/job-scheduler.js';
import { startBenchAdbServer, type BenchAdbServer } from './lib/adb-server.js';
import { BUILT_CLI, ensureBuilt } from './lib/build.js';
import { startDeviceProcess, tallyServices, type DeviceProcess } from './lib/device-process.js';
import { openHarnessContext } from './lib/harness-context.js';
import { ROOT, runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, median, summarize, timeMs } from './lib/stats.js';

const RUNS = 3;
const UNIT_SAMPLES = 20;
const WORK_DB = 'no_backup/androidx.work.workdb';

export const suite: Benchmark = {
  name: 'suite',
  title: 'The whole suite on one virtual device',
  summary: '`dedup-verify run --virtual` wall time (median of 3), adb round trips per scenario, and what the round trips cost',
  run: runSuite,
};

interface Counted {
  readonly name: string;
  readonly opened: readonly string[];
  readonly verdict: string;
  readonly forced: readonly ForcedRunCall[];
}

/** One DeviceHarness.forceRun call of the counted suite. */
interface ForcedRunCall {
  readonly probe: boolean;
  readonly outcome: RunResult['outcome'];
  readonly ms: number;
}

interface UnitCosts {
  readonly date: number;
  readonly readWork: number;
  readonly shmPull: number;
  readonly feedDbPull: number;
  readonly dumpsys: number;
  /** pullDatabase of the workdb: main, -wal, -shm one after the other. */
  readonly workPull: number;
  /** The same copy as two reads at once (main and -wal) and no -shm. */
  readonly workPullParallel: number;
  /** forceRun({ probe: true }) of a run that is not due: the harness's refusal. */
  readonly probe: number[];
  /** `run -f`, then get-job-state until the job is no longer pending, ready or active. */
  readonly jobSettled: number[];
  /** Services one successful forced run opens (the unit-cost set-up run). */
  readonly oneForcedRun: readonly string[];
}

async function runSuite(options: BenchOptions): Promise<BenchSection> {
  await ensureBuilt(options.log);
  const state = await mkdtemp(join(tmpdir(), 'dv-bench-state-'));
  const previousState = process.env['XDG_STATE_HOME'];
  try {
    const wall = await timeCliRuns(options, state);
    // DeviceSession writes its restore record under $XDG_STATE_HOME: keep it in the temp dir.
    process.env['XDG_STATE_HOME'] = state;
    const counted = await countRoundTrips(options);
    return render(wall, counted);
  } finally {
    if (previousState === undefined) delete process.env['XDG_STATE_HOME'];
    else process.env['XDG_STATE_HOME'] = previousState;
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

async function countRoundTrips(options: BenchOptions): Promise<{ open: readonly string[]; scenarios: Counted[]; close: readonly string[]; costs: UnitCosts }> {
  const config = await loadConfig(join(ROOT, 'fixtures', 'reference-app.config.json'));
  const dev = await startDeviceProcess();
  let adb: BenchAdbServer | undefined;
  let device: AdbDevice | undefined;
  // Every forced run of the suite, timed where it happens (the bench process only).
  let forced: ForcedRunCall[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with its harness below and put back
  const forceRun = DeviceHarness.prototype.forceRun;
  DeviceHarness.prototype.forceRun = async function timedForceRun(this: DeviceHarness, o?: ForceRunOptions): Promise<RunResult> {
    const started = process.hrtime.bigint();
    const result = await forceRun.call(this, o);
    forced.push({ probe: o?.probe === true, outcome: result.outcome, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    return result;
  };
  try {
    adb = await startBenchAdbServer();
    await adb.connect(dev.serial);
    const d = await AdbDevice.open({ serial: dev.serial, host: '127.0.0.1', port: adb.port });
    device = d;
    await dev.takeOpened();
    const session = await DeviceSession.open({ device: d, config, adb: { host: '127.0.0.1', port: adb.port }, progress: () => undefined });
    const open = await dev.takeOpened();
    const scenarios: Counted[] = [];
    for (const scenario of SCENARIOS) {
      forced = [];
      const outcome = await session.runScenario(scenario);
      const opened = await dev.takeOpened();
      scenarios.push({ name: scenario.name, opened, verdict: outcome.report.verdict, forced });
      options.log(`suite: ${scenario.name}: ${opened.length} round trips, ${forced.length} forced runs`);
    }
    await session.close();
    const close = await dev.takeOpened();
    forced = [];
    options.log('suite: unit costs');
    const costs = await measureUnitCosts(d, config, dev, options.quick ? 1 : 3);
    return { open, scenarios, close, costs };
  } finally {
    DeviceHarness.prototype.forceRun = forceRun;
    await device?.close().catch(() => undefined);
    await adb?.stop().catch(() => undefined);
    await dev.stop();
  }
}

async function medianOf(n: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push((await timeMs(fn)).ms);
  return median(samples);
}

async function measureUnitCosts(device: AndroidDevice, config: Config, dev: DeviceProcess, probes: number): Promise<UnitCosts> {
  const pkg = config.app.package;
  const ctx = await openHarnessContext(device, config);
  try {
    const h = ctx.harness('unit-costs');
    await h.forceStop();
    await h.startApp();
    await h.serveFeed([{ label: 'one', ageMs: 3_600_000 }]);
    await dev.takeOpened();
    const first = await h.forceRun();
    const oneForcedRun = await dev.takeOpened();
    if (first.outcome !== 'success') throw new Error(`the set-up run of the unit costs ended ${first.outcome}`);
    const date = await medianOf(UNIT_SAMPLES, () => readDeviceTimeMs(device));
    const readWork = await medianOf(UNIT_SAMPLES, () => readWorkSnapshot(device, config, workManagerWorkOf(config, 'the suite bench')));
    const shmPull = await medianOf(UNIT_SAMPLES, () => readAppFile(device, pkg, `${WORK_DB}-shm`));
    const feedDbPull = await medianOf(UNIT_SAMPLES, async () => (await pullDatabase(device, { pkg, db: tableDatabaseOf(config, 'the suite bench').file })).cleanup());
    const dumpsys = await medianOf(UNIT_SAMPLES, () => findJob(device, { pkg }));
    const workPull = await medianOf(UNIT_SAMPLES, async () => (await pullDatabase(device, { pkg, db: WORK_DB })).cleanup());
    await checkSameRows(device, pkg, WORK_DB, ['WorkSpec', 'SystemIdInfo', 'WorkName']);
    await checkSameRows(device, pkg, tableDatabaseOf(config, 'the suite bench').file, [tableDatabaseOf(config, 'the suite bench').table]);
    const workPullParallel = await medianOf(UNIT_SAMPLES, () => pullMainAndWalAtOnce(device, pkg, WORK_DB));
    // The run just made is not due again for a day: every forced run now is refused.
    const probe: number[] = [];
    const jobSettled: number[] = [];
    for (let i = 0; i < probes; i++) {
      const p = await timeMs(() => h.forceRun({ probe: true }));
      if (p.value.outcome !== 'refused') throw new Error(`a probe one second after a run was ${p.value.outcome}, not refused`);
      probe.push(p.ms);
      jobSettled.push(await timeJobSettled(device, config));
    }
    return { date, readWork, shmPull, feedDbPull, dumpsys, workPull, workPullParallel, probe, jobSettled, oneForcedRun };
  } finally {
    await ctx.close();
  }
}

/**
 * The copy pullDatabase makes (main and -wal into a host directory), with both reads in flight
 * at once and no -shm: what the proposed change to pullDatabase would cost. SQLite rebuilds the
 * wal-index of a copy from its -wal when there is no -shm ("a read-only WAL-mode database file
 * can be opened if the -shm and -wal files already exists or those files can be created",
 * sqlite.org/wal.html §"Read-Only Databases", SQLite 3.22.0+); checkSameRows proves it here.
 */
async function copyMainAndWalAtOnce(device: AndroidDevice, pkg: string, db: string, dir: string): Promise<string> {
  const [main, wal] = await Promise.all([readAppFile(device, pkg, db), readAppFile(device, pkg, `${db}-wal`)]);
  if (main === null) throw new Error(`${db} is missing`);
  const path = join(dir, 'copy.db');
  await writeFile(path, main);
  if (wal !== null) await writeFile(`${path}-wal`, wal);
  return path;
}

async function pullMainAndWalAtOnce(device: AndroidDevice, pkg: string, db: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'dv-bench-pull-'));
  try {
    await copyMainAndWalAtOnce(device, pkg, db, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The copy without -shm, opened read-only, has the same rows as pullDatabase's copy. */
async function checkSameRows(device: AndroidDevice, pkg: string, db: string, tables: readonly string[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'dv-bench-pull-'));
  const full = await pullDatabase(device, { pkg, db });
  try {
    const lean = await copyMainAndWalAtOnce(device, pkg, db, dir);
    const dump = (path: string): string =>
      withDatabase(path, true, (d) => JSON.stringify(tables.map((t) => d.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).safeIntegers(true).all()), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
    const a = dump(full.dbPath);
    const b = dump(lean);
    if (a !== b) throw new Error(`${db}: the copy without -shm reads differently from pullDatabase's copy`);
  } finally {
    await full.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What a refused run looks like from JobScheduler: `run -f` answers "Running job [FORCED]", the
 * job is `ready`/`pending`/`active` until WorkManager has decided, then `waiting` (or gone:
 * WorkManager re-registers a delayed periodic job). get-job-state tokens:
 * JobSchedulerService.getJobState (AOSP frameworks/base @f4cdb430).
 */
async function timeJobSettled(device: AndroidDevice, config: Config): Promise<number> {
  const pkg = config.app.package;
  const snapshot = await readWorkSnapshot(device, config, workManagerWorkOf(config, 'the suite bench'));
  const id = snapshot.primary?.systemId;
  if (id === undefined) throw new Error('no job id for the unique work');
  const job = await findJob(device, { pkg, jobId: id, serviceClass: WORKMANAGER_JOB_SERVICE });
  if (job === null) throw new Error(`job ${id} is not registered`);
  const started = process.hrtime.bigint();
  const run = await runJob(device, { pkg, id, namespace: job.namespace, force: true });
  if (run.result.kind !== 'running') throw new Error(`run -f answered ${run.stdout.trim()} ${run.stderr.trim()}`);
  for (let i = 0; i < 1000; i++) {
    const state = await getJobState(device, { pkg, id, namespace: job.namespace });
    const busy = state.kind === 'known' && state.states.some((s) => s === 'active' || s === 'pending' || s === 'ready');
    if (!busy) return Number(process.hrtime.bigint() - started) / 1e6;
  }
  throw new Error(`job ${id} stayed busy after 1000 get-job-state calls`);
}


function top(m: Map<string, number>, n: number): string {
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${v}× \`${k}\``)
    .join(', ');
}

const WORKDB_READ = 'shell: run-as cat no_backup/androidx.work.workdb';
const FEEDDB_READ = 'shell: run-as cat databases/feed.db';
const SHM_READS = ['shell: run-as cat no_backup/androidx.work.workdb-shm', 'shell: run-as cat databases/feed.db-shm'];
const DATE_READ = 'shell: date +%s%3N';

function render(
  wall: { walls: number[]; perScenario: Map<string, number[]>; verdicts: string[] },
  counted: { open: readonly string[]; scenarios: Counted[]; close: readonly string[]; costs: UnitCosts },
): BenchSection {
  const w = summarize(wall.walls);
  const forcedText = (calls: readonly ForcedRunCall[]): string => {
    const refused = calls.filter((c) => c.outcome === 'refused');
    return `${calls.length}${refused.length > 0 ? ` (${refused.length} refused, ${formatMs(refused.reduce((t, c) => t + c.ms, 0))})` : ''}`;
  };
  const rows = counted.scenarios.map((s) => {
    const times = wall.perScenario.get(s.name) ?? [];
    return [s.name, String(s.opened.length), forcedText(s.forced), times.length > 0 ? formatMs(median(times)) : '–', s.verdict, top(tallyServices(s.opened), 3)];
  });
  const totalTrips = counted.scenarios.reduce((n, s) => n + s.opened.length, 0) + counted.open.length + counted.close.length;
  const allForced = counted.scenarios.flatMap((s) => s.forced);
  rows.unshift(['(session open: checks, state save, server, reverse, logcat)', String(counted.open.length), '', '', '', top(tallyServices(counted.open), 3)]);
  rows.push(['(session close: restore)', String(counted.close.length), '', '', '', top(tallyServices(counted.close), 3)]);
  rows.push(['**total**', `**${totalTrips}**`, `**${forcedText(allForced)}**`, `**${formatMs(w.median)}** wall`, '', '']);
  const all = tallyServices([...counted.open, ...counted.scenarios.flatMap((s) => s.opened), ...counted.close]);
  const allRows = [...all.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => [`\`${k}\``, String(v)]);

  const c = counted.costs;
  const n = (k: string): number => all.get(k) ?? 0;
  const perRun = tallyServices(c.oneForcedRun);
  const refused = allForced.filter((f) => f.outcome === 'refused');
  const refusedMs = refused.length > 0 ? median(refused.map((f) => f.ms)) : median(c.probe);
  const settled = median(c.jobSettled);
  const waste: string[][] = [];
  if (refusedMs - settled > 1000) {
    waste.push([
      'a refused run is declared only after a fixed wait (`REFUSED_AFTER_MS` in `DeviceHarness.settle`)',
      `${refused.length} refused run(s)`,
      `${formatMs(refusedMs)} each`,
      `${formatMs(settled)}: \`run -f\`, then \`get-job-state\` until neither pending, ready nor active`,
      `≈ ${formatMs(refused.length * (refusedMs - settled))}`,
    ]);
  }
  const workdbPerRun = perRun.get(WORKDB_READ) ?? 0;
  if (workdbPerRun > 1) {
    waste.push([
      `WorkManager database read ${workdbPerRun}× per forced run`,
      `${allForced.length} forced runs`,
      `${workdbPerRun} × ${formatMs(c.readWork)}`,
      `1 × ${formatMs(c.readWork)}`,
      `≈ ${formatMs(allForced.length * (workdbPerRun - 1) * c.readWork)}`,
    ]);
  }
  const shm = SHM_READS.reduce((t, k) => t + n(k), 0);
  const copies = n(WORKDB_READ) + n(FEEDDB_READ);
  if (shm > 0) {
    waste.push([
      'database copies read main, -wal and -shm one after the other (`pullDatabase`)',
      `${copies} copies (${shm} -shm reads)`,
      `${formatMs(c.workPull)} per copy (workdb)`,
      `${formatMs(c.workPullParallel)}: main and -wal at once, no -shm (the copy reads the same rows: checked)`,
      `≈ ${formatMs(copies * Math.max(0, c.workPull - c.workPullParallel))}`,
    ]);
  }
  const dates = n(DATE_READ);
  if ((perRun.get(DATE_READ) ?? 0) > 0) {
    waste.push([
      `device time read with \`date +%s%3N\` each time it is needed (${perRun.get(DATE_READ) ?? 0} per forced run)`,
      `${dates} reads`,
      `${formatMs(c.date)} each`,
      'host clock + an offset the session keeps (measured once, reset on every `set-time`)',
      `≈ ${formatMs(dates * c.date)}`,
    ]);
  }
  const body = [
    `\`dedup-verify run --virtual\` (all ${counted.scenarios.length} scenarios, built CLI, embedded virtual device): **${formatMs(w.median)}** wall, median of ${w.n} (range ${formatMs(w.min)}–${formatMs(w.max)}); verdicts ${wall.verdicts.join(', ')}.`,
    '',
    'Round trips are counted on a second pass through `DeviceSession` (what `run` uses) against a virtual device in its own process that records each service the host opens; forced runs are counted by timing each `DeviceHarness.forceRun` call of that pass.',
    '',
    table(['scenario', 'adb round trips (OPENs)', 'forced runs', 'time (median of 3 CLI runs)', 'verdict', 'most opened'], rows, ['l', 'r', 'r', 'r', 'l', 'l']),
    '',
    'Round trips of the whole suite by service (top 15):',
    '',
    table(['service', 'OPENs'], allRows, ['l', 'r']),
    '',
    `One successful forced run opens ${c.oneForcedRun.length} services: ${top(perRun, 20)}.`,
    '',
    `Unit costs on this device (median of ${UNIT_SAMPLES}): \`date +%s%3N\` ${formatMs(c.date)}, WorkManager database read (copy + parse) ${formatMs(c.readWork)}, one \`-shm\` read ${formatMs(c.shmPull)}, \`feed.db\` copy ${formatMs(c.feedDbPull)}, \`dumpsys jobscheduler PKG\` ${formatMs(c.dumpsys)}; a refused probe ${formatMs(median(c.probe))} (median of ${c.probe.length}).`,
    '',
    'Waste the figures show (count in one suite × unit cost on this device; on a real device every round trip costs more):',
    '',
    waste.length > 0 ? table(['what', 'count in one suite', 'now', 'instead', 'suite time saved'], waste, ['l', 'r', 'r', 'l', 'r']) : 'none found.',
  ].join('\n');
  return {
    name: suite.name,
    title: suite.title,
    command: benchCommand(suite.name),
    body,
    headline: `${formatMs(w.median)} wall (median of ${w.n}), ${totalTrips} adb round trips, ${allForced.length} forced runs${refused.length > 0 ? `; each refused run takes ${formatMs(refusedMs)} where JobScheduler shows it after ${formatMs(settled)}` : ''}`,
  };
}
