/**
 * `dedup-verify/wdio`: what a WebdriverIO project's own `wdio.conf.ts` needs to run the
 * dedup-verify scenarios as mocha tests, one worker per device:
 *
 *   import { dedupVerifyConfig } from 'dedup-verify/wdio';
 *   export const config = dedupVerifyConfig();
 *
 * A config factory rather than a WebdriverIO service: what the scenarios need from WebdriverIO
 * is configuration (the spec file that holds the tests, one capability per device, the mocha
 * framework and its timeout, the server or hub), and a service only hooks into the lifecycle
 * of tests that the config already names (docs/farms.md says more).
 *
 * Nothing here loads WebdriverIO: the config is plain data, and `scenarioSuite` (the spec
 * file) loads the harness in the workers only. Environment (read when the factory is called):
 * - DV_WDIO_UDIDS (required): comma-separated adb serials, one worker each.
 * - DV_WDIO_HOSTNAME / DV_WDIO_PORT (default 4444) / DV_WDIO_PATH (default /) /
 *   DV_WDIO_PROTOCOL (http or https): a remote Appium server or hub; without DV_WDIO_HOSTNAME
 *   a local Appium server is started by @wdio/appium-service with `--allow-insecure
 *   uiautomator2:adb_shell --use-drivers uiautomator2` (port DV_APPIUM_PORT, else the
 *   service's default; its log, wdio-appium.log, in DV_APPIUM_LOG_DIR, else DV_OUT/appium,
 *   else $TMPDIR/dedup-verify/appium).
 * - DV_WDIO_CAPS: JSON object merged into every capability (a farm's own keys).
 * - DV_ADB_HOST / DV_ADB_PORT (default 127.0.0.1 and $ANDROID_ADB_SERVER_PORT or 5037), DV_ADB=none:
 *   the adb server that also reaches the devices (the logcat stream, `adb reverse`).
 * - DV_SCENARIO_TIMEOUT_MS: mocha timeout of one scenario (default 600000).
 * - Read by the workers: DV_CONFIG (default ./dedup-verify.config.json), DV_SCENARIOS
 *   (comma-separated names, default all), DV_OUT (report.json and junit.xml per device),
 *   DV_VERBOSE=1 (the harness's progress lines).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Capabilities, Options } from '@wdio/types';
import { UsageError } from '../errors.js';
import { uiautomator2Capabilities } from '../device/appium-capabilities.js';
import { androidSdkFromPath } from '../device/appium-server.js';

/** A WebdriverIO testrunner config (`WebdriverIO.Config`): the options plus the requested capabilities. */
export type DedupVerifyWdioConfig = Options.Testrunner & Capabilities.WithRequestedTestrunnerCapabilities;

/**
 * The spec file that runs the scenarios on the worker's device, for `specs` of a config made by
 * hand (dedupVerifyConfig() lists it already).
 */
export const scenarioSuite: string = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './scenario-suite.ts' : './scenario-suite.js', import.meta.url));

const UDIDS_HINT = 'set DV_WDIO_UDIDS to the adb serials of the devices, e.g. DV_WDIO_UDIDS=emulator-5554,127.0.0.1:5555';

function port(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) throw new UsageError(`dedup-verify/wdio: ${name}=${text} is not a TCP port: give a whole number from 1 to 65535.`);
  return Number(text);
}

/** DV_WDIO_UDIDS: the adb serials, one worker each. */
export function udidsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const udids = (env['DV_WDIO_UDIDS'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (udids.length === 0) throw new UsageError(`dedup-verify/wdio: ${UDIDS_HINT}.`);
  return [...new Set(udids)];
}

function extraCapabilities(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const text = env['DV_WDIO_CAPS'];
  if (text === undefined || text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`dedup-verify/wdio: DV_WDIO_CAPS is not JSON (${e instanceof Error ? e.message : String(e)}): give a JSON object, e.g. DV_WDIO_CAPS='{"appium:options":{"skipServerInstallation":true}}'.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('dedup-verify/wdio: DV_WDIO_CAPS must be a JSON object of capabilities.');
  if ('appium:udid' in value) throw new UsageError('dedup-verify/wdio: DV_WDIO_CAPS must not set appium:udid: each capability gets its device from DV_WDIO_UDIDS.');
  return value as Record<string, unknown>;
}

/**
 * One capability per device of DV_WDIO_UDIDS (the UiAutomator2 capabilities of
 * src/device/appium-capabilities.ts, DV_WDIO_CAPS merged in), each for one worker.
 */
export function dedupVerifyCapabilities(env: NodeJS.ProcessEnv = process.env): WebdriverIO.Capabilities[] {
  const adbPort = port(env, 'DV_ADB_PORT') ?? port(env, 'ANDROID_ADB_SERVER_PORT');
  const extra = extraCapabilities(env);
  return udidsFromEnv(env).map((udid) => ({
    ...uiautomator2Capabilities({ udid, ...(adbPort !== undefined ? { adbPort } : {}), extra }),
    'wdio:maxInstances': 1,
  }));
}

/**
 * A complete WebdriverIO testrunner config that runs the scenarios on the devices of
 * DV_WDIO_UDIDS; `overrides` replace its top-level options (`mochaOpts` is merged). Without
 * DV_WDIO_HOSTNAME it starts a local Appium server through @wdio/appium-service and, when
 * ANDROID_HOME is unset, sets it to the SDK around the `adb` on PATH (the server runs that adb).
 */
export function dedupVerifyConfig(overrides: Partial<DedupVerifyWdioConfig> = {}, env: NodeJS.ProcessEnv = process.env): DedupVerifyWdioConfig {
  const capabilities = dedupVerifyCapabilities(env);
  const timeout = env['DV_SCENARIO_TIMEOUT_MS'];
  if (timeout !== undefined && timeout !== '' && !/^\d+$/.test(timeout)) {
    throw new UsageError(`dedup-verify/wdio: DV_SCENARIO_TIMEOUT_MS=${timeout} is not a number of milliseconds, e.g. DV_SCENARIO_TIMEOUT_MS=600000.`);
  }
  // A Node timer keeps a delay only up to 2^31-1 ms (longer ones fire after 1 ms), and mocha
  // silently turns such a timeout into none at all.
  if (timeout !== undefined && timeout !== '' && Number(timeout) > 2 ** 31 - 1) {
    throw new UsageError(`dedup-verify/wdio: DV_SCENARIO_TIMEOUT_MS=${timeout} is over 2147483647 (2^31-1 ms, the longest timer Node keeps); use a smaller value, e.g. DV_SCENARIO_TIMEOUT_MS=600000.`);
  }
  const protocol = env['DV_WDIO_PROTOCOL'] ?? 'http';
  if (protocol !== 'http' && protocol !== 'https') throw new UsageError(`dedup-verify/wdio: DV_WDIO_PROTOCOL=${protocol}: use http or https.`);
  const remoteHost = env['DV_WDIO_HOSTNAME'];
  let server: Partial<DedupVerifyWdioConfig>;
  if (remoteHost !== undefined && remoteHost !== '') {
    server = { protocol, hostname: remoteHost, port: port(env, 'DV_WDIO_PORT') ?? 4444, path: env['DV_WDIO_PATH'] ?? '/' };
  } else {
    // The local server inherits this process's environment: it runs the adb of ANDROID_HOME.
    const sdk = env['ANDROID_HOME'] ?? env['ANDROID_SDK_ROOT'] ?? androidSdkFromPath(env);
    if (sdk !== undefined) env['ANDROID_HOME'] ??= sdk;
    const appiumPort = port(env, 'DV_APPIUM_PORT');
    const args = { allowInsecure: 'uiautomator2:adb_shell', useDrivers: 'uiautomator2', logNoColors: true, ...(appiumPort !== undefined ? { port: appiumPort } : {}) };
    // The server's log goes to a file: a device command that exits non-zero is an error line there, and data for the harness.
    const logPath = env['DV_APPIUM_LOG_DIR'] ?? join(env['DV_OUT'] ?? join(tmpdir(), 'dedup-verify'), 'appium');
    server = { services: [['appium', { args, logPath }]] };
  }
  const base: DedupVerifyWdioConfig = {
    runner: 'local',
    specs: [scenarioSuite],
    maxInstances: capabilities.length,
    capabilities,
    ...server,
    // No browser here: no virtual display needed.
    autoXvfb: false,
    logLevel: 'warn',
    // A device command that exits non-zero is data for the harness, not a WebDriver error to log.
    logLevels: { webdriver: 'silent', webdriverio: 'error' },
    bail: 0,
    waitforTimeout: 10_000,
    connectionRetryTimeout: 180_000,
    connectionRetryCount: 1,
    framework: 'mocha',
    reporters: ['spec'],
    mochaOpts: { ui: 'bdd', timeout: timeout !== undefined && timeout !== '' ? Number(timeout) : 600_000 },
  };
  return { ...base, ...overrides, mochaOpts: { ...base.mochaOpts, ...overrides.mochaOpts } };
}
