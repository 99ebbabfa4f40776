/**
 * What shell commands see beyond the CommandContext seam: the device's filesystem, log buffers
 * and process table, and a way to run a child shell with arguments (`sh -c CMD ARG0 ARGS`).
 */
import type { CommandContext, DeviceModel, ShellIo } from '../types.js';
import type { VirtualFs } from '../fs/virtual-fs.js';
import type { LogBuffers } from '../logcat/log-buffers.js';
import type { ProcessTable } from './process-table.js';
import { resolveAndroidPath } from '../fs/android-path.js';

/** The device as the shell needs it (VirtualDevice satisfies this). */
export interface ShellHost extends DeviceModel {
  readonly fs: VirtualFs;
  readonly logs: LogBuffers;
  /** The device's processes (the shell registers its own while they run). */
  readonly processes: ProcessTable;
}

export interface ChildShellOptions {
  /** Script text (`sh -c TEXT`). */
  script: string;
  /** $0 (the shell's name in its messages). */
  arg0: string;
  /** $1, $2, ... */
  args?: readonly string[];
  uid?: number;
  cwd?: string;
  io?: Partial<ShellIo>;
  /** Read commands from stdin as they arrive (`sh` without -c). */
  fromStdin?: boolean;
  /** Print prompts (interactive `adb shell`). */
  interactive?: boolean;
}

/** The context the shell gives every command it runs. */
export interface ToyboxContext extends CommandContext {
  readonly host: ShellHost;
  readonly fs: VirtualFs;
  /** The pid of this command's process. */
  readonly pid: number;
  /** The name the running shell reports errors under (`/system/bin/sh`). */
  readonly shellName: string;
  runShell(options: ChildShellOptions): Promise<number>;
  /** Runs a binary by name or path (env, nohup, timeout); undefined when there is none. */
  runCommand(argv: readonly string[], options?: { env?: Map<string, string>; io?: Partial<ShellIo> }): Promise<number | undefined>;
  /** The shell's file-creation mask. */
  readonly umask: number;
}

export function isToyboxContext(ctx: CommandContext): ctx is ToyboxContext {
  return 'fs' in ctx && 'host' in ctx && 'runShell' in ctx;
}

/** The toybox view of a context; fails loudly when a command is run outside the device shell. */
export function toyboxContext(ctx: CommandContext): ToyboxContext {
  if (isToyboxContext(ctx)) return ctx;
  throw new Error(`${ctx.argv[0] ?? 'command'}: must be run by the device shell (no filesystem in this context)`);
}

/** Resolves a command argument against the command's working directory. */
export function absolutePath(ctx: CommandContext, path: string): string {
  return resolveAndroidPath(path, ctx.cwd);
}
