/**
 * What adbd uses of a device (VirtualDevice satisfies it structurally): properties for the
 * banner and root checks, the filesystem for sync:, the shell for shell:/exec:, the network for
 * tcp: and reverse:.
 */
import type { VirtualNetwork } from '../net/device-network.js';
import type { ShellIo } from '../types.js';

/** stat(2) as the filesystem reports it; mode carries the S_IF* type bits. */
export interface AdbdStat {
  readonly dev: number;
  readonly ino: number;
  readonly mode: number;
  readonly nlink: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly atimeSec: number;
  readonly mtimeSec: number;
  readonly ctimeSec: number;
}

export interface AdbdFileWriter {
  write(chunk: Buffer): Promise<void>;
  /** Finishes the file; sets its mtime when given. */
  close(mtimeSec?: number): Promise<void>;
  /** Gives up: removes what was written. */
  abort(): Promise<void>;
}

/** The filesystem calls sync: makes. Failures throw an error with a Linux `errno` and strerror message. */
export interface AdbdFs {
  stat(path: string, uid: number): Promise<AdbdStat>;
  lstat(path: string, uid: number): Promise<AdbdStat>;
  /** Entries without "." and "..". */
  readdir(path: string, uid: number): Promise<{ name: string; stat: AdbdStat }[]>;
  openRead(path: string, uid: number): Promise<AsyncIterable<Buffer>>;
  openWrite(path: string, uid: number, options: { mode: number; createParents: boolean }): Promise<AdbdFileWriter>;
  /** unlink(2) for a file or symlink. */
  rm(path: string, uid: number): Promise<void>;
}

export interface AdbdDevice {
  readonly props: Map<string, string>;
  /** True after `adb root`: shell and sync run as uid 0. */
  adbdIsRoot: boolean;
  readonly fs: AdbdFs;
  readonly network: VirtualNetwork;
  /**
   * Runs `sh -c LINE`, or an interactive shell reading stdin when LINE is empty. `env` adds
   * variables adbd sets for the child (TERM).
   */
  runShell(line: string, io: ShellIo, options?: { uid?: number; env?: Readonly<Record<string, string>> }): Promise<number>;
}
