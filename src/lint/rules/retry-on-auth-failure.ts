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
 */
import { functionAt } from '../declarations.js';
import type { ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import type { Range } from '../syntax.js';
import { branchRange, parseIf, rangeText, splitArgs, splitTopLevel, statementEnd, unwrapParens, within } from '../syntax.js';
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
  return isIdent(last, /^(isSuccessful|isSuccess)$/) && r.end > r.start;
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

export function checkRetryOnAuthFailure(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  for (const file of project.files) {
    for (let r = 0; r < file.tokens.length; r++) {
      if (!(isIdent(file.tokens[r], 'retry') && isOp(file.tokens[r - 1], '.') && isIdent(file.tokens[r - 2], 'Result') && isOp(file.tokens[r + 1], '('))) continue;
      const fn = functionAt(file.decls, r);
      if (!fn?.body) continue;
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
      const t = file.tokens[r - 2] as Token;
      findings.push({
        file: file.path,
        line: t.line,
        column: t.column,
        rule: RULE,
        message:
          `Result.retry() is returned for HTTP ${codes.join(' and ')} (${[...via].join(', ')}): an authorization failure does not heal by retrying, ` +
          'so the worker backs off and retries forever and hides the sign-in the user must do; return Result.failure() for 401/403',
      });
    }
  }
  return { findings, unresolved: [] };
}
