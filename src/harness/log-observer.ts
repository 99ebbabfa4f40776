/**
 * One logcat stream for the whole session (docs/design.md §4): the events buffer for every
 * `notification_enqueue`, the main buffer for WorkManager's result lines and the system buffer
 * for NotificationManagerService's warnings. Lines are kept in arrival order with a sequence
 * number, so a forced run takes exactly the lines between its start and its end, whatever the
 * wall clock did in between (the clock moves; the stream is never filtered by time).
 */
import { randomUUID } from 'node:crypto';
import type { AndroidDevice, StreamHandle } from '../device/android-device.js';
import { TimeoutError } from '../errors.js';
import { parseLogLine, type LogLine } from '../android/parsers/logcat.js';
import { systemClock, type HostClock } from '../host-clock.js';
import { runReads, textRead, type ShellRead } from '../android/shell-reads.js';

export interface ObservedLine extends LogLine {
  readonly seq: number;
  readonly raw: string;
}

/** The tag of the marker lines written with `log` to sync the stream. */
export const MARKER_TAG = 'dedup-verify';

/** The words that log a sync marker: `log -p i -t dedup-verify "sync NONCE"`. */
export function syncMarkerCommand(nonce: string): string[] {
  return ['log', '-p', 'i', '-t', MARKER_TAG, `sync ${nonce}`];
}

export class LogObserver {
  private readonly lines: ObservedLine[] = [];
  private readonly waiters = new Set<() => void>();
  private handle: StreamHandle | undefined;
  private ended = false;

  private constructor(
    private readonly device: AndroidDevice,
    private readonly clock: HostClock,
  ) {}

  /**
   * Starts `logcat -v epoch -b main -b system -b events -T 1`, writes a start marker and keeps
   * only what comes after it. Not `-T <time>`: after an earlier run moved the clock forward and
   * back, old entries carry future timestamps and logd would replay them all.
   */
  static async start(device: AndroidDevice, timeoutMs: number, clock: HostClock = systemClock): Promise<LogObserver> {
    const observer = await LogObserver.open(device, clock);
    const marker = observer.marker();
    await runReads(device, [marker.read]);
    await observer.startAt(marker, timeoutMs);
    return observer;
  }

  /**
   * The stream started, its start marker not written yet: the caller sends `marker().read` with
   * other commands (one invocation less), then `startAt` that marker. Until then the observer
   * holds whatever the stream replayed.
   */
  static async open(device: AndroidDevice, clock: HostClock = systemClock): Promise<LogObserver> {
    const observer = new LogObserver(device, clock);
    const command = ['logcat', '-v', 'epoch', '-b', 'main', '-b', 'system', '-b', 'events', '-T', '1'];
    observer.handle = await device.streamShell(command, { onLine: (line) => observer.accept(line) });
    void observer.handle.done.then(() => {
      observer.ended = true;
      observer.wake();
    });
    return observer;
  }

  /** Waits until `marker` (written on the device after open) came back, and keeps only the lines after it. */
  async startAt(marker: { arrived(timeoutMs: number): Promise<void> }, timeoutMs: number): Promise<void> {
    await marker.arrived(timeoutMs);
    this.lines.length = 0;
  }

  /** Sequence number of the next line: lines from here on are "after now". */
  get position(): number {
    return this.lines.length;
  }

  /** Lines from `from` (a position) up to now. */
  since(from: number): readonly ObservedLine[] {
    return this.lines.slice(from);
  }

  /** Waits until a line from `from` on satisfies `predicate`; returns it. */
  async waitFor(from: number, predicate: (line: ObservedLine) => boolean, timeoutMs: number, what: string): Promise<ObservedLine> {
    const started = this.clock.monotonic();
    return new Promise<ObservedLine>((resolve, reject) => {
      let scanned = from;
      const check = (): boolean => {
        for (; scanned < this.lines.length; scanned++) {
          const line = this.lines[scanned];
          if (line && predicate(line)) {
            done();
            resolve(line);
            return true;
          }
        }
        if (this.ended) {
          done();
          reject(new TimeoutError(`the logcat stream of ${this.device.serial} ended while waiting for ${what}`, this.clock.monotonic() - started));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new TimeoutError(`no ${what} in logcat of ${this.device.serial} within ${timeoutMs} ms`, timeoutMs));
      }, timeoutMs);
      const waiter = (): void => {
        check();
      };
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      if (!check()) this.waiters.add(waiter);
    });
  }

  /**
   * Writes a marker line on the device and waits until it comes back through the stream:
   * every line logged before it has then been seen.
   */
  async sync(timeoutMs: number): Promise<void> {
    const marker = this.marker();
    await runReads(this.device, [marker.read]);
    await marker.arrived(timeoutMs);
  }

  /**
   * The sync marker as a read that goes out with others in one shell invocation (sync without a
   * round trip of its own): once the invocation has run, `arrived` waits until the marker has
   * come back through the stream.
   */
  marker(): { readonly read: ShellRead<string>; arrived(timeoutMs: number): Promise<void> } {
    const nonce = randomUUID();
    const from = this.position;
    return {
      read: textRead(syncMarkerCommand(nonce)),
      arrived: async (timeoutMs) => void (await this.waitFor(from, (l) => l.tag === MARKER_TAG && l.message.endsWith(nonce), timeoutMs, `the sync marker ${nonce}`)),
    };
  }

  async stop(): Promise<void> {
    await this.handle?.stop();
  }

  private accept(raw: string): void {
    const parsed = readStreamLine(raw);
    if (parsed === null) return;
    this.lines.push({ ...parsed, seq: this.lines.length, raw });
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/**
 * A line in a layout parseLogLine does not know that names notification_enqueue is kept, with an
 * empty message the enqueue parser refuses, so it becomes an `unparsed` history event (the item
 * undecided) instead of vanishing (the item reported lost). Other unknown lines are dividers and
 * noise and are dropped.
 */
export function readStreamLine(raw: string): LogLine | null {
  const parsed = parseLogLine(raw);
  if (parsed !== null || !raw.includes('notification_enqueue')) return parsed;
  return { timeMs: null, timeText: '', pid: -1, tid: -1, priority: 'I', tag: 'notification_enqueue', message: '' };
}
