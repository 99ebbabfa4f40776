/**
 * An AndroidDevice decorator that keeps a record of every command sent through it: what was
 * sent (the words, or the command line as typed; the path of a pull or push; the reverse rule),
 * how it ended (exit code, bytes, the first line of output, or the error), when it started and
 * how long it took, both from an injected clock. The device behaves exactly as the one it wraps:
 * results, errors and their messages are the wrapped device's own.
 *
 * Each kind of traffic is recorded as its own kind (`via`): shell commands, `exec-out`, streams
 * (a `stream` record when the stream is open, a `stream-end` record when it ends), pulls,
 * pushes, reverse rules and property reads. Records are numbered in the order the commands were
 * sent; a caller takes the finished ones in that order (`takeFinished`). `context` is asked at
 * the start of each command and kept with its record: what the caller was doing when it sent it.
 * Read-only commands sent together in one shell invocation (`shellBatch`, shell-batch.ts) are one
 * record each, in the batch's order, marked with their place in it (`batch`); so are the
 * commands of a sequence (`shellSequence`), each with the context its caller gave it, and a
 * command of a sequence that did not run (one before it failed) leaves no record.
 *
 * The record keeps the bytes a command wrote (a shell command's standard input, a pushed file):
 * the only way to send the same command again. Output is not kept, only its size and first line.
 */
import type {
  AndroidDevice,
  ReverseRule,
  ShellOptions,
  ShellResult,
  ShellTextOptions,
  StreamEndReason,
  StreamHandle,
  StreamListener,
} from './android-device.js';
import { toCommandLine } from './shell-quote.js';
import { sendBatch, type BatchCommand, type BatchOptions } from './shell-batch.js';
import { describeError, hasErrorCode, ErrorCode, type DeviceCommandError } from '../errors.js';

/** How a command reached the device. */
export type CommandVia = 'shell' | 'exec-out' | 'stream' | 'stream-end' | 'pull' | 'push' | 'reverse' | 'remove-reverse' | 'list-reverses' | 'getprop';

/** The clock records are timed with: `now` for the start time, `monotonic` for durations. */
export interface RecordingClock {
  now(): number;
  monotonic(): number;
}

export interface CommandRecord<C = unknown> {
  /** 1, 2, 3…: the order the commands were sent in (a `stream-end`: when the stream ended). */
  readonly seq: number;
  readonly via: CommandVia;
  /** The words as given; undefined for a command given as one line, and for non-shell traffic. */
  readonly argv: readonly string[] | undefined;
  /**
   * The command line as the device shell gets it (words quoted); for other traffic what adb
   * would be told: `pull PATH`, `push PATH`, `reverse tcp:D tcp:H`, `reverse --remove tcp:D`,
   * `reverse --list`, `getprop`.
   */
  readonly command: string;
  /** Device path of a pull or push. */
  readonly path?: string;
  /** File mode of a push. */
  readonly mode?: number;
  /** Bytes written: a shell command's standard input, or the pushed file. */
  readonly data?: Buffer;
  /** `clock.now()` when the command was sent (a `stream-end`: when its stream was opened). */
  readonly startedAt: number;
  /** What the caller's `context` said when the command was sent. */
  readonly context: C | undefined;
  /** False while the command runs. */
  readonly finished: boolean;
  /** `clock.monotonic()` from start to end (a `stream`: to open; a `stream-end`: its whole life). */
  readonly durationMs: number | undefined;
  /** Exit status, where the mechanism reports one. */
  readonly exitCode: number | undefined;
  /** Bytes of output (shell stdout, exec-out, a pulled file). */
  readonly bytes: number | undefined;
  /** The first non-empty line of text output (stderr first after a failure); never binary. */
  readonly output: string | undefined;
  /** The error the command failed with (timeout, transport, a refused exit code). */
  readonly error: string | undefined;
  /**
   * A read sent with others in one shell invocation (shell-batch.ts): its place in the batch
   * (1-based) and the batch's size. The record's words are this command's own; the invocation's
   * duration is each of its records' duration.
   */
  readonly batch?: { readonly index: number; readonly size: number };
}

type MutableRecord<C> = { -readonly [K in keyof CommandRecord<C>]: CommandRecord<C>[K] };

export interface RecordingOptions<C> {
  readonly clock: RecordingClock;
  /** Asked at the start of every command; its answer is kept with the record. */
  readonly context?: () => C | undefined;
}

/** The longest first line kept of a command's output. */
const OUTPUT_LINE_MAX = 200;

export class RecordingDevice<C = undefined> implements AndroidDevice {
  private readonly all: MutableRecord<C>[] = [];
  /** `clock.monotonic()` at each record's start: durations only, not reported. */
  private readonly monotonicStart = new WeakMap<CommandRecord<C>, number>();
  private taken = 0;
  private nextSeq = 1;

  constructor(
    readonly inner: AndroidDevice,
    private readonly options: RecordingOptions<C>,
  ) {}

  get serial(): string {
    return this.inner.serial;
  }

  /** Every record so far, in the order the commands were sent. */
  get records(): readonly CommandRecord<C>[] {
    return this.all;
  }

  /**
   * The records not taken yet whose commands have finished, in the order they were sent. It
   * stops at the first command still running, so that records are taken in order.
   */
  takeFinished(): CommandRecord<C>[] {
    const out: CommandRecord<C>[] = [];
    while (this.taken < this.all.length && this.all[this.taken]!.finished) out.push(this.all[this.taken++]!);
    return out;
  }

  // ---------------------------------------------------------------- recording

  private start(
    via: CommandVia,
    fields: { argv?: readonly string[] | undefined; command: string; path?: string; mode?: number; data?: Buffer; batch?: { index: number; size: number } },
    context: () => C | undefined = () => this.options.context?.(),
    startedAt?: number,
  ): MutableRecord<C> {
    const record: MutableRecord<C> = {
      seq: this.nextSeq++,
      via,
      argv: fields.argv === undefined ? undefined : [...fields.argv],
      command: fields.command,
      ...(fields.path !== undefined ? { path: fields.path } : {}),
      ...(fields.mode !== undefined ? { mode: fields.mode } : {}),
      ...(fields.data !== undefined ? { data: fields.data } : {}),
      ...(fields.batch !== undefined ? { batch: fields.batch } : {}),
      startedAt: startedAt ?? this.options.clock.now(),
      context: context(),
      finished: false,
      durationMs: undefined,
      exitCode: undefined,
      bytes: undefined,
      output: undefined,
      error: undefined,
    };
    this.monotonicStart.set(record, this.options.clock.monotonic());
    this.all.push(record);
    return record;
  }

  private finish(record: MutableRecord<C>, fields: { exitCode?: number | undefined; bytes?: number | undefined; output?: string | undefined; error?: string | undefined }): void {
    const now = this.options.clock.monotonic();
    record.durationMs = now - (this.monotonicStart.get(record) ?? now);
    record.exitCode = fields.exitCode;
    record.bytes = fields.bytes;
    record.output = fields.output;
    record.error = fields.error;
    record.finished = true;
  }

  /** Runs `send`, recording how it ended; the result or the error is passed on unchanged. */
  private async recorded<T>(
    record: MutableRecord<C>,
    send: () => Promise<T>,
    summary: (value: T) => { exitCode?: number | undefined; bytes?: number | undefined; output?: string | undefined },
  ): Promise<T> {
    let value: T;
    try {
      value = await send();
    } catch (e) {
      // A DeviceCommandError names the exit code it refused and the command's stderr.
      const details = (hasErrorCode(e, ErrorCode.DeviceCommand) ? e : {}) as Partial<Pick<DeviceCommandError, 'exitCode' | 'stderr'>>;
      const exitCode = typeof details.exitCode === 'number' ? details.exitCode : undefined;
      const output = typeof details.stderr === 'string' ? firstLine(details.stderr) : undefined;
      this.finish(record, { exitCode, output, error: describeError(e) });
      throw e;
    }
    this.finish(record, summary(value));
    return value;
  }

  // ---------------------------------------------------------------- AndroidDevice

  shell(command: string | readonly string[], options: ShellOptions = {}): Promise<ShellResult> {
    const record = this.start('shell', { ...words(command), ...(options.stdin !== undefined ? { data: Buffer.from(options.stdin) } : {}) });
    return this.recorded(record, () => this.inner.shell(command, options), shellSummary);
  }

  /**
   * Read-only commands in one shell invocation (shell-batch.ts), one record per command, each
   * with its own exit code, size and first line of output. A batch of one is a plain `shell`.
   */
  async shellBatch(commands: readonly BatchCommand[], options: BatchOptions = {}): Promise<ShellResult[]> {
    if (commands.length === 1) return [await this.shell(commands[0]!, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {})];
    const records = commands.map((command, i) => this.start('shell', { ...words(command), batch: { index: i + 1, size: commands.length } }));
    let results: ShellResult[];
    try {
      results = await sendBatch(this.inner, commands, options);
    } catch (e) {
      const error = describeError(e);
      for (const record of records) this.finish(record, { error });
      throw e;
    }
    records.forEach((record, i) => {
      const r = results[i]!;
      this.finish(record, shellSummary(r));
    });
    return results;
  }

  /**
   * Commands that change the device, in one shell invocation (shell-batch.ts `stopAfterFailure`):
   * each runs only when the one before it exited 0. One record per command, with the context
   * given with it (the caller's step for that command), in order; the commands after a failing
   * one did not run and leave no record. Results: one per command run. A step's `startedAt`
   * replaces the clock's reading as its start time (a command that runs after one that moved
   * the device clock starts at the time that one set). A step with `goOnAfterFailure` (a read at
   * the sequence's end whose failure is its result) does not end it when it fails.
   */
  async shellSequence(
    steps: readonly { readonly command: BatchCommand; readonly context?: C; readonly startedAt?: number; readonly goOnAfterFailure?: boolean }[],
    options: Omit<BatchOptions, 'stopAfterFailure'> = {},
  ): Promise<ShellResult[]> {
    const records = steps.map((step, i) =>
      this.start(
        'shell',
        { ...words(step.command), ...(steps.length > 1 ? { batch: { index: i + 1, size: steps.length } } : {}) },
        () => step.context ?? this.options.context?.(),
        step.startedAt,
      ),
    );
    let results: ShellResult[];
    try {
      const stopAfterFailure = steps.some((s) => s.goOnAfterFailure === true) ? steps.map((s) => s.goOnAfterFailure !== true) : true;
      results = await sendBatch(this.inner, steps.map((s) => s.command), { ...options, stopAfterFailure });
    } catch (e) {
      const error = describeError(e);
      for (const record of records) this.finish(record, { error });
      throw e;
    }
    records.forEach((record, i) => {
      const r = results[i];
      if (r === undefined) {
        // Not run: gone from the records (still unfinished, so none was taken yet).
        this.all.splice(this.all.indexOf(record), 1);
        return;
      }
      this.finish(record, shellSummary(r));
    });
    return results;
  }

  /**
   * The wrapped device's own `shellText` (its error messages name its mechanism). Its exit code
   * is 0 when it returned without `allowExitCodes`, the refused code when it threw, and unknown
   * when an allowed code may have let it through.
   */
  shellText(command: string | readonly string[], options: ShellTextOptions = {}): Promise<string> {
    const record = this.start('shell', { ...words(command), ...(options.stdin !== undefined ? { data: Buffer.from(options.stdin) } : {}) });
    const exact = (options.allowExitCodes ?? []).length === 0;
    return this.recorded(record, () => this.inner.shellText(command, options), (text) => ({
      exitCode: exact ? 0 : undefined,
      bytes: Buffer.byteLength(text),
      output: textLine(Buffer.from(text.slice(0, 4096))),
    }));
  }

  execOut(command: string | readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<Buffer> {
    const record = this.start('exec-out', words(command));
    return this.recorded(record, () => this.inner.execOut(command, options), (out) => ({ bytes: out.length, output: textLine(out) }));
  }

  pull(path: string): Promise<Buffer> {
    const record = this.start('pull', { command: `pull ${path}`, path });
    return this.recorded(record, () => this.inner.pull(path), (data) => ({ bytes: data.length }));
  }

  push(data: Buffer | string, path: string, mode?: number): Promise<void> {
    const bytes = Buffer.from(data);
    const record = this.start('push', { command: `push ${path}`, path, data: bytes, ...(mode !== undefined ? { mode } : {}) });
    return this.recorded(record, () => (mode === undefined ? this.inner.push(data, path) : this.inner.push(data, path, mode)), () => ({ bytes: bytes.length }));
  }

  async streamShell(command: string | readonly string[], listener: StreamListener, signal?: AbortSignal): Promise<StreamHandle> {
    const record = this.start('stream', words(command));
    const handle = await this.recorded(record, () => this.inner.streamShell(command, listener, signal), () => ({}));
    void handle.done.then((end) => {
      // The stream's end, timed from the stream's own start.
      const ended = this.start('stream-end', { ...(record.argv !== undefined ? { argv: record.argv } : {}), command: record.command });
      ended.startedAt = record.startedAt;
      const opened = this.monotonicStart.get(record);
      if (opened !== undefined) this.monotonicStart.set(ended, opened);
      this.finish(ended, { exitCode: end.exitCode, output: end.reason satisfies StreamEndReason });
    });
    return handle;
  }

  reverse(devicePort: number, hostPort: number): Promise<void> {
    const record = this.start('reverse', { command: `reverse tcp:${devicePort} tcp:${hostPort}` });
    return this.recorded(record, () => this.inner.reverse(devicePort, hostPort), () => ({}));
  }

  listReverses(): Promise<ReverseRule[]> {
    const record = this.start('list-reverses', { command: 'reverse --list' });
    return this.recorded(record, () => this.inner.listReverses(), (rules) => ({ output: rules.map((r) => `${r.remote} ${r.local}`).join(', ') || undefined }));
  }

  removeReverse(devicePort: number): Promise<void> {
    const record = this.start('remove-reverse', { command: `reverse --remove tcp:${devicePort}` });
    return this.recorded(record, () => this.inner.removeReverse(devicePort), () => ({}));
  }

  getProperties(): Promise<Record<string, string>> {
    const record = this.start('getprop', { command: 'getprop' });
    return this.recorded(record, () => this.inner.getProperties(), (props) => ({ output: `${Object.keys(props).length} properties` }));
  }

  /** Closes the wrapped device (not recorded: nothing is sent to the device). */
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** What a shell command's record keeps of its result: exit code, size, first line (stderr first after a failure). */
function shellSummary(r: ShellResult): { exitCode: number; bytes: number; output: string | undefined } {
  return {
    exitCode: r.exitCode,
    bytes: r.stdout.length,
    output: r.exitCode === 0 ? (textLine(r.stdout) ?? firstLine(r.stderr)) : (firstLine(r.stderr) ?? textLine(r.stdout)),
  };
}

/** The argv of an array command, and the command line the device shell gets. */
function words(command: string | readonly string[]): { argv?: readonly string[]; command: string } {
  return typeof command === 'string' ? { command } : { argv: command, command: toCommandLine(command) };
}

function firstLine(text: string): string | undefined {
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? undefined : line.trim().slice(0, OUTPUT_LINE_MAX);
}

/** The first line of output that is text (a database pulled with `cat` is not). */
function textLine(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 4096);
  if (head.includes(0)) return undefined;
  const line = firstLine(head.toString('utf8'));
  // eslint-disable-next-line no-control-regex
  return line === undefined || /[\u0000-\u0008\u000E-\u001F\uFFFD]/.test(line) ? undefined : line;
}
