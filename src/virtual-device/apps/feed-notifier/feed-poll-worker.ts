/**
 * FeedPollWorker, the reference app's periodic worker: the loop of docs/reference-app.md
 * ("The loop (per run)") as docs/sources/000_83062cdfb17c0f84.txt describes it (48 h window,
 * oldest-first, notify-then-record keyed on the link, notification id = String.hashCode() of the
 * key, date parse failure -> 0, retry the whole fetch, channel created at the post site), with
 * the HTTP classification and persisted Idempotency-Key of docs/sources/001_3eaf84dd3362095c.txt, and
 * one place per bug switch.
 */
import { randomUUID } from 'node:crypto';
import { javaStringHashCode } from '../../system/java-lang.js';
import { isProcessDeath } from '../../system/app-process.js';
import { Importance, NotificationFlag, type AppContext, type NotificationSpec } from '../../system/app-framework.js';
import { LogPriority } from '../../types.js';
import { Result, type ListenableWorker, type WorkerResult } from '../work-manager/worker.js';
import type { AppProfile } from './app-profiles.js';
import type { Bugs } from './bugs.js';
import type { DedupStore, KeyedItem } from './dedup-stores.js';
import type { FeedDatabase } from './feed-database.js';
import { parseFeed, type FeedItem } from './feed-parser.js';
import { HttpConnectionError, httpRequest } from './http-client.js';
import type { SharedPreferences } from './shared-prefs.js';

export const FEED_POLL_WORKER = 'com.example.feednotifier.FeedPollWorker';
const TAG = 'FeedPollWorker';
export const FEED_PORT = 8765;
export const FEED_PATH = '/feed.xml';
export const RECEIPTS_PATH = '/receipts';
export const CHANNEL_ID = 'feed_items';
export const CHANNEL_NAME = 'Feed items';
/** WINDOW_MS = 48L * 60L * 60L * 1000L; bug `window-equals-interval`: 24 h. */
export const WINDOW_MS = 48 * 60 * 60 * 1000;
export const INTERVAL_MS = 24 * 60 * 60 * 1000;
/** R.drawable.ic_notification of the app. */
export const SMALL_ICON_RES_ID = 0x7f080078;
/** In-process key set of bug `memory-only-dedup` (lost with the process). */
const MEMORY_KEYS = 'memory-only-dedup.keys';
export const HIGH_WATER_KEY = 'last_seen_published_at';
export const DEFAULT_FEED_URL = `http://127.0.0.1:${FEED_PORT}${FEED_PATH}`;
/** Profile `grouped`: the items' group, the summary's id, the sync progress post and its channel. */
export const ITEMS_GROUP = 'feed_items_group';
export const GROUP_SUMMARY_ID = 1;
export const SYNC_NOTIFICATION_ID = 2;
export const SYNC_CHANNEL_ID = 'feed_sync';
export const SYNC_CHANNEL_NAME = 'Feed sync';

/** What a worker run needs from its process. */
export interface FeedRuntime {
  readonly context: AppContext;
  readonly bugs: Bugs;
  /** The app profile the process runs (app-profiles.ts). */
  readonly profile: AppProfile;
  database(): FeedDatabase;
  prefs(): SharedPreferences;
  /** How the app remembers what it notified (dedup-stores.ts), per profile. */
  dedupStore(): DedupStore;
  /** Where bug `dedup-elsewhere` keeps its high-water mark (not the store the config names). */
  elsewherePrefs(): SharedPreferences;
  /** NotificationManager.createNotificationChannel(feed_items, "Feed items", DEFAULT). */
  createChannel(): void;
}

export class FeedPollWorker implements ListenableWorker {
  private readonly rt: FeedRuntime;

  constructor(runtime: FeedRuntime) {
    this.rt = runtime;
  }

  private log(message: string): void {
    this.rt.context.log.println(LogPriority.I, TAG, message);
  }

  async startWork(): Promise<WorkerResult> {
    if (this.rt.profile !== 'grouped') return this.sync();
    await this.showSyncProgress();
    try {
      return await this.sync();
    } finally {
      // SyncWorker cancels the progress post on success and in its catch block; a dead process
      // cancels nothing (the post stays, as after a kill on a device).
      if (this.rt.context.process.alive) this.rt.context.notificationManager.cancel(null, SYNC_NOTIFICATION_ID);
    }
  }

  /** The feeds to fetch: the compiled-in one, or the rows of `feeds` (profile `subscription`). */
  private feedUrls(): string[] {
    return this.rt.profile === 'subscription' ? this.rt.database().feedUrls() : [DEFAULT_FEED_URL];
  }

  private async sync(): Promise<WorkerResult> {
    const urls = this.feedUrls();
    // With no subscription there is nothing to fetch, and the run ends at once (Feeder's
    // RssLocalSync.syncFeeds over an empty feed list).
    if (urls.length === 0) {
      this.log('No feeds to sync');
      return Result.success();
    }
    let notified = 0;
    for (const url of urls) {
      const fetched = await this.fetchFeed(url);
      if (fetched.type !== 'items') return fetched.result;
      notified += await this.notifyNew(fetched.items, fetched.status);
    }

    // Afterwards: re-send every still-pending receipt with its stored key.
    const db = this.rt.database();
    for (const pending of db.undeliveredReceipts()) {
      await this.postReceipt(pending.operation_id, pending.link, db.titleFor(pending.link) ?? pending.link);
    }
    const undelivered = db.undeliveredReceipts().length;
    this.log(`Run finished: ${notified} notified, ${undelivered} receipt(s) pending`);
    return undelivered > 0 ? Result.retry() : Result.success();
  }

  /** GET the feed and classify the answer; the parsed items of a 2xx. */
  private async fetchFeed(url: string): Promise<{ type: 'items'; items: FeedItem[]; status: number } | { type: 'done'; result: WorkerResult }> {
    const { context, bugs } = this.rt;
    let status: number;
    let body: string;
    try {
      const target = deviceUrl(url);
      const res = await httpRequest(context, { method: 'GET', port: target.port, path: target.path, headers: { Accept: 'application/rss+xml, application/atom+xml, application/xml' } });
      status = res.status;
      body = res.body;
    } catch (e) {
      if (isProcessDeath(e) || !(e instanceof HttpConnectionError)) throw e;
      // Log.w(TAG, "Fetch of $url failed; retrying later: $e"): the exception's toString() (what
      // OkHttp threw, see http-client.ts), one line, as a real app's catch block logs it.
      this.rt.context.log.println(LogPriority.W, TAG, `Fetch of ${url} failed; retrying later: ${e.message}`);
      return { type: 'done', result: Result.retry() };
    }
    // docs/sources/001: 2xx process, 401 failure (reauth_required), 408/429/5xx retry, else failure.
    if (status === 401) {
      this.log('Feed answered HTTP 401');
      return { type: 'done', result: bugs.has('retry-on-401') ? Result.retry() : Result.failure({ reason: 'reauth_required' }) };
    }
    if (status === 408 || status === 429 || (status >= 500 && status <= 599)) {
      this.log(`Feed answered HTTP ${status}; retrying later`);
      return { type: 'done', result: Result.retry() };
    }
    if (status < 200 || status > 299) {
      this.log(`Feed answered HTTP ${status}`);
      return { type: 'done', result: Result.failure({ reason: `permanent_http_${status}` }) };
    }
    const items = parseFeed(body, {
      keepEmptyLinks: bugs.has('empty-link-kept'),
      unparseableDate: bugs.has('date-defaults-to-now') ? () => context.currentTimeMillis() : () => 0,
    });
    return { type: 'items', items, status };
  }

  /** The loop of one response: window, dedup, notify-then-record; how many it notified. */
  private async notifyNew(items: readonly FeedItem[], status: number): Promise<number> {
    const { context, bugs } = this.rt;
    const proc = context.process;
    const now = context.currentTimeMillis();
    const window = bugs.has('window-equals-interval') ? INTERVAL_MS : WINDOW_MS;
    // Kotlin's sortedBy is stable; newest-first (bug) sorts descending.
    const ordered = [...items].sort((a, b) => (bugs.has('newest-first') ? b.publishedAt - a.publishedAt : a.publishedAt - b.publishedAt));
    this.log(`Fetched ${items.length} items (HTTP ${status})`);

    const store = this.rt.dedupStore();
    const keyed = ordered.map((item) => ({ item, key: bugs.has('key-on-title') ? item.title : item.link }));
    store.begin(keyed);
    const memory = this.memoryKeys();
    const elsewhere = this.rt.elsewherePrefs();
    const highWater = bugs.has('dedup-elsewhere') ? elsewhere.getLong(HIGH_WATER_KEY, 0) : 0;
    let notified = 0;
    /** Bug `record-after-loop`: the items notified by this run, recorded only after the loop. */
    const unrecorded: KeyedItem[] = [];
    for (const entry of keyed) {
      const { item, key } = entry;
      const withinWindow = bugs.has('no-window') ? item.publishedAt > 0 : item.publishedAt > 0 && now - item.publishedAt <= window;
      if (!withinWindow) continue;
      if (bugs.has('dedup-elsewhere') && item.publishedAt <= highWater) continue;
      if (!bugs.has('no-db-check')) {
        const seen = bugs.has('memory-only-dedup') ? memory.has(key) : store.seen(entry);
        if (seen) continue;
      }
      if (bugs.has('record-before-notify')) {
        await this.record(entry, now);
        await this.sendReceipt(item, key, now);
        await this.notify(entry, notified === 0);
      } else if (bugs.has('record-after-loop')) {
        await this.notify(entry, notified === 0);
        await this.sendReceipt(item, key, now);
        unrecorded.push(entry);
      } else {
        await this.notify(entry, notified === 0);
        await this.sendReceipt(item, key, now);
        await this.record(entry, now);
      }
      notified++;
      if (bugs.has('dedup-elsewhere')) elsewhere.putLong(HIGH_WATER_KEY, Math.max(elsewhere.getLong(HIGH_WATER_KEY, 0), item.publishedAt));
      await proc.checkpoint();
    }
    if (unrecorded.length > 0) await this.recordAll(unrecorded, now);
    return notified;
  }

  /**
   * Readrops' sync progress post (readrops/Readrops @6232bbbd app/src/main/java/com/readrops/app/
   * sync/SyncWorker.kt:64-69: Builder(SYNC_CHANNEL_ID).setProgress(0, 0, true).setOngoing(true)
   * .setOnlyAlertOnce(true); Synchronizer.kt:77 notify(SYNC_NOTIFICATION_ID = 2, …), SyncWorker.kt:215),
   * on its own channel, before the fetch.
   */
  private async showSyncProgress(): Promise<void> {
    const ctx = this.rt.context;
    ctx.notificationManager.createNotificationChannel({ id: SYNC_CHANNEL_ID, name: SYNC_CHANNEL_NAME, importance: Importance.LOW });
    await ctx.notificationManager.notify(null, SYNC_NOTIFICATION_ID, {
      ...baseNotification(ctx.packageName, SYNC_NOTIFICATION_ID, SYNC_CHANNEL_ID),
      when: ctx.currentTimeMillis(),
      flags: NotificationFlag.FLAG_ONGOING_EVENT | NotificationFlag.FLAG_ONLY_ALERT_ONCE,
      extras: [
        ['android.title', { kind: 'String', value: 'Syncing feeds…' }],
        ['android.progressIndeterminate', { kind: 'Boolean', value: true }],
        ['android.appInfo', { kind: 'ApplicationInfo', value: appInfo(ctx.packageName) }],
      ],
    });
  }

  /**
   * Capy Reader's group summary (jocmp/capyreader @16fce06c app/src/main/java/com/capyreader/app/
   * notifications/NotificationHelper.kt: notify() posts sendGroupNotification() before the
   * items when there are any; the summary is Builder(FEED_UPDATE.channelID).setGroup(
   * ARTICLE_REFRESH_GROUP).setGroupSummary(true), on the items' own channel, and every item
   * has setGroup(ARTICLE_REFRESH_GROUP)). Posted again before the first item of every run.
   */
  private async postGroupSummary(): Promise<void> {
    const ctx = this.rt.context;
    await ctx.notificationManager.notify(null, GROUP_SUMMARY_ID, {
      ...baseNotification(ctx.packageName, GROUP_SUMMARY_ID, CHANNEL_ID),
      when: ctx.currentTimeMillis(),
      flags: NotificationFlag.FLAG_GROUP_SUMMARY,
      group: ITEMS_GROUP,
      extras: [['android.appInfo', { kind: 'ApplicationInfo', value: appInfo(ctx.packageName) }]],
    });
  }

  private memoryKeys(): Set<string> {
    const mem = this.rt.context.process.memory;
    let keys = mem.get(MEMORY_KEYS) as Set<string> | undefined;
    if (keys === undefined) {
      keys = new Set();
      mem.set(MEMORY_KEYS, keys);
    }
    return keys;
  }

  /** Step 1: the channel at the post site (unless `channel-in-activity`), then notify(). */
  private async notify(entry: KeyedItem, firstOfRun: boolean): Promise<void> {
    const ctx = this.rt.context;
    if (!this.rt.bugs.has('channel-in-activity')) this.rt.createChannel();
    const grouped = this.rt.profile === 'grouped';
    if (grouped && firstOfRun) await this.postGroupSummary();
    const id = this.rt.dedupStore().notificationId(entry);
    await ctx.notificationManager.notify(null, id, buildNotification(ctx.packageName, entry.item, id, grouped ? ITEMS_GROUP : undefined));
    this.log(`Notified id=${id} for ${entry.key}`);
  }

  /** Step 2: the receipt POST with the persisted operation id (the holdable kill point). */
  private async sendReceipt(item: FeedItem, key: string, now: number): Promise<void> {
    const db = this.rt.database();
    let op = db.pendingReceiptFor(key)?.operation_id;
    if (op === undefined) {
      op = randomUUID();
      db.insertPendingReceipt(op, key, now);
    }
    await this.postReceipt(op, key, item.title);
  }

  private async postReceipt(operationId: string, link: string, title: string): Promise<void> {
    const db = this.rt.database();
    let key = operationId;
    if (this.rt.bugs.has('new-key-per-attempt')) {
      key = randomUUID();
      db.replaceOperationId(operationId, key);
    }
    try {
      const res = await httpRequest(this.rt.context, {
        method: 'POST',
        port: FEED_PORT,
        path: RECEIPTS_PATH,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Idempotency-Key': key },
        body: JSON.stringify({ link, title }),
      });
      if (res.status >= 200 && res.status <= 299) db.markDelivered(key);
      else this.log(`Receipt for ${link} answered HTTP ${res.status}; kept pending`);
    } catch (e) {
      if (isProcessDeath(e) || !(e instanceof HttpConnectionError)) throw e;
      this.log(`Receipt for ${link} failed: ${e.message}; kept pending`);
    }
  }

  /** Step 3: the store records the item (INSERT OR IGNORE keyed on the link, in the reference app). */
  private async record(entry: KeyedItem, now: number): Promise<void> {
    this.rt.dedupStore().record(entry, now);
    if (this.rt.bugs.has('memory-only-dedup')) this.memoryKeys().add(entry.key);
    await this.rt.context.process.checkpoint();
  }

  /** Bug `record-after-loop`: step 3 for every item of the run at once, in one transaction. */
  private async recordAll(entries: readonly KeyedItem[], now: number): Promise<void> {
    this.rt.dedupStore().recordAll(entries, now);
    if (this.rt.bugs.has('memory-only-dedup')) for (const { key } of entries) this.memoryKeys().add(key);
    await this.rt.context.process.checkpoint();
  }
}

/** Where a feed URL points on the device: only the device's own loopback (adb reverse) answers. */
function deviceUrl(url: string): { port: number; path: string } {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const host = parsed?.hostname ?? url;
  if (parsed === undefined || parsed.protocol !== 'http:' || (host !== '127.0.0.1' && host !== 'localhost')) {
    // What OkHttp's Dns.SYSTEM throws for a name the device cannot resolve (libcore's text).
    throw new HttpConnectionError(`java.net.UnknownHostException: Unable to resolve host "${host}": No address associated with hostname`);
  }
  return { port: parsed.port === '' ? 80 : Number(parsed.port), path: `${parsed.pathname}${parsed.search}` };
}

const h = (n: number): string => ((n >>> 0) % 0xfffffff).toString(16);

function appInfo(pkg: string): string {
  return `ApplicationInfo{${h(javaStringHashCode(pkg))} ${pkg}}`;
}

/** What every post of the app has: small icon, the content intent, default priority and visibility. */
function baseNotification(pkg: string, id: number, channelId: string): Omit<NotificationSpec, 'when' | 'flags' | 'extras'> {
  return {
    channelId,
    smallIcon: { packageName: pkg, resId: SMALL_ICON_RES_ID },
    priority: 0,
    visibility: 0,
    color: 0,
    contentIntent: `PendingIntent{${h(id * 31 + 7)}: PendingIntentRecord{${h(id * 17 + 3)} ${pkg} startActivity}}`,
  };
}

/**
 * NotificationCompat.Builder(ctx, "feed_items").setSmallIcon(...).setContentTitle(title).setContentText(link).setWhen(publishedAt).setAutoCancel(true)
 * (and .setGroup(group) in the `grouped` profile).
 */
export function buildNotification(pkg: string, item: FeedItem, id: number, group?: string): NotificationSpec {
  return {
    ...baseNotification(pkg, id, CHANNEL_ID),
    when: item.publishedAt,
    flags: NotificationFlag.FLAG_AUTO_CANCEL,
    ...(group === undefined ? {} : { group }),
    extras: [
      ['android.title', { kind: 'String', value: item.title }],
      ['android.reduced.images', { kind: 'Boolean', value: true }],
      ['android.text', { kind: 'String', value: item.link }],
      ['android.appInfo', { kind: 'ApplicationInfo', value: appInfo(pkg) }],
    ],
  };
}
