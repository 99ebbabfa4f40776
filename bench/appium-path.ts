/**
 * Benchmark 9: the whole suite through the Appium path, on the loopback and on a slow link.
 *
 * `dedup-verify run --appium URL --device SERIAL --adb-port P --config …` (the built CLI) against
 * a virtual device in a process of its own (bench/lib/device-process.ts, `--latency MS`), reached
 * by a real local Appium 3 server with the UiAutomator2 driver (src/device/appium-server.ts,
 * `--allow-insecure uiautomator2:adb_shell`), both on a private adb server of the benchmark, as
 * specs/virtual/wdio-run-package.spec.ts does it end to end. At 0 ms and at 20 ms one way:
 *
 * - wall time of the CLI, and the same CLI without `--appium` (`run --device SERIAL`, the adb
 *   path) against the same kind of device process, so the price of the WebDriver hop is measured
 *   on the same machine, in the same rounds;
 * - what the Appium server received, from its own log (`--log-timestamp`, `--log-no-colors`):
 *   every HTTP request (`[HTTP] --> METHOD PATH`), the `mobile: …` script of each
 *   `execute/sync`, each request's server time (`[HTTP] <-- METHOD PATH STATUS N ms`), the adb
 *   client processes the driver started (`Running '…/adb …'`) and the requests it proxied to the
 *   device's UiAutomator2 server (`Proxying [METHOD PATH]`);
 * - the adb services the device opened (one OPEN each), as the other sections count them;
 * - one `adb -s SERIAL shell true` client process, the floor under each `mobile: shell`
 *   (the driver runs one `adb -P PORT -s SERIAL shell …` process per call,
 *   appium-android-driver lib/commands/shell.ts).
 *
 * Why 20 ms and not 100 ms: 20 ms is the latency section's middle value, so its adb-path row
 * compares with this one; it is a device behind USB or a LAN adb link, which is where a farm's
 * Appium server sits relative to its devices. `--latency` delays only what the device sends, so
 * on this path it slows the Appium server's adb and the CLI's adb companion (logcat stream,
 * `adb reverse`), not the WebDriver HTTP between the CLI and the server. The full suite takes
 * about 40–45 s through Appium at 20 ms, so every scenario runs and three rounds stay within a
 * few minutes; at 100 ms one run alone would take several minutes.
 *
 * Every round starts a fresh device process, adb server and Appium server per run, so each
 * Appium session installs the UiAutomator2 server and settings APKs as on a device that never
 * saw Appium; that is inside the session-creation time reported.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startLocalAppiumServer, type LocalAppiumServer } from '../src/device/appium-server.js';
import type { RunReport } from '../src/report/types.js';
import { SCENARIOS } from '../src/scenarios/index.js';
import { startBenchAdbServer, type BenchAdbServer } from './lib/adb-server.js';
import { BUILT_CLI, ensureBuilt } from './lib/build.js';
import { startDeviceProcess, type DeviceProcess } from './lib/device-process.js';
import { loadNow } from './lib/machine.js';
import { ROOT, freePort, runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, formatRatio, median, quantile } from './lib/stats.js';

/** One-way delays measured, in ms: the loopback and one slow link (see the module comment). */
const LATENCIES = [0, 20] as const;
type Latency = (typeof LATENCIES)[number];
/** Rounds (each: Appium and adb path at every latency); `--quick`: one. */
const ROUNDS = 3;
/** `adb shell true` processes timed after each Appium run. */
const ADB_SHELL_SAMPLES = 10;
const CONFIG = join(ROOT, 'fixtures', 'reference-app.config.json');
/** A CLI run that takes longer than this is stopped and the benchmark fails. */
const CLI_TIMEOUT_MS = 900_000;

export const appiumPath: Benchmark = {
  name: 'appium-path',
  title: 'The suite through Appium (`run --appium`) on the loopback and on a 20 ms link',
  summary:
    '`dedup-verify run --appium` through a local Appium 3 server (UiAutomator2) against a virtual device at 0 and 20 ms one-way: wall time, WebDriver requests, adb services, against `run --device` over adb',
  run: runAppiumPath,
};

/** What the Appium server's log says about one run. */
interface AppiumLogFigures {
  /** `[HTTP] -->` lines: every request the server received. */
  readonly requests: number;
  /** Requests by `METHOD route` (session ids as `:id`; `execute/sync` by its script). */
  readonly byRoute: ReadonlyMap<string, number>;
  readonly mobileShell: number;
  /** Server time of each `mobile: shell` (its `<--` line). */
  readonly shellMs: readonly number[];
  /** Time at least one `mobile: shell` was in the server (the union of their spans). */
  readonly shellBusyMs: number;
  /** Server time of `POST /session` (the driver's session set-up). */
  readonly createMs: number;
  /** Time at least one other request (status, push_file, `DELETE /session`) was in the server. */
  readonly otherBusyMs: number;
  /** Time at least one request of any kind was in the server. */
  readonly busyMs: number;
  /** `Running '…/adb …'` / `Creating ADB subprocess` lines: adb client processes the driver started (its own and one per `mobile: shell`). */
  readonly adbCommands: number;
  /** …of them during `POST /session`. */
  readonly adbCommandsInCreate: number;
  /** Requests the driver proxied to the UiAutomator2 server on the device. */
  readonly proxied: number;
  /**
   * Commands that came in while another command of the session was running and waited for it:
   * the base driver runs one command of a session at a time (@appium/base-driver
   * lib/basedriver/driver.ts, its commands queue).
   */
  readonly queued: number;
  /** Timestamp of the first request (ms since the epoch). */
  readonly firstRequestAt: number;
}

/** The CLI's closing line per device: what went over WebDriver and over the adb companion. */
interface Traffic {
  readonly shell: number;
  readonly pullFile: number;
  readonly pushFile: number;
  readonly logcatStreams: number;
  readonly reverseRules: number;
}

interface CliRun {
  readonly ms: number;
  readonly code: number;
  readonly verdict: string;
  readonly scenarios: number;
  /** Forced runs of the suite (history `run-started` events). */
  readonly forcedRuns: number;
  /** Services the device opened during the CLI run. */
  readonly opened: readonly string[];
}

interface AppiumRun extends CliRun {
  readonly log: AppiumLogFigures;
  readonly traffic: Traffic | undefined;
  /** From the CLI's spawn to the server's first request. */
  readonly beforeFirstRequestMs: number;
  readonly adbShellMs: readonly number[];
}

interface AtLatency {
  readonly latencyMs: Latency;
  readonly appium: AppiumRun[];
  readonly adb: CliRun[];
}

interface Installed {
  readonly appium: string;
  readonly driver: string;
}

/**
 * The version of an installed package, looked up as Node resolves a bare name from the project
 * root (node_modules folders upwards); its package.json is read directly, since some packages
 * (webdriverio) do not export it.
 */
function installedVersion(name: string): string | undefined {
  for (let dir = ROOT; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '?';
    if (dirname(dir) === dir) return undefined;
  }
}

/** appium 3, appium-uiautomator2-driver and webdriverio must be installed: a missing one is an error, never a skip. */
function requireAppium(): Installed {
  const version = (name: string): string => {
    const v = installedVersion(name);
    if (v === undefined) {
      throw new Error(
        `appium-path needs ${name}, which is not installed in ${ROOT}/node_modules: run \`npm install\` (appium, appium-uiautomator2-driver and webdriverio are devDependencies of this project).`,
      );
    }
    return v;
  };
  const appium = version('appium');
  const driver = version('appium-uiautomator2-driver');
  version('webdriverio');
  if (!appium.startsWith('3.')) throw new Error(`appium-path needs Appium 3; node_modules/appium is ${appium}: run \`npm install\`.`);
  return { appium, driver };
}

/** The server says it loaded the UiAutomator2 driver (before its ready line, appium lib/main.ts), or this is an error. */
function requireDriverLoaded(server: LocalAppiumServer): void {
  const log = server.log();
  if (!/\[Appium\] AndroidUiautomator2Driver has been successfully loaded/.test(log)) {
    const lines = log.split('\n').filter((l) => /driver/i.test(l));
    throw new Error(`the Appium server on port ${server.port} did not load the uiautomator2 driver (appium-uiautomator2-driver in ${ROOT}/node_modules). Its lines about drivers:\n${lines.join('\n')}`);
  }
}

async function runAppiumPath(options: BenchOptions): Promise<BenchSection> {
  const installed = requireAppium();
  await ensureBuilt(options.log);
  const state = await mkdtemp(join(tmpdir(), 'dv-bench-state-'));
  const rounds = options.quick ? 1 : ROUNDS;
  const results: AtLatency[] = LATENCIES.map((latencyMs) => ({ latencyMs, appium: [], adb: [] }));
  const load = loadNow();
  try {
    // Interleaved, so that a change of load on the machine touches every column alike.
    for (let round = 0; round < rounds; round++) {
      for (const at of results) {
        const a = await timeAppiumRun(at.latencyMs, state);
        at.appium.push(a);
        options.log(
          `appium-path ${at.latencyMs} ms, round ${round + 1}/${rounds}: run --appium ${formatMs(a.ms)}, exit ${a.code}, verdict ${a.verdict}; ${a.log.requests} WebDriver requests (${a.log.mobileShell} mobile: shell), ${a.opened.length} adb services (load ${loadNow()})`,
        );
      }
      for (const at of results) {
        const d = await timeAdbRun(at.latencyMs, state);
        at.adb.push(d);
        options.log(`appium-path ${at.latencyMs} ms, round ${round + 1}/${rounds}: run --device (adb path) ${formatMs(d.ms)}, exit ${d.code}, verdict ${d.verdict}; ${d.opened.length} adb services`);
      }
    }
  } finally {
    await rm(state, { recursive: true, force: true });
  }
  return render(results, installed, rounds, load);
}

/** A device process at this latency on a fresh private adb server, connected. */
async function startDevice(latencyMs: number): Promise<{ dev: DeviceProcess; adb: BenchAdbServer }> {
  const dev = await startDeviceProcess({ latencyMs });
  try {
    const adb = await startBenchAdbServer();
    try {
      await adb.connect(dev.serial);
      return { dev, adb };
    } catch (e) {
      await adb.stop().catch(() => undefined);
      throw e;
    }
  } catch (e) {
    await dev.stop();
    throw e;
  }
}

/** report.json of a run, or why there is none, and the forced runs its history holds. */
async function readVerdict(out: string, stderr: string): Promise<{ verdict: string; scenarios: number; forcedRuns: number }> {
  const report = await readFile(join(out, 'report.json'), 'utf8').then(
    (text) => JSON.parse(text) as RunReport,
    () => undefined,
  );
  const history = await readFile(join(out, 'history.jsonl'), 'utf8').catch(() => '');
  const forcedRuns = history.split('\n').filter((line) => line.includes('"type":"run-started"')).length;
  if (report === undefined) return { verdict: `none (${stderr.trim().split('\n').at(-1) ?? ''})`, scenarios: 0, forcedRuns };
  return { verdict: report.verdict, scenarios: report.scenarios.length, forcedRuns };
}

/** A run that could not decide (exit 2) measured nothing worth keeping: the benchmark fails. */
function requireDecided(what: string, code: number, stderr: string): void {
  if (code === 2 || code < 0 || code > 1) throw new Error(`${what} exited ${code}: ${stderr.trim().split('\n').slice(-8).join('\n')}`);
}

async function timeAppiumRun(latencyMs: number, state: string): Promise<AppiumRun> {
  const out = await mkdtemp(join(tmpdir(), 'dv-bench-appium-'));
  const started = await startDevice(latencyMs).catch(async (e: unknown) => {
    await rm(out, { recursive: true, force: true });
    throw e;
  });
  const { dev, adb } = started;
  let server: LocalAppiumServer | undefined;
  try {
    // The server's adb calls all carry -P; the environment names the same port for any that would not.
    server = await startLocalAppiumServer({ port: await freePort(), args: ['--log-timestamp'], env: adb.env });
    requireDriverLoaded(server);
    const url = `http://127.0.0.1:${server.port}`;
    await dev.takeOpened();
    const spawnedAt = Date.now();
    const args = [BUILT_CLI, 'run', '--appium', url, '--device', dev.serial, '--adb-port', String(adb.port), '--config', CONFIG, '--out', out];
    const r = await runProcess(process.execPath, args, { env: { ...adb.env, XDG_STATE_HOME: state }, timeoutMs: CLI_TIMEOUT_MS });
    const opened = await dev.takeOpened();
    requireDecided(`dedup-verify run --appium ${url} --device ${dev.serial} at ${latencyMs} ms`, r.code, r.stderr);
    const adbShellMs: number[] = [];
    for (let i = 0; i < ADB_SHELL_SAMPLES; i++) {
      const s = await adb.adb(['-s', dev.serial, 'shell', 'true']);
      if (s.code !== 0) throw new Error(`adb -s ${dev.serial} shell true exited ${s.code}: ${s.stderr.trim()}`);
      adbShellMs.push(s.ms);
    }
    const log = parseAppiumLog(server.log());
    return {
      ms: r.ms,
      code: r.code,
      ...(await readVerdict(out, r.stderr)),
      opened,
      log,
      traffic: parseTraffic(r.stderr),
      beforeFirstRequestMs: log.firstRequestAt - spawnedAt,
      adbShellMs,
    };
  } finally {
    // The Appium server goes first: it talks to the adb server until it stops.
    await server?.stop();
    await adb.stop().catch(() => undefined);
    await dev.stop();
    await rm(out, { recursive: true, force: true });
  }
}

/** The same suite over adb only (`run --device SERIAL`), against the same kind of device process. */
async function timeAdbRun(latencyMs: number, state: string): Promise<CliRun> {
  const out = await mkdtemp(join(tmpdir(), 'dv-bench-appium-adb-'));
  const started = await startDevice(latencyMs).catch(async (e: unknown) => {
    await rm(out, { recursive: true, force: true });
    throw e;
  });
  const { dev, adb } = started;
  try {
    await dev.takeOpened();
    const args = [BUILT_CLI, 'run', '--device', dev.serial, '--adb-port', String(adb.port), '--config', CONFIG, '--out', out];
    const r = await runProcess(process.execPath, args, { env: { ...adb.env, XDG_STATE_HOME: state }, timeoutMs: CLI_TIMEOUT_MS });
    const opened = await dev.takeOpened();
    requireDecided(`dedup-verify run --device ${dev.serial} at ${latencyMs} ms`, r.code, r.stderr);
    return { ms: r.ms, code: r.code, ...(await readVerdict(out, r.stderr)), opened };
  } finally {
    await adb.stop().catch(() => undefined);
    await dev.stop();
    await rm(out, { recursive: true, force: true });
  }
}

/** `2026-12-01 20:36:13:267 - …` (`--log-timestamp`: UTC, milliseconds after a colon). */
const STAMPED = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d):(\d{3}) - (.*)$/;
const REQUEST_IN = /\[HTTP\] --> ([A-Z]+) (\S+)(?: (.*))?$/;
const REQUEST_OUT = /\[HTTP\] <-- ([A-Z]+) (\S+) \S+ (\d+) ms\b/;
const ADB_COMMAND = /Running '\S*\badb |Creating ADB subprocess/;
const PROXIED = /Proxying \[[A-Z]+ /;
const QUEUED = /Scheduling the '[^']+' command to the \S+ commands queue/;

/** `POST /session/<id>/execute/sync` → `POST /session/:id/execute/sync`. */
function route(method: string, path: string): string {
  return `${method} ${path.replace(/^\/session\/[^/]+/, '/session/:id')}`;
}

/** Total length of the union of [start, end] spans. */
function unionMs(spans: readonly (readonly [number, number])[]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const [s, e] of sorted) {
    if (s > end) {
      if (end > start) total += end - start;
      start = s;
      end = e;
    } else if (e > end) {
      end = e;
    }
  }
  if (end > start) total += end - start;
  return total;
}

export function parseAppiumLog(text: string): AppiumLogFigures {
  const byRoute = new Map<string, number>();
  const shellSpans: [number, number][] = [];
  const otherSpans: [number, number][] = [];
  const shellMs: number[] = [];
  // Scripts of the execute/sync requests in the order they came in; their replies name no script.
  const pendingScripts: string[] = [];
  let requests = 0;
  let createMs = 0;
  let createSpan: [number, number] | undefined;
  let adbCommands = 0;
  let adbCommandsInCreate = 0;
  let inCreate = false;
  let proxied = 0;
  let queued = 0;
  let firstRequestAt = NaN;
  for (const line of text.split('\n')) {
    const stamped = STAMPED.exec(line);
    if (stamped === null) continue;
    const [, day = '', time = '', millis = '', message = ''] = stamped;
    const at = Date.parse(`${day}T${time}.${millis}Z`);
    if (ADB_COMMAND.test(message)) {
      adbCommands++;
      if (inCreate) adbCommandsInCreate++;
      continue;
    }
    if (PROXIED.test(message)) {
      proxied++;
      continue;
    }
    if (QUEUED.test(message)) {
      queued++;
      continue;
    }
    const incoming = REQUEST_IN.exec(message);
    if (incoming !== null) {
      const [, method = '', path = '', body = ''] = incoming;
      requests++;
      if (Number.isNaN(firstRequestAt)) firstRequestAt = at;
      let key = route(method, path);
      if (key === 'POST /session') inCreate = true;
      if (key.endsWith('/execute/sync')) {
        const script = /"script":"([^"]*)"/.exec(body)?.[1] ?? '?';
        key = `${key} (${script})`;
        pendingScripts.push(script);
      }
      byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
      continue;
    }
    const outgoing = REQUEST_OUT.exec(message);
    if (outgoing !== null) {
      const [, method = '', path = '', ms = '0'] = outgoing;
      const took = Number(ms);
      const span: [number, number] = [at - took, at];
      const key = route(method, path);
      if (key === 'POST /session') {
        inCreate = false;
        createMs = took;
        createSpan = span;
      } else if (key.endsWith('/execute/sync') && pendingScripts.shift() === 'mobile: shell') {
        shellMs.push(took);
        shellSpans.push(span);
      } else {
        otherSpans.push(span);
      }
    }
  }
  const all = [...shellSpans, ...otherSpans, ...(createSpan === undefined ? [] : [createSpan])];
  return {
    requests,
    byRoute,
    mobileShell: [...byRoute].filter(([k]) => k.endsWith('(mobile: shell)')).reduce((n, [, v]) => n + v, 0),
    shellMs,
    shellBusyMs: unionMs(shellSpans),
    createMs,
    otherBusyMs: unionMs(otherSpans),
    busyMs: unionMs(all),
    adbCommands,
    adbCommandsInCreate,
    proxied,
    queued,
    firstRequestAt,
  };
}

/** `SERIAL: over WebDriver: mobile: shell ×N, pullFile ×N, pushFile ×N; over adb H:P: logcat stream ×N, reverse rules ×N` (src/cli/commands/run-appium.ts). */
function parseTraffic(stderr: string): Traffic | undefined {
  const m = /over WebDriver: mobile: shell ×(\d+), pullFile ×(\d+), pushFile ×(\d+); over adb \S+: logcat stream ×(\d+), reverse rules ×(\d+)/.exec(stderr);
  if (m === null) return undefined;
  const [, shell = '0', pullFile = '0', pushFile = '0', logcatStreams = '0', reverseRules = '0'] = m;
  return { shell: Number(shell), pullFile: Number(pullFile), pushFile: Number(pushFile), logcatStreams: Number(logcatStreams), reverseRules: Number(reverseRules) };
}

/** The project's goal: the suite in at most this many WebDriver calls on the Appium path (as many as its adb round trips). */
const GOAL_WEBDRIVER_CALLS = 120;

/** `figure(run) / forced runs` per run, as a median (and its range). */
function perForcedRun(runs: readonly CliRun[], figure: (r: AppiumRun) => number): string {
  const xs = (runs as readonly AppiumRun[]).filter((r) => r.forcedRuns > 0).map((r) => figure(r) / r.forcedRuns);
  if (xs.length === 0) return '–';
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? lo.toFixed(1) : `${median(xs).toFixed(1)} (${lo.toFixed(1)}–${hi.toFixed(1)})`;
}

function goalLine(results: readonly AtLatency[]): string {
  const most = Math.max(...results.flatMap((at) => at.appium.map((r) => r.log.requests)));
  return Number.isFinite(most) ? `${most <= GOAL_WEBDRIVER_CALLS ? 'met' : 'not met'}: at most ${most} per suite here` : 'not measured';
}

function render(results: readonly AtLatency[], installed: Installed, rounds: number, load: string): BenchSection {
  const med = (xs: readonly number[]): number => (xs.length === 0 ? NaN : median(xs));
  const quantileOr = (xs: readonly number[], q: number): number => (xs.length === 0 ? NaN : quantile(xs, q));
  const spread = (xs: readonly number[]): string =>
    xs.length === 1 ? formatMs(xs[0] ?? NaN) : `${formatMs(med(xs))} (median of ${xs.length}; ${formatMs(Math.min(...xs))}–${formatMs(Math.max(...xs))})`;
  const counts = (xs: readonly number[]): string => (Math.min(...xs) === Math.max(...xs) ? String(xs[0]) : `${med(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`);
  const verdicts = (runs: readonly CliRun[]): string => {
    const failed = runs.filter((r) => r.code !== 0).length;
    return `${[...new Set(runs.map((r) => r.verdict))].join(', ')}${failed > 0 ? ` (${failed} exited non-zero)` : ''}`;
  };
  const wall = (at: AtLatency | undefined, leg: 'appium' | 'adb'): number => (at === undefined ? NaN : med(at[leg].map((r) => r.ms)));
  const base = results.find((r) => r.latencyMs === 0);
  const slow = results.find((r) => r.latencyMs !== 0);
  const slowMs = slow?.latencyMs ?? NaN;

  const main = results.map((at) => {
    const aWall = wall(at, 'appium');
    const dWall = wall(at, 'adb');
    return [
      `${at.latencyMs} ms`,
      spread(at.appium.map((r) => r.ms)),
      at.latencyMs === 0 ? '1×' : formatRatio(aWall / wall(base, 'appium')),
      spread(at.adb.map((r) => r.ms)),
      at.latencyMs === 0 ? '1×' : formatRatio(dWall / wall(base, 'adb')),
      formatRatio(aWall / dWall),
      `${verdicts(at.appium)} / ${verdicts(at.adb)}`,
      counts(at.appium.map((r) => r.log.requests)),
      perForcedRun(at.appium, (r) => r.log.requests),
      counts(at.appium.map((r) => r.log.mobileShell)),
      counts(at.appium.map((r) => r.opened.length)),
      counts(at.adb.map((r) => r.opened.length)),
    ];
  });

  const where = results.map((at) => {
    const a = at.appium;
    const w = med(a.map((r) => r.ms));
    const part = (xs: readonly number[]): string => {
      const m = med(xs);
      return `${formatMs(m)} (${((m / w) * 100).toFixed(0)} %)`;
    };
    const rest = a.map((r) => r.ms - r.log.busyMs - Math.max(0, r.beforeFirstRequestMs));
    return [
      `${at.latencyMs} ms`,
      formatMs(w),
      part(a.map((r) => Math.max(0, r.beforeFirstRequestMs))),
      `${part(a.map((r) => r.log.createMs))}; ${counts(a.map((r) => r.log.adbCommandsInCreate))} adb commands, ${counts(a.map((r) => r.log.proxied))} requests to the UiAutomator2 server`,
      part(a.map((r) => r.log.shellBusyMs)),
      `${formatMs(med(a.flatMap((r) => r.log.shellMs)))} (p90 ${formatMs(quantileOr(a.flatMap((r) => r.log.shellMs), 0.9))}); ${counts(a.map((r) => r.log.queued))} waited for another command`,
      formatMs(med(a.flatMap((r) => r.adbShellMs))),
      part(a.map((r) => r.log.otherBusyMs)),
      part(rest),
    ];
  });

  const routes = new Map<string, number[]>();
  const firstRound = results.map((at) => at.appium[0]);
  for (const [i, r] of firstRound.entries()) {
    if (r === undefined) continue;
    for (const [k, n] of r.log.byRoute) {
      const row = routes.get(k) ?? results.map(() => 0);
      row[i] = n;
      routes.set(k, row);
    }
  }
  const routeRows = [...routes].sort((x, y) => (y[1][0] ?? 0) - (x[1][0] ?? 0)).map(([k, ns]) => [`\`${k}\``, ...ns.map(String)]);

  const trafficNotes = results.map((at) => {
    const t = at.appium.map((r) => r.traffic).filter((x): x is Traffic => x !== undefined);
    const logShell = at.appium.map((r) => r.log.mobileShell);
    const cliShell = t.map((x) => x.shell);
    const agree = t.length === at.appium.length && cliShell.every((n, i) => n === logShell[i]);
    const one = t[0];
    return one === undefined
      ? `at ${at.latencyMs} ms the CLI printed no traffic line`
      : `at ${at.latencyMs} ms the CLI counted mobile: shell ×${counts(cliShell)}, pullFile ×${one.pullFile}, pushFile ×${one.pushFile} over WebDriver and logcat stream ×${one.logcatStreams}, reverse rules ×${one.reverseRules} over its adb companion (${agree ? 'the same mobile: shell count as the server log' : `the server log says ${logShell.join(', ')}`})`;
  });

  const aRatio = wall(slow, 'appium') / wall(base, 'appium');
  const dRatio = wall(slow, 'adb') / wall(base, 'adb');
  const shellExtra = med(slow?.appium.flatMap((r) => r.log.shellMs) ?? []) - med(base?.appium.flatMap((r) => r.log.shellMs) ?? []);
  const body = [
    `The whole suite (${SCENARIOS.length} scenarios, every one) through \`run --appium\`: **${formatMs(wall(base, 'appium'))}** on the loopback, **${formatMs(wall(slow, 'appium'))}** on a ${slowMs} ms one-way link (${formatRatio(aRatio)}); over adb (\`run --device\`, same device process) ${formatMs(wall(base, 'adb'))} and ${formatMs(wall(slow, 'adb'))} (${formatRatio(dRatio)}). The Appium path costs ${formatRatio(wall(base, 'appium') / wall(base, 'adb'))} the adb path at 0 ms and ${formatRatio(wall(slow, 'appium') / wall(slow, 'adb'))} at ${slowMs} ms.`,
    '',
    `Method: per run a fresh virtual device in its own process (\`--latency MS\`: every packet the device sends is held MS ms), a fresh private adb server, and for the Appium leg a fresh local Appium ${installed.appium} server with appium-uiautomator2-driver ${installed.driver} (\`--allow-insecure uiautomator2:adb_shell --log-timestamp\`), then the built CLI: \`dedup-verify run --appium URL --device SERIAL --adb-port P --config fixtures/reference-app.config.json\`, and for the adb leg the same without \`--appium\`. ${rounds} round${rounds === 1 ? '' : 's'}, each running Appium at ${LATENCIES.join(' and ')} ms, then adb at ${LATENCIES.join(' and ')} ms; wall time from the CLI's spawn to its exit. WebDriver requests and their server times are read from the Appium server's own log (\`[HTTP] -->\` / \`[HTTP] <-- … N ms\` lines); adb services are the OPENs the device process recorded during the CLI run (Appium's session set-up, its \`mobile: shell\` calls, the CLI's own logcat stream and reverse rules). Each Appium session installs the UiAutomator2 server and settings APKs, as on a device that never saw Appium. 1-minute load average at the start: ${load}.`,
    '',
    table(
      [
        'one-way latency',
        'suite wall, `run --appium`',
        '× 0 ms',
        'suite wall, `run --device` (adb)',
        '× 0 ms',
        'Appium ÷ adb',
        'verdicts (Appium / adb)',
        'WebDriver requests (suite)',
        'WebDriver requests per forced run',
        '`mobile: shell` calls',
        'adb services opened (Appium)',
        'adb services opened (adb)',
      ],
      main,
      ['r', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Goal: the suite in at most ${GOAL_WEBDRIVER_CALLS} WebDriver requests (as many as its adb round trips may be); ${goalLine(results)}. "Per forced run": the suite's requests divided by its forced runs (history \`run-started\` events), the session's set-up included.`,
    '',
    'Where the Appium run\'s time goes (medians over the runs; shares of the median wall time). "Before the first request": the CLI\'s start, its checks, the adb companion. "Session set-up": the server time of `POST /session` (the driver\'s adb commands, the APK installs, starting the UiAutomator2 server on the device). "`mobile: shell` busy": time at least one `mobile: shell` was in the server, queueing included; each runs one `adb shell` client process on the Appium host. "No request in the server": the CLI\'s own work and waits between requests (the logcat stream, the app\'s runs, the fixture server).',
    '',
    table(
      [
        'one-way latency',
        'wall',
        'before the first request',
        'session set-up (`POST /session`)',
        '`mobile: shell` busy',
        'one `mobile: shell`, server time (median); commands that waited in the session\'s queue',
        'one `adb shell true` process',
        'other requests',
        'no request in the server',
      ],
      where,
      ['r', 'r', 'r', 'l', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `One \`mobile: shell\` takes ${formatMs(shellExtra)} longer in the server at ${slowMs} ms than at 0 ms (${(shellExtra / slowMs).toFixed(1)} × the one-way delay). Requests the server received, by route, in the first round:`,
    '',
    table(['request', ...results.map((r) => `at ${r.latencyMs} ms`)], routeRows, ['l', ...results.map((): 'r' => 'r')]),
    '',
    `Cross-check: ${trafficNotes.join('; ')}. adb client processes the driver started per run (all, of them in \`POST /session\`): ${results.map((at) => `${counts(at.appium.map((r) => r.log.adbCommands))} / ${counts(at.appium.map((r) => r.log.adbCommandsInCreate))} at ${at.latencyMs} ms`).join('; ')}.`,
  ].join('\n');
  return {
    name: appiumPath.name,
    title: appiumPath.title,
    command: benchCommand(appiumPath.name),
    body,
    headline: `suite through Appium ${formatMs(wall(base, 'appium'))} at 0 ms, ${formatMs(wall(slow, 'appium'))} at ${slowMs} ms one-way (${formatRatio(aRatio)}); over adb ${formatMs(wall(base, 'adb'))} / ${formatMs(wall(slow, 'adb'))} (${formatRatio(dRatio)}); ${results.map((at) => counts(at.appium.map((r) => r.log.requests))).join(' / ')} WebDriver requests (${results.map((at) => counts(at.appium.map((r) => r.log.mobileShell))).join(' / ')} mobile: shell), ${results.map((at) => counts(at.appium.map((r) => r.opened.length))).join(' / ')} adb services`,
  };
}
