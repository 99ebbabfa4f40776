/**
 * Reads of Android's shell tools that go out together: each read names the shell commands it needs
 * and what to make of their results, and `runReads` sends the commands of several reads in one
 * shell invocation (src/device/shell-batch.ts: one adb round trip, each command's stdout, stderr
 * and exit status given back apart; adbd runs the invocation's line with `/system/bin/sh -c`,
 * platform_system_core platform-tools-29.0.6 adb/daemon/shell_service.cpp Subprocess::ForkAndExec),
 * then lets each read parse its own results. Nothing here knows an Android command: what each
 * command prints is the business of the read that names it, where its source is cited.
 */
import { commandFailed, type AndroidDevice, type ShellResult } from '../device/android-device.js';
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
    try {
      return await parseReads(reads, results);
    } catch (e) {
      if (e instanceof ReadAgain && attempt < MAX_READ_ATTEMPTS) continue;
      throw e;
    }
  }
}

/**
 * Lets each read parse its own share of `results`, the results of every read's commands in
 * order (sent by runReads, or with other commands in one invocation). Throws ReadAgain as the
 * reads do.
 */
export async function parseReads<const R extends readonly ShellRead<unknown>[]>(reads: R, results: readonly ShellResult[]): Promise<ReadValues<R>> {
  const values: unknown[] = [];
  let at = 0;
  for (const read of reads) {
    values.push(await read.parse(results.slice(at, at + read.commands.length)));
    at += read.commands.length;
  }
  return values as ReadValues<R>;
}

/**
 * The results of reads' commands sent in an invocation with other commands (a wait, a change),
 * kept for a later read of the same commands (parseKept).
 */
export interface KeptResults {
  /** Each command as one string (its words or its line), to tell whether a later read is the same. */
  readonly commands: readonly string[];
  readonly results: readonly ShellResult[];
}

/** A command as one string: its words, or its line. */
function commandKey(command: BatchCommand): string {
  return JSON.stringify(command);
}

/** Keeps `results`, those of the commands of `reads` in order; undefined when not all of them ran. */
export function keepResults(reads: readonly ShellRead<unknown>[], results: readonly ShellResult[]): KeptResults | undefined {
  const commands = reads.flatMap((r) => r.commands).map(commandKey);
  return results.length === commands.length ? { commands, results } : undefined;
}

/**
 * The values of `reads` from `kept`, when their commands are the ones kept; undefined when they
 * are not, or when a read asks to be read again (ReadAgain: a -wal changed while it was read).
 */
export async function parseKept<const R extends readonly ShellRead<unknown>[]>(reads: R, kept: KeptResults): Promise<ReadValues<R> | undefined> {
  const commands = reads.flatMap((r) => r.commands).map(commandKey);
  if (commands.length !== kept.commands.length || commands.some((c, i) => c !== kept.commands[i])) return undefined;
  try {
    return await parseReads(reads, kept.results);
  } catch (e) {
    if (e instanceof ReadAgain) return undefined;
    throw e;
  }
}

/**
 * The text a command prints, as a read that goes out with others; a command that exits with
 * another status than 0 fails the read as `shellText` fails (commandFailed).
 */
export function textRead(argv: readonly string[]): ShellRead<string> {
  return {
    commands: [argv],
    parse: ([result]) => {
      if (result === undefined || result.exitCode !== 0) {
        throw commandFailed(argv.join(' '), result ?? { stdout: Buffer.alloc(0), stderr: 'not run', exitCode: 255 });
      }
      return result.stdout.toString('utf8');
    },
  };
}

/**
 * A read whose failure is given back as a value instead of failing the reads sent with it, so a
 * caller can judge several checks of one invocation in its own order (as Promise.allSettled).
 */
export function settledRead<T>(read: ShellRead<T>): ShellRead<PromiseSettledResult<T>> {
  return {
    commands: read.commands,
    parse: async (results) => {
      try {
        return { status: 'fulfilled', value: await read.parse(results) };
      } catch (e) {
        if (e instanceof ReadAgain) throw e;
        return { status: 'rejected', reason: e };
      }
    },
  };
}

/**
 * Commands that do not depend on one another, changes among them, in one shell invocation: each
 * runs whatever the status of the one before, and each result is given back apart (one per
 * command). For a caller that judges every command on its own (a restore that tries each part).
 */
export function runEach(device: AndroidDevice, commands: readonly BatchCommand[], options: Omit<BatchOptions, 'stopAfterFailure'> = {}): Promise<ShellResult[]> {
  return shellBatch(device, commands, options);
}
