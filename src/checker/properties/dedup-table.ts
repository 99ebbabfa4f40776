/**
 * The dedup table as read from pulled copies of the app's database:
 *
 * - `rows` (seed 003: "a process restart … queued a second row"): no key of an item served in
 *   the segment has two rows (the last `rows` read decides);
 * - `schema` (seed 003: "a nullable notificationKey … with a unique index on it … Nullable is
 *   load-bearing"): a UNIQUE, non-partial index on exactly the key column; the column nullable;
 *   two rows with a NULL key both stored; an existing key inserted again adds no row (the probe
 *   inserts are made on a throw-away copy and recorded in the `schema` event).
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
    const unique = s.indexes.filter((ix) => ix.unique && !ix.partial && ix.columns.length === 1 && ix.columns[0] === s.keyColumn);
    const indexes = s.indexes.map((ix) => `${ix.name}${ix.unique ? ' (unique)' : ''}${ix.partial ? ' (partial)' : ''} on ${ix.columns.join(', ')}`).join('; ') || 'none';
    if (unique.length === 0) {
      anomalies.push({
        kind: 'no-unique-index',
        item: '',
        detail: `no UNIQUE index on ${s.table}.${s.keyColumn} (indexes: ${indexes}): the database cannot refuse a second row for the same notification`,
      });
    }
    if (key.notnull) {
      anomalies.push({
        kind: 'key-not-nullable',
        item: '',
        detail: `${s.table}.${s.keyColumn} is NOT NULL: legacy rows without an identity cannot coexist (nullable is load-bearing)`,
      });
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
  verifies: 'a UNIQUE index on exactly the nullable key column; NULL keys coexist; a replayed insert is ignored',
  create: () => new SchemaChecker(),
};
