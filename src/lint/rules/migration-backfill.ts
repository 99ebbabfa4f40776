/**
 * Rule `migration-backfill`: a migration adds a dedup key column as NOT NULL, or fills it in
 * for existing rows.
 *
 * docs/sources/003 (ADR-0073): "Rows queued before this decision have no stored post time, and
 * inventing one would make a replay of an old notification collide with an unrelated row …
 * Nullable is load-bearing: SQLite permits repeated NULLs in a unique index, so every pre-v9
 * row keeps a NULL key … MIGRATION_8_9 adds the column and creates the unique index without
 * back-filling." Checked two ways:
 * - consecutive exported Room schema versions: a key column new in version N+1 of an existing
 *   table with `"notNull": true`;
 * - Migration code: `object : Migration(8, 9)`, `Migration(8, 9) { db -> … }`, Java
 *   `new Migration(8, 9) {…}`, and their `execSQL(…)` statements (the SQL is evaluated as a
 *   constant expression): `ALTER TABLE t ADD COLUMN key … NOT NULL`, `UPDATE t SET key = …`,
 *   and `INSERT INTO t (…, key, …) SELECT …` that puts a value other than NULL or the same
 *   column into the key.
 */
import type { ClassDecl } from '../declarations.js';
import type { ParsedFile, Project, RuleOutput, UnresolvedNote } from '../model.js';
import { RuleId } from '../model.js';
import { callsIn } from '../project.js';
import type { RoomSchema } from '../room-schema.js';
import { isKeyColumnName } from '../room-schema.js';
import type { Lookups } from '../dedup-table.js';
import { isDedupKeyCandidate, readLookups } from '../dedup-table.js';
import type { SqlToken } from '../sql.js';
import { SqlKind, isKeyword, splitStatements, tokenizeSql } from '../sql.js';
import type { Range } from '../syntax.js';
import { callOpenParen, splitArgs, trailingLambda } from '../syntax.js';
import type { Token } from '../tokenizer.js';

const RULE = RuleId.MigrationBackfill;

interface MigrationCode {
  readonly file: ParsedFile;
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly body: Range;
}

function versions(project: Project, file: ParsedFile, open: number): { from: number | undefined; to: number | undefined } {
  const args = splitArgs(file, open);
  const num = (i: number): number | undefined => {
    const a = args[i];
    if (!a) return undefined;
    const v = project.resolver.evaluate(file, a).value;
    return v?.kind === 'number' ? v.value : undefined;
  };
  return { from: num(0), to: num(1) };
}

function findMigrations(project: Project): MigrationCode[] {
  const out: MigrationCode[] = [];
  for (const file of project.files) {
    const classes: ClassDecl[] = file.decls.classes.filter((c) => c.supertypes.includes('Migration') && c.body !== undefined);
    for (const c of classes) {
      const v = c.superCallOpen >= 0 ? versions(project, file, c.superCallOpen) : { from: undefined, to: undefined };
      out.push({ file, ...v, body: c.body as Range });
    }
    // Room 2.6+: `Migration(8, 9) { db -> db.execSQL(…) }`
    for (const i of callsIn(file, 'Migration')) {
      const lambda = trailingLambda(file, i);
      const open = callOpenParen(file, i);
      if (lambda < 0 || open < 0) continue;
      if (classes.some((c) => c.superCallOpen === open)) continue;
      out.push({ file, ...versions(project, file, open), body: { start: lambda, end: file.match[lambda] ?? lambda } });
    }
  }
  return out;
}

function ident(t: SqlToken | undefined): string | undefined {
  return t?.kind === SqlKind.Word ? t.value : undefined;
}

interface SqlProblem {
  readonly column: string;
  readonly table: string;
  readonly what: string;
}

/** Problems in one SQL statement. */
export function sqlBackfillProblems(stmt: readonly SqlToken[]): SqlProblem[] {
  const out: SqlProblem[] = [];
  // ALTER TABLE t ADD [COLUMN] c type … [NOT NULL]
  if (isKeyword(stmt[0], 'ALTER') && isKeyword(stmt[1], 'TABLE')) {
    const table = ident(stmt[2]) ?? '?';
    let k = 3;
    if (!isKeyword(stmt[k], 'ADD')) return out;
    k++;
    if (isKeyword(stmt[k], 'COLUMN')) k++;
    const column = ident(stmt[k]);
    if (column === undefined || !isKeyColumnName(column)) return out;
    const rest = stmt.slice(k + 1);
    const notNull = rest.some((t, i) => isKeyword(t, 'NOT') && isKeyword(rest[i + 1], 'NULL'));
    const def = rest.findIndex((t) => isKeyword(t, 'DEFAULT'));
    if (notNull) {
      const defText = def >= 0 ? ` DEFAULT ${rest[def + 1]?.kind === SqlKind.String ? `'${rest[def + 1]?.value}'` : (rest[def + 1]?.value ?? '')}` : '';
      out.push({ column, table, what: `adds it as NOT NULL${defText}` });
    }
    return out;
  }
  // UPDATE t SET c = expr, …
  if (isKeyword(stmt[0], 'UPDATE')) {
    let k = 1;
    if (isKeyword(stmt[k], 'OR')) k += 2;
    const table = ident(stmt[k]) ?? '?';
    const set = stmt.findIndex((t) => isKeyword(t, 'SET'));
    if (set < 0) return out;
    for (let i = set + 1; i < stmt.length; i++) {
      const t = stmt[i] as SqlToken;
      if (isKeyword(t, 'WHERE')) break;
      const next = stmt[i + 1];
      if (t.kind === SqlKind.Word && next?.kind === SqlKind.Punct && next.value === '=' && isKeyColumnName(t.value)) {
        if (!isKeyword(stmt[i + 2], 'NULL')) out.push({ column: t.value, table, what: 'fills it in for existing rows (UPDATE … SET)' });
      }
    }
    return out;
  }
  // INSERT INTO t (c1, …) SELECT e1, … FROM …
  if (isKeyword(stmt[0], 'INSERT')) {
    const into = stmt.findIndex((t) => isKeyword(t, 'INTO'));
    const table = ident(stmt[into + 1]) ?? '?';
    const lp = into + 2;
    if (stmt[lp]?.value !== '(') return out;
    const cols: string[] = [];
    let k = lp + 1;
    for (; k < stmt.length && stmt[k]?.value !== ')'; k++) {
      const t = stmt[k] as SqlToken;
      if (t.kind === SqlKind.Word) cols.push(t.value);
    }
    if (!isKeyword(stmt[k + 1], 'SELECT')) return out;
    // select expressions, split at top-level commas until FROM
    const exprs: SqlToken[][] = [[]];
    let depth = 0;
    for (let i = k + 2; i < stmt.length; i++) {
      const t = stmt[i] as SqlToken;
      if (depth === 0 && isKeyword(t, 'FROM')) break;
      if (t.value === '(') depth++;
      if (t.value === ')') depth--;
      if (depth === 0 && t.kind === SqlKind.Punct && t.value === ',') exprs.push([]);
      else (exprs[exprs.length - 1] as SqlToken[]).push(t);
    }
    cols.forEach((c, i) => {
      if (!isKeyColumnName(c)) return;
      const e = (exprs[i] ?? []).filter((t) => !(isKeyword(t, 'AS')));
      const copies = e.length === 1 && e[0]?.kind === SqlKind.Word && e[0].value === c;
      const isNull = e.length === 1 && isKeyword(e[0], 'NULL');
      const qualifiedCopy = e.length === 3 && e[1]?.value === '.' && e[2]?.value === c;
      if (!copies && !isNull && !qualifiedCopy && e.length > 0) out.push({ column: c, table, what: 'fills it in for existing rows (INSERT … SELECT)' });
    });
  }
  return out;
}

function schemaProblems(schemas: readonly RoomSchema[], lookups: Lookups): RuleOutput['findings'] {
  const findings: RuleOutput['findings'] = [];
  const byDir = new Map<string, RoomSchema[]>();
  for (const s of schemas) byDir.set(s.dir, [...(byDir.get(s.dir) ?? []), s]);
  for (const list of byDir.values()) {
    const sorted = list.slice().sort((a, b) => a.version - b.version);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1] as RoomSchema;
      const next = sorted[i] as RoomSchema;
      for (const e of next.entities) {
        const old = prev.entities.find((x) => x.tableName === e.tableName);
        if (!old) continue;
        for (const f of e.fields) {
          if (!f.notNull || !isDedupKeyCandidate(e.tableName, f.columnName, lookups) || old.fields.some((x) => x.columnName === f.columnName)) continue;
          findings.push({
            file: next.path,
            line: f.line,
            column: f.column,
            rule: RULE,
            message:
              `key column \`${e.tableName}.${f.columnName}\` is new in version ${next.version} and NOT NULL: the version ${prev.version} rows have no key, so the migration has to invent one, ` +
              'and an invented key makes a replay of an old item collide with an unrelated row; add it nullable (legacy rows keep NULL, which a UNIQUE index allows repeatedly)',
          });
        }
      }
    }
  }
  return findings;
}

export function checkMigrationBackfill(project: Project): RuleOutput {
  const lookups = readLookups(project);
  const findings = schemaProblems(project.schemas, lookups);
  const unresolved: UnresolvedNote[] = [];
  for (const m of findMigrations(project)) {
    const label = m.from !== undefined && m.to !== undefined ? `migration ${m.from}→${m.to}` : 'a migration';
    for (const i of callsIn(m.file, 'execSQL', m.body)) {
      const open = callOpenParen(m.file, i);
      const arg = splitArgs(m.file, open)[0];
      if (!arg) continue;
      const t = m.file.tokens[i] as Token;
      const ev = project.resolver.evaluate(m.file, arg);
      if (ev.value?.kind !== 'string') {
        unresolved.push({ file: m.file.path, line: t.line, rule: RULE, message: `SQL of ${label} could not be evaluated: ${ev.unresolved.join('; ')}` });
        continue;
      }
      for (const stmt of splitStatements(tokenizeSql(ev.value.value))) {
        for (const p of sqlBackfillProblems(stmt).filter((x) => isDedupKeyCandidate(x.table.replace(/^_?new_|_new$/g, ''), x.column, lookups))) {
          findings.push({
            file: m.file.path,
            line: t.line,
            column: t.column,
            rule: RULE,
            message: backfillMessage(label, p),
          });
        }
      }
    }
  }
  // SQLDelight: `N.sqm` upgrades a version N database to N + 1 (sqldelight.ts)
  for (const f of project.sqlFiles) {
    if (f.migrationFrom === undefined) continue;
    const label = `migration ${f.migrationFrom}→${f.migrationFrom + 1}`;
    for (const st of f.statements) {
      for (const p of sqlBackfillProblems(st.tokens).filter((x) => isDedupKeyCandidate(x.table.replace(/^_?new_|_new$/g, ''), x.column, lookups))) {
        const at = st.tokens[0] as SqlToken;
        findings.push({ file: f.path, line: st.line, column: f.columnAt(at.offset), rule: RULE, message: backfillMessage(label, p) });
      }
    }
  }
  return { findings, unresolved };
}

function backfillMessage(label: string, p: SqlProblem): string {
  return `${label} ${p.what.replace(/^adds it/, `adds key column \`${p.table}.${p.column}\``).replace(/^fills it in/, `fills key column \`${p.table}.${p.column}\` in`)}: ` +
    'legacy rows have no real key, and an invented one makes a replay of an old item collide with an unrelated row; add the column nullable, create the UNIQUE index, and do not back-fill';
}
