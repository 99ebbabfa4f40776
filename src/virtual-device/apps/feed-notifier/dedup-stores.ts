/**
 * How the feed notifier remembers what it notified, one implementation per app profile
 * (app-profiles.ts), named after the mechanism:
 *
 * - KeyTableStore (reference and the profiles that keep its database): a row per notified item
 *   in `notifications`, keyed on the link (docs/sources/003: INSERT OR IGNORE on a unique,
 *   nullable key); the notification id is String.hashCode() of the key.
 * - NotifiedFlagStore (`row-id`): Feeder's shape. Every item of the response is a row of
 *   `feed_items` as soon as the feed is synced, with `notified = 0`; the notification id is the
 *   row's id and the flag is set after the post (spacecowboy/Feeder @091ca126
 *   app/src/main/java/com/nononsenseapps/feeder/model/RssNotifications.kt:78-83 `it.id.toInt() to
 *   singleNotification(…)` then `nm.notify(id, notification)`; db/room/FeedItemDao.kt:322 selects
 *   `notified IS 0`, :388 `UPDATE feed_items SET notified = :notified WHERE id IN (:ids)`).
 * - WatermarkStore (`watermark`): no table; the publication time of the newest item notified, in
 *   SharedPreferences. An item at or before the mark read when the run began counts as notified.
 *   It is the shape of Tusky's notification marker (tuskyapp/Tusky @43ae0bb4
 *   app/src/main/java/com/keylesspalace/tusky/components/systemnotifications/
 *   NotificationFetcher.kt:96-150: fetch from the marker, then save the newest id as the new
 *   marker), kept in SharedPreferences as a publication time instead of a server id. The mark
 *   is there from the first start, at 0 (nothing notified), as Tusky's account row carries its
 *   marker from the account's creation (db/entity/AccountEntity.kt:88 `lastNotificationId:
 *   String = "0"`).
 *
 * Bugs that change what is remembered (`key-on-title`, `no-unique-index`) act through the key
 * the worker passes and the schema FeedDatabase builds; under WatermarkStore neither applies (it
 * keeps no key and no table).
 */
import { javaStringHashCode } from '../../system/java-lang.js';
import type { FeedDatabase } from './feed-database.js';
import type { FeedItem } from './feed-parser.js';
import type { SharedPreferences } from './shared-prefs.js';

/** One item the loop handles, with the dedup key the worker chose for it. */
export interface KeyedItem {
  readonly item: FeedItem;
  readonly key: string;
}

export interface DedupStore {
  /** Before the loop, with the response's items in loop order (the feed sync of Feeder's shape). */
  begin(items: readonly KeyedItem[]): void;
  /** True when the item counts as notified already. */
  seen(entry: KeyedItem): boolean;
  /** The notification id the app posts the item with. */
  notificationId(entry: KeyedItem): number;
  /** Records one notified item. */
  record(entry: KeyedItem, now: number): void;
  /** Records a run's items together (bug `record-after-loop`), in one transaction where there is one. */
  recordAll(entries: readonly KeyedItem[], now: number): void;
}

export class KeyTableStore implements DedupStore {
  constructor(private readonly db: () => FeedDatabase) {}

  begin(): void {}

  seen(entry: KeyedItem): boolean {
    return this.db().exists(entry.key);
  }

  notificationId(entry: KeyedItem): number {
    return javaStringHashCode(entry.key);
  }

  record(entry: KeyedItem, now: number): void {
    this.db().insertNotification({ link: entry.key, title: entry.item.title, publishedAt: entry.item.publishedAt, notifiedAt: now });
  }

  recordAll(entries: readonly KeyedItem[], now: number): void {
    this.db().insertNotifications(entries.map(({ item, key }) => ({ link: key, title: item.title, publishedAt: item.publishedAt, notifiedAt: now })));
  }
}

export class NotifiedFlagStore implements DedupStore {
  private readonly ids = new Map<string, number>();

  constructor(private readonly db: () => FeedDatabase) {}

  begin(items: readonly KeyedItem[]): void {
    for (const { item, key } of items) this.ids.set(key, this.db().upsertFeedItem({ guid: key, title: item.title, link: item.link, publishedAt: item.publishedAt }).id);
  }

  seen(entry: KeyedItem): boolean {
    return this.db().feedItem(entry.key)?.notified === 1;
  }

  notificationId(entry: KeyedItem): number {
    const id = this.ids.get(entry.key) ?? this.db().feedItem(entry.key)?.id;
    if (id === undefined) throw new Error(`feed_items has no row for ${entry.key}`);
    return id;
  }

  record(entry: KeyedItem): void {
    this.db().markAsNotified([this.notificationId(entry)]);
  }

  recordAll(entries: readonly KeyedItem[]): void {
    this.db().markAsNotified(entries.map((e) => this.notificationId(e)));
  }
}

/** The watermark profile's SharedPreferences file and key. */
export const WATERMARK_PREFS = 'notifier_state';
export const WATERMARK_KEY = 'last_notified_published_at';

export class WatermarkStore implements DedupStore {
  private mark = 0;

  constructor(private readonly prefs: () => SharedPreferences) {}

  /** Application.onCreate: the mark at 0 when there is none yet. */
  initialize(): void {
    const prefs = this.prefs();
    if (prefs.getLong(WATERMARK_KEY, -1) === -1) prefs.putLong(WATERMARK_KEY, 0);
  }

  begin(): void {
    this.mark = this.prefs().getLong(WATERMARK_KEY, 0);
  }

  seen(entry: KeyedItem): boolean {
    return entry.item.publishedAt <= this.mark;
  }

  notificationId(entry: KeyedItem): number {
    return javaStringHashCode(entry.key);
  }

  record(entry: KeyedItem): void {
    this.raiseTo(entry.item.publishedAt);
  }

  recordAll(entries: readonly KeyedItem[]): void {
    this.raiseTo(Math.max(0, ...entries.map((e) => e.item.publishedAt)));
  }

  private raiseTo(publishedAt: number): void {
    const prefs = this.prefs();
    prefs.putLong(WATERMARK_KEY, Math.max(prefs.getLong(WATERMARK_KEY, 0), publishedAt));
  }
}
