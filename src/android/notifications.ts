/**
 * Observing notifications (docs/design.md §4; the event-log and dump formats, with their AOSP
 * sources, in parsers/notification-events.ts and parsers/notification-records.ts).
 *
 * Posts: a streamed `logcat -b events -v epoch -T <device time>` for the whole scenario,
 * parsing `notification_enqueue` (2750) and `notification_canceled` (27530). Why `-T <time>`:
 * logcat passes it to logd as `start=` (yaap/system_logging android-14.0.0_r29
 * `logcat/logcat.cpp`: `-T TIME` "Print lines since specified time (not imply -d)", formats
 * include 'sssss.mmm...'), and logd turns that time into a position in the buffer once, when the
 * reader connects (ArrowOS/android_system_logging `logd/LogReader.cpp`: "Convert realtime to
 * sequence number"; older logd `LogReaderThread.cpp`: "We only ignore entries before the
 * original start time for the first flushTo()"). So the stream holds exactly the entries
 * written after the device time read just before it started — nothing older is re-read — and
 * from then on it follows the buffer in write order whatever the wall clock does, so moving
 * the clock back or forth later loses nothing. (`-T 1` would re-read the last old entry, or,
 * on an empty buffer, drop the first new one; no `-T` dumps the whole buffer first.)
 *
 * OS shedding: a second stream of the main and system buffers, `NotificationService:W *:S`,
 * parsed by nms-warnings.ts. Content: `dumpsys notification --noredact` or
 * `cmd notification list|get` (NotificationShellCmd: `get` prints one unredacted record or
 * `error: no active notification matching key: KEY` with exit 1).
 */
import { TimeoutError } from '../errors.js';
import type { AndroidDevice, StreamEnd, StreamHandle } from '../device/android-device.js';
import { readDeviceTimeMs } from './clock.js';
import { formatLogcatSince, parseLogLine } from './parsers/logcat.js';
import { NMS_LOG_TAG, parseNmsWarning, type NmsWarning } from './parsers/nms-warnings.js';
import {
  notificationKey,
  parseNotificationCanceled,
  parseNotificationEnqueue,
  type NotificationCanceled,
  type NotificationEnqueue,
} from './parsers/notification-events.js';
import { parseNotificationKeys, parseNotificationRecords, type NotificationRecordDump } from './parsers/notification-records.js';

export interface ObservedPost extends NotificationEnqueue {
  /** Device epoch ms of the log entry. */
  readonly timeMs: number;
  /** `user|pkg|id|tag|uid`, the key NMS files the notification under. */
  readonly key: string;
}

export interface ObservedCancel extends NotificationCanceled {
  readonly timeMs: number;
}

export type ObservedWarning = NmsWarning & { readonly timeMs: number };

export type NotificationObservation =
  | { readonly type: 'post'; readonly event: ObservedPost }
  | { readonly type: 'cancel'; readonly event: ObservedCancel }
  | { readonly type: 'warning'; readonly event: ObservedWarning };

export interface NotificationObserverOptions {
  /** Only this package's notifications (others are ignored). */
  readonly pkg?: string;
  /** Also watch NotificationService warnings (default true). */
  readonly watchWarnings?: boolean;
  /** Every observation, as it arrives. */
  readonly onObservation?: (observation: NotificationObservation) => void;
  /** Every raw NMS log line kept as evidence. */
  readonly onRawLine?: (line: string) => void;
}

export const NOTIFICATION_ENQUEUE_TAG = 'notification_enqueue';
export const NOTIFICATION_CANCELED_TAG = 'notification_canceled';

export class NotificationObserver {
  private readonly observations: NotificationObservation[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly streams: StreamHandle[] = [];
  private stopped = false;

  private constructor(
    /** Device time the streams start from. */
    readonly sinceMs: number,
    private readonly options: NotificationObserverOptions,
  ) {}

  /** Reads the device time and starts the stream(s) from it. */
  static async start(device: AndroidDevice, options: NotificationObserverOptions = {}): Promise<NotificationObserver> {
    const since = await readDeviceTimeMs(device);
    const observer = new NotificationObserver(since, options);
    const sinceArg = formatLogcatSince(since);
    observer.streams.push(
      await device.streamShell(['logcat', '-b', 'events', '-v', 'epoch', '-T', sinceArg], {
        onLine: (line) => observer.handleEventLine(line),
      }),
    );
    if (options.watchWarnings !== false) {
      observer.streams.push(
        await device.streamShell(['logcat', '-b', 'main,system', '-v', 'epoch', '-T', sinceArg, `${NMS_LOG_TAG}:W`, '*:S'], {
          onLine: (line) => observer.handleWarningLine(line),
        }),
      );
    }
    for (const stream of observer.streams) void stream.done.then(() => observer.wake());
    return observer;
  }

  /** Resolves when any stream ended (device gone, logcat exited, or stop()). */
  get ended(): Promise<StreamEnd> {
    return Promise.race(this.streams.map((s) => s.done));
  }

  all(): readonly NotificationObservation[] {
    return this.observations;
  }

  posts(): ObservedPost[] {
    return this.observations.flatMap((o) => (o.type === 'post' ? [o.event] : []));
  }

  cancels(): ObservedCancel[] {
    return this.observations.flatMap((o) => (o.type === 'cancel' ? [o.event] : []));
  }

  warnings(): ObservedWarning[] {
    return this.observations.flatMap((o) => (o.type === 'warning' ? [o.event] : []));
  }

  /**
   * Waits until `predicate` holds for an observation (past or future), or throws TimeoutError.
   * Event-driven: re-checked on every new observation.
   */
  async waitFor<T extends NotificationObservation>(
    predicate: (o: NotificationObservation) => o is T,
    timeoutMs: number,
    what = 'a notification event',
  ): Promise<T> {
    let checked = 0;
    const find = (): T | undefined => {
      for (; checked < this.observations.length; checked++) {
        const o = this.observations[checked];
        if (o !== undefined && predicate(o)) return o;
      }
      return undefined;
    };
    const found = find();
    if (found !== undefined) return found;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new TimeoutError(`No ${what} within ${timeoutMs} ms (${this.posts().length} posts seen since the observer started).`, timeoutMs));
      }, timeoutMs);
      const check = (): void => {
        const hit = find();
        if (hit !== undefined) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve(hit);
        } else if (this.stopped) {
          clearTimeout(timer);
          this.waiters.delete(check);
          reject(new TimeoutError(`The notification observer stopped before ${what} arrived.`, timeoutMs));
        }
      };
      this.waiters.add(check);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.streams.map((s) => s.stop()));
    this.wake();
  }

  /** Feeds one line of the events stream (exposed for tests over captured output). */
  handleEventLine(line: string): void {
    const parsed = parseLogLine(line);
    if (parsed === null || parsed.timeMs === null) return;
    if (parsed.tag === NOTIFICATION_ENQUEUE_TAG) {
      const event = parseNotificationEnqueue(parsed.message);
      if (event === null || !this.wanted(event.pkg)) return;
      this.options.onRawLine?.(line);
      this.record({ type: 'post', event: { ...event, timeMs: parsed.timeMs, key: notificationKey(event) } });
    } else if (parsed.tag === NOTIFICATION_CANCELED_TAG) {
      const event = parseNotificationCanceled(parsed.message);
      if (event === null || !this.wanted(event.pkg)) return;
      this.options.onRawLine?.(line);
      this.record({ type: 'cancel', event: { ...event, timeMs: parsed.timeMs } });
    }
  }

  /** Feeds one line of the NotificationService stream. */
  handleWarningLine(line: string): void {
    const parsed = parseLogLine(line);
    if (parsed === null || parsed.timeMs === null || parsed.tag !== NMS_LOG_TAG) return;
    const warning = parseNmsWarning(parsed.message);
    if (warning === null || !this.wanted(warning.pkg)) return;
    this.options.onRawLine?.(line);
    this.record({ type: 'warning', event: { ...warning, timeMs: parsed.timeMs } });
  }

  private wanted(pkg: string): boolean {
    return this.options.pkg === undefined || this.options.pkg === pkg;
  }

  private record(observation: NotificationObservation): void {
    this.observations.push(observation);
    this.options.onObservation?.(observation);
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** All NotificationRecords (`dumpsys notification --noredact`), optionally one package's. */
export async function readNotificationRecords(device: AndroidDevice, pkg?: string): Promise<NotificationRecordDump[]> {
  const records = parseNotificationRecords(await device.shellText(['dumpsys', 'notification', '--noredact']));
  return pkg === undefined ? records : records.filter((r) => r.pkg === pkg);
}

/** Keys of the active notifications (`cmd notification list`). */
export async function listNotificationKeys(device: AndroidDevice): Promise<string[]> {
  return parseNotificationKeys(await device.shellText(['cmd', 'notification', 'list']));
}

/** One active notification (`cmd notification get KEY`); null when there is none. */
export async function getNotificationRecord(device: AndroidDevice, key: string): Promise<NotificationRecordDump | null> {
  const result = await device.shell(['cmd', 'notification', 'get', key]);
  const text = result.stdout.toString('utf8');
  if (result.exitCode !== 0 || /^error: no active notification matching key/m.test(text)) return null;
  return parseNotificationRecords(text)[0] ?? null;
}

export { FeedItemIndex, javaStringHashCode, mapNotificationToItem, NotificationMatch } from './notification-mapping.js';
export type { FeedItemRef, ItemMapping, NotificationContent, PostedNotification } from './notification-mapping.js';
