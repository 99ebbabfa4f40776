/**
 * One virtual Android device: the composition of its filesystem, clock, logs, network, shell
 * and system services. adbd (adbd/) serves it over TCP; nothing outside src/virtual-device
 * (but the CLI wiring) may touch it (docs/design.md §1).
 */
import type { AppLogLevel, CommandRegistry, DeviceModel, LogSink, ShellIo } from './types.js';
import { VirtualClock } from './clock.js';
import { VirtualFs } from './fs/virtual-fs.js';
import { DeviceExtensions } from './extensions.js';
import { LogBuffers } from './logcat/log-buffers.js';
import { VirtualNetwork } from './net/device-network.js';
import { Shell, type ShellRunOptions } from './shell/shell.js';
import { CommandTable } from './shell/command-table.js';
import { ProcessTable } from './shell/process-table.js';
import { registerToyboxCommands } from './shell/commands/index.js';
import { log } from './shell/commands/log.js';
import { apiProfile, PHYSICAL_API_LEVEL, type ApiLevel } from './profiles.js';
import type { AppProfile } from './apps/feed-notifier/app-profiles.js';

/**
 * What installs a model on a bare device (the Android system and its apps: system/index.ts
 * installAndroidModel). The core (adbd, transport, shell, fs) stands without one.
 */
export type DeviceInstaller = (device: VirtualDevice) => Promise<void>;

export interface VirtualDeviceOptions {
  /** API level profile: 30, 33, 34, 35 or 36 (default 34). */
  apiLevel?: ApiLevel;
  /** `adb root` refused as on a production (user) build. */
  noRoot?: boolean;
  /** No sqlite3 binary on the device, as on user builds. */
  noSqlite3?: boolean;
  /** Bug switches of the reference app (docs/design.md §6). */
  bugs?: readonly string[];
  /** The shape the reference app is written in (apps/feed-notifier/app-profiles.ts); default `reference`. */
  appProfile?: AppProfile;
  /**
   * The reference app's WorkManager minimum log level (its Configuration.Provider's
   * setMinimumLoggingLevel); default `info`, WorkManager's own default.
   */
  appLogLevel?: AppLogLevel;
  /**
   * How long the reference app's WorkManager task thread takes to take a task up (default
   * TASK_THREAD_DELAY_MS, 5 ms). A busy device's thread is slower: the job WorkManager schedules
   * again after a periodic run (Schedulers.registerRescheduling, posted to that thread) then
   * comes that much after the run's result line. Not a CLI option: specs of that window set it.
   */
  workManagerTaskDelayMs?: number;
  /**
   * Answer as a phone, not an emulator: a Pixel 8's user build (profiles.ts), no qemu
   * properties, `adb root` refused and no sqlite3, as on a phone; the API level is the phone's (34).
   */
  physical?: boolean;
  /** A label used in ro.serialno and logs. */
  serialHint?: string;
  /** Parent directory of the device's temp directory (default: os.tmpdir()). */
  tmpDir?: string;
}

export class VirtualDevice implements DeviceModel {
  readonly serialHint: string;
  readonly apiLevel: ApiLevel;
  readonly props: Map<string, string>;
  readonly clock: VirtualClock;
  readonly logs: LogBuffers;
  readonly network: VirtualNetwork;
  readonly commands: CommandRegistry;
  readonly shell: Shell;
  readonly fs: VirtualFs;
  readonly options: Readonly<VirtualDeviceOptions>;
  /** What `ps`, `pidof` and `kill` see: the shell's processes and those the installed model adds. */
  readonly processes = new ProcessTable();
  adbdIsRoot = false;
  /** What installers provide (the Android model: system/index.ts), each under its typed key (extensions.ts). */
  readonly extensions = new DeviceExtensions();
  private readonly disposers: (() => Promise<void> | void)[] = [];

  private constructor(fs: VirtualFs, options: VirtualDeviceOptions) {
    this.options = options;
    const physical = options.physical === true;
    this.apiLevel = physical ? PHYSICAL_API_LEVEL : (options.apiLevel ?? 34);
    this.serialHint = options.serialHint ?? 'virtual';
    this.props = new Map(Object.entries(apiProfile(this.apiLevel, { serial: this.serialHint, noRoot: options.noRoot === true, physical })));
    this.fs = fs;
    this.clock = new VirtualClock();
    // File times follow the device clock (ls -l after `cmd alarm set-time`).
    fs.useClock(this.clock);
    this.logs = new LogBuffers(this.clock);
    this.network = new VirtualNetwork();
    const table = new CommandTable();
    this.commands = table;
    registerToyboxCommands(table);
    table.register('log', log);
    this.shell = new Shell(this);
  }

  /** A device with its core only, then each installer run on it in order. */
  static async create(options: VirtualDeviceOptions = {}, installers: readonly DeviceInstaller[] = []): Promise<VirtualDevice> {
    const fs = await VirtualFs.create(options.tmpDir === undefined ? {} : { tmpDir: options.tmpDir });
    const device = new VirtualDevice(fs, options);
    device.onDispose(() => fs.dispose());
    for (const install of installers) await install(device);
    return device;
  }

  get logSink(): LogSink {
    return this.logs;
  }

  hostPath(androidPath: string): string {
    return this.fs.hostPath(androidPath);
  }

  /** Runs one shell command line (default uid: shell, or root after `adb root`). */
  runShell(line: string, io: ShellIo, options: ShellRunOptions = {}): Promise<number> {
    return this.shell.run(line, io, options);
  }

  onDispose(fn: () => Promise<void> | void): void {
    this.disposers.push(fn);
  }

  async dispose(): Promise<void> {
    for (const fn of this.disposers.reverse()) await fn();
    this.disposers.length = 0;
  }
}
