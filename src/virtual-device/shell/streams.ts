/**
 * Byte streams between shell commands: pipes with backpressure (a Linux pipe holds 64 KiB),
 * a shared reader for a stdin that several commands read in turn, and output sinks.
 */
import type { InputSource, OutputSink } from '../types.js';

/** EPIPE: the reading end of a pipe is closed (the writer dies of SIGPIPE, status 141). */
export class BrokenPipeError extends Error {
  constructor() {
    super('Broken pipe');
    this.name = 'BrokenPipeError';
  }
}

export function toBuffer(data: string | Uint8Array): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

const PIPE_CAPACITY = 64 * 1024;

/** An in-memory pipe: `write` resolves once the data fits in the pipe's buffer. */
export class Pipe {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private writeClosed = false;
  private readClosed = false;
  private readWaiters: (() => void)[] = [];
  private writeWaiters: (() => void)[] = [];

  private readonly detachSignal: () => void;

  constructor(signal?: AbortSignal) {
    const close = (): void => {
      this.closeRead();
      this.closeWrite();
    };
    if (signal?.aborted === true) close();
    else signal?.addEventListener('abort', close, { once: true });
    this.detachSignal = () => signal?.removeEventListener('abort', close);
  }

  /** Stops listening to the abort signal (call once both ends are done). */
  dispose(): void {
    this.detachSignal();
  }

  readonly writer: OutputSink & { close(): void } = {
    write: async (data) => {
      if (this.readClosed) throw new BrokenPipeError();
      const buf = toBuffer(data);
      if (buf.length === 0) return;
      this.chunks.push(buf);
      this.buffered += buf.length;
      this.wake(this.readWaiters);
      while (this.buffered > PIPE_CAPACITY) {
        await new Promise<void>((resolve) => this.writeWaiters.push(resolve));
        if (this.readClosed) throw new BrokenPipeError();
      }
    },
    close: () => this.closeWrite(),
  };

  readonly reader: InputSource & { close(): void } = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          const chunk = this.chunks.shift();
          if (chunk !== undefined) {
            this.buffered -= chunk.length;
            this.wake(this.writeWaiters);
            return { done: false, value: chunk };
          }
          if (this.writeClosed || this.readClosed) return { done: true, value: undefined };
          await new Promise<void>((resolve) => this.readWaiters.push(resolve));
        }
      },
      return: (): Promise<IteratorResult<Uint8Array>> => Promise.resolve({ done: true, value: undefined }),
    }),
    close: () => this.closeRead(),
  };

  private closeWrite(): void {
    this.writeClosed = true;
    this.wake(this.readWaiters);
  }

  private closeRead(): void {
    this.readClosed = true;
    this.chunks.length = 0;
    this.buffered = 0;
    this.wake(this.writeWaiters);
    this.wake(this.readWaiters);
  }

  private wake(list: (() => void)[]): void {
    const waiters = list.splice(0);
    for (const w of waiters) w();
  }
}

/**
 * A stdin read by several commands in turn (`read a; read b`, `cat; cat`). Each command gets a
 * view; what one command does not consume stays for the next.
 */
export class InputReader {
  private readonly iterator: AsyncIterator<Uint8Array>;
  private readonly pushback: Buffer[] = [];
  private pending: Promise<IteratorResult<Uint8Array>> | undefined;
  private ended = false;

  constructor(source: InputSource) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  static empty(): InputReader {
    return new InputReader({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true as const, value: undefined }) }),
    });
  }

  /** The next chunk, or null at end of input. */
  async read(): Promise<Buffer | null> {
    const back = this.pushback.shift();
    if (back !== undefined) return back;
    if (this.ended) return null;
    this.pending ??= this.iterator.next();
    const result = await this.pending;
    this.pending = undefined;
    if (result.done === true) {
      this.ended = true;
      return null;
    }
    return toBuffer(result.value);
  }

  /** Releases the source (closes a file opened for `<`). */
  async close(): Promise<void> {
    this.ended = true;
    this.pushback.length = 0;
    if (this.pending === undefined) await this.iterator.return?.();
  }

  unshift(chunk: Buffer): void {
    if (chunk.length > 0) this.pushback.unshift(chunk);
  }

  /** Reads one line without its newline (the `read` builtin); null at end of input. */
  async readLine(): Promise<string | null> {
    const parts: Buffer[] = [];
    for (;;) {
      const chunk = await this.read();
      if (chunk === null) return parts.length === 0 ? null : Buffer.concat(parts).toString('utf8');
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        parts.push(chunk);
        continue;
      }
      parts.push(chunk.subarray(0, nl));
      this.unshift(chunk.subarray(nl + 1));
      return Buffer.concat(parts).toString('utf8');
    }
  }

  /** A view for one command. Chunks read after the command stopped listening are kept. */
  view(): InputSource {
    return {
      [Symbol.asyncIterator]: () => {
        let detached = false;
        return {
          next: async (): Promise<IteratorResult<Uint8Array>> => {
            if (detached) return { done: true, value: undefined };
            const chunk = await this.read();
            if (chunk === null) return { done: true, value: undefined };
            if (detached) {
              this.unshift(chunk);
              return { done: true, value: undefined };
            }
            return { done: false, value: chunk };
          },
          return: (): Promise<IteratorResult<Uint8Array>> => {
            detached = true;
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
  }
}

/** Collects everything written (command substitution, tests). */
export class CaptureSink implements OutputSink {
  private readonly chunks: Buffer[] = [];

  write(data: string | Uint8Array): Promise<void> {
    this.chunks.push(toBuffer(data));
    return Promise.resolve();
  }

  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.buffer().toString('utf8');
  }
}

export const discardSink: OutputSink = { write: () => Promise.resolve() };

/** Reads a whole input source. */
export async function readAll(source: InputSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(toBuffer(chunk));
  return Buffer.concat(chunks);
}

/** Splits an input source into lines (without `\n`); a last unterminated line is yielded too. */
export async function* readLines(source: InputSource): AsyncGenerator<string> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    rest = rest.length === 0 ? toBuffer(chunk) : Buffer.concat([rest, toBuffer(chunk)]);
    let nl: number;
    while ((nl = rest.indexOf(0x0a)) >= 0) {
      yield rest.subarray(0, nl).toString('utf8');
      rest = rest.subarray(nl + 1);
    }
  }
  if (rest.length > 0) yield rest.toString('utf8');
}
