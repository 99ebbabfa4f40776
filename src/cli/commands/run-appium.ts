/**
 * `dedup-verify run --appium URL [--caps FILE|JSON]`: the same run, every device reached through
 * an Appium UiAutomator2 session that the CLI opens itself (webdriverio's `remote()`), with the
 * adb server of `--adb-host`/`--adb-port` as the companion for what WebDriver cannot carry (the
 * logcat stream and `adb reverse`, docs/farms.md). Everything is checked before a device is
 * touched: the flags, the capabilities, webdriverio, the server, and the adb companion. The
 * WebDriver code (src/device/appium-session.ts, webdriverio) is loaded only with `--appium`.
 */
import { readFile } from 'node:fs/promises';
import { DedupVerifyError, ErrorCode, UsageError, hasErrorCode } from '../../errors.js';
import type { Config } from '../../config/types.js';
import type { AdbEndpoint } from '../../device/adb-errors.js';
import { probeAdbServer } from '../../device/adb-server.js';
import { uiautomator2Capabilities } from '../../device/appium-capabilities.js';
import type { AppiumDevice } from '../../device/appium-device.js';
import { describeAppiumEndpoint, parseAppiumUrl, probeAppiumServer, type AppiumEndpoint } from '../../device/appium-endpoint.js';
import type * as AppiumSessionModule from '../../device/appium-session.js';
import type { RemoteFunction } from '../../device/appium-session.js';
import type { AdbEndpointResolver, ResolvedDevices } from './run-devices.js';

export interface AppiumFlags {
  readonly appium?: string;
  readonly caps?: string;
  readonly virtual: boolean;
}

/** The flag checks of `--appium`/`--caps`: no file read, nothing started. */
export function checkAppiumFlags(o: AppiumFlags): void {
  if (o.caps !== undefined && o.appium === undefined) throw new UsageError('--caps gives the capabilities of the Appium sessions: use it with --appium URL.');
  if (o.appium === undefined) return;
  if (o.virtual) {
    throw new UsageError('--appium reaches the devices through an Appium server, --virtual starts an embedded device over adb: use one of them (to put the virtual device behind Appium, start `dedup-verify virtual-device` and pass its serial with --device).');
  }
  parseAppiumUrl(o.appium, '--appium');
}

/** `--caps FILE|JSON`: a JSON object, inline (starting with `{`) or in a file. */
export async function readCapabilities(text: string): Promise<Record<string, unknown>> {
  const inline = text.trimStart().startsWith('{');
  let json: string;
  if (inline) {
    json = text;
  } else {
    try {
      json = await readFile(text, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError(`--caps ${text}: cannot read the file (${code}); pass a JSON file of capabilities or the JSON itself, e.g. --caps '{"appium:options":{"skipServerInstallation":true}}'.`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    const where = inline ? 'the --caps value' : `--caps ${text}`;
    throw new UsageError(`${where} is not JSON (${e instanceof Error ? e.message : String(e)}): give a JSON object of capabilities, e.g. --caps '{"appium:options":{"skipServerInstallation":true}}'.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`--caps takes a JSON object of capabilities (got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}).`);
  }
  const caps = value as Record<string, unknown>;
  if ('alwaysMatch' in caps || 'firstMatch' in caps) {
    throw new UsageError('--caps takes the capabilities themselves, not a W3C alwaysMatch/firstMatch envelope: give the contents of alwaysMatch, e.g. {"appium:options": {...}}.');
  }
  if ('appium:udid' in caps) {
    throw new UsageError('--caps must not set appium:udid: every session gets the serial of its device from --device UDID (or --all-devices); remove appium:udid from --caps.');
  }
  return caps;
}

/** What `run --appium` prepared: the endpoint, the capabilities, webdriverio. */
export class AppiumRun {
  private readonly opened: AppiumDevice[] = [];
  /** The adb companion, `host:port`. */
  private adbLabel = '';
  private progress: (text: string) => void = () => undefined;

  private constructor(
    readonly endpoint: AppiumEndpoint,
    private readonly caps: Readonly<Record<string, unknown>>,
    private readonly remote: RemoteFunction,
    private readonly session: typeof AppiumSessionModule,
  ) {}

  /** The URL, the capabilities and webdriverio: bad input or a missing install is one line, before the config is read. */
  static async prepare(o: AppiumFlags & { readonly appium: string }): Promise<AppiumRun> {
    const endpoint = parseAppiumUrl(o.appium, '--appium');
    const caps = o.caps === undefined ? {} : await readCapabilities(o.caps);
    const session = await import('../../device/appium-session.js');
    return new AppiumRun(endpoint, caps, await session.loadWebdriverio(), session);
  }

  /**
   * The Appium server and the adb companion answer: each failure is one line with the reason
   * and the fix, before any device is touched.
   */
  async check(adb: AdbEndpoint, progress: (text: string) => void): Promise<void> {
    this.adbLabel = `${adb.host}:${adb.port}`;
    this.progress = progress;
    await probeAppiumServer(this.endpoint);
    if ((await probeAdbServer(adb)) === null) {
      throw new DedupVerifyError(
        ErrorCode.AdbServer,
        `run --appium also needs an adb server that sees the devices, for what WebDriver cannot carry (the logcat stream of notification_enqueue and \`adb reverse\` to the fixture server), and none answers on ${adb.host}:${adb.port}: start it on this machine (\`adb -P ${adb.port} start-server\`) or point --adb-host/--adb-port at the farm's adb endpoint (docs/farms.md).`,
      );
    }
    progress(`Appium at ${describeAppiumEndpoint(this.endpoint)}; adb companion ${adb.host}:${adb.port} (logcat stream, adb reverse)`);
  }

  /**
   * The devices `run` resolves over adb (`--device`, `--all-devices`, the only one online), each
   * opened as an Appium session with that adb as its companion. A device the adb companion
   * does not list is refused with the reason.
   */
  async resolve(resolver: AdbEndpointResolver, config: Config): Promise<ResolvedDevices> {
    let devices: ResolvedDevices;
    try {
      devices = await resolver.resolve();
    } catch (e) {
      if (!hasErrorCode(e, ErrorCode.DeviceNotFound)) throw e;
      throw new DedupVerifyError(
        ErrorCode.DeviceNotFound,
        `${e.message.replace(/\s+$/, '')} With --appium every device must also be listed by the adb server ${this.adbLabel} (the logcat stream and adb reverse go through it): \`adb connect\` it there or point --adb-host/--adb-port at the adb server that sees it.`,
        { cause: e },
      );
    }
    this.adbLabel = `${devices.endpoint.host}:${devices.endpoint.port}`;
    return {
      endpoint: devices.endpoint,
      serials: devices.serials,
      created: devices.created,
      open: async (serial) => {
        const adb = await devices.open(serial);
        this.progress(`${serial}: opening an Appium session at ${describeAppiumEndpoint(this.endpoint)}`);
        const device = await this.session.openAppiumDevice({
          remote: this.remote,
          endpoint: this.endpoint,
          serial,
          adb,
          defaultTimeoutMs: config.timeouts.commandMs,
          capabilities: uiautomator2Capabilities({ udid: serial, adbPort: devices.endpoint.port, extra: this.caps }),
        });
        this.opened.push(device);
        return device;
      },
    };
  }

  /** One line per device: what travelled over WebDriver and what over adb. */
  traffic(): string[] {
    return this.opened.map((d) => {
      const t = d.traffic;
      return `${d.serial}: over WebDriver: mobile: shell ×${t.shell}, pullFile ×${t.pullFile}, pushFile ×${t.pushFile}; over adb ${this.adbLabel}: logcat stream ×${t.adbStreams}, reverse rules ×${t.adbReverse}`;
    });
  }
}
