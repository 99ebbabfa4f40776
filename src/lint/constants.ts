/**
 * Constant evaluation across files: every `val`/`const val` (Kotlin) and typed variable or field
 * (Java) with an initializer is collected, and a tiny evaluator over tokens computes numbers,
 * durations, time units and strings from literals, arithmetic and the time APIs apps use:
 *
 * - java.util.concurrent.TimeUnit: `TimeUnit.HOURS.toMillis(48)` and friends (JDK TimeUnit).
 * - java.time.Duration: `Duration.ofHours(24)`, `Duration.of(1, ChronoUnit.DAYS)`, `.toMillis()`.
 * - kotlin.time.Duration: `24.hours`, `2.days`, `48.toDuration(DurationUnit.HOURS)`,
 *   `.inWholeMilliseconds`, `.toJavaDuration()` (kotlin-stdlib `kotlin.time`).
 *
 * Int arithmetic wraps at 32 bits as on the JVM (`30 * 24 * 60 * 60 * 1000` overflows), Long
 * arithmetic is exact up to 2^53, anything else is unknown. Unknown is an answer, never a guess.
 */
import type { ClassDecl, FunctionDecl } from './declarations.js';
import { ClassKeyword, classAt, functionAt, namedOwner } from './declarations.js';
import type { ParsedFile } from './model.js';
import type { Range } from './syntax.js';
import { skipAngles, skipGroup, splitArgs, statementEnd } from './syntax.js';
import type { Token } from './tokenizer.js';
import { NumberType, TokenKind, isIdent, isOp } from './tokenizer.js';

export type Value =
  | { readonly kind: 'number'; readonly value: number; readonly type: NumberType }
  | { readonly kind: 'duration'; readonly ms: number }
  | { readonly kind: 'unit'; readonly ms: number; readonly name: string }
  | { readonly kind: 'string'; readonly value: string };

/** A named value with an initializer: a constant, a field or a local variable. */
export interface ValueDecl {
  readonly name: string;
  readonly file: ParsedFile;
  readonly nameIndex: number;
  readonly init: Range;
  /** The innermost class, object or companion the declaration is a member of (undefined: top level or local). */
  readonly owner: ClassDecl | undefined;
  /** The function it is local to, if any. */
  readonly fn: FunctionDecl | undefined;
  /** Modifier words written before it (`private`, `const`, `static`, `final`, …). */
  readonly modifiers: readonly string[];
  /** The declared type's simple name, when written. */
  readonly typeName: string | undefined;
  /** Kotlin `var` or a Java variable without `final`. */
  readonly mutable: boolean;
}

export interface Evaluation {
  readonly value: Value | undefined;
  /** The declarations the value was read through, in the order they were reached. */
  readonly refs: readonly ValueDecl[];
  /** Why the value is unknown (names that did not resolve, calls that cannot be evaluated). */
  readonly unresolved: readonly string[];
}

const UNIT_MS: Readonly<Record<string, number>> = {
  NANOSECONDS: 1e-6,
  MICROSECONDS: 1e-3,
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
  HALF_DAYS: 43_200_000, // ChronoUnit.HALF_DAYS
  NANOS: 1e-6, // ChronoUnit names
  MICROS: 1e-3,
  MILLIS: 1,
  WEEKS: 7 * 86_400_000,
};
const UNIT_NAMESPACES = new Set(['TimeUnit', 'DurationUnit', 'ChronoUnit']);

/** kotlin.time `Int.hours`-style extension properties and their factor in ms. */
const KOTLIN_DURATION_PROPS: Readonly<Record<string, number>> = {
  nanoseconds: 1e-6,
  microseconds: 1e-3,
  milliseconds: 1,
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};
/** java.time.Duration factories. */
const DURATION_FACTORIES: Readonly<Record<string, number>> = {
  ofNanos: 1e-6,
  ofMillis: 1,
  ofSeconds: 1000,
  ofMinutes: 60_000,
  ofHours: 3_600_000,
  ofDays: 86_400_000,
};
/** Conversions out of a duration (java.time and kotlin.time) to a whole number of a unit. */
const DURATION_TO: Readonly<Record<string, number>> = {
  toMillis: 1,
  toSeconds: 1000,
  getSeconds: 1000,
  toMinutes: 60_000,
  toHours: 3_600_000,
  toDays: 86_400_000,
  toLongMilliseconds: 1,
  inWholeMilliseconds: 1,
  inWholeSeconds: 1000,
  inWholeMinutes: 60_000,
  inWholeHours: 3_600_000,
  inWholeDays: 86_400_000,
};
/** java.net.HttpURLConnection status constants (JDK `java/net/HttpURLConnection.java`). */
const HTTP_CONSTANTS: Readonly<Record<string, number>> = {
  HTTP_OK: 200,
  HTTP_CREATED: 201,
  HTTP_ACCEPTED: 202,
  HTTP_NO_CONTENT: 204,
  HTTP_BAD_REQUEST: 400,
  HTTP_UNAUTHORIZED: 401,
  HTTP_PAYMENT_REQUIRED: 402,
  HTTP_FORBIDDEN: 403,
  HTTP_NOT_FOUND: 404,
  HTTP_CLIENT_TIMEOUT: 408,
  HTTP_CONFLICT: 409,
  HTTP_INTERNAL_ERROR: 500,
  HTTP_BAD_GATEWAY: 502,
  HTTP_UNAVAILABLE: 503,
  HTTP_GATEWAY_TIMEOUT: 504,
};
/**
 * androidx.work `PeriodicWorkRequest` limits, in milliseconds (work-runtime
 * `src/main/java/androidx/work/PeriodicWorkRequest.kt`, companion object:
 * `MIN_PERIODIC_INTERVAL_MILLIS = 15 * 60 * 1000L`, `MIN_PERIODIC_FLEX_MILLIS = 5 * 60 * 1000L`).
 */
const WORK_CONSTANTS: Readonly<Record<string, number>> = {
  MIN_PERIODIC_INTERVAL_MILLIS: 900_000,
  MIN_PERIODIC_FLEX_MILLIS: 300_000,
};
const PACKAGE_ROOTS = new Set(['java', 'javax', 'kotlin', 'kotlinx', 'android', 'androidx', 'com', 'org', 'net', 'io', 'dev', 'app']);
const PRIMITIVE_CASTS: Readonly<Record<string, NumberType>> = { long: NumberType.Long, int: NumberType.Int, double: NumberType.Double, float: NumberType.Double, short: NumberType.Int, byte: NumberType.Int };

// ---------------------------------------------------------------------------------------------
// Collection

const MODIFIER_WORDS = new Set([
  'private', 'public', 'protected', 'internal', 'const', 'static', 'final', 'override', 'open', 'lateinit', 'volatile', 'transient',
]);

function modifiersBefore(file: ParsedFile, i: number): string[] {
  const out: string[] = [];
  let k = i - 1;
  while (k >= 0) {
    const t = file.tokens[k] as Token;
    if (t.kind === TokenKind.Identifier && MODIFIER_WORDS.has(t.value)) {
      out.unshift(t.value);
      k--;
      continue;
    }
    if (isOp(t, ')') && isIdent(file.tokens[(file.match[k] ?? 0) - 1]) && isOp(file.tokens[(file.match[k] ?? 0) - 2], '@')) {
      k = (file.match[k] ?? 0) - 3;
      continue;
    }
    if (t.kind === TokenKind.Identifier && isOp(file.tokens[k - 1], '@')) {
      k -= 2;
      continue;
    }
    break;
  }
  return out;
}

/** True when token `i` sits inside `(…)` of the current block (a parameter list or call). */
function insideParens(file: ParsedFile, i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const t = file.tokens[k] as Token;
    if (t.kind !== TokenKind.Operator) continue;
    if (t.text === ')' || t.text === ']') {
      const o = file.match[k] ?? -1;
      if (o < 0) return false;
      k = o;
      continue;
    }
    if (t.text === '(') return true;
    if (t.text === '{' || t.text === '}' || t.text === ';') return false;
  }
  return false;
}

/** Every value declaration with an initializer in one file. */
export function collectValueDecls(file: ParsedFile): ValueDecl[] {
  const out: ValueDecl[] = [];
  const toks = file.tokens;
  const kotlin = file.language === 'kotlin';
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Token;
    if (kotlin) {
      if (!(isIdent(t, 'val') || isIdent(t, 'var'))) continue;
      if (insideParens(file, i)) continue; // a constructor parameter's default, not a declaration with a value of its own
      const nameTok = toks[i + 1];
      if (nameTok?.kind !== TokenKind.Identifier) continue;
      let k = i + 2;
      let typeName: string | undefined;
      if (isOp(toks[k], ':')) {
        k++;
        let last: string | undefined;
        while (isIdent(toks[k])) {
          last = (toks[k] as Token).value;
          if (isOp(toks[k + 1], '.')) k += 2;
          else {
            k++;
            break;
          }
        }
        typeName = last;
        if (isOp(toks[k], '<')) k = skipAngles(file, k);
        if (isOp(toks[k], '?')) k++;
      }
      if (!isOp(toks[k], '=')) continue;
      const start = k + 1;
      const end = statementEnd(file, start);
      const fn = functionAt(file.decls, i);
      out.push({
        name: nameTok.value,
        file,
        nameIndex: i + 1,
        init: { start, end },
        owner: fn ? undefined : classAt(file.decls, i),
        fn,
        modifiers: modifiersBefore(file, i),
        typeName,
        mutable: t.value === 'var',
      });
    } else {
      if (t.kind !== TokenKind.Identifier || !isOp(toks[i + 1], '=')) continue;
      const prev = toks[i - 1];
      if (prev === undefined) continue;
      let typeEnd = i - 1;
      if (isOp(prev, ']')) {
        if (!isOp(toks[i - 2], '[')) continue;
        typeEnd = i - 3;
      } else if (isOp(prev, '>')) {
        // generic type: walk back to its `<`
        let depth = 0;
        let k = i - 1;
        for (; k >= 0; k--) {
          if (isOp(toks[k], '>')) depth++;
          else if (isOp(toks[k], '<')) {
            depth--;
            if (depth === 0) break;
          }
        }
        typeEnd = k - 1;
      } else if (prev.kind !== TokenKind.Identifier || ['return', 'new', 'case', 'else', 'throw', 'yield', 'assert', 'this', 'super'].includes(prev.value)) {
        continue;
      }
      const typeTok = toks[typeEnd];
      if (typeTok?.kind !== TokenKind.Identifier) continue;
      // the type may be qualified: walk back over `a.b.C`
      let typeStart = typeEnd;
      while (isOp(toks[typeStart - 1], '.') && isIdent(toks[typeStart - 2])) typeStart -= 2;
      const before = toks[typeStart - 1];
      // a declaration starts a statement: after `;`, `{`, `}`, `(` (for/try resources), `,` (parameters never have `=`), a modifier or an annotation
      if (
        before !== undefined &&
        !(isOp(before, ';') || isOp(before, '{') || isOp(before, '}') || isOp(before, '(') || isOp(before, ')')) &&
        !(before.kind === TokenKind.Identifier && MODIFIER_WORDS.has(before.value))
      ) {
        continue;
      }
      const start = i + 2;
      let end = start;
      while (end < toks.length && !isOp(toks[end], ';') && !isOp(toks[end], ',') && !isOp(toks[end], ')') && !isOp(toks[end], '}')) {
        end = skipGroup(file, end);
      }
      const fn = functionAt(file.decls, i);
      const modifiers = modifiersBefore(file, typeStart);
      out.push({
        name: t.value,
        file,
        nameIndex: i,
        init: { start, end: end - 1 },
        owner: fn ? undefined : classAt(file.decls, i),
        fn,
        modifiers,
        typeName: typeTok.value,
        mutable: !modifiers.includes('final'),
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Resolution and evaluation

/** A static namespace reached while walking a dotted path (`TimeUnit`, `Duration`). */
interface Namespace {
  readonly kind: 'namespace';
  readonly name: string;
}
type Operand = Value | Namespace | undefined;

interface Trace {
  refs: ValueDecl[];
  unresolved: string[];
}

const isNamespace = (v: Operand): v is Namespace => v !== undefined && v.kind === 'namespace';
const isValue = (v: Operand): v is Value => v !== undefined && v.kind !== 'namespace';

function num(value: number, type: NumberType): Value | undefined {
  if (type === NumberType.Int) return { kind: 'number', value: value | 0, type };
  if (type === NumberType.Long && !Number.isSafeInteger(value)) return undefined;
  if (!Number.isFinite(value)) return undefined;
  return { kind: 'number', value, type };
}

function widen(a: NumberType, b: NumberType): NumberType {
  if (a === NumberType.Double || b === NumberType.Double) return NumberType.Double;
  if (a === NumberType.Long || b === NumberType.Long) return NumberType.Long;
  return NumberType.Int;
}

function arith(op: string, a: Value, b: Value): Value | undefined {
  if (op === '+' && (a.kind === 'string' || b.kind === 'string')) {
    const s = (v: Value): string | undefined => (v.kind === 'string' ? v.value : v.kind === 'number' ? String(v.value) : undefined);
    const x = s(a);
    const y = s(b);
    return x !== undefined && y !== undefined ? { kind: 'string', value: x + y } : undefined;
  }
  if (a.kind === 'number' && b.kind === 'number') {
    const type = widen(a.type, b.type);
    switch (op) {
      case '+':
        return num(a.value + b.value, type);
      case '-':
        return num(a.value - b.value, type);
      case '*':
        return num(type === NumberType.Int ? Math.imul(a.value, b.value) : a.value * b.value, type);
      case '/':
        if (b.value === 0) return undefined;
        return num(type === NumberType.Double ? a.value / b.value : Math.trunc(a.value / b.value), type);
      case '%':
        if (b.value === 0) return undefined;
        return num(a.value % b.value, type);
      default:
        return undefined;
    }
  }
  if (a.kind === 'duration' && b.kind === 'duration') {
    if (op === '+') return { kind: 'duration', ms: a.ms + b.ms };
    if (op === '-') return { kind: 'duration', ms: a.ms - b.ms };
    return undefined;
  }
  if (a.kind === 'duration' && b.kind === 'number') {
    if (op === '*') return { kind: 'duration', ms: a.ms * b.value };
    if (op === '/' && b.value !== 0) return { kind: 'duration', ms: a.ms / b.value };
    return undefined;
  }
  if (a.kind === 'number' && b.kind === 'duration' && op === '*') return { kind: 'duration', ms: a.value * b.ms };
  return undefined;
}

/** The value in milliseconds of a number (taken as milliseconds) or a duration. */
export function toMillis(v: Value | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (v.kind === 'duration') return v.ms;
  if (v.kind === 'number') return v.value;
  return undefined;
}

export class ConstantResolver {
  private readonly byName = new Map<string, ValueDecl[]>();
  private readonly cache = new Map<ValueDecl, Evaluation>();
  private readonly inProgress = new Set<ValueDecl>();

  constructor(readonly decls: readonly ValueDecl[]) {
    for (const d of decls) {
      const list = this.byName.get(d.name);
      if (list) list.push(d);
      else this.byName.set(d.name, [d]);
    }
  }

  /** All declarations with this simple name. */
  named(name: string): readonly ValueDecl[] {
    return this.byName.get(name) ?? [];
  }

  /** The declarations a bare name at token `at` of `file` can refer to, nearest scope first. */
  lookup(name: string, file: ParsedFile, at: number): ValueDecl[] {
    const all = this.byName.get(name);
    if (!all) return [];
    // 1. locals of the enclosing functions, declared before the use
    const locals = all.filter((d) => d.file === file && d.fn?.body !== undefined && at >= d.fn.body.start && at <= d.fn.body.end && d.nameIndex < at);
    if (locals.length > 0) {
      return [locals.reduce((a, b) => (b.nameIndex > a.nameIndex ? b : a))];
    }
    // 2. members of the enclosing classes (and their companions), innermost first
    for (let c = classAt(file.decls, at); c; c = c.parent) {
      const members = all.filter(
        (d) => d.file === file && d.fn === undefined && d.owner !== undefined && (d.owner === c || (d.owner.parent === c && d.owner.keyword === ClassKeyword.Companion)),
      );
      if (members.length > 0) return members;
    }
    // 3. top level of the same file
    const top = all.filter((d) => d.file === file && d.owner === undefined && d.fn === undefined);
    if (top.length > 0) return top;
    // 4. top level of other files, and members imported by name (`import a.b.Constants.NAME`)
    const imported = new Set(file.decls.imports.filter((imp) => imp.endsWith(`.${name}`)).map((imp) => imp.split('.').slice(-2, -1)[0]));
    return all.filter((d) => {
      if (d.fn !== undefined) return false;
      if (d.owner === undefined) return d.file !== file;
      const owner = namedOwner(d.owner);
      return (owner !== undefined && imported.has(owner.name)) || imported.has(d.owner.name);
    });
  }

  /** Declarations `Owner.NAME` (also `Owner.Companion.NAME`) can refer to. */
  lookupQualified(owner: string, name: string): ValueDecl[] {
    return (this.byName.get(name) ?? []).filter((d) => {
      if (d.fn !== undefined || d.owner === undefined) return false;
      if (d.owner.name === owner && d.owner.keyword !== ClassKeyword.Anonymous) return true;
      return d.owner.keyword === ClassKeyword.Companion && d.owner.parent?.name === owner;
    });
  }

  /** Evaluates a declaration's initializer (memoized). */
  evaluateDecl(d: ValueDecl): Evaluation {
    const cached = this.cache.get(d);
    if (cached) return cached;
    if (this.inProgress.has(d)) return { value: undefined, refs: [], unresolved: [`${d.name} refers to itself`] };
    this.inProgress.add(d);
    const ev = this.evaluate(d.file, d.init);
    this.inProgress.delete(d);
    const result: Evaluation = { value: ev.value, refs: [d, ...ev.refs.filter((r) => r !== d)], unresolved: ev.unresolved };
    this.cache.set(d, result);
    return result;
  }

  /** Evaluates the expression in `range` of `file`. */
  evaluate(file: ParsedFile, range: Range): Evaluation {
    const trace: Trace = { refs: [], unresolved: [] };
    const ev = new ExpressionEvaluator(this, file, range, trace);
    const v = ev.parseExpression();
    const value = ev.atEnd() && isValue(v) ? v : undefined;
    if (value === undefined && trace.unresolved.length === 0) trace.unresolved.push(`cannot evaluate \`${textOf(file, range)}\``);
    return { value, refs: trace.refs, unresolved: value === undefined ? trace.unresolved : [] };
  }

  /** Resolves a list of candidate declarations to one value: all must agree. */
  resolveCandidates(cands: readonly ValueDecl[], name: string, trace: Trace): Value | undefined {
    if (cands.length === 0) {
      trace.unresolved.push(`\`${name}\` is not declared in the scanned sources`);
      return undefined;
    }
    let value: Value | undefined;
    for (const c of cands) {
      const ev = this.evaluateDecl(c);
      if (ev.value === undefined) {
        trace.unresolved.push(...ev.unresolved);
        return undefined;
      }
      if (value !== undefined && !sameValue(value, ev.value)) {
        trace.unresolved.push(`\`${name}\` has several declarations with different values`);
        return undefined;
      }
      value = ev.value;
      for (const r of ev.refs) if (!trace.refs.includes(r)) trace.refs.push(r);
    }
    return value;
  }
}

function sameValue(a: Value, b: Value): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function textOf(file: ParsedFile, range: Range): string {
  const parts: string[] = [];
  for (let k = range.start; k <= range.end; k++) parts.push((file.tokens[k] as Token).text);
  const s = parts.join(' ').replace(/\s+/g, ' ');
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

class ExpressionEvaluator {
  private pos: number;

  constructor(
    private readonly resolver: ConstantResolver,
    private readonly file: ParsedFile,
    private readonly range: Range,
    private readonly trace: Trace,
  ) {
    this.pos = range.start;
  }

  atEnd(): boolean {
    return this.pos > this.range.end;
  }

  private peek(offset = 0): Token | undefined {
    const k = this.pos + offset;
    return k <= this.range.end ? this.file.tokens[k] : undefined;
  }

  parseExpression(): Operand {
    let left = this.parseTerm();
    for (;;) {
      const t = this.peek();
      if (!(isOp(t, '+') || isOp(t, '-'))) return left;
      this.pos++;
      const right = this.parseTerm();
      left = isValue(left) && isValue(right) ? arith((t as Token).text, left, right) : undefined;
    }
  }

  private parseTerm(): Operand {
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (!(isOp(t, '*') || isOp(t, '/') || isOp(t, '%'))) return left;
      this.pos++;
      const right = this.parseUnary();
      left = isValue(left) && isValue(right) ? arith((t as Token).text, left, right) : undefined;
    }
  }

  private parseUnary(): Operand {
    const t = this.peek();
    if (isOp(t, '-') || isOp(t, '+')) {
      this.pos++;
      const v = this.parseUnary();
      if (isOp(t, '+')) return v;
      if (isValue(v) && v.kind === 'number') return num(-v.value, v.type);
      if (isValue(v) && v.kind === 'duration') return { kind: 'duration', ms: -v.ms };
      return undefined;
    }
    // Java cast: `(long) expr`
    if (isOp(t, '(') && isIdent(this.peek(1)) && isOp(this.peek(2), ')') && PRIMITIVE_CASTS[(this.peek(1) as Token).value] !== undefined) {
      const type = PRIMITIVE_CASTS[(this.peek(1) as Token).value] as NumberType;
      this.pos += 3;
      const v = this.parseUnary();
      if (isValue(v) && v.kind === 'number') return num(type === NumberType.Double ? v.value : Math.trunc(v.value), type);
      return undefined;
    }
    return this.parsePostfix();
  }

  private parsePostfix(): Operand {
    let v = this.parsePrimary();
    for (;;) {
      const t = this.peek();
      if ((isOp(t, '.') || isOp(t, '?.')) && isIdent(this.peek(1))) {
        const name = (this.peek(1) as Token).value;
        this.pos += 2;
        let args: Operand[] | undefined;
        if (isOp(this.peek(), '(')) args = this.parseArgs();
        v = args === undefined ? this.property(v, name) : this.call(v, name, args);
        continue;
      }
      if (isOp(t, '!!')) {
        this.pos++;
        continue;
      }
      if (isIdent(t, 'as') && isIdent(this.peek(1))) {
        this.pos += 2;
        if (isOp(this.peek(), '?')) this.pos++;
        continue;
      }
      return v;
    }
  }

  private parseArgs(): Operand[] {
    const open = this.pos;
    const close = this.file.match[open] ?? -1;
    if (close < 0 || close > this.range.end) {
      this.pos = this.range.end + 1;
      return [];
    }
    const args = splitArgs(this.file, open).map((a) => {
      const sub = new ExpressionEvaluator(this.resolver, this.file, { start: a.start, end: a.end }, this.trace);
      const v = sub.parseExpression();
      return sub.atEnd() ? v : undefined;
    });
    this.pos = close + 1;
    return args;
  }

  private parsePrimary(): Operand {
    const t = this.peek();
    if (t === undefined) return undefined;
    if (t.kind === TokenKind.Number) {
      this.pos++;
      if (t.numberValue === undefined || Number.isNaN(t.numberValue)) return undefined;
      // An Int literal too large for Int is a Long in Kotlin (and an error in Java).
      const type = t.numberType === NumberType.Int && Math.abs(t.numberValue) > 0x7fffffff ? NumberType.Long : (t.numberType ?? NumberType.Int);
      return num(t.numberValue, type);
    }
    if (t.kind === TokenKind.String) {
      this.pos++;
      return t.templates ? undefined : { kind: 'string', value: t.value };
    }
    if (isOp(t, '(')) {
      const close = this.file.match[this.pos] ?? -1;
      if (close < 0 || close > this.range.end) return undefined;
      const sub = new ExpressionEvaluator(this.resolver, this.file, { start: this.pos + 1, end: close - 1 }, this.trace);
      const v = sub.parseExpression();
      this.pos = close + 1;
      return sub.atEnd() ? v : undefined;
    }
    if (t.kind !== TokenKind.Identifier) {
      this.pos = this.range.end + 1;
      return undefined;
    }
    // A dotted path of plain names (no calls yet): `java.util.concurrent.TimeUnit.HOURS`, `Config.WINDOW_MS`.
    const at = this.pos;
    const path: string[] = [t.value];
    this.pos++;
    while (isOp(this.peek(), '.') && isIdent(this.peek(1)) && !isOp(this.peek(2), '(') && !(isOp(this.peek(2), '<') && skipAngles(this.file, this.pos + 2) > this.pos + 2)) {
      path.push((this.peek(1) as Token).value);
      this.pos += 2;
    }
    if (isOp(this.peek(), '(') && path.length === 1) {
      const args = this.parseArgs();
      return this.topLevelCall(t.value, args);
    }
    return this.resolvePath(path, at);
  }

  private topLevelCall(name: string, args: Operand[]): Operand {
    const vals = args.filter(isValue);
    if (vals.length !== args.length) return undefined;
    if ((name === 'maxOf' || name === 'minOf') && vals.length >= 2 && vals.every((v) => v.kind === 'number')) {
      const nums = vals.map((v) => (v as { value: number }).value);
      const type = vals.map((v) => (v as { type: NumberType }).type).reduce(widen);
      return num(name === 'maxOf' ? Math.max(...nums) : Math.min(...nums), type);
    }
    this.trace.unresolved.push(`call \`${name}(…)\` cannot be evaluated`);
    return undefined;
  }

  private resolvePath(pathIn: readonly string[], at: number): Operand {
    let path = pathIn.slice();
    // Drop a package prefix: `java.util.concurrent.TimeUnit` → `TimeUnit`.
    if (path.length > 1 && PACKAGE_ROOTS.has(path[0] as string) && this.resolver.lookup(path[0] as string, this.file, at).length === 0) {
      const firstUpper = path.findIndex((p) => /^[A-Z]/.test(p));
      if (firstUpper > 0) path = path.slice(firstUpper);
    }
    const [head, second] = path;
    if (head === undefined) return undefined;
    if (UNIT_NAMESPACES.has(head)) {
      if (second === undefined) return { kind: 'namespace', name: head };
      const ms = UNIT_MS[second];
      if (ms === undefined) return undefined;
      return this.properties({ kind: 'unit', ms, name: second }, path.slice(2));
    }
    if (head === 'Duration') {
      if (second === 'ZERO') return this.properties({ kind: 'duration', ms: 0 }, path.slice(2));
      if (second === undefined) return { kind: 'namespace', name: 'Duration' };
    }
    if (head === 'PeriodicWorkRequest' && second !== undefined && WORK_CONSTANTS[second] !== undefined) {
      return { kind: 'number', value: WORK_CONSTANTS[second], type: NumberType.Long };
    }
    if (head === 'HttpURLConnection' && second !== undefined && HTTP_CONSTANTS[second] !== undefined) {
      return { kind: 'number', value: HTTP_CONSTANTS[second], type: NumberType.Int };
    }
    if (path.length === 1 && HTTP_CONSTANTS[head] !== undefined && this.resolver.lookup(head, this.file, at).length === 0 &&
      this.file.decls.imports.some((imp) => imp.endsWith(`HttpURLConnection.${head}`) || imp.endsWith('HttpURLConnection.*'))) {
      return { kind: 'number', value: HTTP_CONSTANTS[head], type: NumberType.Int };
    }
    if (path.length === 1 && UNIT_MS[head] !== undefined && this.resolver.lookup(head, this.file, at).length === 0 &&
      this.file.decls.imports.some((imp) => /\.(TimeUnit|ChronoUnit|DurationUnit)\.(\w+|\*)$/.test(imp))) {
      return { kind: 'unit', ms: UNIT_MS[head], name: head };
    }
    // Qualified constant: the longest `Owner.NAME` (or `Owner.Companion.NAME`) prefix that names a declaration.
    for (let n = path.length; n >= 2; n--) {
      const name = path[n - 1] as string;
      let owner = path[n - 2] as string;
      if (owner === 'Companion' && n >= 3) owner = path[n - 3] as string;
      const cands = this.resolver.lookupQualified(owner, name);
      if (cands.length > 0) {
        const v = this.resolver.resolveCandidates(cands, path.slice(0, n).join('.'), this.trace);
        return v === undefined ? undefined : this.properties(v, path.slice(n));
      }
    }
    // A plain name, then property accesses on its value.
    const cands = this.resolver.lookup(head, this.file, at);
    if (cands.length === 0 && /^[A-Z]/.test(head) && path.length > 1) {
      this.trace.unresolved.push(`\`${path.join('.')}\` is not declared in the scanned sources`);
      return undefined;
    }
    if (cands.length === 0) {
      const fn = functionAt(this.file.decls, at);
      if (fn?.params.some((p) => p.name === head)) {
        this.trace.unresolved.push(`\`${head}\` is a parameter of ${fn.name}(): its value is known only at run time`);
        return undefined;
      }
    }
    const v = this.resolver.resolveCandidates(cands, head, this.trace);
    return v === undefined ? undefined : this.properties(v, path.slice(1));
  }

  private properties(v: Operand, names: readonly string[]): Operand {
    let cur = v;
    for (const n of names) cur = this.property(cur, n);
    return cur;
  }

  private property(v: Operand, name: string): Operand {
    if (!isValue(v)) return undefined;
    if (v.kind === 'number' && KOTLIN_DURATION_PROPS[name] !== undefined) return { kind: 'duration', ms: v.value * KOTLIN_DURATION_PROPS[name] };
    if (v.kind === 'duration') {
      const f = DURATION_TO[name];
      if (f !== undefined) return num(Math.trunc(v.ms / f), NumberType.Long);
      if (name === 'absoluteValue') return { kind: 'duration', ms: Math.abs(v.ms) };
    }
    if (v.kind === 'unit' && name === 'name') return { kind: 'string', value: v.name };
    this.trace.unresolved.push(`property \`.${name}\` cannot be evaluated`);
    return undefined;
  }

  private call(v: Operand, name: string, args: Operand[]): Operand {
    const a0 = args[0];
    const a1 = args[1];
    if (isNamespace(v)) {
      if (v.name === 'Duration') {
        const f = DURATION_FACTORIES[name] ?? KOTLIN_DURATION_PROPS[name];
        if (f !== undefined && isValue(a0) && a0.kind === 'number') return { kind: 'duration', ms: a0.value * f };
        if (name === 'of' && isValue(a0) && a0.kind === 'number' && isValue(a1) && a1.kind === 'unit') return { kind: 'duration', ms: a0.value * a1.ms };
      }
      this.trace.unresolved.push(`\`${v.name}.${name}(…)\` cannot be evaluated`);
      return undefined;
    }
    if (!isValue(v)) return undefined;
    if (v.kind === 'unit') {
      const f = DURATION_TO[name];
      if (f !== undefined && isValue(a0) && a0.kind === 'number') return num(Math.trunc((a0.value * v.ms) / f), NumberType.Long);
      if (name === 'convert' && isValue(a0) && a0.kind === 'number' && isValue(a1) && a1.kind === 'unit') return num(Math.trunc((a0.value * a1.ms) / v.ms), NumberType.Long);
      if (name === 'toNanos' && isValue(a0) && a0.kind === 'number') return num(a0.value * v.ms * 1e6, NumberType.Long);
    }
    if (v.kind === 'number') {
      if (args.length === 0) {
        if (name === 'toLong') return num(Math.trunc(v.value), NumberType.Long);
        if (name === 'toInt') return num(Math.trunc(v.value), NumberType.Int);
        if (name === 'toDouble' || name === 'toFloat') return num(v.value, NumberType.Double);
      }
      if (name === 'toDuration' && isValue(a0) && a0.kind === 'unit') return { kind: 'duration', ms: v.value * a0.ms };
      if ((name === 'times' || name === 'plus' || name === 'minus' || name === 'div') && isValue(a0)) {
        return arith({ times: '*', plus: '+', minus: '-', div: '/' }[name], v, a0);
      }
    }
    if (v.kind === 'duration') {
      if (args.length === 0) {
        const f = DURATION_TO[name];
        if (f !== undefined) return num(Math.trunc(v.ms / f), NumberType.Long);
        if (name === 'toJavaDuration' || name === 'toKotlinDuration' || name === 'abs') return name === 'abs' ? { kind: 'duration', ms: Math.abs(v.ms) } : v;
      }
      if (name === 'toLong' && isValue(a0) && a0.kind === 'unit') return num(Math.trunc(v.ms / a0.ms), NumberType.Long);
      if ((name === 'plus' || name === 'minus') && isValue(a0) && a0.kind === 'duration') return arith(name === 'plus' ? '+' : '-', v, a0);
      if ((name === 'multipliedBy' || name === 'times') && isValue(a0) && a0.kind === 'number') return { kind: 'duration', ms: v.ms * a0.value };
      if ((name === 'dividedBy' || name === 'div') && isValue(a0) && a0.kind === 'number' && a0.value !== 0) return { kind: 'duration', ms: v.ms / a0.value };
      const plusUnit = /^(plus|minus)(Days|Hours|Minutes|Seconds|Millis)$/.exec(name);
      if (plusUnit && isValue(a0) && a0.kind === 'number') {
        const f = DURATION_FACTORIES[`of${plusUnit[2] as string}`] as number;
        return { kind: 'duration', ms: v.ms + (plusUnit[1] === 'plus' ? 1 : -1) * a0.value * f };
      }
    }
    if (v.kind === 'string' && args.length === 0 && (name === 'trimIndent' || name === 'trimMargin' || name === 'trim')) {
      return { kind: 'string', value: name === 'trim' ? v.value.trim() : trimIndent(v.value) };
    }
    this.trace.unresolved.push(`\`.${name}(…)\` cannot be evaluated`);
    return undefined;
  }
}

/** kotlin.text.trimIndent: drop blank first/last lines and the common indent. */
export function trimIndent(s: string): string {
  const lines = s.split('\n');
  if (lines.length > 0 && (lines[0] as string).trim() === '') lines.shift();
  if (lines.length > 0 && (lines[lines.length - 1] as string).trim() === '') lines.pop();
  const indents = lines.filter((l) => l.trim() !== '').map((l) => (/^\s*/.exec(l) as RegExpExecArray)[0].length);
  const min = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(min)).join('\n');
}

/** Formats milliseconds for messages: `48 h`, `30 min`, `1 d 12 h` is written `36 h`. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs !== 0 && abs % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (abs !== 0 && abs % 60_000 === 0) return `${ms / 60_000} min`;
  if (abs !== 0 && abs % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
