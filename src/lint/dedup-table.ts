/**
 * Which tables and columns hold dedup state. Room schema JSON says what columns exist; the
 * sources' `@Query` strings say how rows are looked up. A key-like column (room-schema.ts
 * `isKeyColumnName`) is a dedup key when its name is strong (link, guid, key, notificationKey, …),
 * when a query looks the table up by it, or when the table is named like dedup state.
 */
import type { Project } from './model.js';
import { isKeyColumnName } from './room-schema.js';
import type { SqlToken } from './sql.js';
import { fromTables, isExistenceQuery, isKeyword, splitStatements, tokenizeSql, whereColumns } from './sql.js';

/** Key names strong enough on their own; a `url` column is a dedup key only with more evidence. */
const STRONG_KEY = /^(link|guid|key|notification_?key|dedup_?key|unique_?key|item_?key|item_?link)$/i;
/** Table names of dedup state: delivered notifications, seen items, queues of captured events. */
const DEDUP_TABLE = /notif|seen|dedup|deliver|processed|handled|history|queue|unmatched|item|entr|article|post|news|alert|event|transaction/i;

export interface Lookups {
  /** `table.column` pairs some `@Query` compares for equality. */
  readonly looked: Set<string>;
  /** Per table (lower case): the columns an existence query (`EXISTS`, `COUNT`, a `…Exists` function) matches on, and the function. */
  readonly existence: Map<string, { columns: string[]; fn: string }>;
  /** Per `table.column` (lower case): the table's other columns the same lookup compares (`url` with `manga_id`). */
  readonly together: Map<string, string[]>;
}

/** What the Room `@Query` functions in the sources look rows up by (`SELECT … FROM t WHERE col = :x`). */
export function readLookups(project: Project): Lookups {
  const looked = new Set<string>();
  const existence = new Map<string, { columns: string[]; fn: string }>();
  const together = new Map<string, string[]>();
  const read = (fnName: string, stmt: readonly SqlToken[]): void => {
    if (!isKeyword(stmt[0], 'SELECT')) return;
    const tables = fromTables(stmt);
    const cols = whereColumns(stmt);
    for (const c of cols) {
      for (const t of c.table !== undefined ? [c.table] : tables) {
        const key = `${t}.${c.column}`.toLowerCase();
        looked.add(key);
        const others = cols.filter((o) => o !== c && (o.table ?? t) === t).map((o) => o.column);
        if (others.length > 0 && !together.has(key)) together.set(key, others);
      }
    }
    if (!isExistenceQuery(stmt) && !/Exists?$|^(is|was|has)\w*(Notified|Seen|Known)/i.test(fnName)) return;
    const main = tables[0];
    if (main === undefined) return;
    const own = cols.filter((c) => c.table === undefined || c.table.toLowerCase() === main.toLowerCase()).map((c) => c.column);
    if (own.length > 0 && !existence.has(main.toLowerCase())) existence.set(main.toLowerCase(), { columns: own, fn: fnName });
  };
  for (const file of project.files) {
    for (const fn of file.decls.functions) {
      for (const ann of fn.annotations) {
        if (ann.name !== 'Query') continue;
        for (const sql of ann.strings) for (const stmt of splitStatements(tokenizeSql(sql))) read(fn.name, stmt);
      }
    }
  }
  // SQLDelight: a labelled query is the function generated for it (`isSeen:` → `seenQueries.isSeen(link)`)
  for (const q of project.sqlQueries) read(q.name, q.stmt);
  return { looked, existence, together };
}

/** True when `table.column` is treated as a dedup key. */
export function isDedupKeyCandidate(table: string, column: string, lookups: Lookups): boolean {
  if (!isKeyColumnName(column)) return false;
  return lookups.looked.has(`${table}.${column}`.toLowerCase()) || STRONG_KEY.test(column) || DEDUP_TABLE.test(table);
}
