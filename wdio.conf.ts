/**
 * dedup-verify on device farms through WebdriverIO (docs/farms.md): the scenarios of
 * src/scenarios run from specs/device/ under WebdriverIO's mocha framework, one worker per
 * capability, one capability per device.
 *
 *   DV_WDIO_UDIDS=emulator-5554,127.0.0.1:5555 DV_CONFIG=dedup-verify.config.json npx wdio run wdio.conf.ts
 *
 * Environment:
 * - DV_WDIO_UDIDS (required): comma-separated adb serials, one worker each.
 * - DV_CONFIG: the dedup-verify config file (default ./dedup-verify.config.json).
 * - DV_SCENARIOS: comma-separated scenario names (default: all of docs/design.md §6).
 * - DV_WDIO_HOSTNAME / DV_WDIO_PORT / DV_WDIO_PATH / DV_WDIO_PROTOCOL: a remote Appium server or
 *   hub (Selenium Grid 4, appium-device-farm, a cloud farm); without DV_WDIO_HOSTNAME a local
 *   Appium server is started by @wdio/appium-service with `--allow-insecure
 *   uiautomator2:adb_shell --use-drivers uiautomator2` (port DV_APPIUM_PORT, else 4723 or a free
 *   one; its log, wdio-appium.log, in DV_APPIUM_LOG_DIR, else DV_OUT/appium, else
 *   $TMPDIR/dedup-verify/appium).
 * - DV_WDIO_CAPS: JSON merged into every capability (a farm's own keys).
 * - DV_ADB_HOST / DV_ADB_PORT (default 127.0.0.1 and $ANDROID_ADB_SERVER_PORT or 5037): the adb
 *   server that also reaches the devices, for what WebDriver cannot carry (the logcat stream and
 *   `adb reverse`); DV_ADB=none runs without it (the session then cannot start: see farms.md).
 * - DV_OUT: a directory for report.json / junit.xml / history.jsonl per device.
 * - DV_SCENARIO_TIMEOUT_MS: mocha timeout of one scenario (default 600000).
 */
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Capabilities, Options } from '@wdio/types';
import { uiautomator2Capabilities } from './src/device/appium-capabilities.js';
import { androidSdkFromPath } from './src/device/appium-server.js';

const root = dirname(fileURLToPath(import.meta.url));
const env = process.env;

const udids = (env['DV_WDIO_UDIDS'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
if (udids.length === 0) {
  throw new Error('wdio.conf.ts: set DV_WDIO_UDIDS to the adb serials of the devices, e.g. DV_WDIO_UDIDS=emulator-5554,127.0.0.1:5555.');
}

function portFrom(name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`wdio.conf.ts: ${name}=${text} is not a TCP port.`);
  return port;
}

const adbPort = portFrom('DV_ADB_PORT') ?? portFrom('ANDROID_ADB_SERVER_PORT');
function extraCapabilities(): Record<string, unknown> {
  const text = env['DV_WDIO_CAPS'];
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`wdio.conf.ts: DV_WDIO_CAPS is not JSON (${e instanceof Error ? e.message : String(e)}): ${text.slice(0, 200)}`);
  }
}
const extraCaps = extraCapabilities();
const remoteHost = env['DV_WDIO_HOSTNAME'];
const home = env['ANDROID_HOME'] ?? env['ANDROID_SDK_ROOT'] ?? androidSdkFromPath();
// The local Appium server inherits these: the project is its own APPIUM_HOME (the driver is a
// devDependency; Appium 3 finds it in node_modules), and the SDK holds the adb it runs.
if (remoteHost === undefined) {
  env['APPIUM_HOME'] ??= root;
  if (home !== undefined) env['ANDROID_HOME'] ??= home;
}

const appiumArgs: Record<string, unknown> = {
  allowInsecure: 'uiautomator2:adb_shell',
  useDrivers: 'uiautomator2',
  logNoColors: true,
  ...(portFrom('DV_APPIUM_PORT') !== undefined ? { port: portFrom('DV_APPIUM_PORT') } : {}),
};

/** WebdriverIO.Config: the testrunner options plus the requested capabilities. */
type Config = Options.Testrunner & Capabilities.WithRequestedTestrunnerCapabilities;

export const config: Config = {
  runner: 'local',
  rootDir: root,
  specs: ['./specs/device/**/*.spec.ts'],
  maxInstances: udids.length,
  capabilities: udids.map((udid) => ({
    ...uiautomator2Capabilities({ udid, ...(adbPort !== undefined ? { adbPort } : {}), extra: extraCaps }),
    'wdio:maxInstances': 1,
  })),
  ...(remoteHost !== undefined
    ? {
        protocol: env['DV_WDIO_PROTOCOL'] === 'https' ? 'https' : 'http',
        hostname: remoteHost,
        port: portFrom('DV_WDIO_PORT') ?? 4444,
        path: env['DV_WDIO_PATH'] ?? '/',
      }
    : {
        // The server's own log goes to a file (wdio-appium.log): a device command that exits
        // non-zero is an error line there, and data for the harness.
        services: [['appium', { args: appiumArgs, logPath: env['DV_APPIUM_LOG_DIR'] ?? join(env['DV_OUT'] ?? join(tmpdir(), 'dedup-verify'), 'appium') }]],
      }),
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
  mochaOpts: {
    ui: 'bdd',
    timeout: Number(env['DV_SCENARIO_TIMEOUT_MS'] ?? 600_000),
  },
};
