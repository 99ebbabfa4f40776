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
import { NotificationFlag, type AppContext, type NotificationSpec } from '../../system/app-framework.js';
import { LogPriority } from '../../types.js';
import { Result, type ListenableWorker, type WorkerResult } from '../work-manager/worker.js';
import type { Bugs } from './bugs.js';
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

/** What a worker run needs from its process. */
export interface FeedRuntime {
  readonly context: AppContext;
  readonly bugs: Bugs;
  database(): FeedDatabase;
  prefs(): SharedPreferences;
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
    const { context, bugs } = this.rt;
    const proc = context.process;
    let status: number;
    let body: string;
    try {
      const res = await httpRequest(context, { method: 'GET', port: FEED_PORT, path: FEED_PATH, headers: { Accept: 'application/rss+xml, application/atom+xml, application/xml' } });
      status = res.status;
      body = res.body;
    } catch (e) {
      if (isProcessDeath(e) || !(e instanceof HttpConnectionError)) throw e;
      // Log.w(TAG, "Fetch of $url failed; retrying later: $e"): the exception's toString() (what
      // OkHttp threw, see http-client.ts), one line, as a real app's catch block logs it.
      this.rt.context.log.println(LogPriority.W, TAG, `Fetch of http://127.0.0.1:${FEED_PORT}${FEED_PATH} failed; retrying later: ${e.message}`);
      return Result.retry();
    }
    // docs/sources/001: 2xx process, 401 failure (reauth_required), 408/429/5xx retry, else failure.
    if (status === 401) {
      this.log('Feed answered HTTP 401');
      return bugs.has('retry-on-401') ? Result.retry() : Result.failure({ reason: 'reauth_required' });
    }
    if (status === 408 || status === 429 || (status >= 500 && status <= 599)) {
      this.log(`Feed answered HTTP ${status}; retrying later`);
      return Result.retry();
    }
    if (status < 200 || status > 299) {
      this.log(`Feed answered HTTP ${status}`);
      return Result.failure({ reason: `permanent_http_${status}` });
    }

    const items = parseFeed(body, {
      keepEmptyLinks: bugs.has('empty-link-kept'),
      unparseableDate: bugs.has('date-defaults-to-now') ? () => context.currentTimeMillis() : () => 0,
    });
    const now = context.currentTimeMillis();
    const window = bugs.has('window-equals-interval') ? INTERVAL_MS : WINDOW_MS;
    // Kotlin's sortedBy is stable; newest-first (bug) sorts descending.
    const ordered = [...items].sort((a, b) => (bugs.has('newest-first') ? b.publishedAt - a.publishedAt : a.publishedAt - b.publishedAt));
    this.log(`Fetched ${items.length} items (HTTP ${status})`);

    const db = this.rt.database();
    const memory = this.memoryKeys();
    const highWater = bugs.has('dedup-elsewhere') ? this.rt.prefs().getLong(HIGH_WATER_KEY, 0) : 0;
    let notified = 0;
    /** Bug `record-after-loop`: the items notified by this run, recorded only after the loop. */
    const unrecorded: { item: FeedItem; key: string }[] = [];
    for (const item of ordered) {
      const key = bugs.has('key-on-title') ? item.title : item.link;
      const withinWindow = bugs.has('no-window') ? item.publishedAt > 0 : item.publishedAt > 0 && now - item.publishedAt <= window;
      if (!withinWindow) continue;
      if (bugs.has('dedup-elsewhere') && item.publishedAt <= highWater) continue;
      if (!bugs.has('no-db-check')) {
        const seen = bugs.has('memory-only-dedup') ? memory.has(key) : db.exists(key);
        if (seen) continue;
      }
      if (bugs.has('record-before-notify')) {
        await this.record(item, key, now);
        await this.sendReceipt(item, key, now);
        await this.notify(item, key);
      } else if (bugs.has('record-after-loop')) {
        await this.notify(item, key);
        await this.sendReceipt(item, key, now);
        unrecorded.push({ item, key });
      } else {
        await this.notify(item, key);
        await this.sendReceipt(item, key, now);
        await this.record(item, key, now);
      }
      notified++;
      if (bugs.has('dedup-elsewhere')) this.rt.prefs().putLong(HIGH_WATER_KEY, Math.max(this.rt.prefs().getLong(HIGH_WATER_KEY, 0), item.publishedAt));
      await proc.checkpoint();
    }
    if (unrecorded.length > 0) await this.recordAll(unrecorded, now);

    // Afterwards: re-send every still-pending receipt with its stored key.
    for (const pending of db.undeliveredReceipts()) {
      await this.postReceipt(pending.operation_id, pending.link, db.titleFor(pending.link) ?? pending.link);
    }
    const undelivered = db.undeliveredReceipts().length;
    this.log(`Run finished: ${notified} notified, ${undelivered} receipt(s) pending`);
    return undelivered > 0 ? Result.retry() : Result.success();
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
  private async notify(item: FeedItem, key: string): Promise<void> {
    const ctx = this.rt.context;
    if (!this.rt.bugs.has('channel-in-activity')) this.rt.createChannel();
    const id = javaStringHashCode(key);
    await ctx.notificationManager.notify(null, id, buildNotification(ctx.packageName, item, id));
    this.log(`Notified id=${id} for ${key}`);
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

  /** Step 3: INSERT OR IGNORE keyed on the link (the title under `key-on-title`). */
  private async record(item: FeedItem, key: string, now: number): Promise<void> {
    this.rt.database().insertNotification({ link: key, title: item.title, publishedAt: item.publishedAt, notifiedAt: now });
    if (this.rt.bugs.has('memory-only-dedup')) this.memoryKeys().add(key);
    await this.rt.context.process.checkpoint();
  }

  /** Bug `record-after-loop`: step 3 for every item of the run at once, in one transaction. */
  private async recordAll(entries: readonly { item: FeedItem; key: string }[], now: number): Promise<void> {
    this.rt.database().insertNotifications(entries.map(({ item, key }) => ({ link: key, title: item.title, publishedAt: item.publishedAt, notifiedAt: now })));
    if (this.rt.bugs.has('memory-only-dedup')) for (const { key } of entries) this.memoryKeys().add(key);
    await this.rt.context.process.checkpoint();
  }
}

/** NotificationCompat.Builder(ctx, "feed_items").setSmallIcon(...).setContentTitle(title).setContentText(link).setWhen(publishedAt).setAutoCancel(true). */
export function buildNotification(pkg: string, item: FeedItem, id: number): NotificationSpec {
  const h = (n: number): string => ((n >>> 0) % 0xfffffff).toString(16);
  return {
    channelId: CHANNEL_ID,
    smallIcon: { packageName: pkg, resId: SMALL_ICON_RES_ID },
    when: item.publishedAt,
    flags: NotificationFlag.FLAG_AUTO_CANCEL,
    priority: 0,
    visibility: 0,
    color: 0,
    contentIntent: `PendingIntent{${h(id * 31 + 7)}: PendingIntentRecord{${h(id * 17 + 3)} ${pkg} startActivity}}`,
    extras: [
      ['android.title', { kind: 'String', value: item.title }],
      ['android.reduced.images', { kind: 'Boolean', value: true }],
      ['android.text', { kind: 'String', value: item.link }],
      ['android.appInfo', { kind: 'ApplicationInfo', value: `ApplicationInfo{${h(javaStringHashCode(pkg))} ${pkg}}` }],
    ],
  };
}
