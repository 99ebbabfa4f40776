/**
 * Rule `retry-on-auth-failure`: `Result.retry()` is reached for HTTP 401 or 403.
 *
 * docs/sources/001: "Retrying invalid input or an authorization failure forever wastes battery and
 * hides the action the user must take" — 401 → `Result.failure(…)`. For each `Result.retry()`
 * the enclosing `if`/`when`/`switch` conditions and earlier early returns of the function are
 * evaluated for status 401 and 403, over the status-code operand (`code`, `response.code`,
 * `response.code()`, `statusCode`, `responseCode`; `isSuccessful` means 200..299). Conditions
 * that do not involve the status are ignored. Forms: `401 -> Result.retry()`,
 * `in 400..499 -> Result.retry()`, `else -> Result.retry()` in a `when` on the status,
 * `if (code == 401) return Result.retry()`, `if (!response.isSuccessful) return Result.retry()`,
 * Java `case 401:` / `default:` and `case 401, 403 ->`.
 *
 * Also followed: a 401/403 thrown as an exception and caught into `Result.retry()`, and a 401/403
 * folded into a failed Boolean that is retried (Droid-ify's `if (success) … else Result.retry()`,
 * its `success` false for any failed download, the 401 of a request sent with credentials
 * included).
 */
import type { FunctionDecl } from '../declarations.js';
import { functionAt } from '../declarations.js';
import type { Finding, FunctionRef, ParsedFile, Project, RuleOutput } from '../model.js';
import { resolverOf } from '../resolve.js';
import { RuleId } from '../model.js';
import type { Range } from '../syntax.js';
import { branchRange, isCallAt, parseIf, rangeText, splitArgs, splitTopLevel, statementEnd, unwrapParens, within } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.RetryOnAuthFailure;
const AUTH_CODES = [401, 403] as const;
const STATUS_NAME = /^(code|status|statusCode|responseCode|httpCode|httpStatus|httpStatusCode|getCode|getStatus|getStatusCode|getResponseCode)$/;

/** Three-valued truth: true, false, or independent of the status code. */
type Truth = 'T' | 'F' | 'U';

function isStatusOperand(file: ParsedFile, r: Range): boolean {
  let last: Token | undefined;
  for (let k = r.start; k <= r.end; k++) {
    const t = file.tokens[k] as Token;
    if (isOp(t, '(') && (file.match[k] ?? -1) === k + 1) {
      k++;
      continue;
    }
    if (t.kind === TokenKind.Identifier) last = t;
    else if (!isOp(t, '.') && !isOp(t, '?.') && !isOp(t, '!!')) return false;
  }
  return last !== undefined && STATUS_NAME.test(last.value);
}

function isSuccessfulAtom(file: ParsedFile, r: Range): boolean {
  const last = file.tokens[isOp(file.tokens[r.end], ')') ? r.end - 2 : r.end];
  if (!isIdent(last, /^(isSuccessful|isSuccess)$/)) return false;
  if (r.end > r.start) return true;
  // a bare `isSuccessful` is the receiver's in an extension of a response type
  // (Droid-ify's `private fun Response.asNetworkResponse()`); elsewhere it may be any local
  return /Response$/.test(functionAt(file.decls, r.start)?.receiverType?.name ?? '');
}

interface NumberSet {
  has(c: number): boolean | undefined;
}

function evalNumber(project: Project, file: ParsedFile, r: Range): number | undefined {
  const v = project.resolver.evaluate(file, r).value;
  return v?.kind === 'number' ? v.value : undefined;
}

/** `a..b`, `a until b`, `a..<b`, `listOf(…)`, a single value. */
function evalSet(project: Project, file: ParsedFile, r0: Range): NumberSet | undefined {
  const r = unwrapParens(file, r0);
  for (let k = r.start; k <= r.end; k++) {
    const t = file.tokens[k] as Token;
    if (isOp(t, '..') || isOp(t, '..<') || isIdent(t, 'until')) {
      const lo = evalNumber(project, file, { start: r.start, end: k - 1 });
      const hi = evalNumber(project, file, { start: k + 1, end: r.end });
      if (lo === undefined || hi === undefined) return undefined;
      const inclusive = isOp(t, '..');
      return { has: (c) => c >= lo && (inclusive ? c <= hi : c < hi) };
    }
    if (isOp(t, '(') || isOp(t, '[')) k = file.match[k] ?? k;
  }
  if (isIdent(file.tokens[r.start], /^(listOf|setOf|arrayOf|intArrayOf|hashSetOf|mutableSetOf)$/) && isOp(file.tokens[r.start + 1], '(')) {
    const vals = splitArgs(file, r.start + 1).map((a) => evalNumber(project, file, a));
    if (vals.some((v) => v === undefined)) return undefined;
    return { has: (c) => vals.includes(c) };
  }
  const v = evalNumber(project, file, r);
  return v === undefined ? undefined : { has: (c) => c === v };
}

function not(t: Truth): Truth {
  return t === 'T' ? 'F' : t === 'F' ? 'T' : 'U';
}

/** Evaluates a boolean condition for status `c`; atoms that do not involve the status are 'U' and drop out of `&&`/`||`. */
function evalCondition(project: Project, file: ParsedFile, range: Range, c: number): Truth {
  const r = unwrapParens(file, range);
  if (r.end < r.start) return 'U';
  const or = splitTopLevel(file, r, ['||']);
  if (or.parts.length > 1) {
    const vals = or.parts.map((p) => evalCondition(project, file, p, c)).filter((v) => v !== 'U');
    if (vals.length === 0) return 'U';
    return vals.includes('T') ? 'T' : 'F';
  }
  const and = splitTopLevel(file, r, ['&&']);
  if (and.parts.length > 1) {
    const vals = and.parts.map((p) => evalCondition(project, file, p, c)).filter((v) => v !== 'U');
    if (vals.length === 0) return 'U';
    return vals.includes('F') ? 'F' : 'T';
  }
  if (isOp(file.tokens[r.start], '!') && !isIdent(file.tokens[r.start + 1], 'in') && !isIdent(file.tokens[r.start + 1], 'is')) {
    return not(evalCondition(project, file, { start: r.start + 1, end: r.end }, c));
  }
  if (isSuccessfulAtom(file, r)) return c >= 200 && c <= 299 ? 'T' : 'F';
  // comparison
  for (let k = r.start; k <= r.end; k++) {
    const t = file.tokens[k] as Token;
    if (isOp(t, '(') || isOp(t, '[')) {
      k = file.match[k] ?? k;
      continue;
    }
    const negIn = isOp(t, '!') && isIdent(file.tokens[k + 1], 'in');
    if (isIdent(t, 'in') || negIn) {
      const left = { start: r.start, end: k - 1 };
      if (!isStatusOperand(file, left)) return 'U';
      const set = evalSet(project, file, { start: negIn ? k + 2 : k + 1, end: r.end });
      const has = set?.has(c);
      if (has === undefined) return 'U';
      return (has !== negIn) ? 'T' : 'F';
    }
    if (t.kind === TokenKind.Operator && ['==', '!=', '<', '<=', '>', '>=', '==='].includes(t.text)) {
      const left = { start: r.start, end: k - 1 };
      const right = { start: k + 1, end: r.end };
      let op = t.text;
      let value: number | undefined;
      if (isStatusOperand(file, left)) value = evalNumber(project, file, right);
      else if (isStatusOperand(file, right)) {
        value = evalNumber(project, file, left);
        op = ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, string>)[op] ?? op;
      } else return 'U';
      if (value === undefined) return 'U';
      const res = op === '==' || op === '===' ? c === value : op === '!=' ? c !== value : op === '<' ? c < value : op === '<=' ? c <= value : op === '>' ? c > value : c >= value;
      return res ? 'T' : 'F';
    }
  }
  return 'U';
}

interface WhenEntry {
  readonly conditions: readonly Range[] | 'else';
  readonly body: Range;
}

/** Entries of a Kotlin `when` body `{ … }` opening at `open`. */
function parseWhenEntries(file: ParsedFile, open: number): WhenEntry[] {
  const close = file.match[open] ?? -1;
  const entries: WhenEntry[] = [];
  let s = open + 1;
  while (s < close) {
    if (isOp(file.tokens[s], ';')) {
      s++;
      continue;
    }
    // conditions up to `->`
    let arrow = -1;
    for (let k = s; k < close; k++) {
      if (isOp(file.tokens[k], '->')) {
        arrow = k;
        break;
      }
      if (isOp(file.tokens[k], '(') || isOp(file.tokens[k], '[') || isOp(file.tokens[k], '{')) k = file.match[k] ?? k;
    }
    if (arrow < 0) break;
    const condRange = { start: s, end: arrow - 1 };
    const conditions = isIdent(file.tokens[s], 'else') && arrow === s + 1 ? 'else' : splitTopLevel(file, condRange, [',']).parts;
    const bodyStart = arrow + 1;
    let body: Range;
    if (isOp(file.tokens[bodyStart], '{')) body = { start: bodyStart, end: file.match[bodyStart] ?? close - 1 };
    else body = whenBranchExpression(file, bodyStart, close - 1);
    entries.push({ conditions, body });
    s = body.end + 1;
  }
  return entries;
}

/** A `when` branch expression: up to the next line that starts a new branch. */
function whenBranchExpression(file: ParsedFile, start: number, limit: number): Range {
  if (isIdent(file.tokens[start], 'if')) return branchRange(file, start);
  let end = statementEnd(file, start, false, limit);
  // `in`/`is`/`else` on a new line begin the next branch, not a continuation
  for (let k = start + 1; k <= end; k++) {
    const t = file.tokens[k] as Token;
    if (t.newlineBefore && (isIdent(t, 'in') || isIdent(t, 'is') || isIdent(t, 'else') || (isOp(t, '!') && isIdent(file.tokens[k + 1], 'in')))) {
      end = k - 1;
      break;
    }
  }
  return { start, end: Math.max(end, start) };
}

function entryMatches(project: Project, file: ParsedFile, e: WhenEntry, subject: Range | undefined, c: number): Truth {
  if (e.conditions === 'else') return 'T';
  const vals: Truth[] = [];
  for (const cond of e.conditions) {
    if (subject === undefined) {
      vals.push(evalCondition(project, file, cond, c));
      continue;
    }
    const t0 = file.tokens[cond.start] as Token;
    if (isIdent(t0, 'in') || (isOp(t0, '!') && isIdent(file.tokens[cond.start + 1], 'in'))) {
      const neg = isOp(t0, '!');
      const set = evalSet(project, file, { start: cond.start + (neg ? 2 : 1), end: cond.end });
      const has = set?.has(c);
      vals.push(has === undefined ? 'U' : has !== neg ? 'T' : 'F');
    } else if (isIdent(t0, 'is')) {
      vals.push('U');
    } else {
      const v = evalNumber(project, file, cond);
      vals.push(v === undefined ? 'U' : v === c ? 'T' : 'F');
    }
  }
  if (vals.includes('T')) return 'T';
  if (vals.every((v) => v === 'F')) return 'F';
  return 'U';
}

/** The `when (subject)` subject range (after `val x =` if present), or undefined for a subject-less `when`. */
function whenSubject(file: ParsedFile, whenIdx: number): Range | undefined {
  if (!isOp(file.tokens[whenIdx + 1], '(')) return undefined;
  const close = file.match[whenIdx + 1] ?? -1;
  let start = whenIdx + 2;
  for (let k = start; k < close; k++) if (isOp(file.tokens[k], '=')) start = k + 1;
  return { start, end: close - 1 };
}

/** True when a branch leaves the function (`return`, `throw`). */
function exits(file: ParsedFile, r: Range): boolean {
  for (let k = r.start; k <= r.end; k++) if (isIdent(file.tokens[k], 'return') || isIdent(file.tokens[k], 'throw')) return true;
  return false;
}

interface Verdict {
  routed: boolean;
  excluded: boolean;
  via: string[];
}

function judgeEnclosing(project: Project, file: ParsedFile, r: number, c: number, fnBody: Range): Verdict {
  const v: Verdict = { routed: false, excluded: false, via: [] };
  // Enclosing `if`s and `when`s / `switch`es, found by scanning the function body.
  for (let i = fnBody.start; i < r; i++) {
    const t = file.tokens[i] as Token;
    if (isIdent(t, 'if')) {
      const p = parseIf(file, i);
      if (!p) continue;
      const inThen = within(r, p.then);
      const inElse = p.otherwise !== undefined && within(r, p.otherwise);
      if (!inThen && !inElse) {
        // an earlier early return for this status
        if (p.then.end < r && evalCondition(project, file, p.condition, c) === 'T' && exits(file, p.then)) {
          v.excluded = true;
        }
        continue;
      }
      const cv = evalCondition(project, file, p.condition, c);
      if (cv === 'U') continue;
      if ((inThen && cv === 'F') || (inElse && cv === 'T')) v.excluded = true;
      else {
        v.routed = true;
        v.via.push(`\`if (${rangeText(file, p.condition, 50)})\`${inElse ? ' … else' : ''}`);
      }
    } else if (isIdent(t, 'when') && file.language === 'kotlin') {
      const subject = whenSubject(file, i);
      const open = subject === undefined ? i + 1 : (file.match[i + 1] ?? i) + 1;
      if (!isOp(file.tokens[open], '{')) continue;
      const close = file.match[open] ?? -1;
      if (r <= open || r >= close) continue;
      if (subject !== undefined && !isStatusOperand(file, subject)) continue;
      const entries = parseWhenEntries(file, open);
      const mine = entries.find((e) => within(r, e.body));
      if (!mine) continue;
      const first = entries.find((e) => entryMatches(project, file, e, subject, c) === 'T');
      if (first === undefined) continue;
      if (first !== mine) {
        v.excluded = true;
        continue;
      }
      v.routed = true;
      v.via.push(mine.conditions === 'else' ? '`else ->` of a `when` on the status' : `\`${rangeText(file, { start: (mine.conditions[0] as Range).start, end: (mine.conditions[mine.conditions.length - 1] as Range).end }, 70)} ->\``);
    } else if (isIdent(t, 'switch') && isOp(file.tokens[i + 1], '(')) {
      const subject = { start: i + 2, end: (file.match[i + 1] ?? i) - 1 };
      const open = (file.match[i + 1] ?? i) + 1;
      if (!isOp(file.tokens[open], '{') || !isStatusOperand(file, subject)) continue;
      const close = file.match[open] ?? -1;
      if (r <= open || r >= close) continue;
      const verdict = judgeSwitch(project, file, open, close, r, c);
      if (verdict === 'excluded') v.excluded = true;
      else if (verdict !== undefined) {
        v.routed = true;
        v.via.push(verdict.routed);
      }
    }
  }
  return v;
}

/** Java `switch` on the status: which label group the status lands in. */
type SwitchVerdict = { readonly routed: string } | 'excluded' | undefined;

function judgeSwitch(project: Project, file: ParsedFile, open: number, close: number, r: number, c: number): SwitchVerdict {
  // groups: labels then statements, up to the next label at depth 0
  interface Group { labels: Range[]; isDefault: boolean; body: Range }
  const groups: Group[] = [];
  let cur: Group | undefined;
  for (let k = open + 1; k < close; k++) {
    const t = file.tokens[k] as Token;
    if (isIdent(t, 'case') || isIdent(t, 'default')) {
      let stop = k + 1;
      while (stop < close && !isOp(file.tokens[stop], ':') && !isOp(file.tokens[stop], '->')) stop = isOp(file.tokens[stop], '(') ? (file.match[stop] ?? stop) + 1 : stop + 1;
      const labels = isIdent(t, 'case') ? splitTopLevel(file, { start: k + 1, end: stop - 1 }, [',']).parts : [];
      if (cur && cur.body.end < cur.body.start) {
        cur.labels.push(...labels);
        cur.isDefault ||= isIdent(t, 'default');
      } else {
        cur = { labels, isDefault: isIdent(t, 'default'), body: { start: stop + 1, end: stop } };
        groups.push(cur);
      }
      k = stop;
      continue;
    }
    if (cur) cur.body = { start: cur.body.start, end: k };
    if (isOp(t, '(') || isOp(t, '{') || isOp(t, '[')) {
      const m = file.match[k] ?? k;
      if (cur) cur.body = { start: cur.body.start, end: m };
      k = m;
    }
  }
  const mine = groups.find((g) => within(r, g.body));
  if (!mine) return undefined;
  const matching = groups.find((g) => g.labels.some((l) => evalNumber(project, file, l) === c)) ?? groups.find((g) => g.isDefault);
  if (!matching) return undefined;
  if (matching !== mine) {
    // fall-through from an earlier group without break/return is rare; treat as excluded
    return 'excluded';
  }
  return { routed: mine.isDefault && !mine.labels.some((l) => evalNumber(project, file, l) === c) ? '`default:` of a `switch` on the status' : `\`case ${c}\`` };
}

// ---------------------------------------------------------------------------------------------
// A 401/403 thrown as an exception and caught into Result.retry()

interface CatchClause {
  /** Simple names of the caught types (`IOException | SyncException` gives two). */
  readonly types: readonly string[];
  readonly param: string;
  /** `{`…`}` of the catch block. */
  readonly body: Range;
}

interface TryStatement {
  readonly block: Range;
  readonly catches: readonly CatchClause[];
}

/** The `try` statements whose try block contains token `i`, innermost first, within `limit`. */
function triesAround(file: ParsedFile, i: number, limit: Range): TryStatement[] {
  const out: TryStatement[] = [];
  for (let open = file.enclosingBrace[i] ?? -1; open >= 0 && open >= limit.start; open = file.enclosingBrace[open] ?? -1) {
    let kw = open - 1;
    if (isOp(file.tokens[kw], ')')) kw = (file.match[kw] ?? 0) - 1; // try-with-resources
    if (!isIdent(file.tokens[kw], 'try')) continue;
    const close = file.match[open] ?? -1;
    if (close < 0) continue;
    const catches: CatchClause[] = [];
    let k = close + 1;
    while (isIdent(file.tokens[k], 'catch') && isOp(file.tokens[k + 1], '(')) {
      const pc = file.match[k + 1] ?? -1;
      const bodyOpen = pc + 1;
      if (pc < 0 || !isOp(file.tokens[bodyOpen], '{')) break;
      const types: string[] = [];
      let param = '';
      if (file.language === 'kotlin') {
        param = isIdent(file.tokens[k + 2]) ? (file.tokens[k + 2] as Token).value : '';
        for (let m = k + 4; m < pc; m++) if (isIdent(file.tokens[m]) && !isOp(file.tokens[m + 1], '.')) types.push((file.tokens[m] as Token).value);
      } else {
        param = isIdent(file.tokens[pc - 1]) ? (file.tokens[pc - 1] as Token).value : '';
        for (let m = k + 2; m < pc - 1; m++) {
          if (isIdent(file.tokens[m], 'final') || isOp(file.tokens[m], '@')) continue;
          if (isIdent(file.tokens[m]) && !isOp(file.tokens[m + 1], '.')) types.push((file.tokens[m] as Token).value);
        }
      }
      const bodyClose = file.match[bodyOpen] ?? -1;
      if (bodyClose < 0) break;
      catches.push({ types, param, body: { start: bodyOpen, end: bodyClose } });
      k = bodyClose + 1;
    }
    out.push({ block: { start: open, end: close }, catches });
  }
  return out;
}

/** An exception that carries HTTP 401/403 out of the code that read the status. */
interface Thrown {
  readonly type: string;
  readonly code: number;
  readonly file: ParsedFile;
  readonly at: number;
  /** Types it was wrapped in on the way (`GpodnetServiceException(e)`), outermost last. */
  readonly wrapped: readonly string[];
}

const CATCH_ALL = new Set(['Exception', 'Throwable']);

class AuthThrows {
  private readonly memo = new Map<FunctionRef['fn'], Thrown[]>();
  private readonly resolver;

  constructor(private readonly project: Project) {
    this.resolver = resolverOf(project);
  }

  /** True when exception type `sub` is `sup` or extends it through project classes (any type is an Exception or Throwable). */
  isSubtype(sub: string, sup: string, file: ParsedFile): boolean {
    if (sub === sup || CATCH_ALL.has(sup)) return true;
    for (const c of this.resolver.classesNamed(sub, file)) if (this.resolver.isSubclass(c, sup)) return true;
    return false;
  }

  /** The type thrown by `throw X(…)` / `throw new X(…)` at `t`, or undefined for `throw e` and other forms. */
  private thrownType(file: ParsedFile, t: number): { type: string; param: string | undefined } | undefined {
    let k = t + 1;
    if (isIdent(file.tokens[k], 'new')) k++;
    const name = file.tokens[k];
    if (!isIdent(name)) return undefined;
    // qualified names: the last segment before `(`
    while (isOp(file.tokens[k + 1], '.') && isIdent(file.tokens[k + 2])) k += 2;
    const last = file.tokens[k] as Token;
    if (!isOp(file.tokens[k + 1], '(')) return { type: '', param: last.value };
    return { type: last.value, param: undefined };
  }

  /**
   * Follows an exception raised at `at` in `ref` outwards through the function's try/catch
   * statements: caught and swallowed (undefined), caught and rethrown wrapped, or escaping.
   */
  private escape(ref: FunctionRef, at: number, ex: Thrown): Thrown | undefined {
    const body = ref.fn.body as Range;
    let cur = ex;
    let pos = at;
    for (;;) {
      const tries = triesAround(ref.file, pos, body).filter((tr) => within(pos, tr.block));
      const tr = tries[0];
      if (!tr) return cur;
      const clause = tr.catches.find((c) => c.types.some((ty) => this.isSubtype(cur.type, ty, ref.file)));
      if (!clause) {
        pos = tr.block.start - 1;
        if (pos < body.start) return cur;
        continue;
      }
      // rethrown from the catch block?
      let rethrow: { type: string; at: number } | undefined;
      for (let k = clause.body.start; k <= clause.body.end; k++) {
        if (!isIdent(ref.file.tokens[k], 'throw')) continue;
        const tt = this.thrownType(ref.file, k);
        if (!tt) continue;
        if (tt.param === clause.param) rethrow = { type: cur.type, at: k };
        else if (tt.type !== '') rethrow = { type: tt.type, at: k };
        break;
      }
      if (!rethrow) return undefined;
      cur = rethrow.type === cur.type ? cur : { ...cur, type: rethrow.type, wrapped: [...cur.wrapped, rethrow.type] };
      pos = rethrow.at;
    }
  }

  /** Exceptions carrying 401/403 that escape the function `ref` (memoised; cycles cut). */
  escaping(ref: FunctionRef, depth = 0): Thrown[] {
    const m = this.memo.get(ref.fn);
    if (m) return m;
    const out: Thrown[] = [];
    this.memo.set(ref.fn, out);
    const body = ref.fn.body;
    if (!body || depth > 12) return out;
    out.push(...this.raisedIn(ref, body, depth));
    return out;
  }

  /** Exceptions carrying 401/403 raised inside `range` of `ref` (direct throws and calls), followed out of the function. */
  raisedIn(ref: FunctionRef, range: Range, depth: number, keepInside = false): Thrown[] {
    const out: Thrown[] = [];
    const file = ref.file;
    for (let k = range.start; k <= range.end; k++) {
      const t = file.tokens[k] as Token;
      if (isIdent(t, 'throw')) {
        const tt = this.thrownType(file, k);
        if (!tt || tt.type === '') continue;
        for (const c of AUTH_CODES) {
          const v = judgeEnclosing(this.project, file, k, c, ref.fn.body as Range);
          if (!v.routed || v.excluded) continue;
          const ex: Thrown = { type: tt.type, code: c, file, at: k, wrapped: [] };
          const e = keepInside ? ex : this.escape(ref, k, ex);
          if (e) out.push(e);
        }
      } else if (t.kind === TokenKind.Identifier && isCallAt(file, k)) {
        for (const target of this.resolver.resolveCall(file, k)) {
          if (target.fn === ref.fn) continue;
          for (const ex of this.escaping(target, depth + 1)) {
            const e = keepInside ? ex : this.escape(ref, k, ex);
            if (e) out.push(e);
          }
        }
      }
    }
    return out;
  }
}

/** `e instanceof S` / `e is S` conditions around `r` inside a catch block: the types the caught exception must (or must not) be. */
function typeTestsAround(file: ParsedFile, r: number, param: string, block: Range): Array<{ type: string; positive: boolean }> {
  const out: Array<{ type: string; positive: boolean }> = [];
  for (let i = block.start; i < r; i++) {
    if (!isIdent(file.tokens[i], 'if')) continue;
    const p = parseIf(file, i);
    if (!p) continue;
    const inThen = within(r, p.then);
    const inElse = p.otherwise !== undefined && within(r, p.otherwise);
    if (!inThen && !inElse) continue;
    for (let k = p.condition.start; k <= p.condition.end; k++) {
      if (!isIdent(file.tokens[k], param) || !isIdent(file.tokens[k + 1], /^(instanceof|is)$/)) continue;
      const negated = isOp(file.tokens[k - 1], '!') || isOp(file.tokens[p.condition.start], '!');
      const ty = file.tokens[k + 2];
      if (isIdent(ty)) out.push({ type: (ty as Token).value, positive: inThen !== negated });
    }
  }
  return out;
}

/** A `Result.retry()` call: the `retry` token and the function whose body holds it. */
interface RetrySite {
  readonly file: ParsedFile;
  readonly r: number;
  readonly fn: FunctionDecl & { readonly body: Range };
  readonly key: string;
}

function retrySites(project: Project): RetrySite[] {
  const out: RetrySite[] = [];
  for (const file of project.files) {
    for (let r = 0; r < file.tokens.length; r++) {
      if (!(isIdent(file.tokens[r], 'retry') && isOp(file.tokens[r - 1], '.') && isIdent(file.tokens[r - 2], 'Result') && isOp(file.tokens[r + 1], '('))) continue;
      const fn = functionAt(file.decls, r);
      if (fn?.body) out.push({ file, r, fn: fn as RetrySite['fn'], key: `${file.path}:${r}` });
    }
  }
  return out;
}

/** Where a finding on a retry site points: the `Result` of `Result.retry()`. */
function findingAt(site: RetrySite): Pick<Finding, 'file' | 'line' | 'column' | 'rule'> {
  const t = site.file.tokens[site.r - 2] as Token;
  return { file: site.file.path, line: t.line, column: t.column, rule: RULE };
}

function checkThrownAuthFailures(project: Project, sites: readonly RetrySite[], findings: RuleOutput['findings'], reported: Set<string>): void {
  const auth = new AuthThrows(project);
  const resolver = resolverOf(project);
  for (const site of sites) {
    const { file, r, fn } = site;
    const ref = { file, fn };
    const tries = allTries(file, fn.body);
    // the retry sits in a catch block of a try in this function
    let hit: { tr: TryStatement; clause: CatchClause } | undefined;
    for (let open = file.enclosingBrace[r] ?? -1; open >= fn.body.start && !hit; open = file.enclosingBrace[open] ?? -1) {
      for (const tr of tries) {
        const clause = tr.catches.find((c) => c.body.start === open);
        if (clause) {
          hit = { tr, clause };
          break;
        }
      }
    }
    if (!hit) continue;
    const { tr, clause } = hit;
    const tests = typeTestsAround(file, r, clause.param, clause.body);
    const raised = auth.raisedIn(ref, { start: tr.block.start + 1, end: tr.block.end - 1 }, 0, true);
    const caught = raised.filter((ex) => {
      // the first catch clause that catches it must be this one
      const first = tr.catches.find((c) => c.types.some((ty) => auth.isSubtype(ex.type, ty, file)));
      if (first !== clause) return false;
      return tests.every((t) => auth.isSubtype(ex.type, t.type, ex.file) === t.positive);
    });
    if (caught.length === 0) continue;
    if (reported.has(site.key)) continue;
    reported.add(site.key);
    const codes = [...new Set(caught.map((c) => c.code))].sort();
    // name the exception as thrown where the status was read, when it arrives unwrapped
    const ex = caught.slice().sort((a, b) => a.wrapped.length - b.wrapped.length || a.code - b.code)[0] as Thrown;
    const origin = ex.file.tokens[ex.at] as Token;
    const lineage = (type: string): string => {
      const chain: string[] = [];
      const c = resolver.classesNamed(type, ex.file)[0];
      if (c) for (const a of resolver.ancestors(c).slice(1)) chain.push(a.cls.name);
      return chain.length > 0 ? ` (extends ${chain.join(' → ')})` : '';
    };
    const via = ex.wrapped.length > 0 ? `, wrapped in ${ex.wrapped.map((w) => `\`${w}\``).join(', ')}` : '';
    const op = file.language === 'java' ? 'instanceof' : 'is';
    const how = `\`catch (${clause.types.join(' | ')})\`${tests.length > 0 ? ` and ${tests.map((t) => `\`${t.positive ? '' : '!'}(${clause.param} ${op} ${t.type})\``).join(', ')}` : ''}`;
    findings.push({
      ...findingAt(site),
      message:
        `HTTP ${ex.code} is thrown as \`${ex.type}\`${lineage(ex.type)} at ${ex.file.path}:${origin.line}${via} and reaches Result.retry() through ${how}` +
        `${codes.filter((c) => c !== ex.code).map((c) => ` (HTTP ${c} too)`).join('')}: ` +
        'an authorization failure does not heal by retrying, so the worker backs off and retries without end and hides the sign-in the user must do; ' +
        'return Result.failure() for the authentication error',
      related: [{ file: ex.file.path, line: origin.line, what: `HTTP ${ex.code} thrown as ${ex.type}` }],
    });
  }
}

/** Every try statement in a function body. */
function allTries(file: ParsedFile, body: Range): TryStatement[] {
  const out: TryStatement[] = [];
  for (let k = body.start; k <= body.end; k++) {
    if (!isIdent(file.tokens[k], 'try')) continue;
    let open = k + 1;
    if (isOp(file.tokens[open], '(')) open = (file.match[open] ?? open) + 1;
    if (!isOp(file.tokens[open], '{')) continue;
    const inner = triesAround(file, open + 1, body).find((t) => t.block.start === open);
    if (inner) out.push(inner);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A 401/403 folded into a failed Boolean and retried

/** A status test that tells success from failure and puts 401 and 403 with the other errors. */
interface FoldedTest {
  readonly ref: FunctionRef;
  readonly condition: Range;
  /** Where the request is given credentials: a 401 is the answer to them. */
  readonly credentials: { readonly ref: FunctionRef; readonly at: number };
}

/**
 * Credentials put on a request: an `Authorization` header (`"Authorization"`, a `"Bearer …"` or
 * `"Basic …"` value, Retrofit's `@Header("Authorization")`), OkHttp's `Credentials.basic(…)`,
 * Ktor's `basicAuth`/`bearerAuth`.
 */
function credentialsAt(file: ParsedFile, k: number): boolean {
  const t = file.tokens[k] as Token;
  if (t.kind === TokenKind.String) return /^(proxy-)?authorization$/i.test(t.value) || /^(Bearer|Basic) /.test(t.value);
  if (isIdent(t, 'Credentials')) return isOp(file.tokens[k + 1], '.') && isIdent(file.tokens[k + 2], 'basic');
  return isIdent(t, /^(basicAuth|bearerAuth)$/) && isCallAt(file, k);
}

/** Names of the auth statuses: `HttpURLConnection`'s, servlet `SC_…`, Ktor's `HttpStatusCode.Unauthorized`. */
const AUTH_NAME = /^(HTTP_UNAUTHORIZED|HTTP_FORBIDDEN|UNAUTHORIZED|FORBIDDEN|SC_UNAUTHORIZED|SC_FORBIDDEN|Unauthorized|Forbidden)$/;
const BOOLEAN = /^(Boolean|boolean)$/;

/** The status codes a test is asked about: success, the auth failures, a server error. */
function statusTruths(project: Project, file: ParsedFile, cond: Range): { ok: Truth; auth: Truth[]; server: Truth } {
  return {
    ok: evalCondition(project, file, cond, 200),
    auth: AUTH_CODES.map((c) => evalCondition(project, file, cond, c)),
    server: evalCondition(project, file, cond, 500),
  };
}

class FoldedStatus {
  private readonly memo = new Map<FunctionRef['fn'], FoldedTest | null>();
  private readonly resolver;

  constructor(private readonly project: Project, private readonly auth: AuthThrows) {
    this.resolver = resolverOf(project);
  }

  /**
   * The status test that `g` (a function returning Boolean) reaches, when it folds 401 and 403
   * into the failure the other errors take and nothing `g` reaches tells them apart: no test on
   * the status that 401/403 answer differently from a 500 (`code == 401`, `in 400..499`, a
   * `when` branch), no 401/403 literal or `HTTP_UNAUTHORIZED`-like name, no exception thrown for
   * them. Undefined otherwise.
   */
  foldedIn(g: FunctionRef): FoldedTest | undefined {
    const m = this.memo.get(g.fn);
    if (m !== undefined) return m ?? undefined;
    let found: Omit<FoldedTest, 'credentials'> | undefined;
    let credentials: FoldedTest['credentials'] | undefined;
    let apart = this.auth.escaping(g).length > 0;
    for (const r of this.resolver.reachable([g]).values()) {
      if (apart) break;
      const file = r.file;
      // a Retrofit method's parameters carry its headers (`@Header("Authorization") token: String`)
      if (credentials === undefined && !r.fn.body && r.fn.paramsOpen >= 0) {
        for (let k = r.fn.paramsOpen; k <= (file.match[r.fn.paramsOpen] ?? -1) && credentials === undefined; k++) if (credentialsAt(file, k)) credentials = { ref: r, at: k };
      }
      const body = r.fn.body;
      if (!body) continue;
      for (let k = body.start; k <= body.end && !apart; k++) {
        const t = file.tokens[k] as Token;
        if (credentials === undefined && credentialsAt(file, k)) credentials = { ref: r, at: k };
        if (t.kind === TokenKind.Number && (t.numberValue === 401 || t.numberValue === 403)) apart = true;
        else if (isIdent(t, AUTH_NAME)) apart = true;
        else if (isIdent(t, 'if') && isOp(file.tokens[k + 1], '(')) {
          const close = file.match[k + 1] ?? -1;
          if (close < 0) continue;
          const cond = { start: k + 2, end: close - 1 };
          const v = statusTruths(this.project, file, cond);
          if (v.auth.some((a) => a !== 'U' && a !== v.server)) apart = true;
          else if (found === undefined && v.ok !== 'U' && v.auth.every((a) => a !== 'U' && a !== v.ok && a === v.server)) found = { ref: r, condition: cond };
        } else if (isIdent(t, 'when') && file.language === 'kotlin') {
          const subject = whenSubject(file, k);
          const open = subject === undefined ? k + 1 : (file.match[k + 1] ?? k) + 1;
          if (!isOp(file.tokens[open], '{') || (subject !== undefined && !isStatusOperand(file, subject))) continue;
          const entries = parseWhenEntries(file, open);
          const first = (c: number): WhenEntry | undefined => entries.find((e) => entryMatches(this.project, file, e, subject, c) === 'T');
          const server = first(500);
          if (AUTH_CODES.some((c) => first(c) !== server)) apart = true;
        }
      }
    }
    // a request sent with no credentials the sources show (a receipt to the app's own server) is not judged
    const out = apart || found === undefined || credentials === undefined ? undefined : { ...found, credentials };
    this.memo.set(g.fn, out ?? null);
    return out;
  }
}

/** The Boolean operands whose `false` leads to the token `r` through the `if`s of the function: `if (ok) … else ⟨r⟩`, `if (!ok) ⟨r⟩`, `if (ok) return …; ⟨r⟩`. */
function falseOperandsBefore(file: ParsedFile, r: number, body: Range): Range[] {
  const out: Range[] = [];
  for (let i = body.start; i < r; i++) {
    if (!isIdent(file.tokens[i], 'if')) continue;
    const p = parseIf(file, i);
    if (!p) continue;
    const inThen = within(r, p.then);
    const inElse = p.otherwise !== undefined && within(r, p.otherwise);
    const afterExit = !inThen && !inElse && p.then.end < r && p.otherwise === undefined && exits(file, p.then);
    if (!inThen && !inElse && !afterExit) continue;
    const cond = unwrapParens(file, p.condition);
    if (inThen) {
      // then-branch: any `!x` of a disjunction being true
      for (const part of splitTopLevel(file, cond, ['||']).parts) {
        const u = unwrapParens(file, part);
        if (isOp(file.tokens[u.start], '!')) out.push({ start: u.start + 1, end: u.end });
      }
    } else {
      // else-branch or past an early exit: any positive `x` of a conjunction being false
      for (const part of splitTopLevel(file, cond, ['&&']).parts) {
        const u = unwrapParens(file, part);
        if (!isOp(file.tokens[u.start], '!')) out.push(u);
      }
    }
  }
  // only plain operands: a name or a call chain, no comparison
  return out.filter((o) => {
    for (let k = o.start; k <= o.end; k++) {
      const t = file.tokens[k] as Token;
      if (isOp(t, '(') || isOp(t, '[') || isOp(t, '{')) {
        k = file.match[k] ?? k;
        continue;
      }
      if (t.kind === TokenKind.Operator && !isOp(t, '.') && !isOp(t, '?.') && !isOp(t, '!!')) return false;
    }
    return true;
  });
}

/** A Boolean function with a `false` in its body. */
function hasFalse(r: FunctionRef): boolean {
  const body = r.fn.body;
  if (!body || !BOOLEAN.test(r.fn.returnType?.name ?? '')) return false;
  for (let m = body.start; m <= body.end; m++) if (isIdent(r.file.tokens[m], 'false')) return true;
  return false;
}

function checkFoldedAuthFailures(project: Project, sites: readonly RetrySite[], findings: RuleOutput['findings'], reported: Set<string>): void {
  const resolver = resolverOf(project);
  const folded = new FoldedStatus(project, new AuthThrows(project));
  for (const site of sites) {
    const { file, r, fn } = site;
    if (reported.has(site.key)) continue;
    let hit: { operand: Range; g: FunctionRef; test: FoldedTest } | undefined;
    for (const operand of falseOperandsBefore(file, r, fn.body)) {
      // the operand itself, or the values a local of that name is given in the function
      const ranges: Range[] = [operand];
      if (operand.start === operand.end) {
        const name = (file.tokens[operand.start] as Token).value;
        for (const v of project.values) if (v.file === file && v.fn === fn && v.name === name && v.nameIndex < r) ranges.push(v.init);
        for (let k = fn.body.start; k < r; k++) {
          if (isIdent(file.tokens[k], name) && isOp(file.tokens[k + 1], '=') && !isOp(file.tokens[k - 1], '.')) ranges.push({ start: k + 2, end: statementEnd(file, k + 2) });
        }
      }
      for (const range of ranges) {
        for (let k = range.start; k <= range.end && !hit; k++) {
          if (!isIdent(file.tokens[k]) || !isCallAt(file, k)) continue;
          for (const g of resolver.resolveCall(file, k)) {
            if (!BOOLEAN.test(g.fn.returnType?.name ?? '') || !g.fn.body) continue;
            // it can answer false: a `false` in its body (`var success = false`, `return false`) or in a Boolean function it calls
            if (!resolver.reaches(g, 'boolean-false', hasFalse)) continue;
            const test = folded.foldedIn(g);
            if (test) {
              hit = { operand, g, test };
              break;
            }
          }
        }
        if (hit) break;
      }
      if (hit) break;
    }
    if (!hit) continue;
    reported.add(site.key);
    const { g, test } = hit;
    const testLine = (test.ref.file.tokens[test.condition.start] as Token).line;
    const gLine = (g.file.tokens[g.fn.nameIndex] as Token).line;
    const cred = test.credentials;
    const credLine = (cred.ref.file.tokens[cred.at] as Token).line;
    findings.push({
      ...findingAt(site),
      message:
        `HTTP 401 and 403 to a request sent with credentials (\`${cred.ref.fn.name}()\`, ${cred.ref.file.path}:${credLine}) ` +
        `fail \`${rangeText(test.ref.file, test.condition, 60)}\` in \`${test.ref.fn.name}()\` (${test.ref.file.path}:${testLine}) like any other error, ` +
        `and nothing \`${g.fn.name}()\` (${g.file.path}:${gLine}) reaches tells them apart: \`${g.fn.name}()\` can answer false for them, and ` +
        `\`${rangeText(file, hit.operand, 40)}\` false returns Result.retry(): an authorization failure folded into a failed Boolean does not heal by retrying, ` +
        'so the worker backs off and retries without end and hides the sign-in the user must do; carry the 401/403 out (a result or an exception of its own) and return Result.failure() for it',
      related: [
        { file: test.ref.file.path, line: testLine, what: 'HTTP 401/403 taken as any failure' },
        { file: cred.ref.file.path, line: credLine, what: 'credentials sent' },
      ],
    });
  }
}

export function checkRetryOnAuthFailure(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const reported = new Set<string>();
  const sites = retrySites(project);
  checkThrownAuthFailures(project, sites, findings, reported);
  for (const site of sites) {
    const { file, r, fn } = site;
    const codes: number[] = [];
    const via = new Set<string>();
    for (const c of AUTH_CODES) {
      const v = judgeEnclosing(project, file, r, c, fn.body);
      if (v.routed && !v.excluded) {
        codes.push(c);
        for (const x of v.via) via.add(x);
      }
    }
    if (codes.length === 0) continue;
    reported.add(site.key);
    findings.push({
      ...findingAt(site),
      message:
        `Result.retry() is returned for HTTP ${codes.join(' and ')} (${[...via].join(', ')}): an authorization failure does not heal by retrying, ` +
        'so the worker backs off and retries forever and hides the sign-in the user must do; return Result.failure() for 401/403',
    });
  }
  checkFoldedAuthFailures(project, sites, findings, reported);
  return { findings, unresolved: [] };
}
