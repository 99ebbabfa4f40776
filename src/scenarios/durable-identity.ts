import Database from 'better-sqlite3';
import type { Harness } from '../scenario/harness.js';
import type { Scenario } from '../scenario/types.js';
import { HOUR } from './time.js';

interface IndexListRow {
  name: string;
  unique: number;
  partial: number;
}
interface ColumnRow {
  name: string;
  type: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

/** SQLite identifiers from config are quoted, never interpolated raw. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A value of the column's declared affinity, for filling NOT NULL columns of probe rows. */
function filler(column: ColumnRow, n: number): string | number {
  return /INT|REAL|NUM|FLOA|DOUB/i.test(column.type) ? n : `dedup-verify probe ${n}`;
}

/**
 * Checks the dedup table of a pulled copy the way ADR-0073 states the guarantee: a UNIQUE
 * index on exactly the key column, the column nullable, NULL keys coexisting, and a replayed
 * insert ignored. Works on the host copy only: the device database is never written.
 */
export function inspectIdentity(h: Harness, copyPath: string, sampleKey: string | undefined): void {
  const { table, keyColumn } = h.config.database;
  const db = new Database(copyPath);
  try {
    const columns = db.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as ColumnRow[];
    const key = columns.find((c) => c.name === keyColumn);
    if (!key) {
      h.finding({ kind: 'no-key-column', item: '', detail: `table ${table} has no column ${keyColumn} (columns: ${columns.map((c) => c.name).join(', ')})` });
      return;
    }
    const indexes = db.prepare(`PRAGMA index_list(${quoteIdent(table)})`).all() as IndexListRow[];
    const uniqueOnKey = indexes.filter((ix) => {
      if (!ix.unique || ix.partial) return false;
      const cols = db.prepare(`PRAGMA index_info(${quoteIdent(ix.name)})`).all() as { name: string }[];
      return cols.length === 1 && cols[0]?.name === keyColumn;
    });
    h.note(
      `indexes on ${table}: ${indexes.map((ix) => `${ix.name}${ix.unique ? ' (unique)' : ''}`).join(', ') || 'none'}; ` +
        `${keyColumn} is ${key.notnull ? 'NOT NULL' : 'nullable'}`,
    );
    if (uniqueOnKey.length === 0) {
      h.finding({
        kind: 'no-unique-index',
        item: '',
        detail: `no UNIQUE index on ${table}.${keyColumn}: the database cannot refuse a second row for the same notification`,
      });
    }
    if (key.notnull) {
      h.finding({
        kind: 'key-not-nullable',
        item: '',
        detail: `${table}.${keyColumn} is NOT NULL: legacy rows without an identity cannot coexist (ADR-0073: nullable is load-bearing)`,
      });
    }
    // Probe a throw-away copy: two NULL keys must coexist, a replayed key must be ignored.
    db.exec('BEGIN');
    try {
      const fillable = columns.filter((c) => c.name !== keyColumn && c.notnull && c.dflt_value === null && !c.pk);
      const names = [keyColumn, ...fillable.map((c) => c.name)].map(quoteIdent).join(', ');
      const marks = [keyColumn, ...fillable.map((c) => c.name)].map(() => '?').join(', ');
      const insert = db.prepare(`INSERT OR IGNORE INTO ${quoteIdent(table)} (${names}) VALUES (${marks})`);
      if (!key.notnull) {
        const nulls = [1, 2].map((n) => insert.run(null, ...fillable.map((c) => filler(c, n))).changes).reduce((a, b) => a + b, 0);
        if (nulls !== 2) {
          h.finding({ kind: 'null-keys-collide', item: '', detail: `inserting two rows with a NULL ${keyColumn} stored ${nulls}: legacy rows cannot coexist` });
        }
      }
      if (sampleKey !== undefined) {
        const replay = insert.run(sampleKey, ...fillable.map((c) => filler(c, 3))).changes;
        if (replay !== 0) {
          h.finding({
            kind: 'replayed-insert-duplicated',
            item: sampleKey,
            detail: `replaying the insert of an existing key added a second row instead of being ignored`,
          });
        }
      }
    } finally {
      db.exec('ROLLBACK');
    }
  } finally {
    db.close();
  }
}

export const durableIdentity: Scenario = {
  name: 'durable-identity',
  summary: 'The dedup key column has a UNIQUE index; NULL legacy rows coexist; a replayed insert is ignored, not duplicated.',
  seed: {
    file: 'seeds/003_abb250718efb355d.txt',
    quote:
      'UnmatchedEntity gains a nullable notificationKey: String? = null with a unique index on it. […] Nullable is load-bearing: SQLite permits repeated NULLs in a unique index, so every pre-v9 row keeps a NULL key and coexists.',
  },
  catches: ['no-unique-index'],
  needs: {},
  async run(h) {
    const served = await h.serveFeed([1, 2, 3].map((n) => ({ label: `item-${n}`, title: `Durable ${n}`, ageMs: n * HOUR })));
    h.step('forced run: rows are written');
    await h.forceRun();
    h.step('process death and replay');
    await h.forceStop();
    await h.startApp();
    await h.forceRun();
    h.step('inspect the dedup table of a pulled copy');
    const db = await h.readDatabase();
    for (const s of served) {
      const rows = db.keys.filter((k) => k === s.item).length;
      if (rows > 1) h.finding({ kind: 'duplicate-row', item: s.item, detail: `${rows} rows carry this key` });
    }
    inspectIdentity(h, db.copyPath, served.find((s) => db.keys.includes(s.item))?.item);
  },
};
