/**
 * Declarations found on the token stream: package and imports, classes (with their supertypes),
 * objects and companion objects, anonymous classes, functions (with parameters and annotations).
 * This is the outline the rules need, not a full parse.
 */
import type { Range, SourceUnit } from './syntax.js';
import { skipAngles, skipGroup, splitArgs, statementEnd } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

export const ClassKeyword = {
  Class: 'class',
  Interface: 'interface',
  Object: 'object',
  Companion: 'companion',
  Enum: 'enum',
  Anonymous: 'anonymous',
} as const;
export type ClassKeyword = (typeof ClassKeyword)[keyof typeof ClassKeyword];

/** A type as written: its (possibly qualified) name and its type arguments. */
export interface TypeRef {
  readonly name: string;
  readonly args: readonly TypeRef[];
}

/** Parses a type written at token `k` (`Foo`, `a.b.Foo<Bar>?`, `List<out Item>`, `String[]`); `next` is the index after it. */
export function parseType(unit: SourceUnit, k: number): { type: TypeRef | undefined; next: number } {
  const toks = unit.tokens;
  if (!isIdent(toks[k])) return { type: undefined, next: k };
  const q = qualifiedName(unit, k);
  let next = q.next;
  const args: TypeRef[] = [];
  if (isOp(toks[next], '<')) {
    const end = skipAngles(unit, next);
    if (end > next) {
      let m = next + 1;
      while (m < end - 1) {
        while (isIdent(toks[m], /^(out|in|extends|super|final)$/) || isOp(toks[m], '?') || isOp(toks[m], '*')) m++;
        const inner = parseType(unit, m);
        if (inner.type) args.push(inner.type);
        m = Math.max(inner.next, m + 1);
        while (m < end - 1 && !isOp(toks[m], ',')) m = isOp(toks[m], '<') ? Math.max(skipAngles(unit, m), m + 1) : m + 1;
        m++;
      }
      next = end;
    }
  }
  if (isOp(toks[next], '?')) next++;
  let name = q.name;
  while (isOp(toks[next], '[') && isOp(toks[next + 1], ']')) {
    next += 2;
    name = 'Array';
    args.splice(0, args.length, { name: q.name, args: [] });
  }
  return { type: { name, args }, next };
}

export interface Annotation {
  readonly name: string;
  /** The decoded string literals among its arguments, concatenated per argument. */
  readonly strings: readonly string[];
  readonly index: number;
}

export interface ClassDecl {
  /** Simple name; a companion without a name is `Companion`; anonymous classes have ''. */
  readonly name: string;
  readonly keyword: ClassKeyword;
  /** Simple names of the supertypes (`CoroutineWorker`, `Migration`). */
  readonly supertypes: readonly string[];
  /** The `(` of the first supertype's constructor call (`Migration(8, 9)`), or -1. */
  readonly superCallOpen: number;
  /** Token index of the declaring keyword (or of `new` / `object` for anonymous classes). */
  readonly index: number;
  /** `{`…`}` inclusive, when the class has a body. */
  readonly body: Range | undefined;
  readonly parent: ClassDecl | undefined;
  /** Kotlin primary constructor parameters (visible in the class body's initializers; `val`/`var` ones are properties). */
  readonly primaryParams: readonly ParamDecl[];
}

export interface ParamDecl {
  readonly name: string;
  readonly index: number;
  readonly annotations: readonly Annotation[];
  /** Simple name of the declared type, when written. */
  readonly typeName: string | undefined;
  /** The declared type, when written. */
  readonly type: TypeRef | undefined;
  /** Kotlin: a default value is given (`x: Long = System.currentTimeMillis()`): its range. */
  readonly defaultValue: Range | undefined;
  /** Kotlin primary constructor: declared `val`/`var` (a property of the class). */
  readonly property: boolean;
}

export interface FunctionDecl {
  readonly name: string;
  readonly nameIndex: number;
  readonly paramsOpen: number;
  readonly params: readonly ParamDecl[];
  /** The body: `{`…`}` inclusive, or the expression after `=`; undefined when abstract. */
  readonly body: Range | undefined;
  readonly owner: ClassDecl | undefined;
  readonly annotations: readonly Annotation[];
  /** The declared return type (Java constructors: their class); undefined when not written. */
  readonly returnType: TypeRef | undefined;
  /** Kotlin extension functions: the receiver type (`fun Foo.bar()` → Foo). */
  readonly receiverType: TypeRef | undefined;
  /** Java constructor. */
  readonly constructor: boolean;
}

export interface Declarations {
  readonly packageName: string | undefined;
  readonly imports: readonly string[];
  readonly classes: readonly ClassDecl[];
  readonly functions: readonly FunctionDecl[];
}

const JAVA_NOT_METHODS = new Set([
  'if', 'for', 'while', 'switch', 'catch', 'synchronized', 'return', 'new', 'super', 'this', 'throw', 'try', 'do', 'else', 'assert',
]);

function qualifiedName(unit: SourceUnit, i: number): { name: string; next: number } {
  const parts: string[] = [];
  let k = i;
  while (isIdent(unit.tokens[k])) {
    parts.push((unit.tokens[k] as Token).value);
    if (isOp(unit.tokens[k + 1], '.') && (isIdent(unit.tokens[k + 2]) || isOp(unit.tokens[k + 2], '*'))) {
      if (isOp(unit.tokens[k + 2], '*')) {
        parts.push('*');
        k += 3;
        break;
      }
      k += 2;
      continue;
    }
    k++;
    break;
  }
  return { name: parts.join('.'), next: k };
}

/** The annotations written before a declaration whose first non-annotation token precedes `i`. */
export function annotationsBefore(unit: SourceUnit, i: number): Annotation[] {
  const out: Annotation[] = [];
  let k = i - 1;
  while (k >= 0) {
    const t = unit.tokens[k] as Token;
    if (t.kind === TokenKind.Operator) {
      if (t.text === ';' || t.text === '{' || t.text === '}' || t.text === '=') break;
      if (t.text === ')') {
        const o = unit.match[k] ?? -1;
        if (o < 0) break;
        // only annotation arguments are skipped: `@Name(…)`
        if (isIdent(unit.tokens[o - 1]) && isOp(unit.tokens[o - 2], '@')) {
          k = o - 1;
          continue;
        }
        if (isIdent(unit.tokens[o - 1]) && isOp(unit.tokens[o - 2], '.')) {
          // `@androidx.room.Query(…)`
          k = o - 1;
          continue;
        }
        break;
      }
      if (t.text === '@') {
        const name = qualifiedName(unit, k + 1);
        const simple = name.name.split('.').pop() ?? '';
        const open = name.next;
        const strings: string[] = [];
        if (isOp(unit.tokens[open], '(')) {
          for (const arg of splitArgs(unit, open)) {
            let s = '';
            let any = false;
            for (let m = arg.start; m <= arg.end; m++) {
              const x = unit.tokens[m] as Token;
              if (x.kind === TokenKind.String) {
                s += x.value;
                any = true;
              }
            }
            if (any) strings.push(s);
          }
        }
        out.unshift({ name: simple, strings, index: k });
      }
    } else if (t.kind === TokenKind.Identifier && unit.language === 'kotlin' && ['fun', 'val', 'var', 'class', 'object', 'interface'].includes(t.value)) {
      break;
    }
    k--;
  }
  return out;
}

function parseParams(unit: SourceUnit, open: number): ParamDecl[] {
  const params: ParamDecl[] = [];
  for (const arg of splitArgs(unit, open)) {
    // Named-argument detection does not apply to declarations; re-derive the real start.
    let s = arg.name !== undefined ? arg.start - 2 : arg.start;
    const annotations: Annotation[] = [];
    let property = false;
    // leading annotations and modifiers
    for (;;) {
      if (isOp(unit.tokens[s], '@')) {
        const q = qualifiedName(unit, s + 1);
        const strings: string[] = [];
        let next = q.next;
        if (isOp(unit.tokens[next], '(')) {
          for (const a of splitArgs(unit, next)) {
            for (let m = a.start; m <= a.end; m++) {
              const x = unit.tokens[m] as Token;
              if (x.kind === TokenKind.String) strings.push(x.value);
            }
          }
          next = skipGroup(unit, next);
        }
        annotations.push({ name: q.name.split('.').pop() ?? '', strings, index: s });
        s = next;
        continue;
      }
      if (isIdent(unit.tokens[s], /^(val|var|vararg|final|private|public|protected|internal|override|noinline|crossinline)$/) && isIdent(unit.tokens[s + 1])) {
        if (isIdent(unit.tokens[s], /^(val|var)$/)) property = true;
        s++;
        continue;
      }
      break;
    }
    if (unit.language === 'kotlin') {
      const nameTok = unit.tokens[s];
      if (nameTok?.kind !== TokenKind.Identifier) continue;
      let typeName: string | undefined;
      let type: TypeRef | undefined;
      let defaultValue: Range | undefined;
      if (isOp(unit.tokens[s + 1], ':')) {
        const q = qualifiedName(unit, s + 2);
        typeName = q.name.split('.').pop();
        const pt = parseType(unit, s + 2);
        type = pt.type;
        let m = pt.next;
        while (m <= arg.end && !isOp(unit.tokens[m], '=')) m = skipGroup(unit, m);
        if (isOp(unit.tokens[m], '=') && m < arg.end) defaultValue = { start: m + 1, end: arg.end };
      }
      params.push({ name: nameTok.value, index: s, annotations, typeName, type, defaultValue, property });
    } else {
      // Java: the last identifier is the name; the first (qualified) one is the type.
      let last = -1;
      for (let m = s; m <= arg.end; m++) {
        if (unit.tokens[m]?.kind === TokenKind.Identifier) last = m;
        if (isOp(unit.tokens[m], '<')) m = skipAngles(unit, m) - 1;
      }
      if (last < 0) continue;
      const q = qualifiedName(unit, s);
      params.push({ name: (unit.tokens[last] as Token).value, index: last, annotations, typeName: q.name.split('.').pop(), type: parseType(unit, s).type, defaultValue: undefined, property: false });
    }
  }
  return params;
}

/** Supertypes after `:` (Kotlin) up to the body or the end of the header. */
function kotlinSupertypes(unit: SourceUnit, colon: number, stop: number): { names: string[]; superCallOpen: number } {
  const names: string[] = [];
  let superCallOpen = -1;
  let k = colon + 1;
  while (k < stop) {
    const q = qualifiedName(unit, k);
    if (q.name === '') {
      k = skipGroup(unit, k);
      continue;
    }
    names.push(q.name.split('.').pop() ?? q.name);
    let m = q.next;
    if (isOp(unit.tokens[m], '<')) m = skipAngles(unit, m);
    if (isOp(unit.tokens[m], '(')) {
      if (superCallOpen < 0 && names.length === 1) superCallOpen = m;
      m = skipGroup(unit, m);
    }
    // `by delegate` and anything else up to the next comma
    while (m < stop && !isOp(unit.tokens[m], ',')) m = skipGroup(unit, m);
    k = m + 1;
  }
  return { names, superCallOpen };
}

const toks = (unit: SourceUnit): readonly Token[] => unit.tokens;

/** Finds the `{` that opens a Kotlin class body after the header starting at `k`, or -1. */
function kotlinBodyOpen(unit: SourceUnit, k: number): { open: number; colon: number; headerEnd: number } {
  let colon = -1;
  let i = k;
  while (i < unit.tokens.length) {
    const t = unit.tokens[i] as Token;
    if (t.kind === TokenKind.Operator) {
      if (t.text === '{') return { open: i, colon, headerEnd: i };
      if (t.text === '@' && t.newlineBefore) {
        // `class Foo\n  @Inject constructor(…)`: annotations of the primary constructor
        let m = i;
        while (isOp(toks(unit)[m], '@')) {
          m = qualifiedName(unit, m + 1).next;
          if (isOp(toks(unit)[m], '(')) m = skipGroup(unit, m);
        }
        if (!isIdent(toks(unit)[m], 'constructor')) return { open: -1, colon, headerEnd: i };
        i = m;
        continue;
      }
      if (t.text === '}' || t.text === ';' || t.text === ')' || t.text === ']' || t.text === '=') return { open: -1, colon, headerEnd: i };
      if (t.text === ':' && colon < 0) colon = i;
      if (t.text === '(' || t.text === '[') {
        i = skipGroup(unit, i);
        continue;
      }
      if (t.text === '<') {
        const n = skipAngles(unit, i);
        if (n > i) {
          i = n;
          continue;
        }
      }
    } else if (t.kind === TokenKind.Identifier && t.newlineBefore && i > k && t.value !== 'constructor') {
      const prev = unit.tokens[i - 1] as Token;
      const continued = isOp(prev, ':') || isOp(prev, ',') || isOp(prev, '.');
      if (!continued) return { open: -1, colon, headerEnd: i };
    }
    i++;
  }
  return { open: -1, colon, headerEnd: i };
}

function findClasses(unit: SourceUnit): ClassDecl[] {
  const raw: Array<Omit<ClassDecl, 'parent' | 'primaryParams'> & { primaryParams?: readonly ParamDecl[] }> = [];
  const toks = unit.tokens;
  const kotlin = unit.language === 'kotlin';
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Token;
    if (t.kind !== TokenKind.Identifier) continue;
    const prev = toks[i - 1];
    if (isOp(prev, '::') || isOp(prev, '.')) continue;
    if (kotlin) {
      if (t.value === 'class' || t.value === 'interface') {
        const nameTok = toks[i + 1];
        if (nameTok?.kind !== TokenKind.Identifier) continue;
        const isEnum = isIdent(prev, 'enum');
        const h = kotlinBodyOpen(unit, i + 2);
        let ctor = i + 2;
        if (isOp(toks[ctor], '<')) ctor = skipAngles(unit, ctor);
        while (isOp(toks[ctor], '@') || isIdent(toks[ctor], /^(private|internal|protected|public|constructor)$/)) {
          if (isOp(toks[ctor], '@')) ctor = qualifiedName(unit, ctor + 1).next;
          else ctor++;
          if (isOp(toks[ctor], '(') && !isIdent(toks[ctor - 1], 'constructor') && isOp(toks[ctor - 2], '@')) ctor = skipGroup(unit, ctor);
        }
        const primaryParams = isOp(toks[ctor], '(') && (h.colon < 0 || ctor < h.colon) && (h.open < 0 || ctor < h.open) ? parseParams(unit, ctor) : [];
        const sup = h.colon >= 0 ? kotlinSupertypes(unit, h.colon, h.headerEnd) : { names: [], superCallOpen: -1 };
        raw.push({
          name: nameTok.value,
          keyword: isEnum ? ClassKeyword.Enum : t.value === 'class' ? ClassKeyword.Class : ClassKeyword.Interface,
          supertypes: sup.names,
          superCallOpen: sup.superCallOpen,
          index: i,
          body: h.open >= 0 ? { start: h.open, end: unit.match[h.open] ?? toks.length - 1 } : undefined,
          primaryParams,
        });
      } else if (t.value === 'object') {
        const companion = isIdent(prev, 'companion');
        const nameTok = toks[i + 1];
        const named = nameTok?.kind === TokenKind.Identifier && !companion ? true : companion && nameTok?.kind === TokenKind.Identifier;
        // `object :` / `object {` is an anonymous object expression
        const anonymous = !companion && !named;
        if (!companion && !named && !isOp(nameTok, ':') && !isOp(nameTok, '{')) continue;
        const h = kotlinBodyOpen(unit, named ? i + 2 : i + 1);
        const sup = h.colon >= 0 ? kotlinSupertypes(unit, h.colon, h.headerEnd) : { names: [], superCallOpen: -1 };
        raw.push({
          name: anonymous ? '' : named ? (nameTok as Token).value : 'Companion',
          keyword: companion ? ClassKeyword.Companion : anonymous ? ClassKeyword.Anonymous : ClassKeyword.Object,
          supertypes: sup.names,
          superCallOpen: sup.superCallOpen,
          index: i,
          body: h.open >= 0 ? { start: h.open, end: unit.match[h.open] ?? toks.length - 1 } : undefined,
        });
      }
    } else {
      if (['class', 'interface', 'enum', 'record'].includes(t.value)) {
        if (isOp(prev, '@')) continue; // @interface
        const nameTok = toks[i + 1];
        if (nameTok?.kind !== TokenKind.Identifier) continue;
        const supertypes: string[] = [];
        let k = i + 2;
        while (k < toks.length && !isOp(toks[k], '{') && !isOp(toks[k], ';') && !isOp(toks[k], '}')) {
          const x = toks[k] as Token;
          if (isOp(x, '<')) {
            const n = skipAngles(unit, k);
            k = n > k ? n : k + 1;
            continue;
          }
          if (isOp(x, '(')) {
            k = skipGroup(unit, k);
            continue;
          }
          if (x.kind === TokenKind.Identifier && !['extends', 'implements', 'permits'].includes(x.value)) {
            const q = qualifiedName(unit, k);
            const prevWord = toks[k - 1];
            if (isIdent(prevWord, 'extends') || isIdent(prevWord, 'implements') || isOp(prevWord, ',')) {
              supertypes.push(q.name.split('.').pop() ?? q.name);
            }
            k = q.next;
            continue;
          }
          k++;
        }
        raw.push({
          name: nameTok.value,
          keyword: t.value === 'interface' ? ClassKeyword.Interface : t.value === 'enum' ? ClassKeyword.Enum : ClassKeyword.Class,
          supertypes,
          superCallOpen: -1,
          index: i,
          body: isOp(toks[k], '{') ? { start: k, end: unit.match[k] ?? toks.length - 1 } : undefined,
        });
      } else if (t.value === 'new') {
        const q = qualifiedName(unit, i + 1);
        if (q.name === '') continue;
        let k = q.next;
        if (isOp(toks[k], '<')) k = skipAngles(unit, k);
        if (!isOp(toks[k], '(')) continue;
        const open = k;
        k = skipGroup(unit, k);
        if (!isOp(toks[k], '{')) continue;
        raw.push({
          name: '',
          keyword: ClassKeyword.Anonymous,
          supertypes: [q.name.split('.').pop() ?? q.name],
          superCallOpen: open,
          index: i,
          body: { start: k, end: unit.match[k] ?? toks.length - 1 },
        });
      }
    }
  }
  // Parents: the innermost class whose body contains the declaration.
  const sorted = raw.slice().sort((a, b) => a.index - b.index);
  const result: ClassDecl[] = [];
  for (const c of sorted) {
    let parent: ClassDecl | undefined;
    for (const p of result) {
      if (p.body && c.index > p.body.start && c.index < p.body.end) {
        if (!parent || (parent.body && p.body.start > parent.body.start)) parent = p;
      }
    }
    result.push({ ...c, primaryParams: c.primaryParams ?? [], parent });
  }
  return result;
}

function innermostClassAt(classes: readonly ClassDecl[], i: number): ClassDecl | undefined {
  let best: ClassDecl | undefined;
  for (const c of classes) {
    if (c.body && i > c.body.start && i < c.body.end) {
      if (!best || (best.body && c.body.start > best.body.start)) best = c;
    }
  }
  return best;
}

function findFunctions(unit: SourceUnit, classes: readonly ClassDecl[]): FunctionDecl[] {
  const out: FunctionDecl[] = [];
  const toks = unit.tokens;
  const classBodies = new Set(classes.flatMap((c) => (c.body ? [c.body.start] : [])));
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Token;
    if (t.kind !== TokenKind.Identifier) continue;
    if (unit.language === 'kotlin') {
      if (t.value !== 'fun') continue;
      if (isOp(toks[i - 1], '.') || isOp(toks[i - 1], '::')) continue;
      let k = i + 1;
      if (isOp(toks[k], '<')) k = skipAngles(unit, k);
      let nameIndex = -1;
      const receiverStart = k;
      while (k < toks.length && !isOp(toks[k], '(')) {
        if (toks[k]?.kind === TokenKind.Identifier) nameIndex = k;
        else if (isOp(toks[k], '<')) {
          const n = skipAngles(unit, k);
          if (n > k) {
            k = n;
            continue;
          }
        } else if (!isOp(toks[k], '.') && !isOp(toks[k], '?') && !isOp(toks[k], '?.')) break;
        k++;
      }
      if (nameIndex < 0 || !isOp(toks[k], '(')) continue; // `fun interface`, anonymous `fun(`
      const written = nameIndex > receiverStart ? parseType(unit, receiverStart).type : undefined;
      const fnName = (toks[nameIndex] as Token).value;
      const receiverType = written && written.name.endsWith(`.${fnName}`) ? { name: written.name.slice(0, -fnName.length - 1), args: written.args } : written;
      const paramsOpen = k;
      const paramsClose = unit.match[paramsOpen] ?? -1;
      if (paramsClose < 0) continue;
      let body: Range | undefined;
      let m = paramsClose + 1;
      const returnType = isOp(toks[m], ':') ? parseType(unit, m + 1).type : undefined;
      while (m < toks.length) {
        const x = toks[m] as Token;
        if (isOp(x, '{')) {
          body = { start: m, end: unit.match[m] ?? toks.length - 1 };
          break;
        }
        if (isOp(x, '=')) {
          body = { start: m + 1, end: statementEnd(unit, m + 1) };
          break;
        }
        if (isOp(x, '}') || isOp(x, ';')) break;
        if (x.newlineBefore) {
          const prev = toks[m - 1] as Token;
          if (!(isOp(prev, ':') || isOp(prev, ',') || isOp(prev, '->'))) break;
        }
        if (isOp(x, '(') || isOp(x, '[')) {
          m = skipGroup(unit, m);
          continue;
        }
        if (isOp(x, '<')) {
          const n = skipAngles(unit, m);
          if (n > m) {
            m = n;
            continue;
          }
        }
        m++;
      }
      out.push({
        name: (toks[nameIndex] as Token).value,
        nameIndex,
        paramsOpen,
        params: parseParams(unit, paramsOpen),
        body,
        owner: innermostClassAt(classes, i),
        annotations: annotationsBefore(unit, i),
        returnType,
        receiverType,
        constructor: false,
      });
    } else {
      if (JAVA_NOT_METHODS.has(t.value)) continue;
      if (!isOp(toks[i + 1], '(')) continue;
      const brace = unit.enclosingBrace[i] ?? -1;
      if (!classBodies.has(brace)) continue;
      const prev = toks[i - 1];
      if (prev === undefined || isOp(prev, '.') || isOp(prev, '@') || isOp(prev, '=') || isIdent(prev, 'new')) continue;
      if (!(prev.kind === TokenKind.Identifier || isOp(prev, '>') || isOp(prev, ']') || isOp(prev, ';') || isOp(prev, '{') || isOp(prev, '}') || isOp(prev, ')'))) continue;
      const paramsOpen = i + 1;
      const paramsClose = unit.match[paramsOpen] ?? -1;
      if (paramsClose < 0) continue;
      let m = paramsClose + 1;
      if (isIdent(toks[m], 'throws')) {
        while (m < toks.length && !isOp(toks[m], '{') && !isOp(toks[m], ';')) m++;
      }
      let body: Range | undefined;
      if (isOp(toks[m], '{')) body = { start: m, end: unit.match[m] ?? toks.length - 1 };
      else if (!isOp(toks[m], ';')) continue;
      const owner = innermostClassAt(classes, i);
      const constructor = owner !== undefined && owner.name === t.value && prev.kind !== TokenKind.Identifier ? true : owner !== undefined && owner.name === t.value && isIdent(prev, /^(public|private|protected)$/);
      out.push({
        name: t.value,
        nameIndex: i,
        paramsOpen,
        params: parseParams(unit, paramsOpen),
        body,
        owner,
        annotations: annotationsBefore(unit, i),
        returnType: constructor ? { name: t.value, args: [] } : javaReturnType(unit, i),
        receiverType: undefined,
        constructor,
      });
    }
  }
  return out;
}

/** The return type written before a Java method name at `i` (`List<Item> load(`, `long parse(`). */
function javaReturnType(unit: SourceUnit, i: number): TypeRef | undefined {
  const toks = unit.tokens;
  let k = i - 1;
  while (isOp(toks[k], ']') && isOp(toks[k - 1], '[')) k -= 2;
  if (isOp(toks[k], '>')) {
    let depth = 0;
    for (; k >= 0; k--) {
      if (isOp(toks[k], '>')) depth++;
      else if (isOp(toks[k], '<')) {
        depth--;
        if (depth === 0) break;
      }
    }
    k--;
  }
  if (!isIdent(toks[k]) || isIdent(toks[k], /^(void|public|private|protected|static|final|abstract|synchronized|native|default)$/)) return undefined;
  while (isOp(toks[k - 1], '.') && isIdent(toks[k - 2])) k -= 2;
  return parseType(unit, k).type;
}

export function findDeclarations(unit: SourceUnit): Declarations {
  let packageName: string | undefined;
  const imports: string[] = [];
  const toks = unit.tokens;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Token;
    if ((unit.enclosingBrace[i] ?? -1) >= 0) continue;
    if (isIdent(t, 'package') && t.newlineBefore) {
      packageName = qualifiedName(unit, i + 1).name;
    } else if (isIdent(t, 'import') && t.newlineBefore) {
      let k = i + 1;
      if (isIdent(toks[k], 'static')) k++;
      const q = qualifiedName(unit, k);
      if (q.name !== '') imports.push(q.name);
    }
  }
  const classes = findClasses(unit);
  const functions = findFunctions(unit, classes);
  return { packageName, imports, classes, functions };
}

/** The innermost class (of any kind) whose body contains token `i`. */
export function classAt(decls: Declarations, i: number): ClassDecl | undefined {
  return innermostClassAt(decls.classes, i);
}

const functionIndexCache = new WeakMap<Declarations, Int32Array>();

/**
 * Per token, the index in `decls.functions` of the innermost function whose body holds it (-1:
 * none), built once per file: bodies filled outermost first, so an inner body overwrites its
 * enclosing one, and of two bodies starting at the same token the later declared wins.
 */
function functionIndex(decls: Declarations): Int32Array {
  let index = functionIndexCache.get(decls);
  if (index) return index;
  let size = 0;
  for (const f of decls.functions) if (f.body && f.body.end + 1 > size) size = f.body.end + 1;
  index = new Int32Array(size).fill(-1);
  const order = decls.functions.map((f, k) => k).filter((k) => decls.functions[k]?.body !== undefined);
  order.sort((a, b) => ((decls.functions[a] as FunctionDecl).body as Range).start - ((decls.functions[b] as FunctionDecl).body as Range).start || a - b);
  for (const k of order) {
    const body = (decls.functions[k] as FunctionDecl).body as Range;
    index.fill(k, body.start, body.end + 1);
  }
  functionIndexCache.set(decls, index);
  return index;
}

/** The innermost function whose body contains token `i`. */
export function functionAt(decls: Declarations, i: number): FunctionDecl | undefined {
  const index = functionIndex(decls);
  const k = i >= 0 && i < index.length ? (index[i] as number) : -1;
  return k >= 0 ? decls.functions[k] : undefined;
}

/** The named class a member belongs to: a companion or anonymous object maps to its enclosing class. */
export function namedOwner(c: ClassDecl | undefined): ClassDecl | undefined {
  let k = c;
  while (k && (k.keyword === ClassKeyword.Companion || k.keyword === ClassKeyword.Anonymous)) k = k.parent;
  return k;
}
