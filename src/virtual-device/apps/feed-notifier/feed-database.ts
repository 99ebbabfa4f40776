/**
 * The reference app's Room database `databases/feed.db` (docs/reference-app.md "Databases"):
 * WAL journal mode, `notifications` keyed on its nullable `link` column with a UNIQUE index and
 * INSERT OR IGNORE (docs/sources/003_abb250718efb355d.txt: OnConflictStrategy.IGNORE on a unique,
 * nullable key; a duplicate returns -1 and counts as "already present"), `pending_receipts`
 * holding each receipt's persisted Idempotency-Key (docs/sources/001_3eaf84dd3362095c.txt),
 * `PRAGMA user_version = 9`. A v8 database (no `link` column) is migrated without back-fill,
 * so its rows keep a NULL key (MIGRATION_8_9 in seed 003).
 *
 * Bug `no-unique-index`: the index on `link` is not UNIQUE and the insert is a plain INSERT.
 * Bug `record-after-loop`: the rows of a run are inserted together, in one transaction, after
 * its notify loop (insertNotifications).
 *
 * App profiles (app-profiles.ts) change the tables: `row-id` has no `notifications` table but
 * Feeder's `feed_items` (every synced item a row, a `notified` flag, a UNIQUE index on
 * (`guid`, `feed_id`): spacecowboy/Feeder @091ca126 app/src/main/java/com/nononsenseapps/feeder/
 * db/room/FeedItem.kt:51-53, AppDatabase.kt:853; `guid TEXT NOT NULL` and a nullable `feed_id` as
 * Room creates them, app/schemas/com.nononsenseapps.feeder.db.room.AppDatabase/39.json; the model
 * keeps `pub_date` as epoch ms, where Feeder stores an ISO-8601 string, and files every item
 * under feed 1); `subscription` adds Feeder's `feeds` table (AppDatabase.kt:836,
 * the columns the model needs); `watermark` has no dedup table at all.
 */
import Database from 'better-sqlite3';

export const FEED_DB_VERSION = 9;
/**
 * Two legacy NULL-link rows "as a database migrated from v8 without back-fill would have"
 * (docs/reference-app.md). Off: the acceptance check android-model-reference-app counts every
 * row of `notifications` after the first run and expects exactly the five posted items.
 */
export const SEED_LEGACY_ROWS = false;

const ROOM_IDENTITY_HASH = '5d0b2b3b1c6e7a7f9e4c2a1b0d8f6e3a';

export interface NotificationRow {
  readonly id: number;
  readonly link: string | null;
  readonly title: string;
  readonly published_at: number;
  readonly notified_at: number;
}

export interface PendingReceipt {
  readonly operation_id: string;
  readonly link: string;
  readonly created_at: number;
  readonly delivered: number;
}

/** Which tables a profile's database has (the receipts table is always there). */
export interface FeedTables {
  /** The reference app's key table `notifications`. */
  readonly notifications: boolean;
  /** Feeder's `feed_items` with its `notified` flag (profile `row-id`). */
  readonly feedItems: boolean;
  /** Feeder's `feeds`, the subscriptions (profile `subscription`). */
  readonly feeds: boolean;
}

export const REFERENCE_TABLES: FeedTables = { notifications: true, feedItems: false, feeds: false };

/** A row of `feed_items` (profile `row-id`). */
export interface FeedItemRow {
  readonly id: number;
  readonly guid: string;
  readonly notified: number;
}

export class FeedDatabase {
  private readonly db: Database.Database;
  private readonly uniqueIndex: boolean;

  private constructor(db: Database.Database, uniqueIndex: boolean) {
    this.db = db;
    this.uniqueIndex = uniqueIndex;
  }

  /** Opens (creating or migrating) the database at a host path. */
  static open(hostPath: string, options: { uniqueIndex: boolean; nowMs: number; tables?: FeedTables }): FeedDatabase {
    const tables = options.tables ?? REFERENCE_TABLES;
    const db = new Database(hostPath);
    db.pragma('journal_mode = WAL');
    const version = db.pragma('user_version', { simple: true }) as number;
    const index = options.uniqueIndex ? 'CREATE UNIQUE INDEX IF NOT EXISTS `index_notifications_link` ON `notifications` (`link`)' : 'CREATE INDEX IF NOT EXISTS `index_notifications_link` ON `notifications` (`link`)';
    const createReceipts =
      'CREATE TABLE IF NOT EXISTS `pending_receipts` (`operation_id` TEXT PRIMARY KEY NOT NULL, `link` TEXT NOT NULL, `created_at` INTEGER NOT NULL, `delivered` INTEGER NOT NULL DEFAULT 0)';
    const roomTables = [
      'CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT)',
      "INSERT INTO android_metadata SELECT 'en_US' WHERE NOT EXISTS (SELECT 1 FROM android_metadata)",
      'CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)',
      `INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '${ROOM_IDENTITY_HASH}')`,
    ];
    if (version === 0) {
      db.transaction(() => {
        for (const sql of roomTables) db.exec(sql);
        if (tables.notifications) {
          db.exec(
            'CREATE TABLE IF NOT EXISTS `notifications` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `link` TEXT, `title` TEXT NOT NULL, `published_at` INTEGER NOT NULL, `notified_at` INTEGER NOT NULL)',
          );
          db.exec(index);
        }
        if (tables.feedItems) {
          db.exec(
            'CREATE TABLE IF NOT EXISTS `feed_items` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `guid` TEXT NOT NULL, `title` TEXT NOT NULL, `link` TEXT, `pub_date` INTEGER NOT NULL, `notified` INTEGER NOT NULL, `feed_id` INTEGER)',
          );
          db.exec(`CREATE ${options.uniqueIndex ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS \`index_feed_items_guid_feed_id\` ON \`feed_items\` (\`guid\`, \`feed_id\`)`);
        }
        if (tables.feeds) {
          db.exec('CREATE TABLE IF NOT EXISTS `feeds` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT NOT NULL, `url` TEXT NOT NULL, `notify` INTEGER NOT NULL)');
          db.exec('CREATE UNIQUE INDEX IF NOT EXISTS `index_feeds_url` ON `feeds` (`url`)');
        }
        db.exec(createReceipts);
        if (SEED_LEGACY_ROWS) {
          const legacy = db.prepare('INSERT INTO notifications (link, title, published_at, notified_at) VALUES (NULL, ?, ?, ?)');
          legacy.run('Legacy notification 1', options.nowMs - 30 * 86_400_000, options.nowMs - 30 * 86_400_000);
          legacy.run('Legacy notification 2', options.nowMs - 29 * 86_400_000, options.nowMs - 29 * 86_400_000);
        }
        db.pragma(`user_version = ${FEED_DB_VERSION}`);
      })();
    } else if (version === 8) {
      // MIGRATION_8_9: add the nullable key and its index, no back-fill.
      db.transaction(() => {
        for (const sql of roomTables) db.exec(sql);
        db.exec('ALTER TABLE `notifications` ADD COLUMN `link` TEXT');
        db.exec(index);
        db.exec(createReceipts);
        db.pragma(`user_version = ${FEED_DB_VERSION}`);
      })();
    }
    return new FeedDatabase(db, options.uniqueIndex);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** NotificationDao.isNotificationExists(link). */
  exists(key: string): boolean {
    const row = this.db.prepare('SELECT EXISTS(SELECT 1 FROM notifications WHERE link = ?) AS e').get(key) as { e: number };
    return row.e === 1;
  }

  /** NotificationDao.insert: INSERT OR IGNORE (-1 when the key exists); a plain INSERT under `no-unique-index`. */
  insertNotification(row: { link: string; title: string; publishedAt: number; notifiedAt: number }): number {
    const verb = this.uniqueIndex ? 'INSERT OR IGNORE' : 'INSERT';
    const r = this.db.prepare(`${verb} INTO notifications (link, title, published_at, notified_at) VALUES (?, ?, ?, ?)`).run(row.link, row.title, row.publishedAt, row.notifiedAt);
    return r.changes === 0 ? -1 : Number(r.lastInsertRowid);
  }

  /** Bug `record-after-loop`: every row of a run in one transaction (each an insertNotification). */
  insertNotifications(rows: readonly { link: string; title: string; publishedAt: number; notifiedAt: number }[]): number[] {
    return this.db.transaction(() => rows.map((row) => this.insertNotification(row)))();
  }

  /** The still-undelivered receipt for a key, if any. */
  pendingReceiptFor(link: string): PendingReceipt | undefined {
    return this.db.prepare('SELECT operation_id, link, created_at, delivered FROM pending_receipts WHERE link = ? AND delivered = 0 ORDER BY created_at LIMIT 1').get(link) as PendingReceipt | undefined;
  }

  insertPendingReceipt(operationId: string, link: string, createdAt: number): void {
    this.db.prepare('INSERT INTO pending_receipts (operation_id, link, created_at, delivered) VALUES (?, ?, ?, 0)').run(operationId, link, createdAt);
  }

  /** Bug `new-key-per-attempt`: the stored key is replaced by the attempt's fresh one. */
  replaceOperationId(oldId: string, newId: string): void {
    this.db.prepare('UPDATE pending_receipts SET operation_id = ? WHERE operation_id = ?').run(newId, oldId);
  }

  markDelivered(operationId: string): void {
    this.db.prepare('UPDATE pending_receipts SET delivered = 1 WHERE operation_id = ?').run(operationId);
  }

  undeliveredReceipts(): PendingReceipt[] {
    return this.db.prepare('SELECT operation_id, link, created_at, delivered FROM pending_receipts WHERE delivered = 0 ORDER BY created_at').all() as PendingReceipt[];
  }

  titleFor(link: string): string | undefined {
    if (!this.hasTable('notifications')) return undefined;
    const row = this.db.prepare('SELECT title FROM notifications WHERE link = ? LIMIT 1').get(link) as { title: string } | undefined;
    return row?.title;
  }

  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  // ---- feed_items (profile row-id, as Feeder's FeedItemDao) ----------------------------------

  /**
   * The sync writes every item of the response as a row (notified = 0) unless its guid is there;
   * an existing row gets the new title and keeps its flag. Under `no-unique-index` the index is
   * not UNIQUE; the app still looks the guid up first, so it adds no second row by itself.
   */
  upsertFeedItem(item: { guid: string; title: string; link: string; publishedAt: number }): FeedItemRow {
    const existing = this.feedItem(item.guid);
    if (existing !== undefined) {
      this.db.prepare('UPDATE feed_items SET title = ? WHERE id = ?').run(item.title, existing.id);
      return existing;
    }
    const verb = this.uniqueIndex ? 'INSERT OR IGNORE' : 'INSERT';
    this.db.prepare(`${verb} INTO feed_items (guid, title, link, pub_date, notified, feed_id) VALUES (?, ?, ?, ?, 0, 1)`).run(item.guid, item.title, item.link, item.publishedAt);
    const row = this.feedItem(item.guid);
    if (row === undefined) throw new Error(`feed_items has no row for ${item.guid} after the insert`);
    return row;
  }

  feedItem(guid: string): FeedItemRow | undefined {
    return this.db.prepare('SELECT id, guid, notified FROM feed_items WHERE guid = ? AND feed_id = 1 ORDER BY id LIMIT 1').get(guid) as FeedItemRow | undefined;
  }

  /** FeedItemDao.markAsNotified(ids): `UPDATE feed_items SET notified = 1 WHERE id IN (:ids)`. */
  markAsNotified(ids: readonly number[]): void {
    const stmt = this.db.prepare('UPDATE feed_items SET notified = 1 WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) stmt.run(id);
    })();
  }

  // ---- feeds (profile subscription) ------------------------------------------------------------

  /** Adds a subscription (the VIEW intent's URL); an existing URL is kept as it is. */
  addFeed(url: string, title: string): void {
    this.db.prepare('INSERT OR IGNORE INTO feeds (title, url, notify) VALUES (?, ?, 1)').run(title, url);
  }

  feedUrls(): string[] {
    return (this.db.prepare('SELECT url FROM feeds WHERE notify = 1 ORDER BY id').all() as { url: string }[]).map((r) => r.url);
  }
}
