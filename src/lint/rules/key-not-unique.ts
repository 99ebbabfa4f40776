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
import { annotationsBefore } from '../declarations.js';
import type { Project, RuleOutput } from '../model.js';
import type { Range } from '../syntax.js';
import { callOpenParen, isCallAt, splitArgs } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';
import { RuleId } from '../model.js';
import type { RoomSchema, SchemaField } from '../room-schema.js';
import { isKeyColumnName, keyColumnRank } from '../room-schema.js';
import { isDedupKeyCandidate, readLookups } from '../dedup-table.js';

const RULE = RuleId.KeyNotUnique;

/**
 * Where the sources fill the primary key column of `table` with `UUID.randomUUID()`: the entity's
 * default value (`@PrimaryKey val id: String = UUID.randomUUID().toString()`, a Java field
 * initializer) or an argument at a construction site. Returns `file:line`, or undefined.
 */
function randomUuidKey(project: Project, table: string, column: string): string | undefined {
  for (const file of project.files) {
    for (const cls of file.decls.classes) {
      const ann = annotationsBefore(file, cls.index).find((a) => a.name === 'Entity');
      if (!ann) continue;
      let tableName = cls.name;
      for (let k = ann.index; k < cls.index; k++) {
        const v = file.tokens[k + 2];
        if (isIdent(file.tokens[k], 'tableName') && isOp(file.tokens[k + 1], '=') && v?.kind === TokenKind.String) tableName = v.value;
      }
      if (tableName !== table) continue;
      const isColumn = (name: string, annotations: readonly { name: string; strings: readonly string[] }[]): boolean =>
        name === column || annotations.some((a) => a.name === 'ColumnInfo' && a.strings.includes(column));
      const uuidIn = (r: Range): boolean => {
        for (let k = r.start; k <= r.end; k++) if (isIdent(file.tokens[k], 'randomUUID')) return true;
        return false;
      };
      // Kotlin primary constructor parameter with a default
      const index = cls.primaryParams.findIndex((p) => isColumn(p.name, p.annotations));
      const param = cls.primaryParams[index];
      if (param?.defaultValue && uuidIn(param.defaultValue)) return `${file.path}:${(file.tokens[param.index] as Token).line}`;
      // a field initializer (Kotlin body property, Java field)
      for (const v of project.values) {
        if (v.file !== file || v.owner !== cls || !isColumn(v.name, annotationsBefore(file, v.nameIndex - 1))) continue;
        if (uuidIn(v.init)) return `${file.path}:${(file.tokens[v.nameIndex] as Token).line}`;
      }
      // construction sites passing a random UUID for the key
      if (param) {
        for (const caller of project.files) {
          for (let k = 0; k < caller.tokens.length; k++) {
            if (!isIdent(caller.tokens[k], cls.name) || !isCallAt(caller, k)) continue;
            const open = callOpenParen(caller, k);
            const args = splitArgs(caller, open);
            const arg = args.find((a) => a.name === param.name) ?? (args.some((a) => a.name !== undefined) ? undefined : args[index]);
            if (!arg) continue;
            for (let m = arg.start; m <= arg.end; m++) if (isIdent(caller.tokens[m], 'randomUUID')) return `${caller.path}:${(caller.tokens[m] as Token).line}`;
          }
        }
      }
    }
  }
  return undefined;
}

/** True when another table of the schema keeps an identity column (link, guid, key, …) unique. */
function durableElsewhere(schema: RoomSchema, entity: RoomSchema['entities'][number]): boolean {
  return schema.entities.some((o) => o !== entity && o.fields.some((f) => isKeyColumnName(f.columnName) &&
    ((o.primaryKey.columnNames.length === 1 && o.primaryKey.columnNames[0] === f.columnName) || o.indices.some((ix) => ix.unique && ix.columnNames.includes(f.columnName)))));
}

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
      // a primary key (also a composite one) is a unique index over its columns
      const uniqueOn = (col: string): boolean => pk.includes(col) || e.indices.some((ix) => ix.unique && ix.columnNames.includes(col));
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
        // a natural primary key identifies the row, unless the app fills it with a random UUID: that identifies nothing across fetches
        // (when no other table of the database holds an identity column uniquely: then that table is the dedup guarantee)
        if (pk.length === 1 && !e.primaryKey.autoGenerate && !isKeyColumnName(pk[0] as string) &&
          (durableElsewhere(schema, e) || randomUuidKey(project, e.tableName, pk[0] as string) === undefined)) continue;
        // a natural composite primary key (`accountId, timelineId, kind` of a paging remote-key table): the key column is a value of that row
        if (pk.length > 1 && !e.primaryKey.autoGenerate && !pk.some((c) => isKeyColumnName(c))) continue;
        if (keys.some((k) => uniqueOn(k.columnName))) continue;
        key = keys[0];
      }
      if (!key) continue;
      const col = key.columnName;
      // the lookup compares the key with other columns (`url` within a `manga_id`): the index covers them too
      const cols = [...(lookups.together.get(`${e.tableName}.${col}`.toLowerCase()) ?? []).filter((c) => e.fields.some((f) => f.columnName === c)), col];
      const plain = e.indices.find((ix) => ix.columnNames.includes(col));
      const uuid = pk.length === 1 && !e.primaryKey.autoGenerate ? randomUuidKey(project, e.tableName, pk[0] as string) : undefined;
      findings.push({
        file: schema.path,
        line: key.line,
        column: key.column,
        rule: RULE,
        message:
          `dedup key \`${e.tableName}.${col}\`${evidence} has no UNIQUE index ${schema.sqldelight ? 'in the SQLDelight schema' : `in schema version ${schema.version}`}${plain ? ` (\`${plain.name}\` is not unique)` : ''}` +
          `${uuid ? ` and the primary key \`${pk[0] as string}\` is a random UUID (${uuid}), so it identifies nothing across fetches` : ''}: ` +
          'a replay after process death or two overlapping runs insert the same item twice and nothing rejects the second row; ' +
          (schema.sqldelight
            ? `add CREATE UNIQUE INDEX ${cols.join('_')}_unique ON ${e.tableName}(${cols.join(', ')}) (and a .sqm migration creating it) and insert with INSERT OR IGNORE`
            : `declare Index(value = [${cols.map((c) => `"${c}"`).join(', ')}], unique = true) and insert with OnConflictStrategy.IGNORE`),
      });
    }
  }
  return { findings, unresolved: [] };
}
