/**
 * A private adb server for a spec: the real `adb` binary on a free port (never 5037), the CLI
 * run against it, and an adbkit client on the same port. Stop it with stop(), which kills only
 * this server.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import adbkit from '@devicefarmer/adbkit';

/**
 * The part of adbkit 3.3.9's API the specs use, typed here because its declarations return
 * Bluebird promises whose types are not installed. The calls are adbkit's own.
 */
export interface AdbkitDevice {
  shell(command: string): PromiseLike<Duplex>;
  /** adbkit's Stats: mode, size and mtimeMs are set (its `mtime` Date is not usable on Node 20). */
  stat(path: string): PromiseLike<{ size: number; mode: number; mtimeMs: number; isDirectory(): boolean }>;
  readdir(path: string): PromiseLike<{ name: string; size: number; mode: number; mtimeMs: number; isDirectory(): boolean }[]>;
  push(source: string, path: string, mode?: number): PromiseLike<EventEmitter>;
  pull(path: string): PromiseLike<Duplex>;
  reverse(remote: string, local: string): PromiseLike<boolean>;
  listReverses(): PromiseLike<{ remote: string; local: string }[]>;
  root(): PromiseLike<boolean>;
  openTcp(port: number): PromiseLike<Duplex>;
}

export interface AdbkitClient {
  listDevices(): PromiseLike<{ id: string; type: string }[]>;
  getDevice(serial: string): AdbkitDevice;
}

/**
 * adbkit's Adb class. Loaded as ESM, the default import is module.exports ({ Adb, default, … });
 * transpiled to CommonJS (as mocha loads specs through tsx), it is module.exports.default,
 * which is Adb itself.
 */
const Adb: typeof adbkit.Adb = (adbkit as { Adb?: typeof adbkit.Adb }).Adb ?? (adbkit as unknown as typeof adbkit.Adb);

/** adbkit's util.readAll: the whole stream as one Buffer. */
export function readAll(stream: Duplex): Promise<Buffer> {
  return Promise.resolve(Adb.util.readAll(stream) as PromiseLike<Buffer>);
}

export interface AdbResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

export interface AdbServer {
  readonly port: number;
  /** An adbkit client talking to this server. */
  readonly client: AdbkitClient;
  /** Runs `adb -P PORT <args>`; `input` is written to its stdin (else stdin is /dev/null). */
  adb(args: readonly string[], options?: { input?: Buffer | string; timeoutMs?: number }): Promise<AdbResult>;
  /** `adb connect SERIAL`, then waits until the server lists it as "device". */
  connect(serial: string, timeoutMs?: number): Promise<void>;
  /** Waits until `adb -s SERIAL wait-for-device` returns (the transport is online). */
  waitForDevice(serial: string, timeoutMs?: number): Promise<void>;
  /** `adb -P PORT kill-server`. */
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

function runAdb(port: number, args: readonly string[], options: { input?: Buffer | string; timeoutMs?: number } = {}): Promise<AdbResult> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env['ANDROID_ADB_SERVER_PORT'];
    delete env['ADB_TRACE'];
    const child = spawn('adb', ['-P', String(port), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`adb ${args.join(' ')} did not finish within ${timeoutMs} ms (stderr: ${Buffer.concat(err).toString()})`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? (signal === null ? -1 : 128) });
    });
    child.stdin.on('error', () => {
      // adb may exit before reading all input
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

export async function startAdbServer(): Promise<AdbServer> {
  const port = await freePort();
  const started = await runAdb(port, ['start-server']);
  if (started.code !== 0) throw new Error(`adb -P ${port} start-server failed (${started.code}): ${started.stderr}`);
  let client: AdbkitClient;
  try {
    client = Adb.createClient({ port });
  } catch (e) {
    // Never leave a server behind.
    await runAdb(port, ['kill-server']);
    throw e;
  }

  const waitForDevice = async (serial: string, timeoutMs = 10_000): Promise<void> => {
    const r = await runAdb(port, ['-s', serial, 'wait-for-device'], { timeoutMs });
    if (r.code !== 0) throw new Error(`adb -s ${serial} wait-for-device failed (${r.code}): ${r.stderr}`);
  };

  return {
    port,
    client,
    adb: (args, options) => runAdb(port, args, options),
    waitForDevice,
    connect: async (serial, timeoutMs = 10_000) => {
      const r = await runAdb(port, ['connect', serial], { timeoutMs });
      const text = r.stdout.toString('utf8');
      if (!/connected to/.test(text)) throw new Error(`adb connect ${serial} failed: ${text.trim()} ${r.stderr.trim()}`);
      // "connected to" is printed once the transport is registered; wait until it is online.
      await waitForDevice(serial, timeoutMs);
      const devices = await runAdb(port, ['devices']);
      const line = new RegExp(`^${serial.replace(/[.]/g, '\\.')}\\s+device$`, 'm');
      if (!line.test(devices.stdout.toString('utf8'))) throw new Error(`adb devices does not list ${serial} as device:\n${devices.stdout.toString()}`);
    },
    stop: async () => {
      await runAdb(port, ['kill-server']);
    },
  };
}
