/**
 * Rule `date-defaults-to-now`: the failure path of a date parse yields the current time.
 *
 * docs/sources/000: "Defaulting a bad timestamp to the current time is how a malformed feed entry
 * notifies on every single run forever." A failed parse must yield 0 (and the window test
 * `publishedAt > 0` skip it). Flagged forms, each with a date parse (`parse`, `parseDate`, …)
 * on the guarded side and a current-time read on the fallback side:
 *   `parse(s)?.time ?: System.currentTimeMillis()`,
 *   `try { fmt.parse(s).time } catch (e: ParseException) { System.currentTimeMillis() }`,
 *   `runCatching { parse(s) }.getOrElse { Instant.now() }`, `.getOrDefault(…)`, `.orElse(…)`,
 *   `if (parsed == null) System.currentTimeMillis() else …`, Java `d != null ? d.getTime() : new Date().getTime()`.
 */
import type { FunctionDecl } from '../declarations.js';
import type { FunctionRef, ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { Reach, contextOf, stableLookup, workerNames } from '../paths.js';
import { containsDateParse, isDateParseCall, localsOf, nowExpressionEnd, readsNow } from '../project.js';
import { resolverOf } from '../resolve.js';
import type { Range } from '../syntax.js';
import { callEnd, callOpenParen, chainStart, continuesAcrossLine, isCallAt, leftOperand, parseIf, rangeText, splitArgs, statementAround, within } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';
import { functionAt } from '../declarations.js';
import type { ValueDecl } from '../constants.js';

const RULE = RuleId.DateDefaultsToNow;
const FALLBACK_CALLS = new Set(['getOrElse', 'getOrDefault', 'orElse', 'orElseGet', 'recover', 'onErrorReturnItem', 'onErrorReturn']);
const BOUNDARY_OPS = new Set([';', '{', '}', '=', ',', '->']);

const parserCache = new WeakMap<Project, Set<FunctionDecl>>();

/** True when the body can yield null or 0: a `null` or a zero literal in it. */
function yieldsNullOrZero(ref: FunctionRef): boolean {
  const b = ref.fn.body;
  if (!b) return false;
  for (let k = b.start; k <= b.end; k++) {
    const t = ref.file.tokens[k] as Token;
    if (isIdent(t, 'null')) return true;
    if (t.kind === TokenKind.Number && /^0[lL]?$/.test(t.text)) return true;
  }
  return false;
}

/**
 * The project's date parsers by what they return, not by their names: a function whose body
 * parses a date (`parse`, `DateTimeFormatter…parse`, `Instant.parse`, or another such function)
 * and can yield null or 0 when it fails (`catch (e: Exception) { null }`, `return null`). Twine's
 * `String?.dateStringToEpochMillis()` (msasikanth/twine 1b9565db,
 * core/base/src/jvmMain/kotlin/dev/sasikanth/rss/reader/util/DateTimeFormatters.jvm.kt) is one.
 */
function dateParsers(project: Project): Set<FunctionDecl> {
  const hit = parserCache.get(project);
  if (hit) return hit;
  const out = new Set<FunctionDecl>();
  parserCache.set(project, out);
  const candidates: FunctionRef[] = [];
  for (const list of project.functionsByName.values()) for (const r of list) if (r.fn.body && yieldsNullOrZero(r)) candidates.push(r);
  const resolver = resolverOf(project);
  for (let round = 0, grew = true; round < 4 && grew; round++) {
    grew = false;
    for (const r of candidates) {
      if (out.has(r.fn)) continue;
      const b = r.fn.body as Range;
      let parses = containsDateParse(r.file, b) >= 0;
      for (let k = b.start; !parses && round > 0 && k <= b.end; k++) parses = isParserCall(project, r.file, k, resolver, out);
      if (parses) {
        out.add(r.fn);
        grew = true;
      }
    }
  }
  return out;
}

const namesCache = new WeakMap<Set<FunctionDecl>, { size: number; names: Set<string> }>();

/** The parsers' names: only a call by one of them is resolved (resolution is the costly part). */
function parserNames(parsers: Set<FunctionDecl>): Set<string> {
  const hit = namesCache.get(parsers);
  if (hit && hit.size === parsers.size) return hit.names;
  const names = new Set([...parsers].map((f) => f.name));
  namesCache.set(parsers, { size: parsers.size, names });
  return names;
}

function isParserCall(project: Project, file: ParsedFile, k: number, resolver: ReturnType<typeof resolverOf>, parsers: Set<FunctionDecl>): boolean {
  const t = file.tokens[k] as Token;
  if (t.kind !== TokenKind.Identifier || !parserNames(parsers).has(t.value) || !isCallAt(file, k)) return false;
  const targets = resolver.resolveCall(file, k);
  if (targets.some((r) => parsers.has(r.fn))) return true;
  // Kotlin multiplatform: the call resolves to the bodiless `expect fun`; its `actual fun`s have the body
  return targets.length > 0 && targets.every((r) => !r.fn.body) &&
    (project.functionsByName.get(t.value) ?? []).some((r) => parsers.has(r.fn));
}

/** A date parse in `range`: a parse call, or a call of one of the project's date parsers. */
function parsesDate(project: Project, file: ParsedFile, range: Range): boolean {
  if (containsDateParse(file, range) >= 0) return true;
  const parsers = dateParsers(project);
  if (parsers.size === 0) return false;
  const resolver = resolverOf(project);
  for (let k = range.start; k <= range.end; k++) if (isParserCall(project, file, k, resolver, parsers)) return true;
  return false;
}

const declParseCache = new WeakMap<ValueDecl, boolean>();

/** `parsesDate` of a declaration's initializer, computed once per declaration. */
function parsesDateDecl(project: Project, d: ValueDecl): boolean {
  let v = declParseCache.get(d);
  if (v === undefined) {
    v = parsesDate(project, d.file, d.init);
    declParseCache.set(d, v);
  }
  return v;
}

/** `?:` whose right side contains token `k`, with a date parse (or a local holding one) on its left. */
function viaElvis(project: Project, file: ParsedFile, k: number): boolean {
  for (let i = k - 1; i >= 0; i--) {
    const t = file.tokens[i] as Token;
    if (t.kind === TokenKind.Operator) {
      if (t.text === ')' || t.text === ']') {
        const o = file.match[i] ?? -1;
        if (o < 0) return false;
        i = o;
        continue;
      }
      if (t.text === '(' || t.text === '[' || BOUNDARY_OPS.has(t.text)) return false;
      if (t.text === '?:') {
        const left = leftOperand(file, i);
        if (parsesDate(project, file, left)) return true;
        return elvisLocal(project, file, left, k) !== undefined;
      }
    }
    // a new Kotlin statement began here without an elvis
    if (file.language === 'kotlin' && t.newlineBefore && !continuesAcrossLine(file, i)) return false;
  }
  return false;
}

/** Token `k` inside the lambda or arguments of `getOrElse`/`getOrDefault`/`orElse…` on a chain that parses a date. */
function viaFallbackCall(file: ParsedFile, k: number): boolean {
  // walk out through enclosing groups
  for (let i = k - 1; i >= 0; i--) {
    const t = file.tokens[i] as Token;
    if (t.kind !== TokenKind.Operator) continue;
    if (t.text === ')' || t.text === ']' || t.text === '}') {
      const o = file.match[i] ?? -1;
      if (o >= 0) i = o;
      continue;
    }
    if (t.text === '(' || t.text === '{') {
      const callee = file.tokens[i - 1];
      let calleeIdx = i - 1;
      if (isOp(callee, ')')) calleeIdx = (file.match[i - 1] ?? 0) - 1; // `getOrElse(…) {`
      const name = file.tokens[calleeIdx];
      if (isIdent(name) && FALLBACK_CALLS.has((name as Token).value)) {
        const chain: Range = { start: chainStart(file, calleeIdx), end: calleeIdx - 1 };
        return containsDateParse(file, chain) >= 0;
      }
      if (t.text === '{') return false; // a block boundary: stop
    }
  }
  return false;
}

/**
 * True when the current time read at `k` is what the catch block yields: returned, assigned, or
 * the block's last expression (Kotlin `try` is an expression). A log line that mentions the time is not.
 */
function isBlockValue(file: ParsedFile, k: number, blockClose: number): boolean {
  const stmt = statementAround(file, k);
  if (isIdent(file.tokens[stmt.start], 'return')) return true;
  for (let i = stmt.start; i < k; i++) if (isOp(file.tokens[i], '=')) return true;
  let after = stmt.end + 1;
  if (isOp(file.tokens[after], ';')) after++;
  if (after !== blockClose) return false;
  // the block's last expression is the value, or its `?:` fallback (`other(s) ?: now()` in a catch)
  return stmt.start === k || isOp(file.tokens[k - 1], '?:');
}

/**
 * True when the value at `k`…`end` is what a branch yields: returned, assigned whole
 * (`x = now`), or the branch's own expression. A read inside a computation
 * (`val threeDaysAgo = now - 3 days`) is not.
 */
function isYieldedValue(file: ParsedFile, k: number, end: number, branch: Range): boolean {
  const stmt = statementAround(file, k);
  let stmtEnd = stmt.end;
  if (isOp(file.tokens[stmtEnd], ';')) stmtEnd--;
  if (stmtEnd !== end && !(isOp(file.tokens[end + 1], ';') && stmtEnd === end + 1)) {
    // the value must end the statement (`return now;`, `x = now`)
    if (stmtEnd > end) return false;
  }
  const first = file.tokens[stmt.start];
  if (isIdent(first, 'return') && stmt.start + 1 === k) return true;
  if (isOp(file.tokens[k - 1], '=') && k - 1 > stmt.start) return true;
  if (isOp(file.tokens[k - 1], '?:')) return true;
  // a branch that is just this expression (`if (d == null) now else d.time`)
  return stmt.start === k && (branch.start === k || (isOp(file.tokens[branch.start], '{') && stmt.start === branch.start + 1));
}

function enclosingCatchTry(file: ParsedFile, k: number): { try: Range; catchClose: number } | undefined {
  let open = file.enclosingBrace[k] ?? -1;
  const fn = functionAt(file.decls, k);
  while (open >= 0 && (!fn?.body || open >= fn.body.start)) {
    const catchClose = file.match[open] ?? -1;
    const rp = file.tokens[open - 1];
    if (isOp(rp, ')')) {
      const lp = file.match[open - 1] ?? -1;
      if (lp > 0 && isIdent(file.tokens[lp - 1], 'catch')) {
        // walk back over earlier catch blocks to the try block
        let c = lp - 1;
        for (;;) {
          const close = c - 1;
          if (!isOp(file.tokens[close], '}')) return undefined;
          const tryOpen = file.match[close] ?? -1;
          if (tryOpen < 0) return undefined;
          if (isIdent(file.tokens[tryOpen - 1], 'try')) return { try: { start: tryOpen, end: close }, catchClose };
          // Java try-with-resources: `try (…) {`
          if (isOp(file.tokens[tryOpen - 1], ')')) {
            const o = file.match[tryOpen - 1] ?? -1;
            if (o > 0 && isIdent(file.tokens[o - 1], 'try')) return { try: { start: o, end: close }, catchClose };
          }
          const prevParen = file.tokens[tryOpen - 1];
          if (!isOp(prevParen, ')')) return undefined;
          const o = file.match[tryOpen - 1] ?? -1;
          if (o <= 0 || !isIdent(file.tokens[o - 1], 'catch')) return undefined;
          c = o - 1;
        }
      }
    }
    open = file.enclosingBrace[open] ?? -1;
  }
  return undefined;
}

/** The local declared before `k` that `left` names and that holds a date parse result (`val ms = raw?.toEpochMillisOrNull()`). */
function elvisLocal(project: Project, file: ParsedFile, left: Range, k: number): ValueDecl | undefined {
  const name = file.tokens[left.start] as Token;
  if (left.start !== left.end || !isIdent(name)) return undefined;
  const fn = functionAt(file.decls, k);
  if (!fn) return undefined;
  let found: ValueDecl | undefined;
  for (const d of localsOf(project, fn)) {
    if (d.file === file && d.name === name.value && d.nameIndex < k && (!found || d.nameIndex > found.nameIndex)) found = d;
  }
  return found && parsesDateDecl(project, found) ? found : undefined;
}

/** The `?:` left of `k` whose left side is a parsed local: where that local's parse is. */
function elvisLocalAt(project: Project, file: ParsedFile, k: number): ValueDecl | undefined {
  const op = file.tokens[k - 1];
  if (!isOp(op, '?:')) return undefined;
  return elvisLocal(project, file, leftOperand(file, k - 1), k);
}

/** Names of locals in the function around `k` that hold a date parse result. */
function parsedLocals(project: Project, file: ParsedFile, k: number): Set<string> {
  const fn = functionAt(file.decls, k);
  const names = new Set<string>();
  if (!fn) return names;
  for (const d of localsOf(project, fn)) {
    if (d.file === file && d.nameIndex < k && parsesDateDecl(project, d)) names.add(d.name);
  }
  return names;
}

/**
 * When `cond` tests a date parse result (or a parsed local) for null, which branch is the null
 * one: 'then' (`d == null`, `isNullOrBlank`, `!isPresent`), 'else' (`d != null`, `isPresent`),
 * or undefined when the condition is no such test.
 */
function nullBranchOf(file: ParsedFile, cond: Range, parsed: Set<string>): 'then' | 'else' | undefined {
  let polarity: 'then' | 'else' | undefined;
  let hasParse = false;
  const negated = isOp(file.tokens[cond.start], '!');
  for (let i = cond.start; i <= cond.end; i++) {
    const t = file.tokens[i] as Token;
    if ((isOp(t, '==') || isOp(t, '!=')) && (isIdent(file.tokens[i + 1], 'null') || isIdent(file.tokens[i - 1], 'null'))) polarity = isOp(t, '==') ? 'then' : 'else';
    if (isIdent(t, /^(isNullOrBlank|isNullOrEmpty|isEmpty|isBlank)$/)) polarity = negated ? 'else' : 'then';
    if (isIdent(t, /^(isPresent|isNotEmpty|isNotBlank)$/)) polarity = negated ? 'then' : 'else';
    if (isDateParseCall(file, i)) hasParse = true;
    if (t.kind === TokenKind.Identifier && parsed.has(t.value) && !isOp(file.tokens[i - 1], '.')) hasParse = true;
  }
  return hasParse ? polarity : undefined;
}

/** The condition of a Java ternary whose `?` is at `q`: back to `return`, `=`, `(`, `,` or a statement start. */
function ternaryCondition(file: ParsedFile, q: number): Range {
  let i = q - 1;
  while (i >= 0) {
    const t = file.tokens[i] as Token;
    if (isOp(t, ')') || isOp(t, ']')) {
      const o = file.match[i] ?? -1;
      if (o < 0) break;
      i = o - 1;
      continue;
    }
    if (isIdent(t, 'return') || isOp(t, '=') || isOp(t, '(') || isOp(t, ',') || isOp(t, ';') || isOp(t, '{') || isOp(t, '}') || isOp(t, '?') || isOp(t, ':')) break;
    i--;
  }
  return { start: i + 1, end: q - 1 };
}

const nullTestCache = new WeakMap<FunctionDecl, number[]>();

/**
 * The `if`s and Java `?`s of a function whose condition reads a date parse or a local that holds
 * one (declared anywhere in the function), in source order: the only places viaNullCheck can
 * answer yes, found once per function instead of once per read of the current time.
 */
function nullTestSites(project: Project, file: ParsedFile, fn: FunctionDecl): number[] {
  const hit = nullTestCache.get(fn);
  if (hit) return hit;
  const out: number[] = [];
  const body = fn.body as Range;
  const names = new Set(localsOf(project, fn).filter((d) => d.file === file && parsesDateDecl(project, d)).map((d) => d.name));
  const readsParse = (cond: Range): boolean => {
    for (let c = cond.start; c <= cond.end; c++) {
      if (isDateParseCall(file, c)) return true;
      const t = file.tokens[c] as Token;
      if (t.kind === TokenKind.Identifier && names.has(t.value) && !isOp(file.tokens[c - 1], '.')) return true;
    }
    return false;
  };
  for (let i = body.start; i <= body.end; i++) {
    if (isIdent(file.tokens[i], 'if')) {
      const p = parseIf(file, i);
      if (p && readsParse(p.condition)) out.push(i);
    } else if (file.language === 'java' && isOp(file.tokens[i], '?') && readsParse(ternaryCondition(file, i))) {
      out.push(i);
    }
  }
  nullTestCache.set(fn, out);
  return out;
}

function viaNullCheck(project: Project, file: ParsedFile, k: number, end: number): boolean {
  const fn = functionAt(file.decls, k);
  if (!fn?.body) return false;
  const parsed = parsedLocals(project, file, k);
  for (const i of nullTestSites(project, file, fn)) {
    if (i >= k) break;
    if (isIdent(file.tokens[i], 'if')) {
      const p = parseIf(file, i);
      if (!p) continue;
      const branch = within(k, p.then) ? p.then : p.otherwise && within(k, p.otherwise) ? p.otherwise : undefined;
      if (!branch) continue;
      const nullBranch = nullBranchOf(file, p.condition, parsed);
      if (nullBranch === undefined) continue;
      // the current time must be what the null branch yields, not a value computed in the other branch
      if ((nullBranch === 'then') !== (branch === p.then)) continue;
      if (isYieldedValue(file, k, end, branch)) return true;
    }
    if (file.language === 'java' && isOp(file.tokens[i], '?')) {
      // ternary: the fallback must be in the same statement, after the `?`
      let j = i + 1;
      let inside = false;
      for (; j <= fn.body.end; j++) {
        const t = file.tokens[j] as Token;
        if (isOp(t, '(') || isOp(t, '[') || isOp(t, '{')) {
          const c = file.match[j] ?? -1;
          if (c >= k && j < k) {
            inside = true;
            break;
          }
          if (c > j) j = c;
          continue;
        }
        if (j === k) {
          inside = true;
          break;
        }
        if (isOp(t, ';') || isOp(t, ')') || isOp(t, '}')) break;
      }
      if (inside) {
        // `d != null ? d.getTime() : now` — the fallback must sit on the null side of the `:`
        const nb = nullBranchOf(file, ternaryCondition(file, i), parsed);
        let colon = -1;
        for (let j2 = i + 1; j2 < k; j2++) {
          if (isOp(file.tokens[j2], '(') || isOp(file.tokens[j2], '[')) j2 = file.match[j2] ?? j2;
          else if (isOp(file.tokens[j2], ':')) colon = j2;
        }
        if (nb !== undefined && (nb === 'else') === (colon >= 0)) return true;
      }
    }
  }
  return false;
}

/**
 * `if (raw == null) return now` / `raw ?: return now` / `if (raw.isNullOrBlank()) return now`
 * before `raw` is parsed as a date in the same function: a missing date becomes the current time.
 */
function viaEarlyReturn(project: Project, file: ParsedFile, k: number, end: number): boolean {
  const fn = functionAt(file.decls, k);
  if (!fn?.body) return false;
  const stmt = statementAround(file, k);
  const ret = isIdent(file.tokens[k - 1], 'return') ? k - 1 : -1;
  if (ret < 0) return false;
  const after = file.tokens[end + 1];
  if (after !== undefined && !isOp(after, ';') && !isOp(after, '}') && !after.newlineBefore) return false;
  // the tested name: `raw ?: return now`
  let tested: string | undefined;
  if (isOp(file.tokens[ret - 1], '?:')) {
    const left = leftOperand(file, ret - 1);
    if (left.start === left.end && isIdent(file.tokens[left.start])) tested = (file.tokens[left.start] as Token).value;
  } else {
    // `if (cond) return now`
    for (let i = Math.max(fn.body.start, stmt.start - 40); i < ret; i++) {
      if (!isIdent(file.tokens[i], 'if')) continue;
      const p = parseIf(file, i);
      if (!p || !within(ret, p.then)) continue;
      for (let c = p.condition.start; c <= p.condition.end; c++) {
        const t = file.tokens[c] as Token;
        const nullTest = (isOp(file.tokens[c + 1], '==') && isIdent(file.tokens[c + 2], 'null')) ||
          (isOp(file.tokens[c + 1], '.') && isIdent(file.tokens[c + 2], /^(isNullOrBlank|isNullOrEmpty|isEmpty|isBlank)$/));
        if (t.kind === TokenKind.Identifier && nullTest && !isOp(file.tokens[c - 1], '.')) tested = t.value;
        if (isIdent(t, 'isEmpty') && isOp(file.tokens[c + 1], '(') && isIdent(file.tokens[c + 2])) tested = (file.tokens[c + 2] as Token).value; // TextUtils.isEmpty(raw)
      }
    }
  }
  if (tested === undefined) return false;
  // … and later parsed as a date in the same function, itself or a local computed from it
  const names = new Set([tested]);
  for (const d of localsOf(project, fn)) {
    if (d.file !== file || d.nameIndex < end) continue;
    for (let m = d.init.start; m <= d.init.end; m++) if (isIdent(file.tokens[m]) && names.has((file.tokens[m] as Token).value)) names.add(d.name);
  }
  for (let i = end + 1; i <= fn.body.end; i++) {
    if (!isDateParseCall(file, i)) continue;
    const open = callOpenParen(file, i);
    const close = open >= 0 ? (file.match[open] ?? open) : i;
    for (let a = open + 1; a < close; a++) if (isIdent(file.tokens[a]) && names.has((file.tokens[a] as Token).value)) return true;
    // `raw.parseDate()` on the receiver
    const recv = file.tokens[chainStart(file, i)] as Token;
    if (isIdent(recv) && names.has(recv.value)) return true;
  }
  return false;
}

/** How the value at `k`…`end` is the fallback of a date parse, or undefined. */
function fallbackHow(project: Project, file: ParsedFile, k: number, end: number): string | undefined {
  if (viaElvis(project, file, k)) return 'the `?:` fallback of a date parse';
  if (viaFallbackCall(file, k)) return 'the fallback of a failed date parse';
  const tryBlock = enclosingCatchTry(file, k);
  if (tryBlock && containsDateParse(file, tryBlock.try) >= 0 && isBlockValue(file, k, tryBlock.catchClose)) return 'the catch block of a date parse';
  // both need a date parse in the same function: test that once per function, not per read of now
  const fn = functionAt(file.decls, k);
  if (!fn?.body || !functionParses(project, file, fn)) return undefined;
  if (viaNullCheck(project, file, k, end)) return 'the null branch of a date parse';
  if (viaEarlyReturn(project, file, k, end)) return 'returned for a missing date before the date is parsed';
  return undefined;
}

const functionParseCache = new WeakMap<FunctionDecl, boolean>();

/** True when the function's body parses a date anywhere (a parse call or a call of a project date parser). */
function functionParses(project: Project, file: ParsedFile, fn: FunctionDecl): boolean {
  let v = functionParseCache.get(fn);
  if (v === undefined) {
    v = fn.body !== undefined && parsesDate(project, file, fn.body);
    functionParseCache.set(fn, v);
  }
  return v;
}

/** Functions with no parameters whose value is the current time: the project's own clock (`fun now() = System.currentTimeMillis()`). */
function clockWrappers(project: Project): Set<FunctionDecl> {
  const out = new Set<FunctionDecl>();
  for (const list of project.functionsByName.values()) {
    for (const r of list) {
      const b = r.fn.body;
      if (!b || r.fn.params.length > 0) continue;
      let s = b.start;
      let e = b.end;
      if (isOp(r.file.tokens[s], '{')) {
        s++;
        e--;
        if (!isIdent(r.file.tokens[s], 'return')) continue;
        s++;
        if (isOp(r.file.tokens[e], ';')) e--;
      }
      if (nowExpressionEnd(r.file, s) === e) out.add(r.fn);
    }
  }
  return out;
}

const clockNameCache = new WeakMap<Set<FunctionDecl>, Set<string>>();

/** The names of the clock wrappers: only a call by one of them is resolved (resolution is the costly part). */
function clockNames(clocks: Set<FunctionDecl>): Set<string> {
  let names = clockNameCache.get(clocks);
  if (!names) {
    names = new Set([...clocks].map((f) => f.name));
    clockNameCache.set(clocks, names);
  }
  return names;
}

/** The end of a current-time read at `k`: a clock API, or a call of the project's own clock wrapper (with conversions). */
function nowEnd(project: Project, file: ParsedFile, k: number, clocks: Set<FunctionDecl>): number {
  const e = nowExpressionEnd(file, k);
  if (e >= 0) return e;
  const t = file.tokens[k] as Token;
  if (t.kind !== TokenKind.Identifier || clocks.size === 0 || !clockNames(clocks).has(t.value) || !isCallAt(file, k)) return -1;
  if (isOp(file.tokens[k - 1], '.') && chainStart(file, k) !== k - 2) return -1;
  const targets = resolverOf(project).resolveCall(file, k);
  if (targets.length === 0 || !targets.every((r) => clocks.has(r.fn))) return -1;
  return callEnd(file, k);
}

interface FallbackParam {
  readonly ref: FunctionRef;
  readonly index: number;
  readonly how: string;
}

/** Date helpers that return one of their parameters when the parse fails: `parseDate(raw, fallback)`. */
function fallbackParams(project: Project): FallbackParam[] {
  const out: FallbackParam[] = [];
  for (const list of project.functionsByName.values()) {
    for (const ref of list) {
      const b = ref.fn.body;
      if (!b || ref.fn.params.length === 0) continue;
      if (containsDateParse(ref.file, b) < 0) continue;
      ref.fn.params.forEach((p, index) => {
        for (let k = b.start; k <= b.end; k++) {
          const t = ref.file.tokens[k] as Token;
          if (t.kind !== TokenKind.Identifier || t.value !== p.name || isOp(ref.file.tokens[k - 1], '.')) continue;
          const how = fallbackHow(project, ref.file, k, k);
          if (how !== undefined) {
            out.push({ ref, index, how });
            return;
          }
        }
      });
    }
  }
  return out;
}

/** The message: what the app does with the fallback, as far as the code shows it. */
function consequence(project: Project, file: ParsedFile, at: number, bad: string, where?: FunctionRef): string | undefined {
  const fn = where?.fn ?? functionAt(file.decls, at);
  const ctx = fn ? contextOf(project, where ?? { file, fn }) : undefined;
  if (ctx?.reach === Reach.Elsewhere) return undefined;
  const fix = 'yield 0 instead and skip items whose publishedAt is not > 0';
  if (ctx?.reach === Reach.Worker) {
    const stable = ctx.workers.map((w) => stableLookup(project, w)).find((x) => x !== undefined);
    if (stable !== undefined) {
      return `${bad} becomes "now": the dedup (${stable}) keeps the entry from repeating, but an old entry with a bad date passes the look-back window ` +
        `and is notified as new, sorted as the newest, on the run of ${workerNames(ctx)} that first sees it; ${fix}`;
    }
    return `${bad} becomes "now", so the entry looks new on every run of ${workerNames(ctx)} and, with no stable id to deduplicate it, is notified every run; ${fix}`;
  }
  return `${bad} becomes "now", so the entry looks just published: where it feeds a notifier's look-back window it passes it on every run, ` +
    `and without a stable dedup id it is notified every run; ${fix}`;
}

export function checkDateDefaultsToNow(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const clocks = clockWrappers(project);
  const push = (file: ParsedFile, k: number, what: string, how: string, where?: FunctionRef): void => {
    const why = consequence(project, file, k, how.startsWith('returned for a missing date') ? 'a missing date' : 'an unparseable date', where);
    if (why === undefined) return;
    const t = file.tokens[k] as Token;
    findings.push({ file: file.path, line: t.line, column: t.column, rule: RULE, message: `${what} is ${how}: ${why}` });
  };
  for (const file of project.files) {
    for (let k = 0; k < file.tokens.length; k++) {
      const end = nowEnd(project, file, k, clocks);
      if (end < 0) continue;
      const how = fallbackHow(project, file, k, end);
      // a wrapper called on its object (`TimeSource.currentTime()`) is shown from the object
      const shown = isOp(file.tokens[k - 1], '.') && nowExpressionEnd(file, k) < 0 ? chainStart(file, k) : k;
      if (how === undefined) {
        k = end;
        continue;
      }
      const now = `\`${rangeText(file, { start: shown, end })}\``;
      // through a local: reported where the date is parsed, naming the fallback's line
      const local = elvisLocalAt(project, file, k);
      if (local) push(file, local.nameIndex, `\`${local.name}\` holds a date parse that yields null on failure, and ${now} (line ${(file.tokens[k] as Token).line})`, how);
      else push(file, shown, now, how);
      k = end;
    }
  }
  // a date helper given the current time as the value to return on failure
  const resolver = resolverOf(project);
  for (const fp of fallbackParams(project)) {
    const param = fp.ref.fn.params[fp.index];
    if (!param) continue;
    const helper = `${fp.ref.fn.name}()`;
    let defaultNow = false;
    if (param.defaultValue && nowEnd(project, fp.ref.file, param.defaultValue.start, clocks) === param.defaultValue.end) defaultNow = true;
    let defaultUsed: FunctionRef | undefined;
    for (const caller of resolver.callers(fp.ref.fn)) {
      const body = caller.fn.body;
      if (!body) continue;
      for (let i = body.start; i <= body.end; i++) {
        if (!isIdent(caller.file.tokens[i], fp.ref.fn.name) || !isCallAt(caller.file, i)) continue;
        if (!resolver.resolveCall(caller.file, i).some((r) => r.fn === fp.ref.fn)) continue;
        const open = callOpenParen(caller.file, i);
        if (open < 0) continue;
        const args = splitArgs(caller.file, open);
        const named = args.find((a) => a.name === param.name);
        const arg = named ?? (args.some((a) => a.name !== undefined) ? undefined : args[fp.index]);
        if (!arg) {
          if (defaultNow && (!defaultUsed || contextOf(project, caller).reach === Reach.Worker)) defaultUsed = caller;
          continue;
        }
        const e = nowEnd(project, caller.file, arg.start, clocks);
        const alias = arg.start === arg.end && readsNow(project, caller.file, arg);
        if (e === arg.end || alias) {
          push(caller.file, arg.start, `\`${rangeText(caller.file, arg)}\` (the current time) passed to ${helper} as \`${param.name}\``, `the value ${helper} returns when the date does not parse (${fp.how})`);
        }
      }
    }
    if (defaultUsed && param.defaultValue) {
      const c = defaultUsed.fn.name;
      push(fp.ref.file, param.defaultValue.start, `the default \`${param.name} = ${rangeText(fp.ref.file, param.defaultValue)}\` of ${helper}`, `the value ${helper} returns when the date does not parse (${fp.how}), and ${c}() leaves it out`, defaultUsed);
    }
  }
  return { findings, unresolved: [] };
}
