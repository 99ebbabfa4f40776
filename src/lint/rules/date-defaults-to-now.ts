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
import type { ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { containsDateParse, isDateParseCall, nowExpressionEnd } from '../project.js';
import type { Range } from '../syntax.js';
import { chainStart, continuesAcrossLine, leftOperand, parseIf, rangeText, statementAround, within } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';
import { functionAt } from '../declarations.js';

const RULE = RuleId.DateDefaultsToNow;
const FALLBACK_CALLS = new Set(['getOrElse', 'getOrDefault', 'orElse', 'orElseGet', 'recover', 'onErrorReturnItem', 'onErrorReturn']);
const BOUNDARY_OPS = new Set([';', '{', '}', '=', ',', '->']);

/** `?:` whose right side contains token `k`, with a date parse on its left. */
function viaElvis(file: ParsedFile, k: number): boolean {
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
      if (t.text === '?:') return containsDateParse(file, leftOperand(file, i)) >= 0;
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
  return after === blockClose && stmt.start === k;
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

/** Names of locals in the function around `k` that hold a date parse result. */
function parsedLocals(project: Project, file: ParsedFile, k: number): Set<string> {
  const fn = functionAt(file.decls, k);
  const names = new Set<string>();
  if (!fn) return names;
  for (const d of project.values) {
    if (d.file === file && d.fn === fn && containsDateParse(file, d.init) >= 0) names.add(d.name);
  }
  return names;
}

function isNullCheckOnParse(file: ParsedFile, cond: Range, parsed: Set<string>): boolean {
  let hasNullTest = false;
  let hasParse = false;
  for (let i = cond.start; i <= cond.end; i++) {
    const t = file.tokens[i] as Token;
    if ((isOp(t, '==') || isOp(t, '!=')) && (isIdent(file.tokens[i + 1], 'null') || isIdent(file.tokens[i - 1], 'null'))) hasNullTest = true;
    if (isIdent(t, /^(isNullOrBlank|isNullOrEmpty|isEmpty|isPresent|isBlank)$/)) hasNullTest = true;
    if (isIdent(t, 'is') || isIdent(t, 'instanceof')) hasNullTest = true;
    if (isDateParseCall(file, i)) hasParse = true;
    if (t.kind === TokenKind.Identifier && parsed.has(t.value) && !isOp(file.tokens[i - 1], '.')) hasParse = true;
  }
  return hasNullTest && hasParse;
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

function viaNullCheck(project: Project, file: ParsedFile, k: number): boolean {
  const fn = functionAt(file.decls, k);
  if (!fn?.body) return false;
  const parsed = parsedLocals(project, file, k);
  for (let i = fn.body.start; i < k; i++) {
    if (isIdent(file.tokens[i], 'if')) {
      const p = parseIf(file, i);
      if (!p) continue;
      if ((within(k, p.then) || (p.otherwise && within(k, p.otherwise))) && isNullCheckOnParse(file, p.condition, parsed)) return true;
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
      if (inside && isNullCheckOnParse(file, ternaryCondition(file, i), parsed)) return true;
    }
  }
  return false;
}

export function checkDateDefaultsToNow(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  for (const file of project.files) {
    for (let k = 0; k < file.tokens.length; k++) {
      const end = nowExpressionEnd(file, k);
      if (end < 0) continue;
      let how: string | undefined;
      if (viaElvis(file, k)) how = 'the `?:` fallback of a date parse';
      else if (viaFallbackCall(file, k)) how = 'the fallback of a failed date parse';
      else {
        const tryBlock = enclosingCatchTry(file, k);
        if (tryBlock && containsDateParse(file, tryBlock.try) >= 0 && isBlockValue(file, k, tryBlock.catchClose)) how = 'the catch block of a date parse';
        else if (viaNullCheck(project, file, k)) how = 'the null branch of a date parse';
      }
      if (how === undefined) continue;
      const t = file.tokens[k] as Token;
      findings.push({
        file: file.path,
        line: t.line,
        column: t.column,
        rule: RULE,
        message:
          `\`${rangeText(file, { start: k, end })}\` is ${how}: an unparseable date becomes "now", so the entry looks new and is notified on every run; ` +
          'yield 0 instead and skip items whose publishedAt is not > 0',
      });
      k = end;
    }
  }
  return { findings, unresolved: [] };
}
