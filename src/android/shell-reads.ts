/**
 * Reads of Android's shell tools that go out together: each read names the shell commands it needs
 * and what to make of their results, and `runReads` sends the commands of several reads in one
 * shell invocation (src/device/shell-batch.ts: one adb round trip, each command's stdout, stderr
 * and exit status given back apart), then lets each read parse its own results.
 */
import type { AndroidDevice, ShellResult } from '../device/android-device.js';
import { shellBatch, type BatchCommand, type BatchOptions } from '../device/shell-batch.js';

/** A read made of shell commands and what to make of their results. */
export interface ShellRead<T> {
  readonly commands: readonly BatchCommand[];
  parse(results: readonly ShellResult[]): T | Promise<T>;
}

export type ReadValues<R extends readonly ShellRead<unknown>[]> = { -readonly [K in keyof R]: R[K] extends ShellRead<infer T> ? T : never };

/**
 * Thrown by a read's parse when what it read changed while it was being read (a database whose
 * -wal changed between the commands of one invocation): runReads sends the invocation again.
 */
export class ReadAgain extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReadAgain';
  }
}

/** How many times one invocation is sent when a read asks for it again, at most. */
const MAX_READ_ATTEMPTS = 4;

/** Runs every read's commands in one shell invocation; each read parses its own results. */
export async function runReads<const R extends readonly ShellRead<unknown>[]>(device: AndroidDevice, reads: R, options: BatchOptions = {}): Promise<ReadValues<R>> {
  const commands = reads.flatMap((r) => r.commands);
  for (let attempt = 1; ; attempt++) {
    const results = commands.length === 0 ? [] : await shellBatch(device, commands, options);
    const values: unknown[] = [];
    let at = 0;
    try {
      for (const read of reads) {
        values.push(await read.parse(results.slice(at, at + read.commands.length)));
        at += read.commands.length;
      }
    } catch (e) {
      if (e instanceof ReadAgain && attempt < MAX_READ_ATTEMPTS) continue;
      throw e;
    }
    return values as ReadValues<R>;
  }
}
