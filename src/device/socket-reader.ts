/**
 * Reads exact byte counts from a socket that carries a binary protocol (sync, reverse replies).
 * Data that arrived before the reader was attached (left in the socket's buffer by adbkit's
 * parser) is delivered first, because attaching a 'data' listener drains the buffer.
 */
import type { Duplex } from 'node:stream';

export class StreamEndedError extends Error {
  constructor(readonly missingBytes: number) {
    super(`stream ended ${missingBytes} bytes short`);
    this.name = 'StreamEndedError';
  }
}

export class SocketReader {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly socket: Duplex) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.notify();
    });
    socket.on('end', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('close', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('error', (e: Error) => {
      this.failure = e;
      this.notify();
    });
    socket.resume();
  }

  /** Exactly `n` bytes; rejects when the stream ends or fails first. */
  async read(n: number): Promise<Buffer> {
    while (this.buffered < n) {
      if (this.failure) throw this.failure;
      if (this.ended) throw new StreamEndedError(n - this.buffered);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    return this.take(n);
  }

  /** Everything until the stream ends. */
  async readAll(): Promise<Buffer> {
    while (!this.ended) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    if (this.failure) throw this.failure;
    return this.take(this.buffered);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks.length = 0;
    const head = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    if (rest.length > 0) this.chunks.push(rest);
    this.buffered = rest.length;
    return head;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
