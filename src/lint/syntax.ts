/**
 * Bracket structure over tokens and the few syntactic questions the rules ask of it: where a
 * statement ends, what the arguments of a call are, where an operand starts and stops. Nothing
 * here looks at raw text.
 */
import type { Language, Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

export interface SourceUnit {
  /** Path as shown in findings (relative to the working directory, `/` separators). */
  readonly path: string;
  readonly language: Language;
  readonly tokens: readonly Token[];
  /** For each bracket token, the index of its partner; -1 for unmatched and non-brackets. */
  readonly match: Int32Array;
  /** For each token, the index of the innermost `{` that encloses it; -1 at top level. */
  readonly enclosingBrace: Int32Array;
}

/** An inclusive token index range. `end < start` means empty. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

export function matchBrackets(tokens: readonly Token[]): { match: Int32Array; enclosingBrace: Int32Array } {
  const match = new Int32Array(tokens.length).fill(-1);
  const enclosingBrace = new Int32Array(tokens.length).fill(-1);
  const stack: number[] = [];
  const braces: number[] = [];
  tokens.forEach((tok, i) => {
    enclosingBrace[i] = braces.length > 0 ? (braces[braces.length - 1] as number) : -1;
    if (tok.kind !== TokenKind.Operator) return;
    if (OPENERS[tok.text] !== undefined) {
      stack.push(i);
      if (tok.text === '{') braces.push(i);
      return;
    }
    const opener = CLOSERS[tok.text];
    if (opener === undefined) return;
    // Pop to the nearest opener of the same kind; openers left unclosed in between stay -1.
    for (let k = stack.length - 1; k >= 0; k--) {
      const o = stack[k] as number;
      if ((tokens[o] as Token).text === opener) {
        for (let d = stack.length - 1; d >= k; d--) {
          const popped = stack.pop() as number;
          if ((tokens[popped] as Token).text === '{') braces.pop();
        }
        match[o] = i;
        match[i] = o;
        if (tok.text === '}') enclosingBrace[i] = braces.length > 0 ? (braces[braces.length - 1] as number) : -1;
        return;
      }
    }
  });
  return { match, enclosingBrace };
}

/** The index after a bracket group starting at `i` (or `i + 1` for any other token). */
export function skipGroup(unit: SourceUnit, i: number): number {
  const m = unit.match[i] ?? -1;
  const t = unit.tokens[i];
  if (m > i && t !== undefined && OPENERS[t.text] !== undefined && t.kind === TokenKind.Operator) return m + 1;
  return i + 1;
}

/** Skips a `<…>` type argument list starting at `i` (which must be `<`); returns the index after it. */
export function skipAngles(unit: SourceUnit, i: number): number {
  if (!isOp(unit.tokens[i], '<')) return i;
  let depth = 0;
  for (let k = i; k < unit.tokens.length; k++) {
    const t = unit.tokens[k] as Token;
    if (t.kind === TokenKind.Operator) {
      if (t.text === '<') depth++;
      else if (t.text === '>') {
        depth--;
        if (depth === 0) return k + 1;
      } else if (t.text === '(' || t.text === '[') {
        k = skipGroup(unit, k) - 1;
      } else if (!['.', ',', '?', '*', ':', '->', '@', '::'].includes(t.text)) {
        return i; // not a type argument list (e.g. a comparison)
      }
    } else if (t.kind !== TokenKind.Identifier) {
      return i;
    }
  }
  return i;
}

/** Tokens that, at the end of a line, make the next line continue the same Kotlin expression. */
const CONTINUES_AFTER = new Set([
  '+', '-', '*', '/', '%', '=', '+=', '-=', '*=', '/=', '%=', '&&', '||', '?:', '.', '?.', ',', '(', '[', '->',
  '==', '!=', '===', '!==', '<=', '>=', '..', '..<', '::', ':', '!', '@',
]);
/** Tokens that, at the start of a line, continue the previous Kotlin expression. */
const CONTINUES_BEFORE = new Set(['.', '?.', '?:', '&&', '||', ')', ']', '::', '..']);
const CONTINUES_BEFORE_WORDS = new Set(['else', 'catch', 'finally', 'as', 'is', 'in', 'until', 'downTo', 'step', 'to', 'and', 'or']);

/** True when a line break before token `i` does not end the Kotlin statement. */
export function continuesAcrossLine(unit: SourceUnit, i: number): boolean {
  const prev = unit.tokens[i - 1];
  const cur = unit.tokens[i];
  if (cur === undefined) return false;
  if (prev !== undefined && prev.kind === TokenKind.Operator && CONTINUES_AFTER.has(prev.text)) return true;
  // `return` or `throw` alone on a line end the statement; these words need an operand.
  if (prev !== undefined && prev.kind === TokenKind.Identifier && ['in', 'is', 'as', 'else'].includes(prev.value)) return true;
  if (cur.kind === TokenKind.Operator && CONTINUES_BEFORE.has(cur.text)) return true;
  if (cur.kind === TokenKind.Identifier && CONTINUES_BEFORE_WORDS.has(cur.value)) {
    // `in`/`is` at a line start can also begin a `when` branch condition; callers that parse
    // `when` bodies split branches before asking.
    return true;
  }
  return false;
}

/**
 * The last token index of the statement or expression that starts at `start`, stopping before
 * `;`, a closing bracket that belongs to an outer group, `,` when `stopAtComma`, and (Kotlin) a
 * line break that does not continue the expression.
 */
export function statementEnd(unit: SourceUnit, start: number, stopAtComma = false, limit = unit.tokens.length - 1): number {
  const kotlin = unit.language === 'kotlin';
  let i = start;
  let last = start - 1;
  while (i <= limit) {
    const t = unit.tokens[i] as Token;
    if (i > start && kotlin && t.newlineBefore && !continuesAcrossLine(unit, i)) break;
    if (t.kind === TokenKind.Operator) {
      if (t.text === ';') break;
      if (t.text === ')' || t.text === ']' || t.text === '}') break;
      if (stopAtComma && t.text === ',') break;
      if (OPENERS[t.text] !== undefined) {
        const next = skipGroup(unit, i);
        if (next === i + 1) {
          // unmatched opener: everything to the limit belongs to it
          return limit;
        }
        last = next - 1;
        i = next;
        continue;
      }
    }
    last = i;
    i++;
  }
  return Math.max(last, start - 1);
}

export interface Argument extends Range {
  /** Kotlin named argument `name = value`: the name; `start` then points at the value. */
  readonly name?: string;
}

/** The arguments of the call whose `(` is at `open`. */
export function splitArgs(unit: SourceUnit, open: number): Argument[] {
  const close = unit.match[open] ?? -1;
  if (close < 0) return [];
  const args: Argument[] = [];
  let s = open + 1;
  let i = s;
  const push = (end: number): void => {
    if (end < s) return;
    const a = unit.tokens[s];
    const b = unit.tokens[s + 1];
    if (unit.language === 'kotlin' && a?.kind === TokenKind.Identifier && isOp(b, '=')) {
      args.push({ start: s + 2, end, name: a.value });
    } else {
      args.push({ start: s, end });
    }
  };
  while (i < close) {
    const t = unit.tokens[i] as Token;
    if (t.kind === TokenKind.Operator && t.text === ',') {
      push(i - 1);
      s = i + 1;
      i = s;
      continue;
    }
    i = skipGroup(unit, i);
  }
  push(close - 1);
  return args;
}

/** True when token `i` is an identifier used as a call: `name(`, `name<T>(` or `name {` (Kotlin trailing lambda). */
export function isCallAt(unit: SourceUnit, i: number): boolean {
  const t = unit.tokens[i];
  if (t === undefined || t.kind !== TokenKind.Identifier) return false;
  const prev = unit.tokens[i - 1];
  if (isIdent(prev, 'fun') || isIdent(prev, 'class') || isIdent(prev, 'interface') || isIdent(prev, 'new')) return false;
  return callOpenParen(unit, i) >= 0 || isTrailingLambdaCall(unit, i);
}

/** The index of the `(` of the call at identifier `i`, or -1. Skips explicit type arguments. */
export function callOpenParen(unit: SourceUnit, i: number): number {
  let j = i + 1;
  if (isOp(unit.tokens[j], '<')) j = skipAngles(unit, j);
  return isOp(unit.tokens[j], '(') && !(unit.tokens[j] as Token).newlineBefore ? j : -1;
}

export function isTrailingLambdaCall(unit: SourceUnit, i: number): boolean {
  if (unit.language !== 'kotlin') return false;
  const next = unit.tokens[i + 1];
  return isOp(next, '{') && !(next as Token).newlineBefore && isOp(unit.tokens[i - 1], '.');
}

/** The end (inclusive) of the call at identifier `i`: its `)` or, with a trailing lambda, the lambda's `}`. */
export function callEnd(unit: SourceUnit, i: number): number {
  let end = i;
  const open = callOpenParen(unit, i);
  if (open >= 0) end = Math.max(unit.match[open] ?? open, open);
  const next = unit.tokens[end + 1];
  if (unit.language === 'kotlin' && isOp(next, '{') && !(next as Token).newlineBefore) end = Math.max(unit.match[end + 1] ?? end, end);
  return end;
}

/** The trailing lambda `{` after the call at identifier `i` (Kotlin), or -1. */
export function trailingLambda(unit: SourceUnit, i: number): number {
  if (unit.language !== 'kotlin') return -1;
  const open = callOpenParen(unit, i);
  const after = open >= 0 ? (unit.match[open] ?? -1) + 1 : i + 1;
  if (after <= 0) return -1;
  const t = unit.tokens[after];
  return isOp(t, '{') && !(t as Token).newlineBefore ? after : -1;
}

/**
 * The start of the receiver chain that ends just before the `.` preceding token `i`
 * (`a.b(c).d` for `i` at `e` in `a.b(c).d.e`). Returns `i` when there is no receiver.
 */
export function chainStart(unit: SourceUnit, i: number): number {
  let s = i;
  for (;;) {
    const dot = unit.tokens[s - 1];
    if (!(isOp(dot, '.') || isOp(dot, '?.') || isOp(dot, '::'))) return s;
    let k = s - 2;
    // skip `!!`
    while (isOp(unit.tokens[k], '!!')) k--;
    const t = unit.tokens[k];
    if (t === undefined) return s;
    if (t.kind === TokenKind.Operator && (t.text === ')' || t.text === ']' || t.text === '}')) {
      const o = unit.match[k] ?? -1;
      if (o < 0) return s;
      k = o;
      // a call or index: include the callee name
      const before = unit.tokens[k - 1];
      if (before?.kind === TokenKind.Identifier || (before !== undefined && isOp(before, '>'))) {
        k = k - 1;
        if (isOp(unit.tokens[k], '>')) {
          // explicit type arguments: walk back to `<`
          let depth = 0;
          for (let m = k; m >= 0; m--) {
            const x = unit.tokens[m] as Token;
            if (isOp(x, '>')) depth++;
            else if (isOp(x, '<')) {
              depth--;
              if (depth === 0) {
                k = m - 1;
                break;
              }
            }
          }
        }
      }
      s = k;
      continue;
    }
    if (t.kind === TokenKind.Identifier || t.kind === TokenKind.Number || t.kind === TokenKind.String) {
      s = k;
      continue;
    }
    return s;
  }
}

/** Every token index in `range`, including the tokens of Kotlin string templates (as separate units are not built for them). */
export function tokensIn(unit: SourceUnit, range: Range): Token[] {
  const out: Token[] = [];
  for (let k = range.start; k <= range.end && k < unit.tokens.length; k++) {
    const t = unit.tokens[k] as Token;
    out.push(t);
    if (t.templates) for (const tpl of t.templates) out.push(...flattenTemplates(tpl));
  }
  return out;
}

function flattenTemplates(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    out.push(t);
    if (t.templates) for (const tpl of t.templates) out.push(...flattenTemplates(tpl));
  }
  return out;
}

/** The innermost `{`…`}` range that contains token `i` (exclusive of the braces), or the whole file. */
export function enclosingBlock(unit: SourceUnit, i: number): Range {
  const open = unit.enclosingBrace[i] ?? -1;
  if (open < 0) return { start: 0, end: unit.tokens.length - 1 };
  const close = unit.match[open] ?? -1;
  return { start: open + 1, end: close < 0 ? unit.tokens.length - 1 : close - 1 };
}

/** True when `inner` lies within `outer`. */
export function within(i: number, range: Range): boolean {
  return i >= range.start && i <= range.end;
}

/** Strips one pair of parentheses that encloses the whole range. */
export function unwrapParens(unit: SourceUnit, range: Range): Range {
  let r = range;
  while (isOp(unit.tokens[r.start], '(') && (unit.match[r.start] ?? -1) === r.end && r.end > r.start) {
    r = { start: r.start + 1, end: r.end - 1 };
  }
  return r;
}

/** Splits a range at top-level occurrences of the given operators; returns the parts and the operators between them. */
export function splitTopLevel(unit: SourceUnit, range: Range, ops: readonly string[]): { parts: Range[]; ops: string[] } {
  const parts: Range[] = [];
  const found: string[] = [];
  let s = range.start;
  let i = range.start;
  while (i <= range.end) {
    const t = unit.tokens[i] as Token;
    if (t.kind === TokenKind.Operator && ops.includes(t.text) && i > s && !isUnaryPosition(unit, i, range.start)) {
      parts.push({ start: s, end: i - 1 });
      found.push(t.text);
      s = i + 1;
      i = s;
      continue;
    }
    i = skipGroup(unit, i);
  }
  parts.push({ start: s, end: range.end });
  return { parts, ops: found };
}

/** True when the `+`/`-` at `i` is a prefix operator (start of range or after another operator). */
export function isUnaryPosition(unit: SourceUnit, i: number, rangeStart: number): boolean {
  if (i <= rangeStart) return true;
  const prev = unit.tokens[i - 1] as Token;
  if (prev.kind !== TokenKind.Operator) return false;
  return !(prev.text === ')' || prev.text === ']' || prev.text === '}' || prev.text === '!!');
}

const OPERAND_STOP_OPS = new Set([
  ',', ';', '{', '}', '=', '&&', '||', '->', '?', ':', '==', '!=', '===', '!==', '<', '<=', '>', '>=', '+=', '-=', '*=', '/=',
]);
const OPERAND_STOP_WORDS = new Set(['return', 'if', 'else', 'when', 'while', 'for', 'do', 'val', 'var', 'throw', 'in', 'is', '!in', 'case', 'and', 'or']);

/** The left operand of a binary operator at `op` (a comparison or similar). */
export function leftOperand(unit: SourceUnit, op: number): Range {
  let i = op - 1;
  let start = op;
  while (i >= 0) {
    if (unit.language === 'kotlin' && (unit.tokens[start] as Token).newlineBefore && !continuesAcrossLine(unit, start)) break;
    const t = unit.tokens[i] as Token;
    if (t.kind === TokenKind.Operator) {
      if (t.text === ')' || t.text === ']' || (t.text === '}' && isLambdaClose(unit, i))) {
        const o = unit.match[i] ?? -1;
        if (o < 0) break;
        start = o;
        i = o - 1;
        continue;
      }
      if (t.text === '(' || t.text === '[' || OPERAND_STOP_OPS.has(t.text)) break;
    } else if (t.kind === TokenKind.Identifier && OPERAND_STOP_WORDS.has(t.value)) {
      break;
    }
    start = i;
    i--;
  }
  return { start, end: op - 1 };
}

/** The right operand of a binary operator at `op`. */
export function rightOperand(unit: SourceUnit, op: number): Range {
  let i = op + 1;
  let end = op;
  while (i < unit.tokens.length) {
    const t = unit.tokens[i] as Token;
    if (unit.language === 'kotlin' && i > op + 1 && t.newlineBefore && !continuesAcrossLine(unit, i)) break;
    if (t.kind === TokenKind.Operator) {
      if (t.text === '(' || t.text === '[') {
        const c = unit.match[i] ?? -1;
        if (c < 0) break;
        end = c;
        i = c + 1;
        continue;
      }
      if (t.text === '{' && i > op + 1 && isLambdaClose(unit, unit.match[i] ?? -1)) {
        const c = unit.match[i] ?? -1;
        end = c;
        i = c + 1;
        continue;
      }
      if (t.text === ')' || t.text === ']' || OPERAND_STOP_OPS.has(t.text)) break;
    } else if (t.kind === TokenKind.Identifier && OPERAND_STOP_WORDS.has(t.value) && i > op + 1) {
      break;
    }
    end = i;
    i++;
  }
  return { start: op + 1, end };
}

/** True when the `}` at `close` ends a Kotlin trailing lambda of a call (`x.let { … }`, `run { … }`). */
export function isLambdaClose(unit: SourceUnit, close: number): boolean {
  if (unit.language !== 'kotlin' || !isOp(unit.tokens[close], '}')) return false;
  const open = unit.match[close] ?? -1;
  if (open <= 0) return false;
  const before = unit.tokens[open - 1] as Token;
  if (before.kind === TokenKind.Identifier) return !['else', 'try', 'finally', 'do', 'init', 'object'].includes(before.value) && !isIdent(unit.tokens[open - 2], 'class');
  return isOp(before, ')') && !isControlParen(unit, open - 1);
}

/** True when the `)` at `close` closes the condition of `if`/`for`/`while`/`when`/`catch` or a declaration's parameters. */
function isControlParen(unit: SourceUnit, close: number): boolean {
  const open = unit.match[close] ?? -1;
  const kw = unit.tokens[open - 1];
  if (isIdent(kw, /^(if|for|while|when|catch|switch|synchronized)$/)) return true;
  return isIdent(kw) && isIdent(unit.tokens[open - 2], 'fun');
}

/** The statement of the enclosing block that contains token `k`. */
export function statementAround(unit: SourceUnit, k: number): Range {
  const block = enclosingBlock(unit, k);
  let s = block.start;
  while (s <= block.end) {
    if (isOp(unit.tokens[s], ';')) {
      s++;
      continue;
    }
    let e = statementEnd(unit, s, false, block.end);
    if (e < s) e = s;
    if (k <= e) return { start: s, end: e };
    s = e + 1;
  }
  return { start: k, end: k };
}

/** Kotlin `if`/Java `if`: the condition range and the then/else ranges of the `if` at `i`. */
export interface IfParts {
  readonly condition: Range;
  readonly then: Range;
  readonly otherwise?: Range;
  /** Index of the `else` token, if any. */
  readonly elseIndex?: number;
}

export function parseIf(unit: SourceUnit, i: number): IfParts | undefined {
  if (!isIdent(unit.tokens[i], 'if')) return undefined;
  const open = i + 1;
  if (!isOp(unit.tokens[open], '(')) return undefined;
  const close = unit.match[open] ?? -1;
  if (close < 0) return undefined;
  const condition = { start: open + 1, end: close - 1 };
  const thenRange = branchRange(unit, close + 1);
  let k = thenRange.end + 1;
  if (isOp(unit.tokens[k], ';') && unit.language === 'java') k++;
  if (isIdent(unit.tokens[k], 'else')) {
    return { condition, then: thenRange, otherwise: branchRange(unit, k + 1), elseIndex: k };
  }
  return { condition, then: thenRange };
}

/** A branch body starting at `s`: a `{…}` block or a single statement/expression. */
export function branchRange(unit: SourceUnit, s: number): Range {
  if (isOp(unit.tokens[s], '{')) {
    const c = unit.match[s] ?? -1;
    return { start: s, end: c < 0 ? unit.tokens.length - 1 : c };
  }
  if (isIdent(unit.tokens[s], 'if')) {
    const inner = parseIf(unit, s);
    if (inner) return { start: s, end: (inner.otherwise ?? inner.then).end };
  }
  let end = statementEnd(unit, s);
  // `if (c) a else b` on one line: the then branch stops before its `else`
  for (let k = s + 1; k <= end; k = skipGroup(unit, k)) {
    if (isIdent(unit.tokens[k], 'else')) {
      end = k - 1;
      break;
    }
  }
  return { start: s, end };
}

/** Text of tokens in a range joined by single spaces (for messages). */
export function rangeText(unit: SourceUnit, range: Range, max = 80): string {
  const parts: string[] = [];
  for (let k = range.start; k <= range.end && k < unit.tokens.length; k++) parts.push((unit.tokens[k] as Token).text);
  let s = parts.join(' ').replace(/\s+/g, ' ').replace(/ ?([.([]) ?/g, '$1').replace(/ ([)\],])/g, '$1').replace(/ ?(::|\?\.) ?/g, '$1').replace(/(^|[ (])! /g, '$1!');
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  return s;
}
