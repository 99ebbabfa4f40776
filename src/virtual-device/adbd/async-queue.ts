/**
 * A bounded byte queue read as an AsyncIterable (a command's stdin fed from shell-v2 packets).
 * push() resolves once the queue is below its limit, so a command that does not read its stdin
 * holds back the host, as a full pipe would.
 */
export class ByteQueue implements AsyncIterable<Uint8Array> {
  private readonly items: Buffer[] = [];
  private size = 0;
  private ended = false;
  private readonly readers: ((value: IteratorResult<Uint8Array>) => void)[] = [];
  private readonly spaceWaiters: (() => void)[] = [];

  constructor(private readonly limit = 1024 * 1024) {}

  push(chunk: Buffer): Promise<void> {
    if (this.ended || chunk.length === 0) return Promise.resolve();
    const reader = this.readers.shift();
    if (reader !== undefined) {
      reader({ value: chunk, done: false });
      return Promise.resolve();
    }
    this.items.push(chunk);
    this.size += chunk.length;
    if (this.size < this.limit) return Promise.resolve();
    return new Promise((resolve) => this.spaceWaiters.push(resolve));
  }

  /** EOF: readers finish after the queued bytes. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const r of this.readers.splice(0)) r({ value: undefined, done: true });
    for (const w of this.spaceWaiters.splice(0)) w();
  }

  private next(): Promise<IteratorResult<Uint8Array>> {
    const item = this.items.shift();
    if (item !== undefined) {
      this.size -= item.length;
      if (this.size < this.limit) for (const w of this.spaceWaiters.splice(0)) w();
      return Promise.resolve({ value: item, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.readers.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () => this.next(),
      return: () => Promise.resolve({ value: undefined, done: true }),
    };
  }
}
