/**
 * SQLDelight sources: `.sq` files (the latest schema's `CREATE TABLE` / `CREATE INDEX`
 * statements and the app's labelled queries, `isSeen:` then `SELECT …;`) and `.sqm` migration
 * files (`<version to upgrade from>.sqm`: 1.sqm migrates a version 1 database to version 2).
 * Both as documented by cashapp/sqldelight, docs/common/migrations.md ("An .sq file always
 * describes how to create the latest schema in an empty database … Migration files are named
 * <version to upgrade from>.sqm") and docs/android_sqlite/index.md (labelled statements).
 *
 * The tables read here are given to the schema rules in the shape of Room's exported schema
 * (room-schema.ts), so `key-not-unique` judges a SQLDelight table as it judges a Room entity.
 */
import type { RoomSchema, SchemaEntity, SchemaField, SchemaIndex } from './room-schema.js';
import type { SqlToken } from './sql.js';
import { SqlKind, isKeyword, splitStatements, tokenizeSql } from './sql.js';

export interface SqlStatement {
  /** The label before the statement (`isSeen:`): the name of the generated query function. */
  readonly label: string | undefined;
  /** The statement's tokens, the label left out. */
  readonly tokens: readonly SqlToken[];
  readonly line: number;
}

export interface SqlDelightFile {
  readonly path: string;
  /** `.sqm`: the version the migration upgrades from (the file name); undefined for `.sq`. */
  readonly migrationFrom: number | undefined;
  readonly statements: readonly SqlStatement[];
  /** Line (1-based) of an offset in the file's text. */
  readonly lineAt: (offset: number) => number;
  readonly columnAt: (offset: number) => number;
}

export function isSqlDelightPath(path: string): boolean {
  return /\.sqm?$/i.test(path);
}

function lineIndex(text: string): { lineAt: (o: number) => number; columnAt: (o: number) => number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const lineOf = (o: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= o) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return { lineAt: (o) => lineOf(o) + 1, columnAt: (o) => o - (starts[lineOf(o)] as number) + 1 };
}

export function parseSqlDelightFile(path: string, text: string): SqlDelightFile {
  const { lineAt, columnAt } = lineIndex(text);
  const statements: SqlStatement[] = [];
  for (const stmt of splitStatements(tokenizeSql(text))) {
    const first = stmt[0] as SqlToken;
    const labelled = first.kind === SqlKind.Word && !first.quoted && stmt[1]?.kind === SqlKind.Punct && stmt[1].value === ':';
    const tokens = labelled ? stmt.slice(2) : stmt;
    if (tokens.length === 0) continue;
    statements.push({ label: labelled ? first.value : undefined, tokens, line: lineAt((tokens[0] as SqlToken).offset) });
  }
  const m = /(?:^|[\\/])(\d+)\.sqm$/i.exec(path);
  return { path, migrationFrom: m ? Number(m[1]) : undefined, statements, lineAt, columnAt };
}

function word(t: SqlToken | undefined): string | undefined {
  return t?.kind === SqlKind.Word ? t.value : undefined;
}

/** The index after `IF NOT EXISTS` when it follows `k`. */
function skipIfNotExists(s: readonly SqlToken[], k: number): number {
  return isKeyword(s[k], 'IF') && isKeyword(s[k + 1], 'NOT') && isKeyword(s[k + 2], 'EXISTS') ? k + 3 : k;
}

/** Splits the tokens between `(` at `open` and its `)` at top-level commas; returns the parts and the index of the `)`. */
function parenParts(s: readonly SqlToken[], open: number): { parts: SqlToken[][]; close: number } {
  const parts: SqlToken[][] = [[]];
  let depth = 0;
  for (let i = open + 1; i < s.length; i++) {
    const t = s[i] as SqlToken;
    if (t.kind === SqlKind.Punct && t.value === '(') depth++;
    if (t.kind === SqlKind.Punct && t.value === ')') {
      if (depth === 0) return { parts: parts.filter((p) => p.length > 0), close: i };
      depth--;
    }
    if (depth === 0 && t.kind === SqlKind.Punct && t.value === ',') parts.push([]);
    else (parts[parts.length - 1] as SqlToken[]).push(t);
  }
  return { parts: parts.filter((p) => p.length > 0), close: s.length };
}

function columnList(part: readonly SqlToken[], from: number): string[] {
  const open = part.findIndex((t, i) => i >= from && t.kind === SqlKind.Punct && t.value === '(');
  if (open < 0) return [];
  return parenParts(part, open).parts.map((p) => word(p[0])).filter((c): c is string => c !== undefined);
}

interface Table {
  readonly entity: { tableName: string; line: number; column: number; fields: SchemaField[]; pk: string[]; autoGenerate: boolean; indices: SchemaIndex[] };
}

/** `CREATE TABLE [IF NOT EXISTS] t (col type constraints…, PRIMARY KEY (…), UNIQUE (…))`. */
function readCreateTable(file: SqlDelightFile, s: readonly SqlToken[]): Table | undefined {
  let k = 1;
  if (isKeyword(s[k], 'TEMP') || isKeyword(s[k], 'TEMPORARY') || isKeyword(s[k], 'VIRTUAL')) return undefined;
  if (!isKeyword(s[k], 'TABLE')) return undefined;
  k = skipIfNotExists(s, k + 1);
  const nameTok = s[k];
  const tableName = word(nameTok);
  if (tableName === undefined || nameTok === undefined) return undefined;
  const open = k + 1;
  if (s[open]?.value !== '(') return undefined;
  const fields: SchemaField[] = [];
  const pk: string[] = [];
  let autoGenerate = false;
  const indices: SchemaIndex[] = [];
  for (const part of parenParts(s, open).parts) {
    const head = part[0] as SqlToken;
    if (isKeyword(head, 'PRIMARY')) {
      pk.push(...columnList(part, 0));
      continue;
    }
    if (isKeyword(head, 'UNIQUE')) {
      indices.push({ name: `UNIQUE (${columnList(part, 0).join(', ')})`, unique: true, columnNames: columnList(part, 0), line: file.lineAt(head.offset) });
      continue;
    }
    if (isKeyword(head, 'CONSTRAINT') || isKeyword(head, 'FOREIGN') || isKeyword(head, 'CHECK')) {
      const p = part.findIndex((t) => isKeyword(t, 'PRIMARY'));
      const u = part.findIndex((t) => isKeyword(t, 'UNIQUE'));
      if (p >= 0) pk.push(...columnList(part, p));
      if (u >= 0) indices.push({ name: `UNIQUE (${columnList(part, u).join(', ')})`, unique: true, columnNames: columnList(part, u), line: file.lineAt(head.offset) });
      continue;
    }
    const name = word(head);
    if (name === undefined) continue;
    const rest = part.slice(1);
    const has = (a: string, b?: string): boolean => rest.some((t, i) => isKeyword(t, a) && (b === undefined || isKeyword(rest[i + 1], b)));
    const affinity = rest[0]?.kind === SqlKind.Word && !rest[0].quoted ? rest[0].value.toUpperCase() : '';
    fields.push({ columnName: name, affinity, notNull: has('NOT', 'NULL') || has('PRIMARY', 'KEY'), line: file.lineAt(head.offset), column: file.columnAt(head.offset) });
    if (has('PRIMARY', 'KEY')) {
      pk.push(name);
      if (has('AUTOINCREMENT') || affinity === 'INTEGER') autoGenerate = true;
    }
    if (has('UNIQUE')) indices.push({ name: `${name} UNIQUE`, unique: true, columnNames: [name], line: file.lineAt(head.offset) });
  }
  return { entity: { tableName, line: file.lineAt(nameTok.offset), column: file.columnAt(nameTok.offset), fields, pk, autoGenerate, indices } };
}

/** `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON t (cols)`. */
function readCreateIndex(file: SqlDelightFile, s: readonly SqlToken[]): { table: string; index: SchemaIndex } | undefined {
  let k = 1;
  const unique = isKeyword(s[k], 'UNIQUE');
  if (unique) k++;
  if (!isKeyword(s[k], 'INDEX')) return undefined;
  k = skipIfNotExists(s, k + 1);
  const name = word(s[k]) ?? '';
  if (!isKeyword(s[k + 1], 'ON')) return undefined;
  const table = word(s[k + 2]);
  if (table === undefined) return undefined;
  return { table, index: { name, unique, columnNames: columnList(s, k + 3), line: file.lineAt((s[0] as SqlToken).offset) } };
}

/**
 * The SQLDelight schema in Room's shape, one schema per file that creates tables: the `.sq`
 * files' tables, or, for tables no `.sq` file creates (a schema derived from migrations), the
 * `.sqm` files' `CREATE TABLE`, each with the indexes any file creates (and no migration drops).
 */
export function sqlDelightSchemas(files: readonly SqlDelightFile[]): RoomSchema[] {
  const tables = new Map<string, { table: Table; path: string }>();
  const indices: Array<{ table: string; index: SchemaIndex }> = [];
  const dropped = new Set<string>();
  const ordered = [...files.filter((f) => f.migrationFrom === undefined), ...files.filter((f) => f.migrationFrom !== undefined).sort((a, b) => (a.migrationFrom as number) - (b.migrationFrom as number))];
  for (const f of ordered) {
    for (const st of f.statements) {
      const s = st.tokens;
      if (isKeyword(s[0], 'CREATE')) {
        const t = readCreateTable(f, s);
        if (t && !tables.has(t.entity.tableName.toLowerCase())) tables.set(t.entity.tableName.toLowerCase(), { table: t, path: f.path });
        const ix = readCreateIndex(f, s);
        if (ix) indices.push(ix);
      } else if (isKeyword(s[0], 'DROP') && isKeyword(s[1], 'INDEX')) {
        const n = word(s[skipIfNotExists(s, 2)]);
        if (n !== undefined && f.migrationFrom !== undefined) dropped.add(n.toLowerCase());
      }
    }
  }
  const versions = files.map((f) => f.migrationFrom).filter((v): v is number => v !== undefined);
  const version = versions.length > 0 ? Math.max(...versions) + 1 : 1;
  const byPath = new Map<string, SchemaEntity[]>();
  for (const { table: { entity: e }, path } of tables.values()) {
    const own = indices.filter((i) => i.table.toLowerCase() === e.tableName.toLowerCase() && !dropped.has(i.index.name.toLowerCase())).map((i) => i.index);
    const list = byPath.get(path) ?? [];
    list.push({ tableName: e.tableName, fields: e.fields, primaryKey: { columnNames: e.pk, autoGenerate: e.autoGenerate }, indices: [...e.indices, ...own], line: e.line, column: e.column });
    byPath.set(path, list);
  }
  return [...byPath].map(([path, entities]) => ({ path, dir: `sqldelight:${path}`, version, entities, sqldelight: true }));
}

export interface SqlDelightQuery {
  readonly name: string;
  readonly stmt: readonly SqlToken[];
  /** Parameter names in the order of the generated function's parameters: `:name`, or the column a `?` is compared with. */
  readonly params: readonly string[];
  readonly path: string;
  readonly line: number;
}

/** The labelled queries of the `.sq` files: the functions SQLDelight generates on `<File>Queries`. */
export function sqlDelightQueries(files: readonly SqlDelightFile[]): SqlDelightQuery[] {
  const out: SqlDelightQuery[] = [];
  for (const f of files) {
    if (f.migrationFrom !== undefined) continue;
    for (const st of f.statements) {
      if (st.label === undefined) continue;
      const params: string[] = [];
      st.tokens.forEach((t, i) => {
        if (t.kind !== SqlKind.Param) return;
        if (t.value.startsWith('?')) {
          const col = [st.tokens[i - 2], st.tokens[i + 2]].find((x) => x?.kind === SqlKind.Word && !x.quoted && !/^(AND|OR|WHERE|SET|VALUES)$/i.test(x.value));
          params.push(col?.value ?? `value${params.length}`);
        } else if (!params.includes(t.value.slice(1))) params.push(t.value.slice(1));
      });
      out.push({ name: st.label, stmt: st.tokens, params, path: f.path, line: st.line });
    }
  }
  return out;
}
