/**
 * How the app remembers what it notified (one of the harness's four seams; config `database`).
 * A DedupStore reads what the app has recorded, forgets records (db-is-truth), and gives the
 * `rows` and `schema` checks what they read. What a run "stored" is what the read after it
 * records that the read before did not (snapshot-store.ts); each store says what a record is:
 *
 * - KeyTableStore (kind `key`): a row of `table` per notified item, keyed on `keyColumn` (the
 *   seed's table, docs/sources/003; the reference app's `notifications`). Forgetting deletes the
 *   rows.
 * - FlagStore (kind `flag`): a row per item written before the post (by the feed sync), with
 *   `flagColumn` set once the item is notified (Feeder's `feed_items.notified`, spacecowboy/Feeder
 *   @091ca126 app/src/main/java/com/nononsenseapps/feeder/db/room/FeedItem.kt:103 and
 *   FeedItemDao.kt:322 `notified IS 0`): a row records its item once its flag is non-zero.
 *   Forgetting clears the flag (0, Room's `false`), the rows stay.
 * - WatermarkStore (kind `watermark`, watermark-store.ts): one `<long>` in SharedPreferences.
 * - NoRecordStore (no `database`, no-record-store.ts): nothing to read.
 *
 * The table stores also read, with the same rows, what joins a post to its item when the config
 * maps posts through the table (`notifications.match` "row-id": idColumn; "tag" with tagColumn):
 * the rows of a flag table exist before the posts (the sync writes them in the same run), so the
 * read after a run maps that run's posts without a round trip of its own.
 */
import { randomUUID } from 'node:crypto';
import { databaseRead, deleteRows, pullDatabase, tableRowsRead, updateRows, withDatabase, type PulledDatabase, type Row } from '../../android/app-data.js';
import { quoteSqlIdentifier } from '../../android/names.js';
import type { RowJoins } from '../../android/notification-mapping.js';
import type { ShellRead } from '../../android/shell-reads.js';
import type { ShellResult } from '../../device/android-device.js';
import { ConfigError, ErrorCode, hasErrorCode } from '../../errors.js';
import type { DbSnapshot } from '../harness.js';
import type { Config, FlagDatabase, KeyDatabase, TableDatabase } from '../../config/types.js';
import { inspectDedupSchema } from '../dedup-schema.js';
import type { DeviceSteps } from '../device-steps.js';
import { SnapshotStore } from './snapshot-store.js';
import { WatermarkStore } from './watermark-store.js';
import { NoRecordStore } from './no-record-store.js';

/** R: what one read of the store gives (its snapshot); opaque to the other seams. */
export interface DedupStore<R = unknown> {
  /** Whether the keys stored before the scenario are still to be read (primeStored). */
  readonly unprimed: boolean;
  /** The store's snapshot as one read, to go out with other reads. */
  keysRead(): ShellRead<R>;
  /** The snapshot read with the app's start (`keysRead` sent with the scheduler's reads), for primeStored. */
  readWithStart(read: R, at: { changes: number; journal: number }): void;
  /** What is already recorded before the scenario is not "stored" by a run. */
  primeStored(): Promise<void>;
  /** The items recorded since the last call; `readWith` sends the read (with other reads). */
  newStored(readWith?: <T>(read: ShellRead<T>) => Promise<T>): Promise<string[]>;
  /** Forgets the records of `keys` (db-is-truth), with a backup, and records `forgotten`. */
  forget(keys: readonly string[]): Promise<void>;
  /** The app's data was cleared: nothing is recorded. */
  cleared(): void;
  /** Reads the whole record and records it as a `rows` event. */
  readDatabase(): Promise<DbSnapshot>;
  /** Inspects the table's schema on the copy `readDatabase` took; records a `schema` event. */
  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void;
  /** Row id → item key and tag → item key, as the reads so far found them in the app's table. */
  joins(): RowJoins;
}

/** A table store's snapshot: the keys its rows record, and the joins the same rows give. */
export interface TableSnapshot {
  readonly recorded: ReadonlySet<string>;
  readonly rowIds: ReadonlyMap<number, string>;
  readonly tags: ReadonlyMap<string, string>;
}

const NOTHING_RECORDED: TableSnapshot = { recorded: new Set(), rowIds: new Map(), tags: new Map() };

/** The columns a table store reads (each from the config field its error names). */
export interface TableColumns {
  readonly table: string;
  readonly keyColumn: string;
  /** Kind flag: a row records its item once this column is non-zero; absent: every row records its item. */
  readonly flagColumn?: string;
  /** notifications.match "row-id": the column holding the notification id. */
  readonly idColumn?: string;
  /** notifications.match "tag" with tagColumn: the column holding the tag (a server id). */
  readonly tagColumn?: string;
}

const COLUMN_FIELDS: Readonly<Record<Exclude<keyof TableColumns, 'table'>, string>> = {
  keyColumn: 'database.keyColumn',
  flagColumn: 'database.flagColumn',
  idColumn: 'notifications.idColumn',
  tagColumn: 'notifications.tagColumn',
};

/**
 * The notification id a row id becomes: Feeder posts `it.id.toInt()` (RssNotifications.kt:81),
 * Kotlin's Long.toInt(), which keeps the low 32 bits, as Java's (int) cast does.
 */
function notificationIdOf(rowId: number | bigint): number {
  return Number(BigInt.asIntN(32, BigInt(rowId)));
}

/**
 * What the rows of the app's table record (pure): the keys of the rows that record an item (every
 * row; with a flag column, the rows whose flag is non-zero, as Feeder's `notified IS 0` leaves out
 * exactly those, FeedItemDao.kt:322), and the row ids and tags of every row with a key. A column
 * the config names that the rows do not have is a config error (the table's columns are known
 * only when it has a row).
 */
export function tableSnapshot(rows: readonly Row[], columns: TableColumns): TableSnapshot {
  const first = rows[0];
  if (first !== undefined) {
    for (const [name, field] of Object.entries(COLUMN_FIELDS) as [keyof typeof COLUMN_FIELDS, string][]) {
      const column = columns[name];
      if (column !== undefined && !(column in first)) {
        throw new ConfigError(`${field} "${column}": table ${columns.table} has no such column (it has ${Object.keys(first).join(', ')}); name one of those in the config`, field);
      }
    }
  }
  const { keyColumn, flagColumn, idColumn, tagColumn } = columns;
  const recorded = new Set<string>();
  const rowIds = new Map<number, string>();
  const tags = new Map<string, string>();
  for (const row of rows) {
    const key = row[keyColumn];
    if (typeof key !== 'string') continue;
    const flag = flagColumn === undefined ? 1 : row[flagColumn];
    if ((typeof flag === 'number' || typeof flag === 'bigint') && Number(flag) !== 0) recorded.add(key);
    if (idColumn !== undefined) {
      const id = row[idColumn];
      if (typeof id === 'bigint' || (typeof id === 'number' && Number.isInteger(id))) rowIds.set(notificationIdOf(id), key);
      else if (id !== null) throw new ConfigError(`notifications.idColumn "${idColumn}" of ${columns.table} holds ${JSON.stringify(id)}, not a row id (an integer); name the column the app posts its notifications with`, 'notifications.idColumn');
    }
    if (tagColumn !== undefined) {
      const tag = row[tagColumn];
      if (typeof tag === 'string' || typeof tag === 'number' || typeof tag === 'bigint') tags.set(String(tag), key);
    }
  }
  return { recorded, rowIds, tags };
}

/** A table of the app's database that holds its record (kind key or flag). */
abstract class TableStore<D extends TableDatabase> extends SnapshotStore<TableSnapshot> implements DedupStore<TableSnapshot> {
  private readonly rowIds = new Map<number, string>();
  private readonly tags = new Map<string, string>();
  private readonly columns: TableColumns;
  /**
   * The results each snapshot was parsed from (its database's -wal, main file and -wal):
   * readDatabase copies those of the last snapshot while nothing can have changed the database
   * since it was read (SnapshotStore.lastReadAt, DeviceSteps.stillHolds), instead of reading the
   * same bytes again.
   */
  private readonly bytesOf = new WeakMap<TableSnapshot, readonly ShellResult[]>();

  constructor(
    steps: DeviceSteps,
    protected readonly database: D,
    notifications: Config['notifications'],
  ) {
    super(steps);
    const { match, idColumn, tagColumn } = notifications;
    this.columns = {
      table: database.table,
      keyColumn: database.keyColumn,
      ...(database.kind === 'flag' ? { flagColumn: database.flagColumn } : {}),
      ...(match === 'row-id' && idColumn !== undefined ? { idColumn } : {}),
      ...(match === 'tag' && tagColumn !== undefined ? { tagColumn } : {}),
    };
  }

  keysRead(): ShellRead<TableSnapshot> {
    const { file, table } = this.database;
    const rows = tableRowsRead(this.steps.device.serial, { pkg: this.steps.pkg, db: file, table });
    return {
      commands: rows.commands,
      parse: async (results) => {
        try {
          const snapshot = tableSnapshot(await rows.parse(results), this.columns);
          this.bytesOf.set(snapshot, results);
          return snapshot;
        } catch (e) {
          // An app without its database yet has recorded nothing.
          if (hasErrorCode(e, ErrorCode.DeviceCommand) && /has no database/.test(e.message)) return NOTHING_RECORDED;
          throw e;
        }
      },
    };
  }

  protected recordedSince(before: TableSnapshot | undefined, now: TableSnapshot): string[] {
    const had = before?.recorded ?? new Set<string>();
    return [...now.recorded].filter((k) => !had.has(k));
  }

  /** Joins accumulate: a post of a row the app deleted since still maps to its item. */
  protected override tookIn(read: TableSnapshot): void {
    for (const [id, key] of read.rowIds) this.rowIds.set(id, key);
    for (const [tag, key] of read.tags) this.tags.set(tag, key);
  }

  joins(): RowJoins {
    return { rowIds: this.rowIds, tags: this.tags };
  }

  /** Forgets the records of `keys` on a backed-up copy; what was done (the action's detail) and where the backup is. */
  protected abstract forgetRows(keys: readonly string[], backupDir: string): Promise<{ detail: string; backup: string; rows: Row[] }>;

  async forget(keys: readonly string[]): Promise<void> {
    const steps = this.steps;
    const { detail, backup, rows } = await this.forgetRows(keys, `${steps.ctx.backupDir}/forget-${randomUUID()}`);
    steps.note(`${detail}; backup in ${backup}`);
    steps.action('forget-rows', { detail });
    steps.record({ type: 'forgotten', t: await steps.deviceNow(), items: [...keys] });
    // The table as the edit's check read it back from the device (editDatabase), the app stopped since.
    this.adopt(tableSnapshot(rows, this.columns));
  }

  /** `<keyColumn> IN (?, …)` with the keys as parameters (run on the host copy, never in a device shell). */
  protected keyCondition(keys: readonly string[]): { where: string; params: string[] } {
    return { where: `${quoteSqlIdentifier(this.database.keyColumn)} IN (${keys.map(() => '?').join(', ')})`, params: [...keys] };
  }

  cleared(): void {
    this.adopt(NOTHING_RECORDED);
  }

  async readDatabase(): Promise<DbSnapshot> {
    const steps = this.steps;
    const { file, table, keyColumn } = this.database;
    const request = { pkg: steps.pkg, db: file, hostDir: `${steps.ctx.backupDir}/read-${randomUUID()}` };
    const last = this.lastSnapshot;
    const bytes = last !== undefined ? this.bytesOf.get(last) : undefined;
    const readAt = this.lastReadAt;
    const pulled: PulledDatabase =
      bytes !== undefined && readAt !== undefined && steps.stillHolds(readAt) ? await databaseRead(steps.device.serial, request).parse(bytes) : await pullDatabase(steps.device, request);
    const keys = withDatabase(pulled.dbPath, true, (db) =>
      (db.prepare(`SELECT ${quoteSqlIdentifier(keyColumn)} AS k FROM ${quoteSqlIdentifier(table)}`).all() as { k: unknown }[]).map((r) =>
        typeof r.k === 'string' ? r.k : null,
      ),
    );
    steps.record({ type: 'rows', t: steps.deviceTimeEstimate(), table, keyColumn, keys: [...keys] });
    return { copyPath: pulled.dbPath, keys };
  }

  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void {
    const { table, keyColumn } = this.database;
    const schema = inspectDedupSchema(db.copyPath, table, keyColumn, sampleKey);
    this.steps.record({ type: 'schema', t: this.steps.deviceTimeEstimate(), table, keyColumn, ...schema });
    const key = schema.columns.find((c) => c.name === keyColumn);
    this.steps.note(
      `indexes on ${table}: ${schema.indexes.map((ix) => `${ix.name}${ix.unique ? ' (unique)' : ''} on ${ix.columns.join(', ')}`).join('; ') || 'none'}; ` +
        `${keyColumn} is ${key?.notnull === true ? `NOT NULL${key.default != null ? ` DEFAULT ${key.default}` : ''}` : 'nullable'}`,
    );
  }
}

/** One row per notified item, keyed on the item (its link): the reference app's `notifications`. */
export class KeyTableStore extends TableStore<KeyDatabase> {
  protected async forgetRows(keys: readonly string[], backupDir: string): Promise<{ detail: string; backup: string; rows: Row[] }> {
    const { file, table } = this.database;
    const result = await deleteRows(this.steps.device, { pkg: this.steps.pkg, db: file, table, ...this.keyCondition(keys), backupDir, now: () => this.steps.ctx.clock.now() });
    return { detail: `deleted ${result.deletedRows} row(s) of ${table} (${keys.length} key(s)); ${result.remainingRows} remain`, backup: result.backup.dir, rows: result.rows };
  }
}

/**
 * A row per item, written before its post, whose flag column is set once it is notified
 * (Feeder's `feed_items.notified`): a row records its item when the flag is non-zero
 * (tableSnapshot).
 */
export class FlagStore extends TableStore<FlagDatabase> {
  /** Clears the flag of the items' rows (the rows stay: the app wrote them with its sync). */
  protected async forgetRows(keys: readonly string[], backupDir: string): Promise<{ detail: string; backup: string; rows: Row[] }> {
    const { file, table, flagColumn } = this.database;
    const result = await updateRows(this.steps.device, {
      pkg: this.steps.pkg, db: file, table, ...this.keyCondition(keys), set: { column: flagColumn, value: 0 }, backupDir, now: () => this.steps.ctx.clock.now(),
    });
    return { detail: `cleared ${flagColumn} of ${result.updatedRows} row(s) of ${table} (${keys.length} key(s))`, backup: result.backup.dir, rows: result.rows };
  }
}

/** The DedupStore for config.database (by its kind); with no database, a store that has nothing to read. */
export function dedupStoreFor(config: Config, steps: DeviceSteps): DedupStore {
  const database = config.database;
  if (database === undefined) return new NoRecordStore(steps);
  switch (database.kind) {
    case 'key':
      return new KeyTableStore(steps, database, config.notifications);
    case 'flag':
      return new FlagStore(steps, database, config.notifications);
    case 'watermark':
      return new WatermarkStore(steps, database);
    default: {
      const unreachable: never = database;
      throw new Error(`unknown database.kind ${String(unreachable)}`);
    }
  }
}
