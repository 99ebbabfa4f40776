/**
 * The dedup table's schema, read from a pulled copy of the app's database (never the device's
 * own file), with each column's DEFAULT, and two probe inserts made inside a transaction that is
 * rolled back: two rows with a NULL key (when the key is nullable), and a copy of an existing
 * key's row inserted again (the same item replayed: the other columns of a composite UNIQUE
 * index are the row's own). The result is data (the history's `schema` event);
 * src/checker/properties/dedup-table.ts judges it.
 *
 * Nothing here is Android's own behaviour: it is SQLite's, read through PRAGMA table_info,
 * index_list (`unique`, `partial`) and index_info (sqlite.org/pragma.html), as the app's Room
 * database on any API level stores it; for a UNIQUE index SQLite counts every NULL as different
 * from every other (sqlite.org/lang_createindex.html), which is why a nullable key lets legacy
 * rows coexist.
 */
import Database from 'better-sqlite3';
import type { SchemaColumn, SchemaIndex } from '../history/events.js';
import { quoteSqlIdentifier } from '../android/names.js';

interface IndexListRow {
  name: string;
  unique: number;
  partial: number;
}
interface ColumnRow {
  name: string;
  type: string;
  notnull: number;
  /** The DEFAULT as SQL text, null for none (sqlite.org/pragma.html#pragma_table_info). */
  dflt_value: string | null;
  pk: number;
}

export interface DedupSchema {
  readonly columns: SchemaColumn[];
  readonly indexes: SchemaIndex[];
  /** Rows stored by inserting two rows with a NULL key (undefined: the key column is NOT NULL or missing). */
  readonly nullKeyRowsStored?: number;
  /** Rows added by inserting `sampleKey` again (undefined: no sample key, or no key column). */
  readonly replay?: { key: string; rowsAdded: number };
}

/** A value of the column's declared affinity, for filling NOT NULL columns of probe rows. */
function filler(column: ColumnRow, n: number): string | number {
  return /INT|REAL|NUM|FLOA|DOUB/i.test(column.type) ? n : `dedup-verify probe ${n}`;
}

export function inspectDedupSchema(copyPath: string, table: string, keyColumn: string, sampleKey: string | undefined): DedupSchema {
  const db = new Database(copyPath);
  try {
    const columnRows = db.prepare(`PRAGMA table_info(${quoteSqlIdentifier(table)})`).all() as ColumnRow[];
    const columns = columnRows.map((c) => ({ name: c.name, type: c.type, notnull: c.notnull !== 0, pk: c.pk !== 0, default: c.dflt_value }));
    const indexes = (db.prepare(`PRAGMA index_list(${quoteSqlIdentifier(table)})`).all() as IndexListRow[]).map((ix) => ({
      name: ix.name,
      unique: ix.unique !== 0,
      partial: ix.partial !== 0,
      columns: (db.prepare(`PRAGMA index_info(${quoteSqlIdentifier(ix.name)})`).all() as { name: string | null }[]).map((c) => c.name ?? '(expression)'),
    }));
    const key = columnRows.find((c) => c.name === keyColumn);
    if (!key) return { columns, indexes };
    let nullKeyRowsStored: number | undefined;
    let replay: { key: string; rowsAdded: number } | undefined;
    db.exec('BEGIN');
    try {
      if (key.notnull === 0) {
        const fillable = columnRows.filter((c) => c.name !== keyColumn && c.notnull && c.dflt_value === null && !c.pk);
        const names = [keyColumn, ...fillable.map((c) => c.name)].map(quoteSqlIdentifier).join(', ');
        const marks = [keyColumn, ...fillable.map((c) => c.name)].map(() => '?').join(', ');
        const insert = db.prepare(`INSERT OR IGNORE INTO ${quoteSqlIdentifier(table)} (${names}) VALUES (${marks})`);
        nullKeyRowsStored = [1, 2].map((n) => insert.run(null, ...fillable.map((c) => filler(c, n))).changes).reduce((a, b) => a + b, 0);
      }
      if (sampleKey !== undefined) {
        // The same item inserted again: a copy of its row, every column but a rowid alias (a lone
        // INTEGER PRIMARY KEY, which SQLite gives a new value), so that the other columns of a
        // composite UNIQUE index (Feeder's feed_id beside guid) are the row's own.
        const rowidAlias = columnRows.filter((c) => c.pk !== 0).length === 1 ? columnRows.find((c) => c.pk !== 0 && /^INTEGER$/i.test(c.type.trim())) : undefined;
        const copied = columnRows.filter((c) => c !== rowidAlias).map((c) => quoteSqlIdentifier(c.name)).join(', ');
        const from = `FROM ${quoteSqlIdentifier(table)} WHERE ${quoteSqlIdentifier(keyColumn)} = ?`;
        if (db.prepare(`SELECT 1 ${from}`).get(sampleKey) !== undefined) {
          replay = { key: sampleKey, rowsAdded: db.prepare(`INSERT OR IGNORE INTO ${quoteSqlIdentifier(table)} (${copied}) SELECT ${copied} ${from} LIMIT 1`).run(sampleKey).changes };
        }
      }
    } finally {
      db.exec('ROLLBACK');
    }
    return { columns, indexes, ...(nullKeyRowsStored !== undefined ? { nullKeyRowsStored } : {}), ...(replay ? { replay } : {}) };
  } finally {
    db.close();
  }
}
