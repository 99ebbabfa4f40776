/**
 * `dedup-verify run` (docs/design.md §9): reads the flags, resolves the config and the devices
 * (or starts the embedded virtual device), hands the trials to the runner (src/harness/runner.ts),
 * then writes the reports and returns the exit code of the merged verdict.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigError, UsageError } from '../../errors.js';
import { loadConfig } from '../../config/load-config.js';
import { DEFAULT_CONFIG_FILE, type Config } from '../../config/types.js';
import { SCENARIOS } from '../../scenarios/index.js';
import { parseShard, selectScenarios, type Shard } from '../../harness/select.js';
import { refuseUnrestored } from '../../harness/device-state.js';
import type { Scenario } from '../../harness/types.js';
import type { RunReport } from '../../report/types.js';
import { aggregateScenarios, mergeScenarioVerdicts } from '../../report/merge.js';
import { exitCodeFor, mergeVerdicts } from '../../checker/verdict.js';
import { renderConsoleReport } from '../../report/console.js';
import { renderJsonReport } from '../../report/json.js';
import { writeRunOutputs } from './run-outputs.js';
import { VERSION } from '../../version.js';
import { AdbEndpointResolver, defaultAdbPort, type ResolvedDevices } from './run-devices.js';
import { AppiumRun, checkAppiumFlags } from './run-appium.js';
import { runTrials } from '../../harness/runner.js';
import { appLogLevelOption, appProfileOption, assertBugNames, prepareOutputDirectory } from '../inputs.js';
import type { AppProfile } from '../../virtual-device/apps/feed-notifier/app-profiles.js';
import type { AppLogLevel } from '../../virtual-device/types.js';
import { appProfileConfigPath, referenceAppConfigPath } from '../package-root.js';
import type { CliIo } from '../io.js';
import { API_LEVELS, isApiLevel } from '../../virtual-device/profiles.js';

export interface RunOptions {
  config?: string;
  device: string[];
  allDevices: boolean;
  virtual: boolean;
  bug: string[];
  api?: number;
  /** With --virtual: one-way delay of every packet the virtual device sends, in ms. */
  latency?: number;
  /** With --virtual: the reference app's WorkManager minimum log level. */
  appLogLevel?: AppLogLevel;
  /** With --virtual: the shape the reference app is written in (app-profiles.ts). */
  appProfile?: AppProfile;
  scenario: string[];
  shard?: string;
  repeat: number;
  infraRetries: number;
  adbHost: string;
  adbPort?: number;
  out?: string;
  /** `--force`: write into an --out folder that holds files dedup-verify did not write (they are kept). */
  force: boolean;
  json: boolean;
  /** `--appium URL`: every device through an Appium session (run-appium.ts); `--caps`: its capabilities. */
  appium?: string;
  caps?: string;
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
    force: opts['force'] === true,
  };
  if (typeof opts['config'] === 'string') o.config = opts['config'];
  if (typeof opts['api'] === 'number') o.api = opts['api'];
  if (typeof opts['latency'] === 'number') o.latency = opts['latency'];
  if (opts['appLogLevel'] !== undefined) o.appLogLevel = appLogLevelOption(opts['appLogLevel']);
  if (opts['appProfile'] !== undefined) o.appProfile = appProfileOption(opts['appProfile']);
  if (typeof opts['shard'] === 'string') o.shard = opts['shard'];
  if (typeof opts['adbPort'] === 'number') o.adbPort = opts['adbPort'];
  if (typeof opts['out'] === 'string') o.out = opts['out'];
  if (typeof opts['appium'] === 'string') o.appium = opts['appium'];
  if (typeof opts['caps'] === 'string') o.caps = opts['caps'];
  if (o.repeat < 1) throw new UsageError(`--repeat takes a number of at least 1 (got ${o.repeat}).`);
  if (o.force && o.out === undefined) throw new UsageError('--force lets run write into an --out folder holding files it did not write: use it with --out DIR.');
  if (o.infraRetries < 0) throw new UsageError(`--infra-retries takes 0 or more (got ${o.infraRetries}).`);
  const targets = [o.virtual, o.allDevices, o.device.length > 0].filter(Boolean).length;
  if (targets > 1) throw new UsageError('Use one of --virtual, --all-devices or --device SERIAL.');
  if (o.bug.length > 0 && !o.virtual) throw new UsageError('--bug switches a bug of the reference app on the virtual device: use it with --virtual.');
  if (o.api !== undefined && !o.virtual) throw new UsageError('--api picks the API level of the virtual device: use it with --virtual.');
  if (o.latency !== undefined && !o.virtual) throw new UsageError('--latency slows down the packets of the virtual device: use it with --virtual.');
  if (o.appLogLevel !== undefined && !o.virtual) throw new UsageError("--app-log-level sets the log level of the virtual device's reference app: use it with --virtual.");
  if (o.appProfile !== undefined && !o.virtual) throw new UsageError("--app-profile picks the shape of the virtual device's reference app: use it with --virtual.");
  assertBugNames(o.bug);
  checkAppiumFlags(o);
  if (o.api !== undefined && !isApiLevel(o.api)) throw new UsageError(`--api takes one of ${API_LEVELS.join(', ')} (got ${o.api}).`);
  // A malformed $ANDROID_ADB_SERVER_PORT is bad input too: refused now, not after the config.
  if (o.adbPort === undefined) defaultAdbPort();
  return o;
}

/**
 * The scenarios to run: --scenario names, then --shard. A shard that selects nothing is a usage
 * error (exit 2): a run that verifies nothing must not pass for one that verified everything.
 */
function chooseScenarios(o: RunOptions): Scenario[] {
  const shard: Shard | undefined = o.shard === undefined ? undefined : parseShard(o.shard);
  const chosen = selectScenarios(SCENARIOS, o.scenario, shard);
  if (chosen.length === 0 && shard !== undefined) {
    const pool = selectScenarios(SCENARIOS, o.scenario);
    throw new UsageError(
      `--shard ${shard.index}/${shard.count} selects no scenario: the selection has ${pool.length} (${pool.map((s) => s.name).join(', ')}) and shard I/N takes its scenarios I, I+N, I+2N, …; use --shard I/N with N ≤ ${pool.length}, or select more scenarios.`,
    );
  }
  return chosen;
}

async function resolveConfig(o: RunOptions): Promise<Config> {
  if (o.config !== undefined) return loadConfig(o.config);
  // An app profile other than the reference has its own config (fixtures/profiles/<profile>.config.json).
  if (o.virtual) return loadConfig(o.appProfile === undefined || o.appProfile === 'reference' ? referenceAppConfigPath() : appProfileConfigPath(o.appProfile));
  if (!existsSync(DEFAULT_CONFIG_FILE)) {
    throw new ConfigError(
      `No ${DEFAULT_CONFIG_FILE} in ${process.cwd()}. Pass --config FILE, write one with \`dedup-verify init --device SERIAL --package PKG\`, or try \`dedup-verify run --virtual\`.`,
    );
  }
  return loadConfig(DEFAULT_CONFIG_FILE);
}

export async function runRun(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  // Flags first (no file read, nothing started), then the config, then the output directory,
  // and only then adb and the devices.
  const o = readRunOptions(opts);
  const scenarios = chooseScenarios(o);
  const appium = o.appium === undefined ? undefined : await AppiumRun.prepare({ ...o, appium: o.appium });
  const config = await resolveConfig(o);
  const startedAt = new Date();
  const t0 = performance.now();
  const progress = (text: string): void => io.stderr(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${text}\n`);
  const out = o.out === undefined ? undefined : resolve(o.out);
  const outDir = out !== undefined && o.out !== undefined ? await prepareOutputDirectory(out, o.out, o.force) : undefined;
  await appium?.check({ host: o.adbHost, port: o.adbPort ?? defaultAdbPort() }, progress);

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
    devices = appium === undefined ? await resolver.resolve() : await appium.resolve(resolver, config);
    await refuseUnrestored(devices.serials.filter((serial) => !devices!.created.includes(serial)));
    const { scenarios: scenarioReports, devices: deviceReports, history } = await runTrials({
      scenarios,
      repeat: o.repeat,
      infraRetries: o.infraRetries,
      devices,
      config,
      progress,
      out,
      signal: stop.signal,
    });
    for (const line of appium?.traffic() ?? []) progress(line);
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
    if (out !== undefined) await writeRunOutputs(out, report, history, config, progress);
    if (o.json) io.stdout(renderJsonReport(report));
    else io.stdout(renderConsoleReport(report));
    if (out !== undefined) progress(`reports in ${out}`);
    return exitCodeFor(report.verdict);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await resolver.close();
    await outDir?.finish();
  }
}

