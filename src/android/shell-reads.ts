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

/** Runs every read's commands in one shell invocation; each read parses its own results. */
export async function runReads<const R extends readonly ShellRead<unknown>[]>(device: AndroidDevice, reads: R, options: BatchOptions = {}): Promise<ReadValues<R>> {
  const commands = reads.flatMap((r) => r.commands);
  const results = commands.length === 0 ? [] : await shellBatch(device, commands, options);
  const values: unknown[] = [];
  let at = 0;
  for (const read of reads) {
    values.push(await read.parse(results.slice(at, at + read.commands.length)));
    at += read.commands.length;
  }
  return values as ReadValues<R>;
}
