/**
 * Where `run` finds its devices: the adb server (`--adb-host`, `--adb-port`, else
 * $ANDROID_ADB_SERVER_PORT, else 5037; a variable that is not a port is refused), the serials
 * asked for (`--device`, `--all-devices`, or the only device connected), or, with `--virtual`,
 * an embedded virtual device connected with `adb connect` (to the server that answers, or to a
 * private server on a free port that is stopped afterwards). Only what was started here is stopped here.
 */
import { createServer } from 'node:net';
import { DedupVerifyError, ErrorCode, UsageError } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import type { AndroidDevice } from '../../device/android-device.js';
import type { AdbEndpoint } from '../../device/adb-errors.js';
import {
  connectTcpDevice,
  createAdbClient,
  findAdbBinary,
  isLocalHost,
  listDevices,
  probeAdbServer,
  queryAdbServer,
  runAdb,
  waitForDevice,
} from '../../device/adb-server.js';
import { adbPortFromEnv } from '../inputs.js';
import { API_LEVELS, isApiLevel } from '../../virtual-device/profiles.js';
import type { RunOptions } from './run.js';

export interface ResolvedDevices {
  readonly endpoint: AdbEndpoint;
  readonly serials: readonly string[];
  /** Serials of devices this run created (the embedded virtual device). */
  readonly created: readonly string[];
  /** The device over adb (an AdbDevice; `run --appium` opens an Appium session over it). */
  open(serial: string): Promise<AndroidDevice>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** $ANDROID_ADB_SERVER_PORT, else 5037; a value that is not a port is a usage error (see adbPortFromEnv). */
export function defaultAdbPort(env: NodeJS.ProcessEnv = process.env): number {
  return adbPortFromEnv(env);
}

export class AdbEndpointResolver {
  private readonly cleanups: (() => Promise<void>)[] = [];

  constructor(
    private readonly o: Pick<RunOptions, 'device' | 'allDevices' | 'virtual' | 'bug' | 'api' | 'latency' | 'appLogLevel' | 'appProfile' | 'adbHost' | 'adbPort'>,
    private readonly progress: (text: string) => void,
  ) {}

  async resolve(): Promise<ResolvedDevices> {
    let endpoint: AdbEndpoint = { host: this.o.adbHost, port: this.o.adbPort ?? defaultAdbPort() };
    const adbPath = isLocalHost(endpoint.host) ? findAdbBinary() : undefined;
    let serials: string[];
    if (this.o.virtual) {
      // Bug names were checked with the other flags (readRunOptions); --api is narrowed here.
      const api = this.o.api ?? 34;
      if (!isApiLevel(api)) throw new UsageError(`--api takes one of ${API_LEVELS.join(', ')} (got ${api}).`);
      if ((await probeAdbServer(endpoint)) === null) {
        if (this.o.adbPort !== undefined || !isLocalHost(endpoint.host)) {
          throw new DedupVerifyError(ErrorCode.AdbServer, `No adb server answers on ${endpoint.host}:${endpoint.port}. Start it (\`adb -P ${endpoint.port} start-server\`) or leave out --adb-host/--adb-port.`);
        }
        const port = await freePort();
        this.progress(`no adb server on ${endpoint.host}:${endpoint.port}: starting a private one on port ${port}`);
        await runAdb(adbPath ?? 'adb', ['-P', String(port), 'start-server'], 30_000);
        endpoint = { host: '127.0.0.1', port };
        const started = endpoint;
        this.cleanups.push(() => runAdb(adbPath ?? 'adb', ['-P', String(started.port), 'kill-server'], 10_000).then(() => undefined));
      }
      const { startVirtualDevice } = await import('../../virtual-device/server.js');
      const latencyMs = this.o.latency ?? 0;
      const vd = await startVirtualDevice({
        bugs: this.o.bug,
        apiLevel: api,
        latencyMs,
        ...(this.o.appLogLevel === undefined ? {} : { appLogLevel: this.o.appLogLevel }),
        ...(this.o.appProfile === undefined ? {} : { appProfile: this.o.appProfile }),
      });
      this.cleanups.push(() => vd.close());
      const notes = [...(this.o.bug.length > 0 ? [`bugs: ${this.o.bug.join(', ')}`] : []), ...(latencyMs > 0 ? [`latency: ${latencyMs} ms per packet sent`] : []), ...(this.o.appLogLevel !== undefined && this.o.appLogLevel !== 'info' ? [`WorkManager logs at ${this.o.appLogLevel} and above`] : []), ...(this.o.appProfile !== undefined && this.o.appProfile !== 'reference' ? [`app profile: ${this.o.appProfile}`] : [])];
      this.progress(`virtual device listening on 127.0.0.1:${vd.port}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);
      const serial = await connectTcpDevice(endpoint, { host: '127.0.0.1', port: vd.port });
      const connectedTo = endpoint;
      this.cleanups.push(() => queryAdbServer(connectedTo, `host:disconnect:${serial}`).then(() => undefined, () => undefined));
      await waitForDevice(createAdbClient(endpoint), endpoint, serial, { timeoutMs: 15_000 });
      serials = [serial];
    } else {
      const listed = await listDevices(createAdbClient(endpoint), endpoint);
      const online = listed.filter((d) => d.state === 'device').map((d) => d.serial);
      if (this.o.allDevices) {
        if (online.length === 0) throw new DedupVerifyError(ErrorCode.DeviceNotFound, `No device is online on the adb server ${endpoint.host}:${endpoint.port}. Is the emulator running? Try \`adb devices\`.`);
        serials = online;
      } else if (this.o.device.length > 0) {
        for (const serial of this.o.device) {
          if (!online.includes(serial) && /^[^:]+:\d+$/.test(serial)) {
            const [host = '', port = ''] = serial.split(':');
            await connectTcpDevice(endpoint, { host, port: Number(port) });
            await waitForDevice(createAdbClient(endpoint), endpoint, serial, { timeoutMs: 15_000 });
          } else if (!online.includes(serial)) {
            throw new DedupVerifyError(
              ErrorCode.DeviceNotFound,
              `No device "${serial}" (connected: ${online.join(', ') || 'none'}). Is the emulator running? Try \`adb devices\`.`,
            );
          }
        }
        serials = [...new Set(this.o.device)];
      } else if (online.length === 1 && online[0] !== undefined) {
        serials = [online[0]];
      } else {
        throw new UsageError(
          online.length === 0
            ? `No device is online on the adb server ${endpoint.host}:${endpoint.port}. Start an emulator, pass --device SERIAL, or try --virtual.`
            : `Several devices are online (${online.join(', ')}): pick with --device SERIAL or use --all-devices.`,
        );
      }
    }
    const finalEndpoint = endpoint;
    return {
      endpoint: finalEndpoint,
      serials,
      created: this.o.virtual ? serials : [],
      open: (serial) => AdbDevice.open({ serial, host: finalEndpoint.host, port: finalEndpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) }),
    };
  }

  /** Stops what resolve() started, newest first. */
  async close(): Promise<void> {
    for (const cleanup of this.cleanups.reverse()) await cleanup().catch(() => undefined);
    this.cleanups.length = 0;
  }
}
