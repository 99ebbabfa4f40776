/**
 * How the app remembers what it notified (one of the harness's four seams; config `database`).
 * A DedupStore reads what the app has recorded, deletes records (db-is-truth), and gives the
 * schema check its table.
 */
import { randomUUID } from 'node:crypto';
import { deleteRows, pullDatabase, tableRowsRead, withDatabase } from '../../android/app-data.js';
import { quoteSqlIdentifier } from '../../android/names.js';
import type { ShellRead } from '../../android/shell-reads.js';
import { ConfigError, ErrorCode, hasErrorCode } from '../../errors.js';
import type { DbSnapshot } from '../harness.js';
import type { Config, KeyDatabase } from '../../config/types.js';
import { inspectDedupSchema } from '../dedup-schema.js';
import type { DeviceSteps } from '../device-steps.js';

export interface DedupStore {
  /** Whether the keys stored before the scenario are still to be read (primeStored). */
  readonly unprimed: boolean;
  /** The recorded keys as one read, to go out with other reads. */
  keysRead(): ShellRead<Set<string>>;
  /** Keys read with the app's start (`keysRead` sent with the scheduler's reads), for primeStored. */
  readWithStart(keys: Set<string>, at: { changes: number; journal: number }): void;
  /** What is already recorded before the scenario is not "stored" by a run. */
  primeStored(): Promise<void>;
  /** The keys recorded since the last call; `readWith` sends the read (with other reads). */
  newStored(readWith?: <T>(read: ShellRead<T>) => Promise<T>): Promise<string[]>;
  /** Deletes the records of `keys` (db-is-truth), with a backup. */
  forget(keys: readonly string[]): Promise<void>;
  /** The app's data was cleared: nothing is recorded. */
  cleared(): void;
  readDatabase(): Promise<DbSnapshot>;
  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void;
}

/** One table with one key column (the item's link) per notified item: the reference app's `notified_items`. */
export class KeyTableStore implements DedupStore {
  private storedKeys: Set<string> | undefined;
  /** The dedup table's keys read with the app's start before the scenario primed them (primeStored). */
  private keysWithStart: { keys: Set<string>; changes: number; journal: number } | undefined;

  constructor(
    private readonly steps: DeviceSteps,
    private readonly database: KeyDatabase,
  ) {}

  get unprimed(): boolean {
    return this.storedKeys === undefined;
  }

  keysRead(): ShellRead<Set<string>> {
    const { file, table, keyColumn } = this.database;
    const rows = tableRowsRead(this.steps.device.serial, { pkg: this.steps.pkg, db: file, table });
    return {
      commands: rows.commands,
      parse: async (results) => {
        try {
          return new Set((await rows.parse(results)).map((row) => row[keyColumn]).filter((k): k is string => typeof k === 'string'));
        } catch (e) {
          // An app without its database yet has recorded nothing.
          if (hasErrorCode(e, ErrorCode.DeviceCommand) && /has no database/.test(e.message)) return new Set<string>();
          throw e;
        }
      },
    };
  }

  readWithStart(keys: Set<string>, at: { changes: number; journal: number }): void {
    this.keysWithStart = { keys, ...at };
  }

  private async readKeys(): Promise<Set<string>> {
    const [keys] = await this.steps.read([this.keysRead()]);
    return keys;
  }

  /** The keys read with the app's start (readWithStart) serve while nothing can have changed them. */
  async primeStored(): Promise<void> {
    const last = this.keysWithStart;
    this.keysWithStart = undefined;
    if (last !== undefined && this.steps.stillHolds(last)) {
      this.storedKeys = last.keys;
      return;
    }
    this.storedKeys = await this.readKeys();
  }

  async newStored(readWith?: <T>(read: ShellRead<T>) => Promise<T>): Promise<string[]> {
    const keys = readWith === undefined ? await this.readKeys() : await readWith(this.keysRead());
    const before = this.storedKeys ?? new Set<string>();
    const fresh = [...keys].filter((k) => !before.has(k));
    this.storedKeys = keys;
    return fresh;
  }

  async forget(keys: readonly string[]): Promise<void> {
    const steps = this.steps;
    const { file, table, keyColumn } = this.database;
    const marks = keys.map(() => '?').join(', ');
    const result = await deleteRows(steps.device, {
      pkg: steps.pkg,
      db: file,
      table,
      where: `${quoteSqlIdentifier(keyColumn)} IN (${marks})`,
      params: [...keys],
      backupDir: `${steps.ctx.backupDir}/forget-${randomUUID()}`,
      now: () => steps.ctx.clock.now(),
    });
    steps.note(`deleted ${result.deletedRows} row(s) from ${table}; ${result.remainingRows} remain; backup in ${result.backup.dir}`);
    steps.action('forget-rows', { detail: `deleted ${result.deletedRows} row(s) of ${table} (${keys.length} key(s)); ${result.remainingRows} remain` });
    steps.record({ type: 'forgotten', t: await steps.deviceNow(), items: [...keys] });
    this.storedKeys = await this.readKeys();
  }

  cleared(): void {
    this.storedKeys = new Set();
  }

  async readDatabase(): Promise<DbSnapshot> {
    const steps = this.steps;
    const { file, table, keyColumn } = this.database;
    const pulled = await pullDatabase(steps.device, { pkg: steps.pkg, db: file, hostDir: `${steps.ctx.backupDir}/read-${randomUUID()}` });
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
    this.steps.note(
      `indexes on ${table}: ${schema.indexes.map((ix) => `${ix.name}${ix.unique ? ' (unique)' : ''}`).join(', ') || 'none'}; ` +
        `${keyColumn} is ${schema.columns.find((c) => c.name === keyColumn)?.notnull === true ? 'NOT NULL' : 'nullable'}`,
    );
  }
}

/** The DedupStore for config.database (by its kind). */
export function dedupStoreFor(config: Config, steps: DeviceSteps): DedupStore {
  const database = config.database;
  if (database === undefined) throw new ConfigError('a config without "database" is not supported by this version of dedup-verify', 'database');
  switch (database.kind) {
    case 'key':
      return new KeyTableStore(steps, database);
    case 'flag':
    case 'watermark':
      throw new ConfigError(`database.kind "${database.kind}" is not supported by this version of dedup-verify`, 'database.kind');
    default: {
      const unreachable: never = database;
      throw new Error(`unknown database.kind ${String(unreachable)}`);
    }
  }
}
