/**
 * `dedup-verify run` (docs/design.md §9): resolves the config and the devices (or starts the
 * embedded virtual device), runs the scenarios on every device in parallel (each device leased
 * by one session that restores it at the end, also on SIGINT/SIGTERM), writes the reports and
 * returns the exit code of the merged verdict.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ConfigError, DedupVerifyError, ErrorCode, UsageError, describeError, hasErrorCode } from '../../errors.js';
import { loadConfig } from '../../config/load-config.js';
import { DEFAULT_CONFIG_FILE, type Config } from '../../config/types.js';
import { SCENARIOS } from '../../scenarios/index.js';
import { parseShard, selectScenarios, type Shard } from '../../scenario/select.js';
import { readSavedState, stateDirFor } from '../../scenario/hygiene.js';
import type { Scenario } from '../../scenario/types.js';
import type { ConfigEvent, HistoryEvent } from '../../history/events.js';
import type { ReproStep } from '../../scenario/actions.js';
import type { DeviceReport, RunReport, ScenarioReport } from '../../report/types.js';
import { aggregateScenarios, mergeScenarioVerdicts } from '../../report/merge.js';
import { exitCodeFor, mergeVerdicts } from '../../checker/verdict.js';
import { emptyCounts } from '../../checker/types.js';
import { renderConsoleReport } from '../../report/console.js';
import { renderJsonReport, writeJsonReport } from '../../report/json.js';
import { writeJunit } from '../../report/junit.js';
import { VERSION } from '../../version.js';
import { AdbEndpointResolver, defaultAdbPort, type ResolvedDevices } from './run-devices.js';
import { assertBugNames, prepareOutputDirectory } from '../inputs.js';
import type { CliIo } from '../main.js';

export interface RunOptions {
  config?: string;
  device: string[];
  allDevices: boolean;
  virtual: boolean;
  bug: string[];
  api?: number;
  /** With --virtual: one-way delay of every packet the virtual device sends, in ms. */
  latency?: number;
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
  if (typeof opts['latency'] === 'number') o.latency = opts['latency'];
  if (typeof opts['shard'] === 'string') o.shard = opts['shard'];
  if (typeof opts['adbPort'] === 'number') o.adbPort = opts['adbPort'];
  if (typeof opts['out'] === 'string') o.out = opts['out'];
  if (o.repeat < 1) throw new UsageError(`--repeat takes a number of at least 1 (got ${o.repeat}).`);
  if (o.infraRetries < 0) throw new UsageError(`--infra-retries takes 0 or more (got ${o.infraRetries}).`);
  const targets = [o.virtual, o.allDevices, o.device.length > 0].filter(Boolean).length;
  if (targets > 1) throw new UsageError('Use one of --virtual, --all-devices or --device SERIAL.');
  if (o.bug.length > 0 && !o.virtual) throw new UsageError('--bug switches a bug of the reference app on the virtual device: use it with --virtual.');
  if (o.api !== undefined && !o.virtual) throw new UsageError('--api picks the API level of the virtual device: use it with --virtual.');
  if (o.latency !== undefined && !o.virtual) throw new UsageError('--latency slows down the packets of the virtual device: use it with --virtual.');
  assertBugNames(o.bug);
  if (o.api !== undefined && o.api !== 30 && o.api !== 33 && o.api !== 34) throw new UsageError(`--api takes 30, 33 or 34 (got ${o.api}).`);
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

/**
 * Refuses devices an interrupted run left a state file for (docs/design.md §8): saving them now
 * would record a changed device as the original. The fix leads the message.
 */
async function refuseUnrestored(serials: readonly string[]): Promise<void> {
  const left: { serial: string; savedAt: string }[] = [];
  for (const serial of serials) {
    const state = await readSavedState(serial);
    if (state !== null) left.push({ serial, savedAt: state.savedAt });
  }
  if (left.length === 0) return;
  const commands = left.map((l) => `\`dedup-verify restore --device ${l.serial}\``).join(' and ');
  const what = left.map((l) => `${l.serial} was not restored after an earlier run (its state, saved ${l.savedAt}, is in ${stateDirFor(l.serial)})`).join('; ');
  throw new DedupVerifyError(
    ErrorCode.Restore,
    `Run ${commands} first, then this command again: ${what}, and a run does not start on a device whose clock, auto_time, reverse rules or app data may still be changed.`,
  );
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
  // Flags first (no file read, nothing started), then the config, then the output directory,
  // and only then adb and the devices.
  const o = readRunOptions(opts);
  const scenarios = chooseScenarios(o);
  const config = await resolveConfig(o);
  const startedAt = new Date();
  const t0 = performance.now();
  const progress = (text: string): void => io.stderr(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${text}\n`);
  const out = o.out === undefined ? undefined : resolve(o.out);
  if (out !== undefined && o.out !== undefined) await prepareOutputDirectory(out, o.out);

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
    await refuseUnrestored(devices.serials.filter((serial) => !devices!.created.includes(serial)));
    const queue = new WorkQueue(scenarios, o.repeat, devices.serials);
    const perDevice = await Promise.all(
      devices.serials.map((serial) => runOnDevice(serial, queue, { config, options: o, devices: devices!, progress, out, signal: stop.signal })),
    );
    const failures = new Map(perDevice.flatMap((d) => (d.failure !== undefined ? [[d.device.serial, d.failure] as const] : [])));
    const notRun: ScenarioReport[] = [];
    for (const item of [...perDevice.flatMap((d) => d.dropped), ...queue.drain()]) {
      // The device the trial was for; a --repeat trial (for any device) that never ran: the
      // device it last failed on, else the run's devices.
      const device = item.owner ?? item.assignedTo ?? [...item.failedOn].at(-1) ?? devices.serials.join(', ');
      const failure = failures.get(device);
      notRun.push({
        name: item.scenario.name,
        device,
        verdict: 'unknown',
        durationMs: 0,
        counts: emptyCounts(),
        anomalies: [],
        error: stop.signal.aborted
          ? 'not run: interrupted'
          : hasErrorCode(failure, ErrorCode.Restore)
            ? `not run: run \`dedup-verify restore --device ${device}\` first (${describeError(failure)})`
            : `not run: its device ${device} failed and no retry was left (--infra-retries ${o.infraRetries})`,
        ...(o.repeat > 1 ? { repeat: item.repeat } : {}),
      });
    }
    if (notRun.length > 0) progress(`${notRun.length} trial(s) not run`);
    const scenarioReports = [...perDevice.flatMap((d) => d.scenarios), ...notRun];
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
      await writeHistory(join(out, 'history.jsonl'), perDevice.flatMap((d) => d.history));
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
  /** Trials of this device that could not run anywhere (it died; no retry left). */
  readonly dropped: readonly WorkItem[];
  readonly device: DeviceReport;
  /** Why the device stopped before its trials were done. */
  readonly failure?: unknown;
  readonly history: {
    scenario: string;
    device: string;
    segment: ConfigEvent;
    events: readonly HistoryEvent[];
    verdict: ScenarioReport['verdict'];
    anomalies: ScenarioReport['anomalies'];
    repro: readonly ReproStep[];
  }[];
}

/** One trial of one scenario, waiting for a device. */
interface WorkItem {
  readonly scenario: Scenario;
  /** 1-based repeat index (1 without --repeat). */
  readonly repeat: number;
  /** The device the run planned it for (without --repeat: one trial per scenario × device); undefined under --repeat. */
  readonly owner: string | undefined;
  /** The device this trial is for now; undefined: any device. */
  assignedTo: string | undefined;
  /** Infrastructure attempts so far. */
  attempts: number;
  /** Devices it failed on for infrastructure reasons (tried elsewhere first). */
  readonly failedOn: Set<string>;
}

/**
 * The trials of a run. Without --repeat every device runs every scenario (one testcase per
 * scenario × device). With --repeat K each scenario runs K times in all, spread over the devices:
 * a device takes the next trial when it is free. A trial whose harness failed (device gone, adb
 * hang) goes back to the queue up to --infra-retries times, for another device when there is
 * one; so do the trials of a device that died. A finding is never retried.
 */
class WorkQueue {
  private readonly items: WorkItem[] = [];
  constructor(scenarios: readonly Scenario[], repeat: number, serials: readonly string[]) {
    const owners: (string | undefined)[] = repeat > 1 ? [undefined] : [...serials];
    for (let r = 1; r <= repeat; r++) {
      for (const scenario of scenarios) {
        for (const owner of owners) this.items.push({ scenario, repeat: r, owner, assignedTo: owner, attempts: 0, failedOn: new Set() });
      }
    }
  }
  /** The next trial for `serial`: its own or a free one it has not failed on; else a free one it failed on. */
  take(serial: string): WorkItem | undefined {
    const mine = (w: WorkItem): boolean => w.assignedTo === serial || w.assignedTo === undefined;
    let i = this.items.findIndex((w) => mine(w) && !w.failedOn.has(serial));
    if (i < 0) i = this.items.findIndex((w) => mine(w));
    return i < 0 ? undefined : this.items.splice(i, 1)[0];
  }
  /** Puts a failed trial back for any device. */
  requeue(item: WorkItem): void {
    item.assignedTo = undefined;
    this.items.unshift(item);
  }
  /** A device is gone: its trials go to the others (counted as an attempt), or are dropped. */
  release(serial: string, retries: number): WorkItem[] {
    const dropped: WorkItem[] = [];
    for (const w of this.items.filter((x) => x.assignedTo === serial)) {
      w.attempts += 1;
      w.failedOn.add(serial);
      if (w.attempts <= retries) w.assignedTo = undefined;
      else dropped.push(...this.items.splice(this.items.indexOf(w), 1));
    }
    return dropped;
  }
  /** Everything still queued (after every device stopped: not run). */
  drain(): WorkItem[] {
    return this.items.splice(0);
  }
}

async function runOnDevice(
  serial: string,
  queue: WorkQueue,
  ctx: {
    config: Config;
    options: RunOptions;
    devices: ResolvedDevices;
    progress: (text: string) => void;
    out: string | undefined;
    signal: AbortSignal;
  },
): Promise<DeviceRun> {
  const { DeviceSession } = await import('../../scenario/device-session.js');
  const scenarios: ScenarioReport[] = [];
  const history: DeviceRun['history'] = [];
  let session: Awaited<ReturnType<typeof DeviceSession.open>> | undefined;
  let device: Awaited<ReturnType<ResolvedDevices['open']>> | undefined;
  const label = (item: WorkItem): string => `${item.scenario.name}${ctx.options.repeat > 1 ? `#${item.repeat}` : ''}`;
  try {
    device = await ctx.devices.open(serial);
    const evidenceDir = ctx.out === undefined ? undefined : join(ctx.out, 'evidence', serial.replace(/[^A-Za-z0-9._-]/g, '_'));
    if (evidenceDir !== undefined) await mkdir(evidenceDir, { recursive: true });
    session = await DeviceSession.open({
      device,
      config: ctx.config,
      adb: ctx.devices.endpoint,
      progress: ctx.progress,
      signal: ctx.signal,
      ...(ctx.devices.created.includes(serial) ? { freshDevice: true } : {}),
      ...(evidenceDir !== undefined ? { journalPath: join(evidenceDir, 'server-journal.jsonl'), evidenceDir } : {}),
    });
    // The stop is checked before a trial is taken: a trial taken is a trial reported.
    while (!ctx.signal.aborted) {
      const item = queue.take(serial);
      if (item === undefined) break;
      const outcome = await session.runScenario(item.scenario, ctx.options.repeat > 1 ? item.repeat : undefined);
      item.attempts += 1;
      if (outcome.infrastructureFailure !== undefined && item.attempts <= ctx.options.infraRetries && !ctx.signal.aborted) {
        item.failedOn.add(serial);
        queue.requeue(item);
        ctx.progress(`${serial} ${label(item)}: infrastructure failure (${outcome.infrastructureFailure}); retrying (${item.attempts}/${ctx.options.infraRetries})`);
      } else {
        // Under --repeat every trial carries its number, the first one included.
        scenarios.push({ ...outcome.report, ...(ctx.options.repeat > 1 ? { repeat: item.repeat } : {}), ...(item.attempts > 1 ? { attempts: item.attempts } : {}) });
        history.push({
          scenario: item.scenario.name,
          device: serial,
          segment: outcome.segment,
          events: outcome.events,
          verdict: outcome.report.verdict,
          anomalies: outcome.report.anomalies,
          repro: outcome.repro,
        });
        ctx.progress(`${serial} ${label(item)}: ${outcome.report.verdict.toUpperCase()}`);
      }
      if (outcome.infrastructureFailure !== undefined && !(await session.isAlive())) {
        throw new DedupVerifyError(ErrorCode.DeviceGone, `${serial} stopped answering during ${label(item)}: ${outcome.infrastructureFailure}`);
      }
    }
    const restored = await session.close();
    session = undefined;
    return {
      scenarios,
      history,
      dropped: [],
      device: {
        serial,
        verdict: mergeScenarioVerdicts(scenarios.map((s) => s.verdict)),
        apiLevel: await device.getProperties().then((p) => Number(p['ro.build.version.sdk'])).catch(() => 0),
        ...(restored.problems.length > 0 ? { tainted: true, error: `not restored: ${restored.problems.join('; ')}` } : {}),
      },
    };
  } catch (e) {
    const restored = session ? await session.close().catch((err: unknown) => ({ problems: [describeError(err)] })) : { problems: [] };
    const dropped = queue.release(serial, ctx.options.infraRetries);
    ctx.progress(`${serial}: ${describeError(e)}${ctx.options.infraRetries > 0 ? '; its remaining trials go to the other devices' : ''}`);
    return {
      scenarios,
      history,
      dropped,
      failure: e,
      device: {
        serial,
        verdict: 'unknown',
        error: describeError(e),
        ...(restored.problems.length > 0 ? { tainted: true } : {}),
      },
    };
  } finally {
    await device?.close().catch(() => undefined);
  }
}

/**
 * history.jsonl: every scenario's events, each scenario starting with its own `config` line
 * (a later config line starts a new segment that `dedup-verify check` checks on its own).
 */
async function writeHistory(path: string, parts: DeviceRun['history']): Promise<void> {
  const lines: string[] = [];
  for (const part of parts) {
    lines.push(JSON.stringify(part.segment));
    for (const e of part.events) lines.push(JSON.stringify(e));
  }
  await writeFile(path, lines.length > 0 ? `${lines.join('\n')}\n` : '');
}
