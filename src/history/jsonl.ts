/**
 * Reading and writing histories as JSON Lines (docs/design.md §5). The reader streams (readline over
 * a file stream) so a history of millions of events is checked in bounded memory; every problem
 * names the file, the line and the fix.
 */
import { constants as fsConstants, type WriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { EXAMPLE_EVENTS, parseHistoryEvent, type HistoryEvent } from './events.js';
import { HistoryError } from './history-error.js';
import { decodeUtf8, describeUtf8Problem } from '../text.js';

const FORMAT_HINT = 'each line must be one JSON event as in docs/design.md §5';

function describeFsError(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ELOOP':
      return 'it is a symbolic link, which the recorder does not write through';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Turns lines into events, one at a time, keeping only what the format rules need (whether an
 * event came before, for the config-first rule). Blank lines are skipped.
 */
export class HistoryLineParser {
  private events = 0;
  constructor(private readonly source: string) {}

  /**
   * Returns the event on this line, or undefined for a blank line; throws HistoryError. A UTF-8
   * byte order mark at the start of line 1 (as some editors save) is not part of the JSON.
   */
  parseLine(text: string, line: number): HistoryEvent | undefined {
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0 || text.trim().length === 0) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new HistoryError(
        `history ${this.source} line ${line}: not valid JSON (${reason}); ${FORMAT_HINT}, e.g. ${EXAMPLE_EVENTS.notified}`,
        { path: this.source, line },
        { cause: e },
      );
    }
    const parsed = parseHistoryEvent(value);
    if ('problem' in parsed) {
      const type = (value as { type?: unknown } | null)?.type;
      const example = typeof type === 'string' && type in EXAMPLE_EVENTS
        ? EXAMPLE_EVENTS[type as keyof typeof EXAMPLE_EVENTS]
        : EXAMPLE_EVENTS.notified;
      throw new HistoryError(
        `history ${this.source} line ${line}: ${parsed.problem}; fix the line, e.g. ${example}`,
        { path: this.source, line },
      );
    }
    this.events += 1;
    return parsed.event;
  }
}

/** Parses a whole history held in memory (small histories, fixtures, tests). */
export function parseHistoryText(text: string, source = 'history'): HistoryEvent[] {
  const parser = new HistoryLineParser(source);
  const events: HistoryEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const event = parser.parseLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw, i + 1);
    if (event !== undefined) events.push(event);
  }
  return events;
}

/**
 * The longest history line read, in bytes: 64 MiB. The longest event `run` writes is a `fetched`
 * line naming every item of one response (a few hundred bytes per item), far below it; a line
 * past it is a broken or hostile file. It also keeps every line far below V8's longest string
 * (2^29 - 24 UTF-16 units on 64-bit, v8/include/v8-primitive.h String::kMaxLength), past which
 * building the line's string would throw a RangeError instead of a one-line error.
 */
export const MAX_HISTORY_LINE_BYTES = 64 * 1024 * 1024;

export interface ReadHistoryOptions {
  /** The longest line accepted, in bytes (default MAX_HISTORY_LINE_BYTES). */
  readonly maxLineBytes?: number;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
}

/**
 * The lines of a file as UTF-8 text, read in chunks of bytes: a line is decoded only once it is
 * complete and no longer than `maxLineBytes`, so no string longer than that is ever built; a
 * longer line is skipped to its end (to give its length) and then refused. Decoding is fatal, so
 * invalid UTF-8 is an error naming its line instead of becoming U+FFFD (two different keys would
 * read as one). A CR before the LF is not part of the line, as readline with crlfDelay: Infinity.
 */
async function* readLines(
  handle: FileHandle,
  maxLineBytes: number,
  problem: (line: number, what: string, fix: string) => HistoryError,
): AsyncGenerator<string, void, undefined> {
  const buffer = Buffer.allocUnsafe(1 << 16);
  let parts: Buffer[] = [];
  let length = 0;
  let line = 1;
  let overLong = false;
  const finish = (): string => {
    const bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length);
    parts = [];
    if (overLong) {
      throw problem(line, `is ${length} bytes (${mib(length)}), over the limit of ${maxLineBytes} bytes (${mib(maxLineBytes)})`, 'a history line is one event; split or remove the line');
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const decoded = decodeUtf8(bytes.subarray(0, end));
    if ('problem' in decoded) throw problem(line, `is not valid UTF-8 (${describeUtf8Problem(decoded.problem)})`, 'save the history as UTF-8');
    return decoded.text;
  };
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    let start = 0;
    while (start < bytesRead) {
      const nl = buffer.indexOf(0x0a, start);
      const stop = nl === -1 || nl >= bytesRead ? bytesRead : nl;
      const size = stop - start;
      if (!overLong && length + size > maxLineBytes) {
        overLong = true;
        parts = [];
      }
      if (!overLong) parts.push(Buffer.from(buffer.subarray(start, stop)));
      length += size;
      if (stop === bytesRead) break;
      yield finish();
      line += 1;
      length = 0;
      overLong = false;
      start = stop + 1;
    }
  }
  if (length > 0 || overLong) yield finish();
}

/**
 * Streams the events of a history file, validating each line. Memory stays bounded by the
 * longest line, itself bounded by `maxLineBytes`. Throws HistoryError for an unreadable file,
 * a line over the limit, invalid UTF-8 or a malformed line (with its number).
 */
export async function* readHistory(path: string, options: ReadHistoryOptions = {}): AsyncGenerator<HistoryEvent, void, undefined> {
  const maxLineBytes = options.maxLineBytes ?? MAX_HISTORY_LINE_BYTES;
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    throw new HistoryError(
      `cannot read history ${path}: ${describeFsError(e)}; check the path (run --out DIR writes DIR/history.jsonl)`,
      { path },
      { cause: e },
    );
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      throw new HistoryError(
        `cannot read history ${path}: it is a directory; pass the history file inside it, e.g. ${path.replace(/\/+$/, '')}/history.jsonl`,
        { path },
      );
    }
    const parser = new HistoryLineParser(path);
    const problem = (line: number, what: string, fix: string): HistoryError =>
      new HistoryError(`history ${path} line ${line} ${what}; ${fix}`, { path, line });
    let line = 0;
    try {
      for await (const text of readLines(handle, maxLineBytes, problem)) {
        line += 1;
        const event = parser.parseLine(text, line);
        if (event !== undefined) yield event;
      }
    } catch (e) {
      if (e instanceof HistoryError) throw e;
      throw new HistoryError(`cannot read history ${path} after line ${line}: ${describeFsError(e)}`, { path, line }, { cause: e });
    }
  } finally {
    await handle.close();
  }
}

/** Where a run's events go: a file (HistoryRecorder) or memory (MemoryHistory). */
export interface HistorySink {
  /** Appends one event. Returns false when the caller should `flush()` before writing more. */
  record(event: HistoryEvent): boolean;
  /** Resolves once every recorded event is written. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

function checkRecordable(event: HistoryEvent, recorded: number, path: string): void {
  const parsed = parseHistoryEvent(event);
  if ('problem' in parsed) {
    throw new HistoryError(`cannot record to history ${path}: ${parsed.problem}`, { path });
  }
}

/** Appends events to a JSON Lines file. */
export class HistoryRecorder implements HistorySink {
  private recorded = 0;
  private failure: Error | undefined;

  private constructor(readonly path: string, private readonly stream: WriteStream) {
    stream.on('error', (e) => {
      this.failure ??= e;
    });
  }

  /**
   * Opens (truncating, or appending with `append: true`) the file; throws HistoryError if it
   * cannot. A symbolic link at `path` is not followed (O_NOFOLLOW: the open fails, ELOOP), so a
   * history.jsonl planted as a link cannot make the recorder overwrite its target.
   */
  static async open(path: string, options: { append?: boolean } = {}): Promise<HistoryRecorder> {
    const { O_WRONLY, O_CREAT, O_APPEND, O_TRUNC, O_NOFOLLOW } = fsConstants;
    const flags = O_WRONLY | O_CREAT | O_NOFOLLOW | (options.append === true ? O_APPEND : O_TRUNC);
    let handle: FileHandle;
    try {
      handle = await open(path, flags, 0o644);
    } catch (e) {
      throw new HistoryError(`cannot write history ${path}: ${describeFsError(e)}; check that the directory exists and is writable`, { path }, { cause: e });
    }
    const stream = handle.createWriteStream({ encoding: 'utf8' });
    return new HistoryRecorder(path, stream);
  }

  get count(): number {
    return this.recorded;
  }

  record(event: HistoryEvent): boolean {
    this.throwIfFailed();
    checkRecordable(event, this.recorded, this.path);
    this.recorded += 1;
    return this.stream.write(`${JSON.stringify(event)}\n`);
  }

  flush(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.write('', (e) => {
        const failure = this.failure ?? e ?? undefined;
        if (failure) reject(this.wrap(failure));
        else resolve();
      });
    });
  }

  async close(): Promise<void> {
    if (!this.stream.writableEnded) this.stream.end();
    try {
      await finished(this.stream);
    } catch (e) {
      throw this.wrap(this.failure ?? (e as Error));
    }
    if (this.failure) throw this.wrap(this.failure);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.wrap(this.failure);
  }

  private wrap(e: Error): HistoryError {
    return new HistoryError(`cannot write history ${this.path}: ${describeFsError(e)}`, { path: this.path }, { cause: e });
  }
}

/** Keeps events in memory (tests, and runs that check without writing a file). */
export class MemoryHistory implements HistorySink {
  readonly events: HistoryEvent[] = [];
  record(event: HistoryEvent): boolean {
    checkRecordable(event, this.events.length, 'in memory');
    this.events.push(event);
    return true;
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
