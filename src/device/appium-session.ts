/**
 * Opening an Appium UiAutomator2 session from dedup-verify itself (`run --appium URL`):
 * webdriverio's `remote()` (an optional peer dependency, loaded here only) and the AppiumDevice
 * over the new session with its adb companion for what WebDriver cannot carry (appium-device.ts
 * says what).
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';
import type { AndroidDevice } from './android-device.js';
import { AppiumDevice, type AppiumSession } from './appium-device.js';
import { describeAppiumEndpoint, type AppiumEndpoint } from './appium-endpoint.js';
import type { remote } from 'webdriverio';

export type RemoteFunction = typeof remote;

/** The install line the missing-webdriverio error names. */
export const WEBDRIVERIO_INSTALL = 'npm install webdriverio@9';

/** webdriverio's `remote()`, or a one-line error naming the install when it is not there. */
export async function loadWebdriverio(): Promise<RemoteFunction> {
  try {
    const { remote } = await import('webdriverio');
    return remote;
  } catch (e) {
    throw new DedupVerifyError(
      ErrorCode.Appium,
      `The Appium path needs webdriverio, an optional peer dependency of dedup-verify that is not installed here: install it next to dedup-verify (\`${WEBDRIVERIO_INSTALL}\`).`,
      { cause: e },
    );
  }
}

export interface OpenAppiumDeviceOptions {
  readonly remote: RemoteFunction;
  readonly endpoint: AppiumEndpoint;
  /** The session's capabilities, `appium:udid` included. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** The device's adb serial (`appium:udid`). */
  readonly serial: string;
  /** The adb companion (the logcat stream, `adb reverse`); closed with the device. */
  readonly adb: AndroidDevice;
  /** `mobile: shell` timeout when a command gives none. */
  readonly defaultTimeoutMs: number;
}

/**
 * A new WebDriver session for one device and the AppiumDevice over it; the device owns the
 * session (its `close()` deletes it) and the companion. On failure the companion is closed and
 * the error is one line naming the endpoint and the device.
 */
export async function openAppiumDevice(options: OpenAppiumDeviceOptions): Promise<AppiumDevice> {
  const { endpoint } = options;
  let session: AppiumSession;
  try {
    session = await options.remote({
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: endpoint.port,
      path: endpoint.path,
      ...(endpoint.user !== undefined ? { user: endpoint.user } : {}),
      ...(endpoint.key !== undefined ? { key: endpoint.key } : {}),
      logLevel: 'silent',
      connectionRetryCount: 0,
      capabilities: options.capabilities,
    });
  } catch (e) {
    await options.adb.close().catch(() => undefined);
    const text = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim();
    throw new DedupVerifyError(
      ErrorCode.Appium,
      `Could not create an Appium session for ${options.serial} at ${describeAppiumEndpoint(endpoint)}: ${text.length > 400 ? `${text.slice(0, 400)}…` : text}. Check that the server runs the uiautomator2 driver and that \`adb devices\` on its host lists ${options.serial}.`,
      { cause: e },
    );
  }
  return new AppiumDevice({ session, serial: options.serial, adb: options.adb, ownsSession: true, defaultTimeoutMs: options.defaultTimeoutMs });
}
