/**
 * Rule `key-not-unique`: the dedup table's key column has no UNIQUE index (latest exported
 * Room schema of each database).
 *
 * docs/sources/003 (ADR-0073): "Transactions were already protected by a unique notificationKey; the
 * queue was not" — without the index a replay inserts a second row for the same item, and an
 * `OnConflictStrategy.IGNORE` insert cannot report the duplicate (it returns -1 only on a
 * constraint conflict). The dedup table is an entity with a key-like column (link, url, guid,
 * key, notificationKey, …). Tables keyed by a natural primary key of their own (a non
 * auto-generated single-column primary key, e.g. `pending_receipts.operation_id`) are not dedup
 * tables for that column. A UNIQUE index whose columns include the key (per-feed uniqueness)
 * or a primary key on it counts as unique. When a DAO existence query (`SELECT EXISTS(… WHERE
 * col = :x)`, `COUNT(…)`, a function named `…Exists`) looks the table up, its columns are the
 * dedup key, whatever their names.
 */
import type { Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import type { RoomSchema, SchemaField } from '../room-schema.js';
import { isKeyColumnName, keyColumnRank } from '../room-schema.js';
import { isDedupKeyCandidate, readLookups } from '../dedup-table.js';

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
  const lookups = readLookups(project);
  const { existence } = lookups;
  for (const schema of latestSchemas(project.schemas)) {
    for (const e of schema.entities) {
      const pk = e.primaryKey.columnNames;
      const uniqueOn = (col: string): boolean =>
        (pk.length === 1 && pk[0] === col) || e.indices.some((ix) => ix.unique && ix.columnNames.includes(col));
      // a table already keyed uniquely on one identity column (guid, link, …) has its durable guarantee
      if (e.fields.some((f) => isKeyColumnName(f.columnName) && uniqueOn(f.columnName))) continue;
      const exists = existence.get(e.tableName.toLowerCase());
      let key: SchemaField | undefined;
      let evidence = '';
      if (exists) {
        // The sources say how rows are looked up before an insert: the key-like columns of that lookup are the dedup key.
        // A lookup on other columns (a server id with an account) is a dedup this rule does not judge.
        const fields = exists.columns
          .filter((c) => isKeyColumnName(c))
          .map((c) => e.fields.find((f) => f.columnName === c))
          .filter((f): f is SchemaField => f !== undefined);
        if (fields.length === 0 || fields.some((f) => uniqueOn(f.columnName))) continue;
        key = fields.slice().sort((a, b) => keyColumnRank(a.columnName) - keyColumnRank(b.columnName))[0];
        evidence = ` (the dedup check ${exists.fn}() matches on it)`;
      } else {
        const keys = e.fields
          .filter((f) => isDedupKeyCandidate(e.tableName, f.columnName, lookups))
          .sort((a, b) => keyColumnRank(a.columnName) - keyColumnRank(b.columnName));
        if (keys.length === 0) continue;
        if (pk.length === 1 && !e.primaryKey.autoGenerate && !isKeyColumnName(pk[0] as string)) continue;
        if (keys.some((k) => uniqueOn(k.columnName))) continue;
        key = keys[0];
      }
      if (!key) continue;
      const col = key.columnName;
      const plain = e.indices.find((ix) => ix.columnNames.includes(col));
      findings.push({
        file: schema.path,
        line: key.line,
        column: key.column,
        rule: RULE,
        message:
          `dedup key \`${e.tableName}.${col}\`${evidence} has no UNIQUE index in schema version ${schema.version}${plain ? ` (\`${plain.name}\` is not unique)` : ''}: ` +
          'a replay after process death or two overlapping runs insert the same item twice and nothing rejects the second row; ' +
          `declare Index(value = ["${col}"], unique = true) and insert with OnConflictStrategy.IGNORE`,
      });
    }
  }
  return { findings, unresolved: [] };
}
