/**
 * The part of @devicefarmer/adbkit 3.3.9 this project uses, with local types. adbkit's own
 * declarations return Bluebird promises, and Bluebird's types are not a dependency here, so
 * those return types do not resolve; the shapes below are read from adbkit's
 * `dist/src/adb/{client,DeviceClient,connection,parser,tracker}.d.ts` and the one cast lives
 * in createAdbkitClient.
 *
 * Runtime import: adbkit is CommonJS with `exports.default = …` and `__esModule`. Loaded as
 * ESM (the CLI), a default import is the whole exports object; transpiled to CommonJS (mocha
 * loads specs through tsx's require hook) it is `exports.default`. cjsDefault() accepts both.
 */
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import adbkit from '@devicefarmer/adbkit';
import Protocol from '@devicefarmer/adbkit/dist/src/adb/protocol.js';

export interface AdbkitParser {
  readAscii(howMany: number): PromiseLike<string>;
  /** Reads a hex4-length message and rejects with adbkit's FailError carrying it. */
  readError(): PromiseLike<never>;
}

export interface AdbkitConnection {
  readonly socket: Socket;
  readonly parser: AdbkitParser;
  write(data: Buffer): unknown;
  end(): unknown;
}

export interface AdbkitDeviceEntry {
  readonly id: string;
  /** The adb state: `device`, `offline`, `unauthorized`, … */
  readonly type: string;
}

export interface AdbkitTracker extends EventEmitter {
  end(): unknown;
}

export interface AdbkitDeviceClient {
  /** A connection switched to this device (`host:transport:<serial>` answered OKAY). */
  transport(): PromiseLike<AdbkitConnection>;
  reverse(remote: string, local: string): PromiseLike<boolean>;
  listReverses(): PromiseLike<ReadonlyArray<{ readonly remote: string; readonly local: string }>>;
}

export interface AdbkitClient {
  getDevice(serial: string): AdbkitDeviceClient;
  listDevices(): PromiseLike<AdbkitDeviceEntry[]>;
  trackDevices(): PromiseLike<AdbkitTracker>;
}

/** `exports.default` of a CommonJS module, however the module system handed it over. */
function cjsDefault<T>(imported: unknown): T {
  if ((typeof imported === 'object' || typeof imported === 'function') && imported !== null && 'default' in imported) {
    return imported.default as T;
  }
  return imported as T;
}

const Adb = cjsDefault<typeof adbkit.default>(adbkit);
const AdbProtocol = cjsDefault<typeof Protocol.default>(Protocol);

export function createAdbkitClient(options: { host: string; port: number; bin: string }): AdbkitClient {
  const client: unknown = Adb.createClient(options);
  return client as AdbkitClient;
}

/** adbkit's smart-socket encoding: 4 upper-case hex digits of length, then the bytes. */
export function encodeAdbRequest(request: string): Buffer {
  return AdbProtocol.encodeData(request);
}
