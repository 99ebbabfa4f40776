/**
 * Reads exact byte counts from a stream of chunks. Sync and shell-v2 messages are a byte stream
 * over WRTE payloads: one WRTE may hold several messages or part of one (as Debian adb 29.0.6
 * sends them: stdin and closeStdin in one WRTE; a push's 3 DATA chunks and DONE in one WRTE).
 */
export interface ChunkSource {
  /** The next chunk, or null at the end. */
  read(): Promise<Buffer | null>;
}

/** The source ended in the middle of a message. */
export class TruncatedError extends Error {
  constructor(wanted: number, got: number) {
    super(`stream ended after ${got} of ${wanted} bytes`);
    this.name = 'TruncatedError';
  }
}

export class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;

  constructor(private readonly source: ChunkSource) {}

  /** Exactly n bytes; null if the source ended before the first byte; throws if it ended midway. */
  async readExactOrEnd(n: number): Promise<Buffer | null> {
    while (this.buffered < n && !this.ended) {
      const chunk = await this.source.read();
      if (chunk === null) this.ended = true;
      else if (chunk.length > 0) {
        this.chunks.push(chunk);
        this.buffered += chunk.length;
      }
    }
    if (this.buffered < n) {
      if (this.buffered === 0) return null;
      throw new TruncatedError(n, this.buffered);
    }
    return this.take(n);
  }

  /** Exactly n bytes; throws TruncatedError at the end. */
  async readExact(n: number): Promise<Buffer> {
    const b = await this.readExactOrEnd(n);
    if (b === null) throw new TruncatedError(n, 0);
    return b;
  }

  /** Whatever is available (up to max bytes), or null at the end. */
  async readSome(max: number): Promise<Buffer | null> {
    if (this.buffered === 0) {
      if (this.ended) return null;
      const chunk = await this.source.read();
      if (chunk === null) {
        this.ended = true;
        return null;
      }
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    return this.take(Math.min(max, this.buffered, this.chunks[0]!.length));
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0]!;
    this.buffered -= n;
    if (first.length === n) {
      this.chunks.shift();
      return first;
    }
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const need = n - filled;
      if (c.length <= need) {
        c.copy(out, filled);
        filled += c.length;
        this.chunks.shift();
      } else {
        c.copy(out, filled, 0, need);
        this.chunks[0] = c.subarray(need);
        filled += need;
      }
    }
    return out;
  }
}
