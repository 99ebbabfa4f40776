/**
 * The host side of adb: finding the `adb` binary, making sure a server answers on host:port,
 * `adb connect` for TCP devices, listing devices and waiting for one to come online.
 *
 * Smart-socket requests and replies (aosp-mirror/platform_system_core platform-tools-29.0.6
 * `adb/protocol.txt`, `adb/SERVICES.TXT`, `adb/adb.cpp handle_host_request`): the client sends a
 * 4-hex-digit length and the request; the server answers `OKAY` [+ hex4 + value] or
 * `FAIL` + hex4 + message. `host:version` → OKAY 0004 "0029"; `host:connect:H:P` → OKAY + hex4 +
 * "connected to H:P" / "already connected to H:P" / "failed to connect to …" /
 * "failed to authenticate to …" (`adb/transport_local.cpp`).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { delimiter, join } from 'node:path';
import { DedupVerifyError, ErrorCode, TimeoutError } from '../errors.js';
import { adbServerError, errorText, failReplyText, isServerUnreachable, type AdbEndpoint } from './adb-errors.js';
import { createAdbkitClient, type AdbkitClient, type AdbkitDeviceEntry, type AdbkitTracker } from './adbkit.js';

export type AdbClient = AdbkitClient;

export const DEFAULT_ADB_HOST = '127.0.0.1';
export const DEFAULT_ADB_PORT = 5037;

/** A device as the adb server lists it (`host:devices`). */
export interface AdbDeviceEntry {
  readonly serial: string;
  /** `device`, `offline`, `unauthorized`, `bootloader`, `recovery`, … as adb prints it. */
  readonly state: string;
}

export function isLocalHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';
}

/**
 * The adb binary: $ADB, then $ANDROID_HOME / $ANDROID_SDK_ROOT platform-tools, then $PATH.
 * Throws DV_ADB_NOT_FOUND with the fix when none is executable.
 */
export function findAdbBinary(env: NodeJS.ProcessEnv = process.env): string {
  const candidates: string[] = [];
  if (env['ADB']) candidates.push(env['ADB']);
  for (const root of [env['ANDROID_HOME'], env['ANDROID_SDK_ROOT']]) {
    if (root) candidates.push(join(root, 'platform-tools', 'adb'));
  }
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir) candidates.push(join(dir, 'adb'));
  }
  for (const candidate of candidates) {
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  throw new DedupVerifyError(
    ErrorCode.AdbNotFound,
    'No `adb` binary found (looked at $ADB, $ANDROID_HOME/platform-tools, $ANDROID_SDK_ROOT/platform-tools and $PATH). ' +
      'Install the Android SDK platform-tools and put `adb` on PATH, or set ADB=/path/to/adb.',
  );
}

/**
 * An adbkit client for the server at host:port. adbkit runs `<bin> -P port start-server` by
 * itself when a connection is refused; a server started behind the harness's back would have
 * lost every `adb connect`ed device, so `bin` is a path that cannot run and a refused
 * connection surfaces as DV_ADB_SERVER. Servers are started only by ensureAdbServer().
 */
export function createAdbClient(endpoint: AdbEndpoint): AdbClient {
  return createAdbkitClient({ host: endpoint.host, port: endpoint.port, bin: ADBKIT_NO_AUTOSTART_BIN });
}

/** The `bin` given to adbkit so it never starts a server itself. */
export const ADBKIT_NO_AUTOSTART_BIN = '/nonexistent/dedup-verify-starts-adb-servers-explicitly';

/** Sends one smart-socket request on a fresh connection and returns the OKAY value (or ''). */
export async function queryAdbServer(
  endpoint: AdbEndpoint,
  request: string,
  options: { timeoutMs?: number; expectValue?: boolean } = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise<string>((resolve, reject) => {
    const socket = netConnect({ host: endpoint.host, port: endpoint.port });
    let buffered = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | null, value?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? '');
    };
    const timer = setTimeout(
      () => finish(new TimeoutError(`The adb server on ${endpoint.host}:${endpoint.port} did not answer "${request}" within ${timeoutMs} ms.`, timeoutMs)),
      timeoutMs,
    );
    const tryParse = (ended: boolean): void => {
      if (buffered.length < 4) {
        if (ended) finish(new Error(`adb server closed the connection before answering "${request}"`));
        return;
      }
      const status = buffered.subarray(0, 4).toString('ascii');
      const wantsValue = status === 'FAIL' || options.expectValue !== false;
      if (status !== 'OKAY' && status !== 'FAIL') {
        finish(new Error(`adb server answered "${status}" to "${request}"`));
        return;
      }
      if (!wantsValue) {
        finish(null, '');
        return;
      }
      if (buffered.length < 8) {
        if (ended) finish(status === 'OKAY' ? null : new Error('FAIL without a message'), '');
        return;
      }
      const length = parseInt(buffered.subarray(4, 8).toString('ascii'), 16);
      if (buffered.length < 8 + length) {
        if (ended) finish(new Error(`adb server reply to "${request}" was cut short`));
        return;
      }
      const value = buffered.subarray(8, 8 + length).toString('utf8');
      if (status === 'FAIL') {
        const failure = new Error(value);
        failure.name = 'FailError';
        finish(failure);
      } else {
        finish(null, value);
      }
    };
    socket.on('connect', () => {
      const payload = Buffer.from(request, 'utf8');
      socket.write(Buffer.concat([Buffer.from(payload.length.toString(16).padStart(4, '0'), 'ascii'), payload]));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (e) => finish(e));
  });
}

/** The server's protocol version (41 for adb 29.0.6), or null when nothing answers. */
export async function probeAdbServer(endpoint: AdbEndpoint, timeoutMs = 3000): Promise<number | null> {
  try {
    const value = await queryAdbServer(endpoint, 'host:version', { timeoutMs });
    return parseInt(value, 16);
  } catch (e) {
    if (isServerUnreachable(e)) return null;
    throw adbServerError(endpoint, e);
  }
}

export interface EnsuredServer {
  readonly endpoint: AdbEndpoint;
  readonly version: number;
  /** True when this call started the server (the caller may want to kill it later). */
  readonly started: boolean;
}

/**
 * Makes sure an adb server answers on host:port. Starts one (`adb -P PORT start-server`, which
 * returns once the server accepts connections) only when none answers and the host is local.
 */
export async function ensureAdbServer(
  endpoint: AdbEndpoint,
  options: { adbPath?: string; timeoutMs?: number } = {},
): Promise<EnsuredServer> {
  const version = await probeAdbServer(endpoint);
  if (version !== null) return { endpoint, version, started: false };
  if (!isLocalHost(endpoint.host)) {
    throw adbServerError(endpoint, new Error('connection refused; a remote server is never started from here'));
  }
  const adb = options.adbPath ?? findAdbBinary();
  await runAdb(adb, ['-P', String(endpoint.port), 'start-server'], options.timeoutMs ?? 30_000);
  const after = await probeAdbServer(endpoint);
  if (after === null) {
    throw adbServerError(endpoint, new Error(`\`${adb} -P ${endpoint.port} start-server\` ran but nothing answers`));
  }
  return { endpoint, version: after, started: true };
}

/** Runs the adb binary; rejects with its stderr on failure. */
export function runAdb(adbPath: string, args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    execFile(adbPath, [...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) {
        reject(
          new DedupVerifyError(
            ErrorCode.AdbServer,
            `\`${adbPath} ${args.join(' ')}\` failed: ${(stderr || error.message).trim()}`,
            { cause: error },
          ),
        );
      } else {
        resolve(stdout);
      }
    });
  });
}

/** `host:devices`: every device the server knows, with its state. */
export async function listDevices(client: AdbClient, endpoint: AdbEndpoint): Promise<AdbDeviceEntry[]> {
  try {
    const devices: AdbkitDeviceEntry[] = await client.listDevices();
    return devices.map((d) => ({ serial: d.id, state: d.type }));
  } catch (e) {
    throw isServerUnreachable(e) ? adbServerError(endpoint, e) : e;
  }
}

/**
 * `adb connect host:port` for a TCP device, within `timeoutMs` (adb itself waits up to 10 s
 * for the device's CNXN). Returns the serial (`host:port`).
 */
export async function connectTcpDevice(
  endpoint: AdbEndpoint,
  target: { host: string; port: number },
  timeoutMs = 15_000,
): Promise<string> {
  const serial = `${target.host}:${target.port}`;
  let reply: string;
  try {
    reply = await queryAdbServer(endpoint, `host:connect:${serial}`, { timeoutMs });
  } catch (e) {
    if (isServerUnreachable(e)) throw adbServerError(endpoint, e);
    const text = failReplyText(e) ?? errorText(e);
    throw new DedupVerifyError(ErrorCode.DeviceNotFound, `adb could not connect to ${serial}: ${text}.`, { cause: e });
  }
  if (/^(already )?connected to /.test(reply.trim())) return serial;
  throw new DedupVerifyError(
    ErrorCode.DeviceNotFound,
    `adb could not connect to ${serial}: ${reply.trim() || 'no reason given'}. Is the device listening on that port?`,
  );
}

/**
 * Waits until `serial` is listed in `state` (default `device`), using the server's device
 * tracker (an event per change, no polling). Throws TimeoutError naming the last state seen.
 */
export async function waitForDevice(
  client: AdbClient,
  endpoint: AdbEndpoint,
  serial: string,
  options: { state?: string; timeoutMs?: number } = {},
): Promise<void> {
  const wanted = options.state ?? 'device';
  const timeoutMs = options.timeoutMs ?? 30_000;
  let tracker: AdbkitTracker;
  try {
    tracker = await client.trackDevices();
  } catch (e) {
    throw isServerUnreachable(e) ? adbServerError(endpoint, e) : e;
  }
  let lastState = 'absent';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new TimeoutError(
            `Device "${serial}" did not become "${wanted}" within ${timeoutMs} ms (last state: ${lastState}). Try \`adb devices\`.`,
            timeoutMs,
          ),
        );
      }, timeoutMs);
      const check = (device: AdbkitDeviceEntry): void => {
        if (device.id !== serial) return;
        lastState = device.type;
        if (device.type === wanted) {
          clearTimeout(timer);
          resolve();
        }
      };
      tracker.on('add', check);
      tracker.on('change', check);
      tracker.on('remove', (device: AdbkitDeviceEntry) => {
        if (device.id === serial) lastState = 'absent';
      });
      tracker.on('error', (e: unknown) => {
        clearTimeout(timer);
        reject(isServerUnreachable(e) ? adbServerError(endpoint, e) : e instanceof Error ? e : new Error(String(e)));
      });
      // The tracker may have reported the current list before these listeners were attached,
      // so the current list is also asked once; later changes arrive as events.
      listDevices(client, endpoint).then(
        (devices) => {
          const entry = devices.find((d) => d.serial === serial);
          if (entry !== undefined) check({ id: entry.serial, type: entry.state });
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  } finally {
    tracker.end();
  }
}
