/**
 * Just enough of SQLite's lexical grammar (https://www.sqlite.org/lang_keywords.html: "…",
 * `…`, […] quoted identifiers; '…' strings; :name, ?, ?NNN, @name, $name parameters) to read
 * the SQL an app hands to Room: `@Query` strings and `execSQL` migration statements.
 */

export const SqlKind = { Word: 'word', String: 'string', Number: 'number', Param: 'param', Punct: 'punct' } as const;
export type SqlKind = (typeof SqlKind)[keyof typeof SqlKind];

export interface SqlToken {
  readonly kind: SqlKind;
  /** Words and quoted identifiers: the identifier (unquoted); keywords keep their case. */
  readonly value: string;
  /** True for quoted identifiers: never a keyword. */
  readonly quoted: boolean;
  /** Offset of the token's first character in the SQL text (for a file's line numbers). */
  readonly offset: number;
}

export function tokenizeSql(sql: string): SqlToken[] {
  const out: SqlToken[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (sql.startsWith('--', i)) {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (sql.startsWith('/*', i)) {
      const e = sql.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      continue;
    }
    if (c === "'") {
      let j = i + 1;
      let v = '';
      while (j < n) {
        if (sql[j] === "'" && sql[j + 1] === "'") {
          v += "'";
          j += 2;
          continue;
        }
        if (sql[j] === "'") break;
        v += sql[j];
        j++;
      }
      out.push({ kind: SqlKind.String, value: v, quoted: false, offset: i });
      i = j + 1;
      continue;
    }
    if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      const j = sql.indexOf(close, i + 1);
      const e = j < 0 ? n : j;
      out.push({ kind: SqlKind.Word, value: sql.slice(i + 1, e), quoted: true, offset: i });
      i = e + 1;
      continue;
    }
    if ((c === ':' || c === '@' || c === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(sql[j] as string)) j++;
      out.push({ kind: SqlKind.Param, value: sql.slice(i, j), quoted: false, offset: i });
      i = j;
      continue;
    }
    if (c === '?') {
      let j = i + 1;
      while (j < n && /[0-9]/.test(sql[j] as string)) j++;
      out.push({ kind: SqlKind.Param, value: sql.slice(i, j), quoted: false, offset: i });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i;
      while (j < n && /[0-9.xXa-fA-F]/.test(sql[j] as string)) j++;
      out.push({ kind: SqlKind.Number, value: sql.slice(i, j), quoted: false, offset: i });
      i = j;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_$]/.test(sql[j] as string)) j++;
      out.push({ kind: SqlKind.Word, value: sql.slice(i, j), quoted: false, offset: i });
      i = j;
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (['<=', '>=', '<>', '!=', '==', '||'].includes(two)) {
      out.push({ kind: SqlKind.Punct, value: two, quoted: false, offset: i });
      i += 2;
      continue;
    }
    out.push({ kind: SqlKind.Punct, value: c, quoted: false, offset: i });
    i++;
  }
  return out;
}

export function isKeyword(t: SqlToken | undefined, word: string): boolean {
  return t !== undefined && t.kind === SqlKind.Word && !t.quoted && t.value.toUpperCase() === word;
}

/** Splits a token list into statements at `;`. */
export function splitStatements(tokens: readonly SqlToken[]): SqlToken[][] {
  const out: SqlToken[][] = [[]];
  for (const t of tokens) {
    if (t.kind === SqlKind.Punct && t.value === ';') out.push([]);
    else (out[out.length - 1] as SqlToken[]).push(t);
  }
  return out.filter((s) => s.length > 0);
}

export interface WhereColumn {
  /** The table qualifier when written (`Item.remote_id`). */
  readonly table: string | undefined;
  readonly column: string;
}

/** Columns matched for equality in the WHERE clause of a statement: `col = :p`, `col == ?`, `t.col IN (…)` (not LIKE, <, >). */
export function whereColumns(stmt: readonly SqlToken[]): WhereColumn[] {
  const w = stmt.findIndex((t) => isKeyword(t, 'WHERE'));
  if (w < 0) return [];
  const cols: WhereColumn[] = [];
  for (let i = w + 1; i < stmt.length; i++) {
    const t = stmt[i] as SqlToken;
    if (t.kind !== SqlKind.Word || (!t.quoted && /^(AND|OR|NOT|NULL|IS|IN|LIKE|SELECT|FROM|WHERE|LIMIT|ORDER|BY|GROUP|EXISTS|LOWER|UPPER|TRIM)$/i.test(t.value))) continue;
    if (stmt[i + 1]?.kind === SqlKind.Punct && stmt[i + 1]?.value === '.') continue; // a qualifier
    const next = stmt[i + 1];
    const isCompare = next !== undefined && ((next.kind === SqlKind.Punct && ['=', '=='].includes(next.value)) || isKeyword(next, 'IN'));
    if (!isCompare) continue;
    const dot = stmt[i - 1];
    const qualifier = dot?.kind === SqlKind.Punct && dot.value === '.' && stmt[i - 2]?.kind === SqlKind.Word ? (stmt[i - 2] as SqlToken).value : undefined;
    cols.push({ table: qualifier, column: t.value });
  }
  return cols;
}

/** True when a statement asks whether a row exists: `SELECT EXISTS(…)`. */
export function isExistenceQuery(stmt: readonly SqlToken[]): boolean {
  return stmt.some((t) => isKeyword(t, 'EXISTS'));
}

/** Tables named after FROM / JOIN / UPDATE / INTO in a statement. */
export function fromTables(stmt: readonly SqlToken[]): string[] {
  const out: string[] = [];
  stmt.forEach((t, i) => {
    if (isKeyword(t, 'FROM') || isKeyword(t, 'JOIN') || isKeyword(t, 'UPDATE') || isKeyword(t, 'INTO')) {
      const n = stmt[i + 1];
      if (n?.kind === SqlKind.Word && (n.quoted || !/^(SELECT|OR)$/i.test(n.value))) out.push(n.value);
    }
  });
  return out;
}
