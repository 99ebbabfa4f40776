/**
 * The capabilities a dedup-verify session asks of the Appium UiAutomator2 driver (8.x), each for a
 * reason (capability handling: appium-uiautomator2-driver 8.7.0 lib/uiautomator2-server/session.ts;
 * the appium-android-driver 14.2.0 it bundles, lib/commands/device/common.ts and
 * lib/commands/geolocation.ts; appium-adb 16.0.5 lib/adb.ts and lib/tools/system-calls.ts;
 * docs/farms.md lists them for CI engineers):
 * - no `app`/`appPackage`: the app under test is already installed (a debuggable build); the
 *   harness starts and stops it itself, so the driver must not install, reset or launch anything;
 * - `appium:noReset`: never `pm clear` the app (its database is what is being verified);
 * - `appium:skipLogcatCapture`: the harness reads logcat itself; a second `adb logcat` costs a
 *   stream and, on a device that prints nothing at first, a 10 s wait at session start;
 * - `appium:mockLocationApp: ""`: no mock-location appops and no `mock_apps.json` push (the
 *   harness never mocks a location);
 * - `appium:suppressKillServer` for a device reached with `adb connect host:port`: the driver's
 *   recovery `adb kill-server` would drop that link;
 * - `appium:adbPort` when the devices hang off an adb server on another port than 5037;
 * - `appium:newCommandTimeout`: a forced run can keep the session quiet for a while.
 */

export interface UiAutomator2CapabilityOptions {
  /** The adb serial: `emulator-5554`, `127.0.0.1:5555`, a USB serial. */
  readonly udid: string;
  /** The adb server port on the Appium host, when it is not 5037. */
  readonly adbPort?: number;
  /** Seconds without a command before the server ends the session (default 600). */
  readonly newCommandTimeoutSec?: number;
  /** Extra capabilities (a farm's own, e.g. `appium:options` of a cloud provider). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** True for serials of devices reached with `adb connect HOST:PORT`. */
export function isNetworkSerial(udid: string): boolean {
  return /^[^:\s]+:\d+$/.test(udid);
}

export function uiautomator2Capabilities(options: UiAutomator2CapabilityOptions): Record<string, unknown> {
  return {
    platformName: 'Android',
    'appium:automationName': 'UiAutomator2',
    'appium:udid': options.udid,
    'appium:noReset': true,
    'appium:newCommandTimeout': options.newCommandTimeoutSec ?? 600,
    'appium:skipLogcatCapture': true,
    'appium:mockLocationApp': '',
    ...(isNetworkSerial(options.udid) ? { 'appium:suppressKillServer': true } : {}),
    ...(options.adbPort !== undefined && options.adbPort !== 5037 ? { 'appium:adbPort': options.adbPort } : {}),
    ...(options.extra ?? {}),
  };
}

/** The server flags a dedup-verify session needs (`mobile: shell` is an insecure feature). */
export const APPIUM_SERVER_ARGS = ['--allow-insecure', 'uiautomator2:adb_shell'] as const;
