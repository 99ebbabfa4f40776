/**
 * The dedup table as read from pulled copies of the app's database:
 *
 * - `rows` (seed 003: "a process restart … queued a second row"): no key of an item served in
 *   the segment has two rows (the last `rows` read decides);
 * - `schema` (seed 003: "a nullable notificationKey … with a unique index on it … Nullable is
 *   load-bearing"): a UNIQUE, non-partial index holding the key column; the column nullable, or
 *   NOT NULL with no default; two rows with a NULL key both stored; an existing row inserted
 *   again adds no row (the probe inserts are made on a throw-away copy and recorded in the
 *   `schema` event).
 *
 * Two shapes the seed does not have are accepted, each with an informational anomaly that says
 * what it implies:
 * - a NOT NULL key with no default (Room's column for a Kotlin `String`, e.g. Feeder's
 *   `feed_items.guid`): the seed makes the key nullable because its table had rows from before
 *   the key, which a migration without back-fill leaves NULL; a NOT NULL column with no default
 *   cannot have been added to a table with `ALTER TABLE … ADD COLUMN` ("If a NOT NULL constraint
 *   is specified, then the column must have a default value other than NULL",
 *   sqlite.org/lang_altertable.html), so the key was there when the table was made and no row
 *   ever lacked one (`key-required`). A NOT NULL key *with* a default gives every row without an
 *   identity that default, and a UNIQUE index keeps one of them: that still fails
 *   (`key-not-nullable`), as does a NOT NULL key in a history that does not record defaults.
 * - a UNIQUE index holding the key with other columns (Feeder's (guid, feed_id)): the key is
 *   unique per value of the others; a row that differs in them, or has NULL in one of them (every
 *   NULL is distinct in a UNIQUE index, sqlite.org/lang_createindex.html), is not refused
 *   (`key-unique-per-columns`).
 */
import type { HistoryEvent, RowsEvent, SchemaEvent } from '../../history/events.js';
import type { Anomaly } from '../types.js';
import { notObserved, type PropertyChecker, type PropertyDefinition } from './property.js';

class RowsChecker implements PropertyChecker {
  private readonly served = new Set<string>();
  private last: RowsEvent | undefined;
  add(event: HistoryEvent): void {
    if (event.type === 'published' && event.item !== '') this.served.add(event.item);
    else if (event.type === 'rows') this.last = event;
  }
  finish(): Anomaly[] {
    if (!this.last) return [notObserved('rows', 'read of the dedup table (`rows` event)')];
    const counts = new Map<string, number>();
    for (const k of this.last.keys) if (k !== null && this.served.has(k)) counts.set(k, (counts.get(k) ?? 0) + 1);
    const { table } = this.last;
    return [...counts].filter(([, n]) => n > 1).map(([item, n]) => ({
      kind: 'duplicate-row',
      item,
      detail: `${n} rows of ${table} carry this key: the database did not refuse the second row`,
    }));
  }
}

class SchemaChecker implements PropertyChecker {
  private schema: SchemaEvent | undefined;
  add(event: HistoryEvent): void {
    if (event.type === 'schema') this.schema = event;
  }
  finish(): Anomaly[] {
    const s = this.schema;
    if (!s) return [notObserved('schema', 'inspection of the dedup table (`schema` event)')];
    const key = s.columns.find((c) => c.name === s.keyColumn);
    if (!key) {
      return [{ kind: 'no-key-column', item: '', detail: `table ${s.table} has no column ${s.keyColumn} (columns: ${s.columns.map((c) => c.name).join(', ') || 'none'})` }];
    }
    const anomalies: Anomaly[] = [];
    const holdsKey = s.indexes.filter((ix) => ix.unique && !ix.partial && ix.columns.includes(s.keyColumn));
    const exact = holdsKey.filter((ix) => ix.columns.length === 1);
    const indexes = s.indexes.map((ix) => `${ix.name}${ix.unique ? ' (unique)' : ''}${ix.partial ? ' (partial)' : ''} on ${ix.columns.join(', ')}`).join('; ') || 'none';
    if (holdsKey.length === 0) {
      anomalies.push({
        kind: 'no-unique-index',
        item: '',
        detail: `no UNIQUE index on ${s.table}.${s.keyColumn} (indexes: ${indexes}): the database cannot refuse a second row for the same notification`,
      });
    } else if (exact.length === 0) {
      const narrowest = [...holdsKey].sort((a, b) => a.columns.length - b.columns.length)[0]!;
      const others = narrowest.columns.filter((c) => c !== s.keyColumn);
      const nullable = others.filter((c) => s.columns.find((col) => col.name === c)?.notnull === false);
      anomalies.push({
        kind: 'key-unique-per-columns',
        item: '',
        detail:
          `${s.table}.${s.keyColumn} is unique only together with ${others.join(', ')} (UNIQUE index ${narrowest.name} on ${narrowest.columns.join(', ')}): ` +
          `a second row with the same ${s.keyColumn} is refused only when ${others.length === 1 ? 'that column holds' : 'those columns hold'} the same value${others.length === 1 ? '' : 's'}` +
          (nullable.length > 0 ? `, and never when ${nullable.join(' or ')} is NULL (SQLite counts every NULL distinct)` : ''),
      });
    }
    if (key.notnull) {
      if (key.default === null) {
        anomalies.push({
          kind: 'key-required',
          item: '',
          detail:
            `${s.table}.${s.keyColumn} is NOT NULL with no default: every row carries its item's key and a row without one cannot be stored; ` +
            'the key cannot have been added by ALTER TABLE (SQLite wants a default for a NOT NULL column it adds), so the table had it from its creation and no legacy rows without an identity to keep',
        });
      } else {
        anomalies.push({
          kind: 'key-not-nullable',
          item: '',
          detail:
            key.default === undefined
              ? `${s.table}.${s.keyColumn} is NOT NULL: legacy rows without an identity cannot coexist (nullable is load-bearing)`
              : `${s.table}.${s.keyColumn} is NOT NULL DEFAULT ${key.default}: rows without an identity of their own all get ${key.default}, and a UNIQUE index keeps only one of them (nullable is load-bearing)`,
        });
      }
    }
    if (s.nullKeyRowsStored !== undefined && s.nullKeyRowsStored !== 2) {
      anomalies.push({ kind: 'null-keys-collide', item: '', detail: `inserting two rows with a NULL ${s.keyColumn} stored ${s.nullKeyRowsStored}: legacy rows cannot coexist` });
    }
    if (s.replay && s.replay.rowsAdded !== 0) {
      anomalies.push({
        kind: 'replayed-insert-duplicated',
        item: s.replay.key,
        detail: `inserting the existing key again added ${s.replay.rowsAdded} row(s) instead of being ignored`,
      });
    }
    return anomalies;
  }
}

export const rows: PropertyDefinition = {
  name: 'rows',
  verifies: 'no served item has two rows in the dedup table',
  create: () => new RowsChecker(),
};

export const schema: PropertyDefinition = {
  name: 'schema',
  verifies: 'a UNIQUE index holding the key column; the key nullable (NULL keys coexist) or NOT NULL with no default; a replayed insert is ignored',
  create: () => new SchemaChecker(),
};
