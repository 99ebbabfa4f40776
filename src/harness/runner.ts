/**
 * The runner: runs the trials of a run (scenario × device, or --repeat trials spread over the
 * devices) on every device in parallel, each device leased by one session that restores it at
 * the end, retries what a failed device was running elsewhere (--infra-retries), and reports
 * the trials that could not run. It returns the scenario and device reports and each trial's
 * history; the CLI command prints and writes them.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AndroidDevice } from '../device/android-device.js';
import type { AdbEndpoint } from '../device/adb-errors.js';
import type { Config } from '../config/types.js';
import { DedupVerifyError, ErrorCode, describeError, hasErrorCode } from '../errors.js';
import { emptyCounts } from '../checker/types.js';
import type { ConfigEvent, HistoryEvent } from '../history/events.js';
import { HistoryRecorder } from '../history/jsonl.js';
import type { DeviceReport, ScenarioReport } from '../report/types.js';
import { mergeScenarioVerdicts } from '../report/merge.js';
import type { ReproStep } from './actions.js';
import type { Scenario } from './types.js';

/** Where the devices come from (the CLI resolves them over adb). */
export interface DeviceSource {
  readonly endpoint: AdbEndpoint;
  readonly serials: readonly string[];
  /** Serials of devices created for this run (a state file left for them is stale). */
  readonly created: readonly string[];
  open(serial: string): Promise<AndroidDevice>;
}

export interface RunnerInput {
  readonly scenarios: readonly Scenario[];
  readonly repeat: number;
  readonly infraRetries: number;
  readonly devices: DeviceSource;
  readonly config: Config;
  readonly progress: (text: string) => void;
  /** `run --out DIR`: the evidence goes to DIR/evidence/<serial>/. */
  readonly out: string | undefined;
  readonly signal: AbortSignal;
}

/** One trial's history segment and what the reports need of it. */
export interface TrialHistory {
  readonly scenario: string;
  readonly device: string;
  readonly segment: ConfigEvent;
  readonly events: readonly HistoryEvent[];
  readonly verdict: ScenarioReport['verdict'];
  readonly anomalies: ScenarioReport['anomalies'];
  readonly repro: readonly ReproStep[];
}

export interface RunnerResult {
  /** Every trial, those that could not run included (verdict unknown, with the reason). */
  readonly scenarios: ScenarioReport[];
  readonly devices: DeviceReport[];
  readonly history: TrialHistory[];
}

/**
 * Runs every trial on the devices; never throws for a trial or a device, but for a config the
 * device showed to be wrong (a ConfigError, such as a feed.attach step the app refused): that one
 * is thrown once every device is restored, since it is the same on every device.
 */
export async function runTrials(input: RunnerInput): Promise<RunnerResult> {
  const { devices, progress, signal } = input;
  const queue = new WorkQueue(input.scenarios, input.repeat, devices.serials);
  const perDevice = await Promise.all(devices.serials.map((serial) => runOnDevice(serial, queue, input)));
  const wrongConfig = perDevice.map((d) => d.failure).find((f) => hasErrorCode(f, ErrorCode.Config));
  if (wrongConfig !== undefined) throw wrongConfig;
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
      error: signal.aborted
        ? 'not run: interrupted'
        : hasErrorCode(failure, ErrorCode.Restore)
          ? `not run: run \`dedup-verify restore --device ${device}\` first (${describeError(failure)})`
          : `not run: its device ${device} failed and no retry was left (--infra-retries ${input.infraRetries})`,
      ...(input.repeat > 1 ? { repeat: item.repeat } : {}),
    });
  }
  if (notRun.length > 0) progress(`${notRun.length} trial(s) not run`);
  return {
    scenarios: [...perDevice.flatMap((d) => d.scenarios), ...notRun],
    devices: perDevice.map((d) => d.device),
    history: perDevice.flatMap((d) => d.history),
  };
}

interface DeviceRun {
  readonly scenarios: ScenarioReport[];
  /** Trials of this device that could not run anywhere (it died; no retry left). */
  readonly dropped: readonly WorkItem[];
  readonly device: DeviceReport;
  /** Why the device stopped before its trials were done. */
  readonly failure?: unknown;
  readonly history: TrialHistory[];
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
  ctx: Omit<RunnerInput, 'scenarios'>,
): Promise<DeviceRun> {
  const { DeviceSession } = await import('./device-session.js');
  const scenarios: ScenarioReport[] = [];
  const history: DeviceRun['history'] = [];
  let session: Awaited<ReturnType<typeof DeviceSession.open>> | undefined;
  let device: AndroidDevice | undefined;
  const label = (item: WorkItem): string => `${item.scenario.name}${ctx.repeat > 1 ? `#${item.repeat}` : ''}`;
  try {
    device = await ctx.devices.open(serial);
    const evidenceDir = ctx.out === undefined ? undefined : join(ctx.out, 'evidence', evidenceFolderName(serial));
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
      const outcome = await session.runScenario(item.scenario, ctx.repeat > 1 ? item.repeat : undefined);
      item.attempts += 1;
      if (outcome.infrastructureFailure !== undefined && item.attempts <= ctx.infraRetries && !ctx.signal.aborted) {
        item.failedOn.add(serial);
        queue.requeue(item);
        ctx.progress(`${serial} ${label(item)}: infrastructure failure (${outcome.infrastructureFailure}); retrying (${item.attempts}/${ctx.infraRetries})`);
      } else {
        // Under --repeat every trial carries its number, the first one included.
        scenarios.push({ ...outcome.report, ...(ctx.repeat > 1 ? { repeat: item.repeat } : {}), ...(item.attempts > 1 ? { attempts: item.attempts } : {}) });
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
    const dropped = queue.release(serial, ctx.infraRetries);
    ctx.progress(`${serial}: ${describeError(e)}${ctx.infraRetries > 0 ? '; its remaining trials go to the other devices' : ''}`);
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
 * history.jsonl: every trial's events (but a skipped one's), each trial's segment opened by its own `config` line
 * (the settings and property checks its checker ran with), written through the history
 * recorder (which validates every event). `dedup-verify check` checks each segment on its own.
 */
export async function writeHistory(path: string, parts: readonly TrialHistory[]): Promise<void> {
  const recorder = await HistoryRecorder.open(path);
  try {
    for (const part of parts) {
      // A skipped scenario did nothing and observed nothing: no segment (checked, it would be "nothing checked").
      if (part.verdict === 'skipped') continue;
      for (const e of [part.segment, ...part.events]) if (!recorder.record(e)) await recorder.flush();
    }
  } finally {
    await recorder.close();
  }
}

/**
 * The evidence folder of a serial under `--out DIR/evidence/`: characters other than letters,
 * digits and `._-` as `_`, and a name of dots only (`.`, `..`, a serial adb may report) given a
 * leading `_`, so no serial maps onto `evidence/` itself or the folder above it.
 */
export function evidenceFolderName(serial: string): string {
  const name = serial.replace(/[^A-Za-z0-9._-]/g, '_');
  return /^\.*$/.test(name) ? `_${name}` : name;
}
