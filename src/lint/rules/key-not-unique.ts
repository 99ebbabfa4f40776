/**
 * Rule `key-not-unique`: the dedup table's key column has no UNIQUE index (latest exported
 * Room schema of each database).
 *
 * seeds/003 (ADR-0073): "Transactions were already protected by a unique notificationKey; the
 * queue was not" — without the index a replay inserts a second row for the same item, and an
 * `OnConflictStrategy.IGNORE` insert cannot report the duplicate (it returns -1 only on a
 * constraint conflict). The dedup table is an entity with a key-like column (link, url, guid,
 * key, notificationKey, …). Tables keyed by a natural primary key of their own (a non
 * auto-generated single-column primary key, e.g. `pending_receipts.operation_id`) are not dedup
 * tables for that column. A UNIQUE index whose columns include the key (per-feed uniqueness)
 * or a primary key on it counts as unique.
 */
import type { Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import type { RoomSchema } from '../room-schema.js';
import { isKeyColumnName, keyColumnRank } from '../room-schema.js';

const RULE = RuleId.KeyNotUnique;

/** The newest schema version of each database directory. */
export function latestSchemas(schemas: readonly RoomSchema[]): RoomSchema[] {
  const byDir = new Map<string, RoomSchema>();
  for (const s of schemas) {
    const cur = byDir.get(s.dir);
    if (!cur || s.version > cur.version) byDir.set(s.dir, s);
  }
  return [...byDir.values()];
}

export function checkKeyNotUnique(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  for (const schema of latestSchemas(project.schemas)) {
    for (const e of schema.entities) {
      const keys = e.fields.filter((f) => isKeyColumnName(f.columnName)).sort((a, b) => keyColumnRank(a.columnName) - keyColumnRank(b.columnName));
      if (keys.length === 0) continue;
      const pk = e.primaryKey.columnNames;
      if (pk.length === 1 && !e.primaryKey.autoGenerate && !isKeyColumnName(pk[0] as string)) continue;
      const uniqueOn = (col: string): boolean =>
        (pk.length === 1 && pk[0] === col) || e.indices.some((ix) => ix.unique && ix.columnNames.includes(col));
      if (keys.some((k) => uniqueOn(k.columnName))) continue;
      const key = keys[0] as (typeof keys)[number];
      const plain = e.indices.find((ix) => ix.columnNames.includes(key.columnName));
      findings.push({
        file: schema.path,
        line: key.line,
        column: key.column,
        rule: RULE,
        message:
          `dedup key \`${e.tableName}.${key.columnName}\` has no UNIQUE index in schema version ${schema.version}${plain ? ` (\`${plain.name}\` is not unique)` : ''}: ` +
          'a replay after process death or two overlapping runs insert the same item twice and nothing rejects the second row; ' +
          `declare Index(value = ["${key.columnName}"], unique = true) and insert with OnConflictStrategy.IGNORE`,
      });
    }
  }
  return { findings, unresolved: [] };
}
