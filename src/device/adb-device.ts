/**
 * AndroidDevice over an adb server, using @devicefarmer/adbkit 3.3.9 for the server
 * connection and the `host:transport:<serial>` switch.
 *
 * adbkit's own `shell()` sends plain `shell:` and never the shell protocol (adbkit 3.3.9
 * src/adb/command/host-transport/shell.ts), so exit codes and stderr would be lost. Here every
 * command goes over a raw transport connection from adbkit with the service string written by
 * hand:
 * - `shell,v2,raw:CMD` when the device's transport features include `shell_v2` (asked of the
 *   adb server with `host-serial:<serial>:features`, the device's raw banner list:
 *   platform-tools-29.0.6 `adb/adb.cpp` L1133-1144). Packets: see shell-protocol.ts.
 * - plain `shell:CMD` otherwise (or when forced), with the exit-status marker of exit-marker.ts.
 * - `exec:CMD` for `execOut` (raw subprocess, no protocol: `adb/daemon/services.cpp` L318-320).
 * - `sync:` with RECV/SEND for pull/push (`adb/file_sync_protocol.h`, `adb/SYNC.TXT`).
 * - `reverse:killforward:tcp:N` for removing a reverse rule (`adb/daemon/services.cpp`
 *   reverse_service: the device writes OKAY or FAIL+hex4+message into the stream).
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { DedupVerifyError, DeviceCommandError, ErrorCode, TimeoutError } from '../errors.js';
import {
  runShellText,
  type AndroidDevice,
  type ReverseRule,
  type ShellOptions,
  type ShellResult,
  type ShellTextOptions,
  type StreamEnd,
  type StreamHandle,
  type StreamListener,
} from './android-device.js';
import { deviceGoneError, errorText, isConnectionLost, mapOpenFailure, type AdbEndpoint } from './adb-errors.js';
import {
  DEFAULT_ADB_HOST,
  DEFAULT_ADB_PORT,
  createAdbClient,
  listDevices,
  queryAdbServer,
  type AdbClient,
} from './adb-server.js';
import { encodeAdbRequest, type AdbkitConnection } from './adbkit.js';
import { parseMarkedOutput, wrapWithExitMarker } from './exit-marker.js';
import { parseGetprop } from './getprop.js';
import { SocketReader, StreamEndedError } from './socket-reader.js';
import { encodeStdin, encodeShellPacket, ShellPacketDecoder, ShellPacketId } from './shell-protocol.js';
import { toCommandLine } from './shell-quote.js';

/** How commands are run: `auto` uses shell v2 when the device has it. */
export const ShellMode = { auto: 'auto', v2: 'v2', legacy: 'legacy' } as const;
export type ShellMode = (typeof ShellMode)[keyof typeof ShellMode];

export interface AdbDeviceOptions {
  readonly client: AdbClient;
  readonly endpoint: AdbEndpoint;
  readonly serial: string;
  readonly shellMode?: ShellMode;
  /** Timeout for shell/exec/pull/push when the call gives none. */
  readonly defaultTimeoutMs?: number;
  /** Device directory for the legacy mode's temp files (stderr, stdin). */
  readonly deviceTempDir?: string;
}

export interface OpenAdbDeviceOptions {
  readonly serial: string;
  readonly host?: string;
  readonly port?: number;
  readonly shellMode?: ShellMode;
  readonly defaultTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Sync requests carry paths of at most 1024 bytes; longer ones get FAIL "path too long"
 * (platform-tools-29.0.6 `adb/daemon/file_sync_service.cpp` handle_sync_command).
 */
const SYNC_MAX_PATH = 1024;
/**
 * adbd accepts DATA chunks up to 64 KiB (SYNC_DATA_MAX = 65 536, platform-tools-29.0.6
 * `adb/file_sync_protocol.h`).
 */
const SYNC_DATA_MAX = 64 * 1024;
/** S_IFREG, or-ed into the SEND mode as adb does. */
const S_IFREG = 0o100000;

export class AdbDevice implements AndroidDevice {
  readonly serial: string;
  private readonly client: AdbClient;
  private readonly endpoint: AdbEndpoint;
  private readonly shellMode: ShellMode;
  private readonly defaultTimeoutMs: number;
  private readonly tempDir: string;
  private features: Promise<ReadonlySet<string>> | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly streams = new Set<StreamHandle>();

  constructor(options: AdbDeviceOptions) {
    this.client = options.client;
    this.endpoint = options.endpoint;
    this.serial = options.serial;
    this.shellMode = options.shellMode ?? ShellMode.auto;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.tempDir = options.deviceTempDir ?? '/data/local/tmp';
  }

  /** Connects to the adb server and checks that `serial` is there and online. */
  static async open(options: OpenAdbDeviceOptions): Promise<AdbDevice> {
    const endpoint = { host: options.host ?? DEFAULT_ADB_HOST, port: options.port ?? DEFAULT_ADB_PORT };
    const client = createAdbClient(endpoint);
    const devices = await listDevices(client, endpoint);
    const entry = devices.find((d) => d.serial === options.serial);
    if (entry === undefined || entry.state !== 'device') {
      const reply = entry === undefined ? `device '${options.serial}' not found` : `device ${entry.state}`;
      const failure = new Error(reply);
      failure.name = 'FailError';
      throw await mapOpenFailure(failure, {
        endpoint,
        serial: options.serial,
        service: 'host:devices',
        listConnected: () => Promise.resolve(devices.map((d) => d.serial)),
      });
    }
    return new AdbDevice({
      client,
      endpoint,
      serial: options.serial,
      ...(options.shellMode !== undefined ? { shellMode: options.shellMode } : {}),
      ...(options.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
    });
  }

  /** The device's adb transport features (`shell_v2`, `stat_v2`, …), asked once. */
  transportFeatures(): Promise<ReadonlySet<string>> {
    this.features ??= queryAdbServer(this.endpoint, `host-serial:${this.serial}:features`).then(
      (value) => new Set(value.split(',').map((f) => f.trim()).filter((f) => f !== '')),
      async (e: unknown) => {
        this.features = undefined;
        throw await this.mapFailure(e, 'features');
      },
    );
    return this.features;
  }

  /** Whether commands go over shell protocol v2 (with the chosen ShellMode). */
  async usesShellV2(): Promise<boolean> {
    switch (this.shellMode) {
      case ShellMode.v2:
        return true;
      case ShellMode.legacy:
        return false;
      case ShellMode.auto:
        return (await this.transportFeatures()).has('shell_v2');
      default: {
        const unreachable: never = this.shellMode;
        return unreachable;
      }
    }
  }

  async shell(command: string | readonly string[], options: ShellOptions = {}): Promise<ShellResult> {
    const line = toCommandLine(command);
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const stdin = options.stdin === undefined ? undefined : Buffer.from(options.stdin);
    return (await this.usesShellV2()) ? this.shellV2(line, stdin, timeoutMs) : this.shellLegacy(line, stdin, timeoutMs);
  }

  shellText(command: string | readonly string[], options: ShellTextOptions = {}): Promise<string> {
    return runShellText(this, `adb -s ${this.serial} shell ${toCommandLine(command)}`, command, options);
  }

  async execOut(command: string | readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<Buffer> {
    const line = toCommandLine(command);
    const socket = await this.openService(`exec:${line}`);
    const reader = new SocketReader(socket);
    return this.withDeadline(socket, options.timeoutMs ?? this.defaultTimeoutMs, `exec-out ${line}`, () => reader.readAll());
  }

  async pull(path: string): Promise<Buffer> {
    const pathBytes = Buffer.from(path, 'utf8');
    if (pathBytes.length > SYNC_MAX_PATH) throw new DedupVerifyError(ErrorCode.Internal, `Device path too long for adb sync: ${path}`);
    const socket = await this.openService('sync:');
    const reader = new SocketReader(socket);
    return this.withDeadline(socket, this.defaultTimeoutMs, `pull ${path}`, async () => {
      socket.write(syncRequest('RECV', pathBytes));
      const parts: Buffer[] = [];
      for (;;) {
        const header = await reader.read(8);
        const id = header.toString('ascii', 0, 4);
        const length = header.readUInt32LE(4);
        if (id === 'DATA') {
          parts.push(await reader.read(length));
        } else if (id === 'DONE') {
          break;
        } else if (id === 'FAIL') {
          const message = (await reader.read(length)).toString('utf8');
          throw new DeviceCommandError(`adb pull ${path} failed on ${this.serial}: ${message}`, {
            command: `pull ${path}`,
            stderr: message,
          });
        } else {
          throw new DedupVerifyError(ErrorCode.Internal, `Unexpected sync reply "${id}" while pulling ${path}.`);
        }
      }
      socket.end(syncRequest('QUIT', Buffer.alloc(0)));
      return Buffer.concat(parts);
    });
  }

  async push(data: Buffer | string, path: string, mode = 0o644): Promise<void> {
    const target = Buffer.from(`${path},${(mode & 0o7777) | S_IFREG}`, 'utf8');
    if (target.length > SYNC_MAX_PATH) throw new DedupVerifyError(ErrorCode.Internal, `Device path too long for adb sync: ${path}`);
    const bytes = Buffer.from(data);
    const socket = await this.openService('sync:');
    const reader = new SocketReader(socket);
    await this.withDeadline(socket, this.defaultTimeoutMs, `push ${path}`, async () => {
      const parts: Buffer[] = [syncRequest('SEND', target)];
      for (let at = 0; at < bytes.length; at += SYNC_DATA_MAX) {
        parts.push(syncRequest('DATA', bytes.subarray(at, at + SYNC_DATA_MAX)));
      }
      const done = Buffer.alloc(8);
      done.write('DONE', 0, 'ascii');
      done.writeUInt32LE(Math.floor(Date.now() / 1000), 4);
      parts.push(done);
      socket.write(Buffer.concat(parts));
      const reply = await reader.read(8);
      const id = reply.toString('ascii', 0, 4);
      if (id === 'FAIL') {
        const message = (await reader.read(reply.readUInt32LE(4))).toString('utf8');
        throw new DeviceCommandError(`adb push to ${path} failed on ${this.serial}: ${message}`, {
          command: `push ${path}`,
          stderr: message,
        });
      }
      if (id !== 'OKAY') throw new DedupVerifyError(ErrorCode.Internal, `Unexpected sync reply "${id}" while pushing ${path}.`);
      socket.end(syncRequest('QUIT', Buffer.alloc(0)));
    });
  }

  async streamShell(command: string | readonly string[], listener: StreamListener, signal?: AbortSignal): Promise<StreamHandle> {
    const line = toCommandLine(command);
    const v2 = await this.usesShellV2();
    const socket = await this.openService(v2 ? `shell,v2,raw:${line}` : `shell:${line}`);
    const lines = new LineSplitter(listener.onLine);
    const stderrDecoder = new StringDecoder('utf8');
    const decoder = new ShellPacketDecoder();
    let exitCode: number | undefined;
    let stopped = false;
    const deliverStdout = (chunk: Buffer): void => {
      listener.onChunk?.(chunk);
      lines.push(chunk);
    };
    const done = new Promise<StreamEnd>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        if (!v2) {
          deliverStdout(chunk);
          return;
        }
        for (const packet of decoder.push(chunk)) {
          if (packet.id === ShellPacketId.stdout) deliverStdout(packet.data);
          else if (packet.id === ShellPacketId.stderr) listener.onStderr?.(stderrDecoder.write(packet.data));
          else if (packet.id === ShellPacketId.exit) exitCode = packet.data.readUInt8(0);
        }
      });
      socket.on('error', () => {
        // 'close' follows and settles the stream
      });
      socket.on('close', () => {
        lines.flush();
        this.sockets.delete(socket);
        const reason = stopped ? 'stopped' : exitCode !== undefined || !v2 ? 'exited' : 'disconnected';
        resolve({ reason, exitCode });
      });
    });
    if (v2) socket.write(encodeShellPacket(ShellPacketId.closeStdin));
    socket.resume();
    const handle: StreamHandle = {
      stop: async () => {
        stopped = true;
        socket.destroy();
        await done;
      },
      done,
    };
    this.streams.add(handle);
    void done.then(() => this.streams.delete(handle));
    if (signal) {
      if (signal.aborted) await handle.stop();
      else signal.addEventListener('abort', () => void handle.stop(), { once: true });
    }
    return handle;
  }

  async reverse(devicePort: number, hostPort: number): Promise<void> {
    const remote = `tcp:${checkPort(devicePort)}`;
    const local = `tcp:${checkPort(hostPort)}`;
    try {
      await this.client.getDevice(this.serial).reverse(remote, local);
    } catch (e) {
      throw await this.mapFailure(e, `reverse:forward:${remote};${local}`);
    }
  }

  async listReverses(): Promise<ReverseRule[]> {
    try {
      const rules = await this.client.getDevice(this.serial).listReverses();
      return rules.map((r) => ({ remote: r.remote, local: r.local }));
    } catch (e) {
      throw await this.mapFailure(e, 'reverse:list-forward');
    }
  }

  async removeReverse(devicePort: number): Promise<void> {
    const service = `reverse:killforward:tcp:${checkPort(devicePort)}`;
    const socket = await this.openService(service);
    const reader = new SocketReader(socket);
    await this.withDeadline(socket, this.defaultTimeoutMs, service, async () => {
      const status = (await reader.read(4)).toString('ascii');
      if (status === 'OKAY') return;
      const length = parseInt((await reader.read(4)).toString('ascii'), 16);
      const message = (await reader.read(length)).toString('utf8');
      throw new DeviceCommandError(`adb reverse --remove tcp:${devicePort} failed on ${this.serial}: ${message}`, {
        command: service,
        stderr: message,
      });
    });
    socket.destroy();
  }

  async getProperties(): Promise<Record<string, string>> {
    return parseGetprop(await this.shellText('getprop'));
  }

  async close(): Promise<void> {
    await Promise.all([...this.streams].map((s) => s.stop()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  // ---------------------------------------------------------------------------------------

  private async shellV2(line: string, stdin: Buffer | undefined, timeoutMs: number): Promise<ShellResult> {
    const socket = await this.openService(`shell,v2,raw:${line}`);
    const decoder = new ShellPacketDecoder();
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let exitCode: number | undefined;
    const finished = new Promise<void>((resolve, reject) => {
      let failure: Error | undefined;
      socket.on('data', (chunk: Buffer) => {
        for (const packet of decoder.push(chunk)) {
          if (packet.id === ShellPacketId.stdout) stdout.push(packet.data);
          else if (packet.id === ShellPacketId.stderr) stderr.push(packet.data);
          else if (packet.id === ShellPacketId.exit && packet.data.length > 0) {
            exitCode = packet.data.readUInt8(0);
            socket.destroy();
          }
        }
      });
      socket.on('error', (e: Error) => {
        failure = e;
      });
      socket.on('close', () => {
        if (exitCode !== undefined) resolve();
        else reject(deviceGoneError(this.serial, `\`${line}\` (the stream closed before the exit status arrived)`, failure));
      });
    });
    socket.write(stdin === undefined ? encodeShellPacket(ShellPacketId.closeStdin) : encodeStdin(stdin));
    socket.resume();
    await this.withDeadline(socket, timeoutMs, line, () => finished);
    return {
      stdout: Buffer.concat(stdout),
      stderr: Buffer.concat(stderr).toString('utf8'),
      exitCode: exitCode ?? 255,
    };
  }

  private async shellLegacy(line: string, stdin: Buffer | undefined, timeoutMs: number): Promise<ShellResult> {
    const nonce = randomBytes(16).toString('hex');
    const stderrPath = `${this.tempDir}/.dv-err-${nonce}`;
    const stdinPath = stdin === undefined ? undefined : `${this.tempDir}/.dv-in-${nonce}`;
    if (stdin !== undefined && stdinPath !== undefined) await this.push(stdin, stdinPath, 0o600);
    const wrapped = wrapWithExitMarker(line, nonce, stdinPath === undefined ? { stderrPath } : { stderrPath, stdinPath });
    const socket = await this.openService(`shell:${wrapped}`);
    const reader = new SocketReader(socket);
    const output = await this.withDeadline(socket, timeoutMs, line, () => reader.readAll());
    const parsed = parseMarkedOutput(output, nonce);
    if (parsed === null) {
      throw deviceGoneError(this.serial, `\`${line}\` (the output ended before the exit marker)`);
    }
    return { stdout: parsed.stdout, stderr: parsed.stderr.toString('utf8'), exitCode: parsed.exitCode };
  }

  /** Opens `service` on this device; the socket is returned after the server's OKAY. */
  private async openService(service: string): Promise<Socket> {
    let connection: AdbkitConnection;
    try {
      connection = await this.client.getDevice(this.serial).transport();
    } catch (e) {
      throw await this.mapFailure(e, service);
    }
    const socket = connection.socket;
    socket.on('error', () => {
      // reported through the reader or the 'close' handler of whoever uses the socket
    });
    try {
      connection.write(encodeAdbRequest(service));
      const reply = await connection.parser.readAscii(4);
      if (reply === 'FAIL') await connection.parser.readError();
      if (reply !== 'OKAY') throw new Error(`adb server answered "${reply}" to "${service}"`);
    } catch (e) {
      socket.destroy();
      throw await this.mapFailure(e, service);
    }
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  /** Runs `work` on `socket`, destroying the socket and throwing TimeoutError past the deadline. */
  private async withDeadline<T>(socket: Socket, timeoutMs: number, what: string, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        socket.destroy();
        reject(new TimeoutError(`Device command \`${what}\` on ${this.serial} did not finish within ${timeoutMs} ms; it was stopped.`, timeoutMs));
      }, timeoutMs);
    });
    try {
      return await Promise.race([work(), deadline]);
    } catch (e) {
      socket.destroy();
      if (e instanceof DedupVerifyError) throw e;
      if (e instanceof StreamEndedError || isConnectionLost(e)) throw deviceGoneError(this.serial, `\`${what}\``, e);
      throw new DedupVerifyError(ErrorCode.Internal, `\`${what}\` on ${this.serial} failed: ${errorText(e)}`, { cause: e });
    } finally {
      clearTimeout(timer);
    }
  }

  private mapFailure(e: unknown, service: string): Promise<Error> {
    return mapOpenFailure(e, {
      endpoint: this.endpoint,
      serial: this.serial,
      service,
      listConnected: async () => (await listDevices(this.client, this.endpoint)).map((d) => d.serial),
    });
  }
}

function syncRequest(id: 'RECV' | 'SEND' | 'DATA' | 'QUIT', payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'ascii');
  header.writeUInt32LE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new DedupVerifyError(ErrorCode.Usage, `Not a TCP port: ${port}. Use a whole number from 0 to 65535.`);
  }
  return port;
}

/** Splits a byte stream into UTF-8 lines (without "\n" or "\r\n"). */
class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  constructor(private readonly onLine: ((line: string) => void) | undefined) {}

  push(chunk: Buffer): void {
    if (this.onLine === undefined) return;
    const text = this.partial + this.decoder.write(chunk);
    const pieces = text.split('\n');
    this.partial = pieces.pop() ?? '';
    for (const piece of pieces) this.onLine(piece.endsWith('\r') ? piece.slice(0, -1) : piece);
  }

  flush(): void {
    if (this.onLine === undefined) return;
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest !== '') this.onLine(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
  }
}
