/**
 * `dedup-verify run` (DESIGN.md §9): resolves the config and the devices (or starts the
 * embedded virtual device), runs the scenarios on every device in parallel (each device leased
 * by one session that restores it at the end, also on SIGINT/SIGTERM), writes the reports and
 * returns the exit code of the merged verdict.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ConfigError, UsageError, describeError } from '../../errors.js';
import { loadConfig } from '../../config/load-config.js';
import { DEFAULT_CONFIG_FILE, type Config } from '../../config/types.js';
import { SCENARIOS } from '../../scenarios/index.js';
import { parseShard, selectScenarios } from '../../scenario/select.js';
import type { Scenario } from '../../scenario/types.js';
import type { HistoryEvent } from '../../history/events.js';
import type { ReproStep } from '../../scenario/actions.js';
import type { DeviceReport, RunReport, ScenarioReport } from '../../report/types.js';
import { aggregateScenarios, mergeScenarioVerdicts } from '../../report/merge.js';
import { exitCodeFor, mergeVerdicts } from '../../checker/verdict.js';
import { renderConsoleReport } from '../../report/console.js';
import { renderJsonReport, writeJsonReport } from '../../report/json.js';
import { writeJunit } from '../../report/junit.js';
import { VERSION } from '../../version.js';
import { AdbEndpointResolver, type ResolvedDevices } from './run-devices.js';
import type { CliIo } from '../main.js';

export interface RunOptions {
  config?: string;
  device: string[];
  allDevices: boolean;
  virtual: boolean;
  bug: string[];
  api?: number;
  scenario: string[];
  shard?: string;
  repeat: number;
  infraRetries: number;
  adbHost: string;
  adbPort?: number;
  out?: string;
  json: boolean;
}

function readRunOptions(opts: Record<string, unknown>): RunOptions {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const o: RunOptions = {
    device: strings(opts['device']),
    allDevices: opts['allDevices'] === true,
    virtual: opts['virtual'] === true,
    bug: strings(opts['bug']),
    scenario: strings(opts['scenario']),
    repeat: typeof opts['repeat'] === 'number' ? opts['repeat'] : 1,
    infraRetries: typeof opts['infraRetries'] === 'number' ? opts['infraRetries'] : 0,
    adbHost: typeof opts['adbHost'] === 'string' ? opts['adbHost'] : '127.0.0.1',
    json: opts['json'] === true,
  };
  if (typeof opts['config'] === 'string') o.config = opts['config'];
  if (typeof opts['api'] === 'number') o.api = opts['api'];
  if (typeof opts['shard'] === 'string') o.shard = opts['shard'];
  if (typeof opts['adbPort'] === 'number') o.adbPort = opts['adbPort'];
  if (typeof opts['out'] === 'string') o.out = opts['out'];
  if (o.repeat < 1) throw new UsageError(`--repeat takes a number of at least 1 (got ${o.repeat}).`);
  if (o.infraRetries < 0) throw new UsageError(`--infra-retries takes 0 or more (got ${o.infraRetries}).`);
  const targets = [o.virtual, o.allDevices, o.device.length > 0].filter(Boolean).length;
  if (targets > 1) throw new UsageError('Use one of --virtual, --all-devices or --device SERIAL.');
  if (o.bug.length > 0 && !o.virtual) throw new UsageError('--bug switches a bug of the reference app on the virtual device: use it with --virtual.');
  if (o.api !== undefined && !o.virtual) throw new UsageError('--api picks the API level of the virtual device: use it with --virtual.');
  return o;
}

/** The package root (for fixtures/reference-app.config.json), from src/ or dist/src/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'fixtures', 'reference-app.config.json'))) return dir;
    dir = dirname(dir);
  }
  throw new ConfigError('The reference-app config (fixtures/reference-app.config.json) is missing from this installation; reinstall dedup-verify.');
}

export function referenceAppConfigPath(): string {
  return join(packageRoot(), 'fixtures', 'reference-app.config.json');
}

async function resolveConfig(o: RunOptions): Promise<Config> {
  if (o.config !== undefined) return loadConfig(o.config);
  if (o.virtual) return loadConfig(referenceAppConfigPath());
  if (!existsSync(DEFAULT_CONFIG_FILE)) {
    throw new ConfigError(
      `No ${DEFAULT_CONFIG_FILE} in ${process.cwd()}. Pass --config FILE, write one with \`dedup-verify init --device SERIAL --package PKG\`, or try \`dedup-verify run --virtual\`.`,
    );
  }
  return loadConfig(DEFAULT_CONFIG_FILE);
}

export async function runRun(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const o = readRunOptions(opts);
  const config = await resolveConfig(o);
  const scenarios = selectScenarios(SCENARIOS, o.scenario, o.shard === undefined ? undefined : parseShard(o.shard));
  const startedAt = new Date();
  const t0 = performance.now();
  const progress = (text: string): void => io.stderr(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${text}\n`);
  const out = o.out === undefined ? undefined : resolve(o.out);
  if (out !== undefined) await mkdir(out, { recursive: true });

  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    progress(`${sig}: stopping after the current step and restoring the devices`);
    stop.abort(new Error(`interrupted by ${sig}`));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const resolver = new AdbEndpointResolver(o, progress);
  let devices: ResolvedDevices | undefined;
  try {
    devices = await resolver.resolve();
    const perDevice = await Promise.all(
      devices.serials.map((serial) => runOnDevice(serial, { config, scenarios, options: o, devices: devices!, progress, out, signal: stop.signal })),
    );
    const scenarioReports = perDevice.flatMap((d) => d.scenarios);
    const deviceReports = perDevice.map((d) => d.device);
    const verdict = mergeVerdicts([mergeScenarioVerdicts(scenarioReports.map((s) => s.verdict)), ...deviceReports.map((d) => (d.tainted ? 'unknown' : 'pass' as const))]);
    const report: RunReport = {
      verdict: stop.signal.aborted ? mergeVerdicts([verdict, 'unknown']) : verdict,
      device: devices.serials.join(', '),
      app: { package: config.app.package },
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - t0),
      scenarios: scenarioReports,
      devices: deviceReports,
      ...(devices.serials.length > 1 || o.repeat > 1 ? { aggregate: aggregateScenarios(scenarioReports) } : {}),
      tool: { name: 'dedup-verify', version: VERSION },
    };
    if (out !== undefined) {
      await writeJsonReport(join(out, 'report.json'), report);
      await writeJunit(join(out, 'junit.xml'), report);
      await writeHistory(join(out, 'history.jsonl'), perDevice.flatMap((d) => d.history), config);
      const { writeHtmlReport } = await import('../../report/html.js');
      await writeHtmlReport(out, report, { onWarning: (t) => progress(`warning: ${t}`) });
      const failing = perDevice.flatMap((d) => d.history).filter((h) => h.verdict !== 'pass' && h.verdict !== 'skipped' && h.repro.length > 0);
      if (failing.length > 0) {
        const { writeReproScripts } = await import('../../report/repro.js');
        const scripts = await writeReproScripts(
          out,
          failing.map((h) => ({ scenario: h.scenario, device: h.device, pkg: config.app.package, feedDevicePort: config.feed.devicePort, steps: h.repro, anomalies: h.anomalies })),
        );
        progress(`repro scripts: ${scripts.map((p) => relative(out, p)).join(', ')}`);
      }
    }
    if (o.json) io.stdout(renderJsonReport(report));
    else io.stdout(renderConsoleReport(report));
    if (out !== undefined) progress(`reports in ${out}`);
    return exitCodeFor(report.verdict);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await resolver.close();
  }
}

interface DeviceRun {
  readonly scenarios: ScenarioReport[];
  readonly device: DeviceReport;
  readonly history: {
    scenario: string;
    device: string;
    allowedDuplicates: number;
    checkOrder: boolean;
    events: readonly HistoryEvent[];
    verdict: ScenarioReport['verdict'];
    anomalies: ScenarioReport['anomalies'];
    repro: readonly ReproStep[];
  }[];
}

async function runOnDevice(
  serial: string,
  ctx: {
    config: Config;
    scenarios: readonly Scenario[];
    options: RunOptions;
    devices: ResolvedDevices;
    progress: (text: string) => void;
    out: string | undefined;
    signal: AbortSignal;
  },
): Promise<DeviceRun> {
  const { DeviceSession } = await import('../../scenario/device-session.js');
  const device = await ctx.devices.open(serial);
  const scenarios: ScenarioReport[] = [];
  const history: DeviceRun['history'] = [];
  let session: Awaited<ReturnType<typeof DeviceSession.open>> | undefined;
  try {
    const evidenceDir = ctx.out === undefined ? undefined : join(ctx.out, 'evidence', serial.replace(/[^A-Za-z0-9._-]/g, '_'));
    if (evidenceDir !== undefined) await mkdir(evidenceDir, { recursive: true });
    session = await DeviceSession.open({
      device,
      config: ctx.config,
      adb: ctx.devices.endpoint,
      progress: ctx.progress,
      signal: ctx.signal,
      ...(evidenceDir !== undefined ? { journalPath: join(evidenceDir, 'server-journal.jsonl') } : {}),
    });
    for (let repeat = 1; repeat <= ctx.options.repeat; repeat++) {
      for (const scenario of ctx.scenarios) {
        if (ctx.signal.aborted) break;
        const outcome = await session.runScenario(scenario, ctx.options.repeat > 1 ? repeat : 1);
        scenarios.push(outcome.report);
        history.push({
          scenario: scenario.name,
          device: serial,
          allowedDuplicates: outcome.allowedDuplicates,
          checkOrder: outcome.checkOrder,
          events: outcome.events,
          verdict: outcome.report.verdict,
          anomalies: outcome.report.anomalies,
          repro: outcome.repro,
        });
        ctx.progress(`${serial} ${scenario.name}${ctx.options.repeat > 1 ? `#${repeat}` : ''}: ${outcome.report.verdict.toUpperCase()}`);
      }
    }
    const restored = await session.close();
    session = undefined;
    return {
      scenarios,
      history,
      device: {
        serial,
        verdict: mergeScenarioVerdicts(scenarios.map((s) => s.verdict)),
        apiLevel: await device.getProperties().then((p) => Number(p['ro.build.version.sdk'])).catch(() => 0),
        ...(restored.problems.length > 0 ? { tainted: true, error: `not restored: ${restored.problems.join('; ')}` } : {}),
      },
    };
  } catch (e) {
    const restored = session ? await session.close().catch((err: unknown) => ({ problems: [describeError(err)] })) : { problems: [] };
    return {
      scenarios,
      history,
      device: {
        serial,
        verdict: 'unknown',
        error: describeError(e),
        ...(restored.problems.length > 0 ? { tainted: true } : {}),
      },
    };
  } finally {
    await device.close().catch(() => undefined);
  }
}

/**
 * history.jsonl: every scenario's events, each scenario starting with its own `config` line
 * (a later config line starts a new segment that `dedup-verify check` checks on its own).
 */
async function writeHistory(path: string, parts: DeviceRun['history'], config: Config): Promise<void> {
  const lines: string[] = [];
  for (const part of parts) {
    lines.push(
      JSON.stringify({
        type: 'config',
        windowMs: config.windowMs,
        allowedDuplicates: part.allowedDuplicates,
        ...(part.checkOrder ? {} : { checkOrder: false }),
        device: part.device,
        scenario: part.scenario,
      }),
    );
    for (const e of part.events) lines.push(JSON.stringify(e));
  }
  await writeFile(path, lines.length > 0 ? `${lines.join('\n')}\n` : '');
}
