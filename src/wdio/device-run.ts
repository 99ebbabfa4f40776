/**
 * One WebdriverIO worker's device (`dedup-verify/wdio`): the AppiumDevice over the worker's
 * WebDriver session, its adb companion for what WebDriver cannot carry, the DeviceSession that
 * leases and restores the device, and the per-scenario bookkeeping (notification cross-check,
 * reports).
 *
 * What travels over WebDriver: every shell command (`mobile: shell`), file pulls and pushes
 * (`pullFile`/`pushFile`) and the notification buffer (`mobile: getNotifications`). What travels
 * over adb (DV_ADB_HOST:DV_ADB_PORT): the logcat stream and the `adb reverse` rule of the fixture
 * server (src/device/appium-device.ts says why).
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AdbDevice } from '../device/adb-device.js';
import { AppiumDevice, type AppiumSession, type NotificationBuffer } from '../device/appium-device.js';
import { crossCheckNotifications, eventLogPosts, type NotificationCrossCheck } from '../android/appium-notifications.js';
import { loadConfig } from '../config/load-config.js';
import { DEFAULT_CONFIG_FILE, type Config } from '../config/types.js';
import { DeviceSession, type ScenarioOutcome } from '../harness/device-session.js';
import { SCENARIOS } from '../scenarios/index.js';
import { selectScenarios } from '../harness/select.js';
import type { Scenario } from '../harness/types.js';
import { describeAnomaly, mergeScenarioVerdicts } from '../report/merge.js';
import { writeJsonReport } from '../report/json.js';
import { writeJunit } from '../report/junit.js';
import type { RunReport, ScenarioReport } from '../report/types.js';
import { describeError } from '../errors.js';
import { VERSION } from '../version.js';

export interface DeviceRunEnv {
  readonly configPath: string;
  readonly scenarioNames: readonly string[];
  readonly adb: { readonly host: string; readonly port: number } | undefined;
  readonly out: string | undefined;
  readonly verbose: boolean;
}

export function readDeviceRunEnv(env: NodeJS.ProcessEnv = process.env): DeviceRunEnv {
  const names = (env['DV_SCENARIOS'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const adbPort = Number(env['DV_ADB_PORT'] ?? env['ANDROID_ADB_SERVER_PORT'] ?? 5037);
  return {
    configPath: resolve(env['DV_CONFIG'] ?? DEFAULT_CONFIG_FILE),
    scenarioNames: names,
    adb: env['DV_ADB'] === 'none' ? undefined : { host: env['DV_ADB_HOST'] ?? '127.0.0.1', port: adbPort },
    out: env['DV_OUT'] === undefined || env['DV_OUT'] === '' ? undefined : resolve(env['DV_OUT']),
    verbose: env['DV_VERBOSE'] === '1',
  };
}

/** The scenarios this run selects (DV_SCENARIOS, else all), known when the spec file loads. */
export function selectedScenarios(env: DeviceRunEnv): Scenario[] {
  return selectScenarios(SCENARIOS, env.scenarioNames);
}

export class DeviceRun {
  readonly reports: ScenarioReport[] = [];
  private readonly outcomes: ScenarioOutcome[] = [];
  private readonly startedAt = new Date();
  private session: DeviceSession | undefined;

  private constructor(
    readonly device: AppiumDevice,
    readonly config: Config,
    private readonly env: DeviceRunEnv,
  ) {}

  /** Builds the device over the worker's session and leases it (DeviceSession.open). */
  static async open(browser: AppiumSession, udid: string, env: DeviceRunEnv): Promise<DeviceRun> {
    const config = await loadConfig(env.configPath);
    const adb = env.adb === undefined ? undefined : await AdbDevice.open({ serial: udid, host: env.adb.host, port: env.adb.port });
    const device = new AppiumDevice({ session: browser, serial: udid, ...(adb !== undefined ? { adb } : {}), defaultTimeoutMs: config.timeouts.commandMs });
    const run = new DeviceRun(device, config, env);
    try {
      run.session = await DeviceSession.open({
        device,
        config,
        adb: env.adb ?? { host: 'none', port: 0 },
        progress: (text) => {
          if (env.verbose) console.log(text);
        },
      });
    } catch (e) {
      await device.close();
      throw e;
    }
    return run;
  }

  /** The notification buffer, or the reason it cannot be read. */
  async notifications(): Promise<NotificationBuffer | string> {
    try {
      return await this.device.getNotifications();
    } catch (e) {
      return describeError(e);
    }
  }

  /** Runs one scenario and cross-checks the notification buffer against the event log. */
  async runScenario(scenario: Scenario): Promise<{ report: ScenarioReport; crossCheck: NotificationCrossCheck | string }> {
    if (this.session === undefined) throw new Error('the device session is not open');
    const before = await this.notifications();
    const outcome = await this.session.runScenario(scenario);
    const after = await this.notifications();
    this.outcomes.push(outcome);
    this.reports.push(outcome.report);
    const crossCheck =
      typeof before === 'string'
        ? `mobile: getNotifications unavailable: ${before}`
        : typeof after === 'string'
          ? `mobile: getNotifications unavailable: ${after}`
          : crossCheckNotifications(eventLogPosts(outcome.events, this.config.app.package), before.entries, after.entries, this.config.app.package);
    return { report: outcome.report, crossCheck };
  }

  /** Restores the device, writes the reports (DV_OUT) and says what went where. */
  async close(): Promise<string> {
    const problems = this.session === undefined ? [] : (await this.session.close()).problems;
    this.session = undefined;
    const t = this.device.traffic;
    const traffic =
      `${this.device.serial}: over WebDriver: mobile: shell ×${t.shell}, pullFile ×${t.pullFile}, pushFile ×${t.pushFile}, mobile: getNotifications ×${t.getNotifications}; ` +
      `over adb${this.env.adb === undefined ? ' (none)' : ` ${this.env.adb.host}:${this.env.adb.port}`}: logcat stream ×${t.adbStreams}, reverse rules ×${t.adbReverse}` +
      (problems.length > 0 ? `; NOT RESTORED: ${problems.join('; ')}` : '');
    await this.device.close();
    if (this.env.out !== undefined) await this.writeReports(this.env.out, problems);
    return traffic;
  }

  private async writeReports(out: string, problems: readonly string[]): Promise<void> {
    const dir = join(out, this.device.serial.replace(/[^A-Za-z0-9._-]/g, '_'));
    await mkdir(dir, { recursive: true });
    const verdict = mergeScenarioVerdicts(this.reports.map((r) => r.verdict));
    const report: RunReport = {
      verdict: problems.length > 0 && verdict === 'pass' ? 'unknown' : verdict,
      device: this.device.serial,
      app: { package: this.config.app.package },
      startedAt: this.startedAt.toISOString(),
      durationMs: Date.now() - this.startedAt.getTime(),
      scenarios: this.reports,
      devices: [{ serial: this.device.serial, verdict, ...(problems.length > 0 ? { tainted: true, error: `not restored: ${problems.join('; ')}` } : {}) }],
      tool: { name: 'dedup-verify (wdio)', version: VERSION },
    };
    await writeJsonReport(join(dir, 'report.json'), report);
    await writeJunit(join(dir, 'junit.xml'), report);
  }
}

/** The message a failing or undecided scenario fails its mocha test with. */
export function failureMessage(report: ScenarioReport): string | undefined {
  const counted = report.anomalies.filter((a) => a.tolerated !== true && a.informational !== true);
  switch (report.verdict) {
    case 'pass':
    case 'skipped':
      return undefined;
    case 'fail':
      return `${report.name} FAILED on ${report.device}: ${counted.length} anomal${counted.length === 1 ? 'y' : 'ies'}\n${counted.map((a) => `  - ${describeAnomaly(a)}`).join('\n')}`;
    case 'unknown':
      return `${report.name} could not decide on ${report.device}: ${report.error ?? 'no reason given'}`;
    default: {
      const unreachable: never = report.verdict;
      return String(unreachable);
    }
  }
}
