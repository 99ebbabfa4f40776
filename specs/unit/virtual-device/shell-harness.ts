/**
 * A device made of the real filesystem, clock, log buffers, command table and shell, with a
 * fake loopback network: enough to run shell command lines in-process.
 */
import { Duplex, PassThrough } from 'node:stream';
import type { DeviceNetwork, InputSource } from '../../../src/virtual-device/types.js';
import { VirtualFs } from '../../../src/virtual-device/fs/virtual-fs.js';
import { ManualHostClock, VirtualClock } from '../../../src/virtual-device/clock.js';
import { LogBuffers } from '../../../src/virtual-device/logcat/log-buffers.js';
import { CommandTable } from '../../../src/virtual-device/shell/command-table.js';
import { ProcessTable } from '../../../src/virtual-device/shell/process-table.js';
import { registerToyboxCommands } from '../../../src/virtual-device/shell/commands/index.js';
import { Shell, type ShellRunOptions } from '../../../src/virtual-device/shell/shell.js';
import type { ShellHost } from '../../../src/virtual-device/shell/context.js';
import { CaptureSink } from '../../../src/virtual-device/shell/streams.js';
import { apiProfile } from '../../../src/virtual-device/profiles.js';

/** 2024-05-29T16:26:40.123Z */
export const START_MS = 1717000000123;

/** Two connected sockets: what one writes the other reads; end() is a half-close. */
export function socketPair(): [Duplex, Duplex] {
  const aToB = new PassThrough();
  const bToA = new PassThrough();
  const a = Duplex.from({ readable: bToA, writable: aToB });
  const b = Duplex.from({ readable: aToB, writable: bToA });
  return [a, b];
}

export class FakeNetwork implements DeviceNetwork {
  readonly listeners = new Map<number, (socket: Duplex) => void>();
  readonly connects: number[] = [];

  listen(port: number, onConnection: (socket: Duplex) => void): { close(): void } {
    this.listeners.set(port, onConnection);
    return { close: () => void this.listeners.delete(port) };
  }

  connect(port: number): Promise<Duplex> {
    this.connects.push(port);
    const listener = this.listeners.get(port);
    if (listener === undefined) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const [client, server] = socketPair();
    // The client side may be destroyed (an aborted session); that is no error for the server.
    server.on('error', () => undefined);
    listener(server);
    return Promise.resolve(client);
  }
}

export interface TestDevice extends ShellHost {
  readonly hostClock: ManualHostClock;
  readonly clock: VirtualClock;
  readonly network: FakeNetwork;
  readonly commands: CommandTable;
  adbdIsRoot: boolean;
}

export async function createTestDevice(options: { apiLevel?: 30 | 33 | 34 } = {}): Promise<{ device: TestDevice; shell: Shell; dispose: () => Promise<void> }> {
  const fs = await VirtualFs.create();
  const hostClock = new ManualHostClock(START_MS);
  const clock = new VirtualClock({ host: hostClock, bootElapsedMs: 5000 });
  const commands = new CommandTable();
  registerToyboxCommands(commands);
  const apiLevel = options.apiLevel ?? 34;
  const device: TestDevice = {
    serialHint: 'unit',
    apiLevel,
    props: new Map(Object.entries(apiProfile(apiLevel, { serial: 'unit', noRoot: false }))),
    hostClock,
    clock,
    logs: new LogBuffers(clock),
    network: new FakeNetwork(),
    commands,
    adbdIsRoot: false,
    hostPath: (p) => fs.hostPath(p),
    fs,
    processes: new ProcessTable(),
  };
  return { device, shell: new Shell(device), dispose: () => fs.dispose() };
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

/** A stdin that yields `text` and ends, or never ends when `text` is undefined. */
export function stdinOf(text: string | undefined, signal?: AbortSignal): InputSource {
  if (text !== undefined) {
    const chunks = text === '' ? [] : [Buffer.from(text)];
    return {
      [Symbol.asyncIterator]: () => ({
        next: (): Promise<IteratorResult<Uint8Array>> => {
          const value = chunks.shift();
          return Promise.resolve(value === undefined ? { done: true, value: undefined } : { done: false, value });
        },
      }),
    };
  }
  return {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise<IteratorResult<Uint8Array>>((resolve) => {
          signal?.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
        }),
    }),
  };
}

export async function run(shell: Shell, line: string, options: ShellRunOptions & { stdin?: string; signal?: AbortSignal } = {}): Promise<RunResult> {
  const stdout = new CaptureSink();
  const stderr = new CaptureSink();
  const signal = options.signal ?? new AbortController().signal;
  const { stdin, signal: _s, ...runOptions } = options;
  const status = await shell.run(line, { stdin: stdinOf(stdin ?? '', signal), stdout, stderr, signal }, runOptions);
  return { status, stdout: stdout.text(), stderr: stderr.text(), stdoutBytes: stdout.buffer() };
}

/** A sink that resolves `waitFor(text)` once the captured output contains `text`. */
export class WatchedSink extends CaptureSink {
  private readonly waiters: { text: string; resolve: () => void }[] = [];

  override async write(data: string | Uint8Array): Promise<void> {
    await super.write(data);
    const all = this.text();
    for (const w of [...this.waiters]) {
      if (all.includes(w.text)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  waitFor(text: string, timeoutMs = 5000): Promise<void> {
    if (this.text().includes(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${JSON.stringify(text)}; got ${JSON.stringify(this.text())}`)), timeoutMs);
      this.waiters.push({
        text,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}
