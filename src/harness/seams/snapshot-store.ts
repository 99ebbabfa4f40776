/**
 * What every DedupStore (dedup-store.ts) does the same way: the app's record is read as one
 * snapshot (a ShellRead, sent on its own or in one shell invocation with other reads), and what
 * a run "stored" is what the snapshot after it records that the one before did not. The
 * snapshot read with the app's start before the scenario (readWithStart) serves as the first
 * one while nothing can have changed it. Each store says what its snapshot is and what it
 * records.
 */
import type { ShellRead } from '../../android/shell-reads.js';
import type { DeviceSteps } from '../device-steps.js';

export abstract class SnapshotStore<R> {
  /** The last snapshot taken in, or undefined before the store is primed. */
  private last: R | undefined;
  /** A snapshot read with the app's start, before the scenario primed the store. */
  private withStart: { read: R; changes: number; journal: number } | undefined;
  /**
   * What had happened (commands that change the device, the app's requests) when the last
   * snapshot was read, as far as the store knows: the start's when it came with the start, else
   * when it was taken in. Undefined for a snapshot the store made itself (cleared, an edit's).
   */
  protected lastReadAt: { readonly changes: number; readonly journal: number } | undefined;

  constructor(protected readonly steps: DeviceSteps) {}

  get unprimed(): boolean {
    return this.last === undefined;
  }

  /** The store's snapshot as one read, to go out with other reads. */
  abstract keysRead(): ShellRead<R>;

  /** The items `now` records that `before` did not (before undefined: nothing was recorded). */
  protected abstract recordedSince(before: R | undefined, now: R): string[];

  /** Called with every snapshot the store takes in (a store may keep more of it than the items). */
  protected tookIn(_read: R): void {}

  /** The last snapshot taken in. */
  protected get lastSnapshot(): R | undefined {
    return this.last;
  }

  /** Takes `read` in as what is recorded now; `at`: when it was read (see lastReadAt). */
  protected adopt(read: R | undefined, at?: { readonly changes: number; readonly journal: number }): void {
    this.last = read;
    this.lastReadAt = at;
    if (read !== undefined) this.tookIn(read);
  }

  readWithStart(read: R, at: { changes: number; journal: number }): void {
    this.withStart = { read, ...at };
  }

  protected async readNow(): Promise<R> {
    const [read] = await this.steps.read([this.keysRead()]);
    return read;
  }

  /** What is recorded before the scenario is not "stored" by a run; the read with the app's start serves while nothing can have changed it. */
  async primeStored(): Promise<void> {
    const start = this.withStart;
    this.withStart = undefined;
    if (start !== undefined && this.steps.stillHolds(start)) this.adopt(start.read, start);
    else this.adopt(await this.readNow(), this.steps.mark());
  }

  async newStored(readWith?: <T>(read: ShellRead<T>) => Promise<T>): Promise<string[]> {
    const now = readWith === undefined ? await this.readNow() : await readWith(this.keysRead());
    const fresh = this.recordedSince(this.last, now);
    this.adopt(now, this.steps.mark());
    return fresh;
  }
}
