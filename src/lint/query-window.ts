/**
 * A look-back window that is a query parameter: the time `now − C` bound to a parameter that a
 * Room `@Query` or a SQLDelight `.sq` query compares with a publication-time column
 * (`published_at > :postsAfter`). Twine writes its notifier's window this way
 * (msasikanth/twine 1b9565dbb0122d19e3e99424cda6f04402841f81,
 * core/data/src/commonMain/kotlin/dev/sasikanth/rss/reader/data/sync/utils/NewArticleNotifier.kt:62
 * `val postsAfter = now.minus(24.hours)`, passed through RssRepository to Post.sq:134
 * `post.postDate > :postsAfter`).
 */
import { toMillis } from './constants.js';
import type { FunctionRef, ParsedFile, Project } from './model.js';
import { readsNow } from './project.js';
import { resolverOf } from './resolve.js';
import type { SqlToken } from './sql.js';
import { SqlKind, splitStatements, tokenizeSql } from './sql.js';
import type { Range } from './syntax.js';
import { callOpenParen, isCallAt, rangeText, splitArgs, splitTopLevel, unwrapParens } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

const PUBLICATION = /(publish\w*|pub_?date|date|updated|created|posted|timestamp|released?|time|at|millis|ms|epoch)$/i;
const NOT_PUBLICATION = /refresh|sync|fetch|attempt|play|download|access|check|login|backup|export|clean|modified|launch|start|open|install|boot|interval/i;

/** True when a name is an item's publication time (`publishedAt`, `pub_date`, `postDate`), not another timestamp. */
export function isPublicationTimeName(name: string): boolean {
  return PUBLICATION.test(name) && !NOT_PUBLICATION.test(name);
}

/** The parameters a statement compares as a lower bound of a publication-time column: `col > :p`, `col >= ?`, `:p < col`. */
function lowerBoundParams(stmt: readonly SqlToken[], positional: readonly string[]): Set<string> {
  const out = new Set<string>();
  let qIndex = 0;
  stmt.forEach((t, i) => {
    if (t.kind !== SqlKind.Param) return;
    const name = t.value.startsWith('?') ? positional[qIndex++] : t.value.slice(1);
    if (name === undefined) return;
    const before = stmt[i - 1];
    const after = stmt[i + 1];
    const colBefore = stmt[i - 2];
    const colAfter = stmt[i + 2];
    const isCol = (c: SqlToken | undefined): boolean => c?.kind === SqlKind.Word && isPublicationTimeName(c.value);
    if (before?.kind === SqlKind.Punct && (before.value === '>' || before.value === '>=') && isCol(colBefore)) out.add(name);
    if (after?.kind === SqlKind.Punct && (after.value === '<' || after.value === '<=') && isCol(colAfter)) out.add(name);
  });
  return out;
}

interface WindowedQuery {
  /** The generated or declared function's parameters, in order. */
  readonly params: readonly string[];
  readonly window: ReadonlySet<string>;
  readonly where: string;
}

const queryCache = new WeakMap<Project, Map<string, WindowedQuery[]>>();

/** Queries with a publication-time lower bound, by function name (Room DAO functions and SQLDelight labels). */
function windowedQueries(project: Project): Map<string, WindowedQuery[]> {
  const cached = queryCache.get(project);
  if (cached) return cached;
  const out = new Map<string, WindowedQuery[]>();
  const add = (name: string, q: WindowedQuery): void => {
    if (q.window.size > 0) out.set(name, [...(out.get(name) ?? []), q]);
  };
  for (const file of project.files) {
    for (const fn of file.decls.functions) {
      const ann = fn.annotations.find((a) => a.name === 'Query');
      if (!ann) continue;
      const params = fn.params.map((p) => p.name);
      const window = new Set<string>();
      for (const sql of ann.strings) for (const stmt of splitStatements(tokenizeSql(sql))) for (const p of lowerBoundParams(stmt, params)) window.add(p);
      add(fn.name, { params, window, where: `${file.path}:${(file.tokens[fn.nameIndex] as Token).line}` });
    }
  }
  for (const q of project.sqlQueries) {
    const positional = q.params;
    add(q.name, { params: q.params, window: lowerBoundParams(q.stmt, positional), where: `${q.path}:${q.line}` });
  }
  queryCache.set(project, out);
  return out;
}

/** `now - C`, `now.minus(C)` (and `.toEpochMilliseconds()` after it): the range of C, or undefined. */
function subtractedFromNow(project: Project, file: ParsedFile, range: Range): Range | undefined {
  let r = unwrapParens(file, range);
  // trailing conversions: `.toEpochMilliseconds()`, `.toEpochMilli()`, `.epochSeconds`
  for (;;) {
    const last = file.tokens[r.end] as Token;
    if (isOp(last, ')')) {
      const open = findOpen(file, r.end);
      if (open > r.start + 1 && isIdent(file.tokens[open - 1], /^(toEpochMilliseconds|toEpochMilli|getTime|toInstant)$/) && isOp(file.tokens[open - 2], '.') && open === r.end - 1) {
        r = { start: r.start, end: open - 3 };
        continue;
      }
      if (open > r.start + 1 && isIdent(file.tokens[open - 1], 'minus') && isOp(file.tokens[open - 2], '.')) {
        if (readsNow(project, file, { start: r.start, end: open - 3 })) return { start: open + 1, end: r.end - 1 };
        return undefined;
      }
    }
    if (last.kind === TokenKind.Identifier && /^(epochSeconds|time|inWholeMilliseconds)$/.test(last.value) && isOp(file.tokens[r.end - 1], '.')) {
      r = { start: r.start, end: r.end - 2 };
      continue;
    }
    break;
  }
  const split = splitTopLevel(file, r, ['+', '-']);
  if (split.parts.length === 2 && split.ops[0] === '-') {
    const [minuend, subtrahend] = split.parts as [Range, Range];
    if (readsNow(project, file, minuend) && !readsNow(project, file, subtrahend)) return subtrahend;
  }
  return undefined;
}

function findOpen(file: ParsedFile, close: number): number {
  for (let k = close - 1; k >= 0; k--) if (file.match[k] === close) return k;
  return -1;
}

/** The expression an argument stands for: itself, or the initializer of the local it names. */
function argValue(project: Project, file: ParsedFile, arg: Range): { file: ParsedFile; range: Range } {
  if (arg.start === arg.end && (file.tokens[arg.start] as Token).kind === TokenKind.Identifier) {
    const d = project.resolver.lookup((file.tokens[arg.start] as Token).value, file, arg.start).find((x) => x.fn !== undefined);
    if (d) return { file: d.file, range: d.init };
  }
  return { file, range: arg };
}

export interface QueryWindow {
  readonly ms: number;
  readonly file: ParsedFile;
  readonly line: number;
  readonly label: string;
}

/**
 * Which parameter of a project function reaches a windowed query's lower bound (through the
 * wrappers that pass it on unchanged: `rssRepository.unreadSinceLastSync(postsAfter = …)` →
 * `postQueries.unreadSinceLastSync(postsAfter = postsAfter)`), with the query's place.
 */
function boundParam(project: Project, file: ParsedFile, callAt: number, depth: number): Array<{ index: number; name: string; where: string }> {
  const name = (file.tokens[callAt] as Token).value;
  const out: Array<{ index: number; name: string; where: string }> = [];
  const targets = resolverOf(project).resolveCall(file, callAt);
  const queries = windowedQueries(project).get(name) ?? [];
  // a Room DAO function resolves to its declaration; a SQLDelight query has none in the sources
  const direct = queries.filter((q) => targets.length === 0 || targets.some((t) => `${t.file.path}:${(t.file.tokens[t.fn.nameIndex] as Token).line}` === q.where));
  for (const q of direct) q.params.forEach((p, index) => { if (q.window.has(p)) out.push({ index, name: p, where: q.where }); });
  if (out.length > 0 || depth <= 0) return out;
  for (const t of targets) {
    if (!t.fn.body) continue;
    t.fn.params.forEach((p, index) => {
      const w = paramReachesWindow(project, t, p.name, depth - 1);
      if (w) out.push({ index, name: p.name, where: w });
    });
  }
  return out;
}

function paramReachesWindow(project: Project, ref: FunctionRef, param: string, depth: number): string | undefined {
  const body = ref.fn.body as Range;
  for (let k = body.start; k <= body.end; k++) {
    const t = ref.file.tokens[k] as Token;
    if (t.kind !== TokenKind.Identifier || !isCallAt(ref.file, k)) continue;
    const open = callOpenParen(ref.file, k);
    if (open < 0) continue;
    const args = splitArgs(ref.file, open);
    if (!args.some((a) => a.start === a.end && isIdent(ref.file.tokens[a.start], param))) continue;
    for (const b of boundParam(project, ref.file, k, depth)) {
      const a = args.find((x) => x.name === b.name) ?? (args.some((x) => x.name !== undefined) ? undefined : args[b.index]);
      if (a && a.start === a.end && isIdent(ref.file.tokens[a.start], param)) return b.where;
    }
  }
  return undefined;
}

/** Windows in the functions of a worker's path: `now − C` given as a windowed query's lower bound. */
export function queryWindows(project: Project, fns: readonly FunctionRef[]): QueryWindow[] {
  const names = windowedQueries(project);
  const out: QueryWindow[] = [];
  for (const ref of fns) {
    const body = ref.fn.body;
    if (!body) continue;
    const file = ref.file;
    for (let k = body.start; k <= body.end; k++) {
      const t = file.tokens[k] as Token;
      if (t.kind !== TokenKind.Identifier || !isCallAt(file, k)) continue;
      const open = callOpenParen(file, k);
      if (open < 0) continue;
      const args = splitArgs(file, open);
      if (args.length === 0) continue;
      // cheap test first: an argument that is `now - C` or a local holding it
      const values = args.map((a) => argValue(project, file, a));
      const subtracted = values.map((v) => subtractedFromNow(project, v.file, v.range));
      if (subtracted.every((s) => s === undefined)) continue;
      if (!names.has(t.value) && resolverOf(project).resolveCall(file, k).length === 0) continue;
      for (const b of boundParam(project, file, k, 3)) {
        const i = args.findIndex((x) => x.name === b.name);
        const at = i >= 0 ? i : args.some((x) => x.name !== undefined) ? -1 : b.index;
        const c = subtracted[at];
        const v = values[at];
        if (c === undefined || v === undefined) continue;
        const ev = project.resolver.evaluate(v.file, c);
        const ms = toMillis(ev.value);
        if (ms === undefined) continue;
        out.push({
          ms,
          file: v.file,
          line: (v.file.tokens[v.range.start] as Token).line,
          label: `\`${rangeText(v.file, v.range, 50)}\` (the lower bound :${b.name} of the query at ${b.where})`,
        });
      }
    }
  }
  return out;
}
