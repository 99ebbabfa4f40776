/**
 * `mobile: getNotifications` (the io.appium.settings helper's NLService buffer) as a second
 * notification observer, cross-checked against the event log the harness records.
 *
 * Facts (appium/io.appium.settings NLService.java, StoredNotification.toJson): the buffer holds
 * at most 100 entries, newest first; every post, an update too, is a new entry; when full the
 * oldest entry marked removed is evicted, else the oldest; a removal only marks the newest entry
 * with that id. The buffer is lost when the helper
 * process dies. NLService fills it from NotificationListenerService.onNotificationPosted, which
 * NotificationManagerService calls for every post and every update it goes on to show
 * (frameworks/base core/java/android/service/notification/NotificationListenerService.java;
 * NotificationManagerService.PostNotificationRunnable → mListeners.notifyPostedLocked, API 26+),
 * and not for one it drops before posting (no channel, rate limit). So the buffer sees exactly the posts the event log records as
 * `notification_enqueue` (status post or update) that NotificationManager went on to post, as
 * long as nothing was evicted.
 */
import { parseLogLine } from './parsers/logcat.js';
import { isSystemSummaryTag, parseNotificationEnqueue } from './parsers/notification-events.js';
import type { HistoryEvent } from '../history/events.js';

/** NLService.MAX_BUFFER_SIZE. */
export const NOTIFICATION_BUFFER_CAPACITY = 100;

/** One entry of `{"statusBarNotifications":[…]}` (StoredNotification.toJson). */
export interface BufferedNotification {
  readonly packageName: string;
  readonly id: number;
  readonly tag: string | null;
  readonly postTime: number;
  readonly isRemoved: boolean;
  readonly key: string;
  readonly title: string | null;
  readonly text: string | null;
}

/** Reads the value `mobile: getNotifications` returns; throws on a shape it does not know. */
export function parseNotificationBuffer(value: unknown): BufferedNotification[] {
  const list = (value as { statusBarNotifications?: unknown } | null)?.statusBarNotifications;
  if (!Array.isArray(list)) throw new Error(`mobile: getNotifications returned no statusBarNotifications array: ${JSON.stringify(value).slice(0, 200)}`);
  return list.map((raw: unknown) => {
    const e = raw as Record<string, unknown>;
    const n = (e['notification'] ?? {}) as Record<string, unknown>;
    const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    return {
      packageName: str(e['packageName']) ?? '',
      id: Number(e['id']),
      tag: str(e['tag']),
      postTime: Number(e['postTime']),
      isRemoved: e['isRemoved'] === true,
      key: str(e['key']) ?? '',
      title: str(n['title']),
      text: str(n['text']),
    };
  });
}

/** Identity of a buffer entry across two reads (isRemoved may change in between). */
function identity(e: BufferedNotification): string {
  return `${e.key}\u0000${e.postTime}\u0000${e.title ?? ''}\u0000${e.text ?? ''}`;
}

/** Entries of `after` that were not in `before` (as a multiset), newest first. */
export function newBufferEntries(before: readonly BufferedNotification[], after: readonly BufferedNotification[]): BufferedNotification[] {
  const seen = new Map<string, number>();
  for (const e of before) seen.set(identity(e), (seen.get(identity(e)) ?? 0) + 1);
  const fresh: BufferedNotification[] = [];
  for (const e of after) {
    const n = seen.get(identity(e)) ?? 0;
    if (n > 0) seen.set(identity(e), n - 1);
    else fresh.push(e);
  }
  return fresh;
}

export interface PostRef {
  readonly id: number;
  readonly tag: string | null;
  /** Device time of the post (event log line time, or the buffer's postTime). */
  readonly t: number;
}

export interface NotificationCrossCheck {
  /** Posts and updates of the package in the event log during the scenario. */
  readonly eventLogPosts: number;
  /** New buffer entries of the package during the scenario. */
  readonly bufferEntries: number;
  readonly missingFromBuffer: readonly PostRef[];
  readonly extraInBuffer: readonly PostRef[];
  /** Entries were evicted from the full buffer during the scenario: the buffer may miss posts. */
  readonly overflowed: boolean;
  /** Both observers saw the same posts, or every difference is explained by the overflow. */
  readonly agree: boolean;
  readonly summary: string;
}

/** The posts (`notified` post or update) of `pkg` in a scenario's history, from their event-log lines. */
export function eventLogPosts(events: readonly HistoryEvent[], pkg: string): PostRef[] {
  const posts: PostRef[] = [];
  for (const e of events) {
    if (e.type !== 'notified') continue;
    const raw = e.evidence?.[0];
    const line = raw === undefined ? null : parseLogLine(raw);
    const enqueue = line === null ? null : parseNotificationEnqueue(line.message);
    if (enqueue === null || enqueue.pkg !== pkg) continue;
    posts.push({ id: enqueue.id, tag: enqueue.tag, t: e.t });
  }
  return posts;
}

/**
 * Compares the event log's posts of `pkg` with the buffer entries that appeared between the
 * `before` and `after` reads.
 */
export function crossCheckNotifications(
  posts: readonly PostRef[],
  before: readonly BufferedNotification[],
  after: readonly BufferedNotification[],
  pkg: string,
): NotificationCrossCheck {
  // Android's own summaries in the app's name reach the listener too; the history keeps them
  // apart as system-summary events, so they are left out on both sides.
  const fresh = newBufferEntries(before, after).filter((e) => e.packageName === pkg && !isSystemSummaryTag(e.tag));
  const afterIds = new Set(after.map(identity));
  const evicted = before.filter((e) => !afterIds.has(identity(e))).length;
  const overflowed = after.length >= NOTIFICATION_BUFFER_CAPACITY && evicted > 0;
  const pool = new Map<string, PostRef[]>();
  for (const e of fresh) {
    const k = `${e.id}\u0000${e.tag ?? ''}`;
    pool.set(k, [...(pool.get(k) ?? []), { id: e.id, tag: e.tag, t: e.postTime }]);
  }
  const missing: PostRef[] = [];
  for (const p of posts) {
    const k = `${p.id}\u0000${p.tag ?? ''}`;
    const left = pool.get(k);
    if (left !== undefined && left.length > 0) left.shift();
    else missing.push(p);
  }
  const extra = [...pool.values()].flat();
  const agree = extra.length === 0 && (missing.length === 0 || overflowed);
  const parts = [`event log: ${posts.length} post(s) of ${pkg}; notification buffer: ${fresh.length} new entr${fresh.length === 1 ? 'y' : 'ies'}`];
  if (overflowed) parts.push(`the helper's buffer (capacity ${NOTIFICATION_BUFFER_CAPACITY}) overflowed: ${evicted} older entr${evicted === 1 ? 'y was' : 'ies were'} evicted, so it may miss posts`);
  if (missing.length > 0) parts.push(`not in the buffer: ${missing.map((p) => `id=${p.id}${p.tag === null ? '' : ` tag=${p.tag}`}`).join(', ')}`);
  if (extra.length > 0) parts.push(`in the buffer but not in the event log: ${extra.map((p) => `id=${p.id}${p.tag === null ? '' : ` tag=${p.tag}`}`).join(', ')}`);
  return { eventLogPosts: posts.length, bufferEntries: fresh.length, missingFromBuffer: missing, extraInBuffer: extra, overflowed, agree, summary: parts.join('; ') };
}
