/**
 * The seams inside the virtual device. Everything in src/virtual-device/ imports only from
 * here (and its own folders): never from the harness (docs/design.md §1).
 *
 *   adbd/      the adbd protocol (packets, transport, streams, services) -> calls Shell, VirtualFs, DeviceNetwork
 *   shell/     Android's sh and toybox; one file per binary in shell/commands/
 *   fs/        the per-device filesystem (a real temp directory + Android ownership and modes)
 *   logcat/    log buffers (main, system, crash, events) and logcat's output formats
 *   net/       the device's loopback network: device-local listeners and adb reverse rules
 *   system/    system services (pm, am, cmd jobscheduler, notification, settings, alarm, ...)
 *   apps/      installed apps (the reference feed notifier)
 */
import type { Duplex } from 'node:stream';

/** Linux uids as Android assigns them (system/core/libcutils/include/private/android_filesystem_config.h). */
export const Uid = {
  root: 0,
  system: 1000,
  shell: 2000,
  everybody: 9997,
  /** First application uid (AID_APP_START). */
  appStart: 10000,
} as const;

/** Where a command's bytes go. `write` resolves when the bytes were accepted (backpressure). */
export interface OutputSink {
  write(data: string | Uint8Array): Promise<void>;
}

/** A command's standard input: ends at EOF. */
export type InputSource = AsyncIterable<Uint8Array>;

export interface ShellIo {
  readonly stdin: InputSource;
  readonly stdout: OutputSink;
  readonly stderr: OutputSink;
  /** Aborted when the adb stream that runs the command closes: streaming commands must stop. */
  readonly signal: AbortSignal;
}

export interface CommandContext extends ShellIo {
  readonly device: DeviceModel;
  /** argv[0] is the command name as typed. */
  readonly argv: readonly string[];
  readonly env: Map<string, string>;
  readonly cwd: string;
  /** Effective uid (root 0, shell 2000, an app's uid under run-as). */
  readonly uid: number;
  /** Runs a command line in a child shell with this context's streams (sh -c, run-as, su). */
  runNested(line: string, options?: { uid?: number; cwd?: string; io?: Partial<ShellIo> }): Promise<number>;
}

/** One binary on the device's PATH. Returns the exit status (0..255). Throws only when misused. */
export type Command = (ctx: CommandContext) => Promise<number>;

export interface CommandRegistry {
  register(name: string, command: Command): void;
  get(name: string): Command | undefined;
  has(name: string): boolean;
}

/** The wall clock of the device: host time + offset (docs/design.md §7). */
export interface DeviceClock {
  /** Device wall-clock time in epoch ms. */
  now(): number;
  /** Milliseconds since boot (SystemClock.elapsedRealtime()); never moved by setting the wall clock. */
  elapsedRealtime(): number;
  /** Sets the wall clock (settimeofday / AlarmManager.setTime). */
  set(epochMs: number): void;
  readonly offsetMs: number;
}

export type LogBufferName = 'main' | 'system' | 'crash' | 'events' | 'radio' | 'kernel';

/** Android log priorities (system/logging/liblog/include/android/log.h). */
export const LogPriority = { V: 2, D: 3, I: 4, W: 5, E: 6, F: 7 } as const;
export type LogPriority = (typeof LogPriority)[keyof typeof LogPriority];

/**
 * The levels an app's WorkManager Configuration can log at (Configuration.Builder
 * .setMinimumLoggingLevel takes android.util.Log's VERBOSE..ERROR), by the name
 * `virtual-device --app-log-level` takes.
 */
export const APP_LOG_LEVELS = ['verbose', 'debug', 'info', 'warn', 'error'] as const;
export type AppLogLevel = (typeof APP_LOG_LEVELS)[number];
export const APP_LOG_PRIORITY: Readonly<Record<AppLogLevel, LogPriority>> = { verbose: LogPriority.V, debug: LogPriority.D, info: LogPriority.I, warn: LogPriority.W, error: LogPriority.E };

export function isAppLogLevel(s: unknown): s is AppLogLevel {
  return typeof s === 'string' && (APP_LOG_LEVELS as readonly string[]).includes(s);
}

export interface LogEntry {
  readonly buffer: LogBufferName;
  /** Device wall-clock time in epoch ms when it was written. */
  readonly timeMs: number;
  readonly pid: number;
  readonly tid: number;
  readonly uid: number;
  readonly priority: LogPriority;
  /** For the events buffer: the tag name from event-log-tags (e.g. notification_enqueue). */
  readonly tag: string;
  /** Text message; for the events buffer the rendered list, e.g. `[10190,4321,com.example,...]`. */
  readonly message: string;
  /** For the events buffer: the numeric tag (2750) and the typed values, for the binary format. */
  readonly event?: { readonly tagNumber: number; readonly values: readonly EventValue[] };
}

export type EventValue = { type: 'int'; value: number } | { type: 'long'; value: bigint } | { type: 'string'; value: string };

export interface LogSink {
  /** Appends an entry stamped with the device clock. */
  write(entry: Omit<LogEntry, 'timeMs'> & { timeMs?: number }): void;
}

/** The device's loopback network as seen from processes on the device. */
export interface DeviceNetwork {
  /** Listens on the device's 127.0.0.1:port (e.g. a server inside an app). */
  listen(port: number, onConnection: (socket: Duplex) => void): { close(): void };
  /**
   * Connects from the device to 127.0.0.1:port: a device-local listener if one exists, else an
   * `adb reverse` rule (carried to the host as a device-opened stream), else ECONNREFUSED.
   */
  connect(port: number): Promise<Duplex>;
}

/** What the rest of the virtual device sees of one device. Implemented by VirtualDevice. */
export interface DeviceModel {
  readonly serialHint: string;
  readonly apiLevel: number;
  readonly props: Map<string, string>;
  readonly clock: DeviceClock;
  readonly logs: LogSink;
  readonly network: DeviceNetwork;
  readonly commands: CommandRegistry;
  /** True once `adb root` restarted adbd as root (shell commands then run as uid 0). */
  readonly adbdIsRoot: boolean;
  /** Maps an absolute Android path to the real path under the device's temp directory. */
  hostPath(androidPath: string): string;
}
