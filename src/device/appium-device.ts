/**
 * AndroidDevice over an Appium UiAutomator2 WebDriver session (docs/design.md §2), for device farms
 * where a WebDriver endpoint (Appium server, Selenium Grid 4 relay, appium-device-farm, a cloud
 * farm) is what there is.
 *
 * What travels over WebDriver (appium-android-driver lib/commands/shell.ts, misc.ts,
 * file-actions.ts):
 * - `shell`, `shellText`, `execOut`, `getProperties`: `mobile: shell` (needs the server's
 *   `adb_shell` insecure feature). Stdout comes back base64-encoded by the device (see
 *   appium-shell.ts), so it stays binary-safe; the exit status and stderr are read from the
 *   driver's error text when the command exits non-zero; `stdin` is pushed to a temp file and
 *   redirected.
 * - `pull` / `push`: `pullFile` / `pushFile` (base64), then `chmod` through `mobile: shell` for a
 *   mode other than 0644.
 * - `getNotifications`: `mobile: getNotifications` (the io.appium.settings helper's buffer).
 *
 * What cannot travel over WebDriver, and goes to an adb companion device when there is one:
 * - `streamShell` (the harness's logcat stream): `mobile: shell` returns only when the command
 *   exits, and Appium's logcat broadcast (`mobile: startLogsBroadcast`) carries only the log
 *   Appium itself captures: `adb logcat -v <format> [filterspecs]` on the default buffers, with
 *   filter specs starting with `-` dropped (appium-adb lib/logcat.ts formatFilterSpecs), so never
 *   the `events` buffer where `notification_enqueue` is logged. Without a companion,
 *   `streamShell` throws and `readLog` offers the dump-based read (see its comment).
 * - `reverse` / `listReverses` / `removeReverse`: `adb reverse` is a function of the adb server
 *   and adbd; neither Appium nor the UiAutomator2 driver exposes it. Without a companion the
 *   fixture server must be reachable from the device another way (docs/farms.md).
 *
 * webdriverio is loaded only by `AppiumDevice.connect` (dynamic import): nothing on the adb
 * path loads it.
 */
import { randomBytes } from 'node:crypto';
import { DedupVerifyError, DeviceCommandError, ErrorCode, TimeoutError } from '../errors.js';
import {
  runShellText,
  type AndroidDevice,
  type ReverseRule,
  type ShellOptions,
  type ShellResult,
  type ShellTextOptions,
  type StreamHandle,
  type StreamListener,
} from './android-device.js';
import { outcomeOfError, outcomeOfValue, wrapForMobileShell, type ShellTransportOutcome } from './appium-shell.js';
import { parseNotificationBuffer, type BufferedNotification } from '../android/appium-notifications.js';
import { parseGetprop } from './getprop.js';
import { quoteShellArg, toCommandLine } from './shell-quote.js';

/**
 * The part of a WebdriverIO Browser (webdriverio 9 `remote()` or the `browser` global of a wdio
 * worker) an AppiumDevice uses.
 */
export interface AppiumSession {
  readonly sessionId: string;
  execute(script: string, ...args: unknown[]): Promise<unknown>;
  pullFile(path: string): Promise<string>;
  pushFile(path: string, data: string): Promise<unknown>;
  deleteSession(): Promise<unknown>;
}

export interface AppiumDeviceOptions {
  readonly session: AppiumSession;
  /** The device's adb serial (`appium:udid`). */
  readonly serial: string;
  /** Where the adb-only parts go (streaming, reverse rules); without it they throw. */
  readonly adb?: AndroidDevice;
  /** Delete the session on close() (true for sessions made by AppiumDevice.connect). */
  readonly ownsSession?: boolean;
  /** `mobile: shell` timeout when the call gives none (the driver's default is 20 s). */
  readonly defaultTimeoutMs?: number;
  /** Device directory for stdin files (default /data/local/tmp). */
  readonly deviceTempDir?: string;
}

export interface AppiumConnectOptions {
  /** The Appium server or hub: protocol, hostname, port, path. */
  readonly hostname: string;
  readonly port: number;
  readonly path?: string;
  readonly protocol?: 'http' | 'https';
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly adb?: AndroidDevice;
  readonly defaultTimeoutMs?: number;
  /** webdriverio's log level (default: silent; failed commands are reported through the errors thrown here). */
  readonly logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

/** How many calls went which way (so a run can say what travelled over WebDriver). */
export interface AppiumTraffic {
  /** `mobile: shell` calls. */
  shell: number;
  pullFile: number;
  pushFile: number;
  getNotifications: number;
  /** Streams and reverse-rule calls handed to the adb companion. */
  adbStreams: number;
  adbReverse: number;
}

export interface NotificationBuffer {
  readonly entries: readonly BufferedNotification[];
  /** The buffer is at its capacity of 100: older posts may have been evicted. */
  readonly full: boolean;
}

/** A position in the device log for `readLog`: the last line returned and how often it was seen. */
export interface LogCursor {
  readonly lastLine: string | null;
  readonly lastLineRepeats: number;
}

export interface LogRead {
  readonly lines: readonly string[];
  readonly cursor: LogCursor;
  /** The cursor's line was no longer in the buffer (rotated or cleared): lines may be missing. */
  readonly gap: boolean;
}

const DEFAULT_TIMEOUT_MS = 20_000;
const INSECURE_HINT =
  "mobile: shell needs the Appium server's adb_shell insecure feature: start the server with `--allow-insecure uiautomator2:adb_shell` (or `--allow-insecure '*:adb_shell'`); on a hosted farm, ask for that feature to be enabled.";

export const STREAMING_LIMIT =
  'A streaming shell command (the logcat stream of the harness) cannot travel over WebDriver: `mobile: shell` returns only when the command exits, and `mobile: startLogsBroadcast` only relays the log Appium captures itself (default buffers, no `events` buffer). Give the session an adb connection to the device (DV_ADB_HOST/DV_ADB_PORT for wdio.conf.ts), or read the log in steps with AppiumDevice.readLog.';

export const REVERSE_LIMIT =
  '`adb reverse` is a function of the adb server, which WebDriver does not expose. Give the session an adb connection to the device (DV_ADB_HOST/DV_ADB_PORT for wdio.conf.ts), or make the fixture server reachable from the device another way (10.0.2.2 from an emulator, a reverse rule set up on the farm host): see docs/farms.md.';

export class AppiumDevice implements AndroidDevice {
  readonly serial: string;
  readonly traffic: AppiumTraffic = { shell: 0, pullFile: 0, pushFile: 0, getNotifications: 0, adbStreams: 0, adbReverse: 0 };
  private readonly session: AppiumSession;
  private readonly adb: AndroidDevice | undefined;
  private readonly ownsSession: boolean;
  private readonly defaultTimeoutMs: number;
  private readonly tempDir: string;
  private closed = false;

  constructor(options: AppiumDeviceOptions) {
    this.session = options.session;
    this.serial = options.serial;
    this.adb = options.adb;
    this.ownsSession = options.ownsSession ?? false;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.tempDir = options.deviceTempDir ?? '/data/local/tmp';
  }

  /** Opens a WebDriver session with `capabilities` (webdriverio `remote()`, loaded here only). */
  static async connect(options: AppiumConnectOptions): Promise<AppiumDevice> {
    const udid = options.capabilities['appium:udid'];
    if (typeof udid !== 'string' || udid === '') {
      throw new DedupVerifyError(ErrorCode.Usage, 'The Appium capabilities need `appium:udid`: the adb serial of the device (e.g. emulator-5554 or 127.0.0.1:5555).');
    }
    const { remote } = await import('webdriverio').catch((e: unknown) => {
      throw new DedupVerifyError(
        ErrorCode.Appium,
        'The Appium path needs webdriverio, an optional peer dependency of dedup-verify: install it next to it (npm install webdriverio@9).',
        { cause: e },
      );
    });
    let browser: AppiumSession;
    try {
      browser = await remote({
        protocol: options.protocol ?? 'http',
        hostname: options.hostname,
        port: options.port,
        path: options.path ?? '/',
        logLevel: options.logLevel ?? 'silent',
        connectionRetryCount: 0,
        capabilities: options.capabilities,
      });
    } catch (e) {
      throw new DedupVerifyError(
        ErrorCode.Appium,
        `Could not create an Appium session for ${udid} at ${options.protocol ?? 'http'}://${options.hostname}:${options.port}${options.path ?? '/'}: ${errorMessage(e)}. Check that the server runs with the uiautomator2 driver and that \`adb devices\` on its host lists ${udid}.`,
        { cause: e },
      );
    }
    return new AppiumDevice({
      session: browser,
      serial: udid,
      ownsSession: true,
      ...(options.adb !== undefined ? { adb: options.adb } : {}),
      ...(options.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
    });
  }

  /**
   * The same session with `adb` as the companion for streams and reverse rules; the session
   * stays owned by this device (closing the copy closes `adb` only).
   */
  withAdb(adb: AndroidDevice): AppiumDevice {
    return new AppiumDevice({ session: this.session, serial: this.serial, adb, defaultTimeoutMs: this.defaultTimeoutMs, deviceTempDir: this.tempDir });
  }

  /** Whether an adb companion carries streams and reverse rules. */
  get hasAdbCompanion(): boolean {
    return this.adb !== undefined;
  }

  async shell(command: string | readonly string[], options: ShellOptions = {}): Promise<ShellResult> {
    const line = toCommandLine(command);
    const nonce = `DV${randomBytes(8).toString('hex')}`;
    let stdinPath: string | undefined;
    if (options.stdin !== undefined) {
      stdinPath = `${this.tempDir}/.dv-in-${nonce}`;
      await this.push(options.stdin, stdinPath, 0o600);
    }
    try {
      const outcome = await this.mobileShell(wrapForMobileShell(line, nonce, stdinPath === undefined ? undefined : quoteShellArg(stdinPath)), nonce, options.timeoutMs ?? this.defaultTimeoutMs);
      return this.resultOf(outcome, line, options.timeoutMs ?? this.defaultTimeoutMs);
    } finally {
      if (stdinPath !== undefined) await this.mobileShell(`rm -f ${quoteShellArg(stdinPath)}`, '', this.defaultTimeoutMs).catch(() => undefined);
    }
  }

  shellText(command: string | readonly string[], options: ShellTextOptions = {}): Promise<string> {
    return runShellText(this, `mobile: shell ${toCommandLine(command)} (on ${this.serial})`, command, options);
  }

  /** Like `adb exec-out`: stdout and stderr mixed, no exit status. */
  async execOut(command: string | readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<Buffer> {
    const line = `{ ${toCommandLine(command)}\n} 2>&1`;
    const result = await this.shell(line, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    return result.stdout;
  }

  async pull(path: string): Promise<Buffer> {
    this.traffic.pullFile++;
    try {
      return Buffer.from(await this.session.pullFile(path), 'base64');
    } catch (e) {
      throw this.fileError('pull', path, e);
    }
  }

  async push(data: Buffer | string, path: string, mode = 0o644): Promise<void> {
    this.traffic.pushFile++;
    try {
      await this.session.pushFile(path, Buffer.from(data).toString('base64'));
    } catch (e) {
      throw this.fileError('push', path, e);
    }
    // pushFile writes mode 0644 (`adb push`, sync SEND "<path>,33188": appium-android-driver
    // lib/commands/file-actions.ts).
    if ((mode & 0o7777) !== 0o644) await this.shellText(['chmod', (mode & 0o7777).toString(8), path]);
  }

  async streamShell(command: string | readonly string[], listener: StreamListener, signal?: AbortSignal): Promise<StreamHandle> {
    if (this.adb === undefined) throw new DedupVerifyError(ErrorCode.Appium, `${STREAMING_LIMIT} (device ${this.serial}, command \`${toCommandLine(command)}\`)`);
    this.traffic.adbStreams++;
    return this.adb.streamShell(command, listener, signal);
  }

  reverse(devicePort: number, hostPort: number): Promise<void> {
    return this.companion('reverse').reverse(devicePort, hostPort);
  }

  listReverses(): Promise<ReverseRule[]> {
    return this.companion('reverse --list').listReverses();
  }

  removeReverse(devicePort: number): Promise<void> {
    return this.companion('reverse --remove').removeReverse(devicePort);
  }

  async getProperties(): Promise<Record<string, string>> {
    return parseGetprop(await this.shellText('getprop'));
  }

  /** `mobile: getNotifications`: the settings helper's buffer of posted notifications, newest first. */
  async getNotifications(): Promise<NotificationBuffer> {
    this.traffic.getNotifications++;
    let value: unknown;
    try {
      value = await this.session.execute('mobile: getNotifications', {});
    } catch (e) {
      throw new DedupVerifyError(
        ErrorCode.Appium,
        `mobile: getNotifications failed on ${this.serial}: ${errorMessage(e)}. It needs the io.appium.settings helper installed, running and allowed to read notifications (the driver does this unless appium:skipDeviceInitialization is set).`,
        { cause: e },
      );
    }
    let entries: BufferedNotification[];
    try {
      entries = parseNotificationBuffer(value);
    } catch (e) {
      throw new DedupVerifyError(ErrorCode.Appium, `mobile: getNotifications on ${this.serial}: ${errorMessage(e)}`, { cause: e });
    }
    return { entries, full: entries.length >= 100 };
  }

  /**
   * The documented alternative to streaming over WebDriver: dumps the log buffers
   * (`logcat -d -v epoch -b …`) and returns the lines after the cursor, in order. Positions are the last line returned (and how often that exact line was
   * seen), not times, so a clock moved backwards cannot skip lines; if the cursor's line left
   * the ring buffer, everything in it is returned and `gap` says that lines may be missing. A
   * caller syncs by logging a marker (`log -t TAG NONCE`) and reading until it appears.
   */
  async readLog(buffers: readonly string[], cursor: LogCursor = { lastLine: null, lastLineRepeats: 0 }): Promise<LogRead> {
    const argv = ['logcat', '-d', '-v', 'epoch', ...buffers.flatMap((b) => ['-b', b])];
    const text = (await this.shellText(argv, { timeoutMs: this.defaultTimeoutMs })).split('\n').filter((l) => l !== '' && !l.startsWith('--------- beginning of'));
    let start = 0;
    let gap = false;
    if (cursor.lastLine !== null) {
      let seen = 0;
      let found = -1;
      for (let i = 0; i < text.length; i++) {
        if (text[i] === cursor.lastLine && ++seen === cursor.lastLineRepeats) {
          found = i;
          break;
        }
      }
      if (found < 0) gap = true;
      else start = found + 1;
    }
    const lines = text.slice(start);
    const all = gap ? text : text.slice(0, start).concat(lines);
    const last = all.length > 0 ? all[all.length - 1]! : null;
    const repeats = last === null ? 0 : all.filter((l) => l === last).length;
    return { lines, cursor: { lastLine: last, lastLineRepeats: repeats }, gap };
  }

  /** Releases the adb companion's streams; deletes the session if this device created it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.adb?.close().catch(() => undefined);
    if (this.ownsSession) await this.session.deleteSession().catch(() => undefined);
  }

  // ---------------------------------------------------------------------------------------

  private companion(what: string): AndroidDevice {
    if (this.adb === undefined) throw new DedupVerifyError(ErrorCode.Appium, `adb ${what} on ${this.serial}: ${REVERSE_LIMIT}`);
    this.traffic.adbReverse++;
    return this.adb;
  }

  private async mobileShell(command: string, nonce: string, timeoutMs: number): Promise<ShellTransportOutcome> {
    this.traffic.shell++;
    try {
      const value = await this.session.execute('mobile: shell', { command, args: [], timeout: timeoutMs, includeStderr: true });
      return outcomeOfValue(value, nonce);
    } catch (e) {
      return outcomeOfError(errorMessage(e), nonce);
    }
  }

  private resultOf(outcome: ShellTransportOutcome, line: string, timeoutMs: number): ShellResult {
    switch (outcome.kind) {
      case 'result':
        return { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
      case 'refused':
        throw new DedupVerifyError(ErrorCode.Appium, `The Appium server refused \`${line}\` on ${this.serial}. ${INSECURE_HINT}`);
      case 'timeout':
        throw new TimeoutError(`Device command \`${line}\` on ${this.serial} did not finish within ${timeoutMs} ms (mobile: shell timeout); it was stopped.`, timeoutMs);
      case 'adb-failure':
        throw new DedupVerifyError(
          ErrorCode.DeviceGone,
          `Lost device "${this.serial}" during \`${line}\` through Appium (${outcome.detail}). Check that \`adb devices\` on the Appium host lists it as "device".`,
        );
      case 'other':
        throw new DedupVerifyError(ErrorCode.Appium, `mobile: shell \`${line}\` failed on ${this.serial}: ${outcome.detail}`);
      default: {
        const unreachable: never = outcome;
        return unreachable;
      }
    }
  }

  private fileError(what: 'pull' | 'push', path: string, e: unknown): Error {
    const message = errorMessage(e);
    if (/Potentially insecure feature/.test(message)) return new DedupVerifyError(ErrorCode.Appium, `${what}File ${path} on ${this.serial} was refused: ${message}`, { cause: e });
    return new DeviceCommandError(`${what === 'pull' ? 'pullFile' : 'pushFile'} ${path} failed on ${this.serial} through Appium: ${message.replace(/\s?when running "[^"]*" with method "[A-Z]+"\s*$/, '')}`, {
      command: `${what} ${path}`,
      stderr: message,
    }, { cause: e });
  }
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
