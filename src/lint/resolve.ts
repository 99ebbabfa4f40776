/**
 * Name and call resolution the way the compiler does it, as far as sources without a classpath
 * allow: a call is linked to the functions it can run, found by the type of its receiver (a
 * local, a parameter, a field or property, `this`, a class or object name, a constructor call, a
 * method's declared return type), the enclosing classes and their supertypes, imports and the
 * package. A call on an interface or open class also reaches the overrides in its project
 * subclasses (virtual dispatch). When the receiver's type cannot be known (a lambda parameter of
 * an unknown collection, a platform call's result), the call is linked only when the project
 * declares that name in one class hierarchy with a matching number of parameters; otherwise it
 * stays unlinked. A receiver whose type is known and not a project class (a framework or library
 * type) reaches only extension functions declared for that type.
 */
import type { ClassDecl, FunctionDecl, TypeRef } from './declarations.js';
import { ClassKeyword, parseType } from './declarations.js';
import type { ClassRef, FunctionRef, ParsedFile, Project } from './model.js';
import type { Range } from './syntax.js';
import { callOpenParen, chainStart, isCallAt, skipAngles, splitArgs, trailingLambda } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

/** A variable the resolver knows: a local, a field or property, a parameter, a for-loop variable. */
export interface VarDecl {
  readonly name: string;
  readonly file: ParsedFile;
  readonly nameIndex: number;
  readonly type: TypeRef | undefined;
  readonly init: Range | undefined;
  /** `for (x in xs)`: the element of this range's type. */
  readonly elementOf: Range | undefined;
  readonly fn: FunctionDecl | undefined;
  readonly owner: ClassDecl | undefined;
}

/** A type the resolver arrived at: the project classes it names (empty for a library type) and the type as written. */
export interface ResolvedType {
  readonly type: TypeRef;
  readonly classes: readonly ClassRef[];
  /** A class or object name used as a receiver (`Foo.bar()`): static members and `object`/companion members. */
  readonly isStatic: boolean;
}

const COLLECTIONS = /^(List|MutableList|ArrayList|LinkedList|Set|MutableSet|HashSet|LinkedHashSet|TreeSet|SortedSet|Collection|MutableCollection|Iterable|Sequence|Flow|StateFlow|SharedFlow|Array|Observable|Single|Maybe|Flowable|LiveData|Optional|Deferred|Call|Response)$/;
const ELEMENT_LAMBDAS = /^(forEach|forEachIndexed|map|mapNotNull|mapIndexed|filter|filterNot|filterNotNull|flatMap|onEach|any|all|none|first|firstOrNull|last|lastOrNull|find|count|sortedBy|sortedByDescending|sortBy|sortByDescending|groupBy|associateBy|associateWith|sumOf|maxByOrNull|minByOrNull|distinctBy|partition|collect|takeWhile|dropWhile)$/;
const SELF_LAMBDAS = /^(let|also|takeIf|takeUnless|use)$/;
const RECEIVER_LAMBDAS = /^(apply|run|with)$/;
/** Words that look like a call before `(` or `{` but are not one. */
const NOT_CALLS = new Set([
  'val', 'var', 'fun', 'if', 'else', 'when', 'return', 'throw', 'try', 'catch', 'finally', 'for', 'while', 'do', 'in', 'is', 'as', 'object', 'class',
  'this', 'super', 'null', 'true', 'false', 'package', 'import', 'switch', 'synchronized', 'new', 'assert', 'init', 'constructor',
]);
const JAVA_NOT_TYPES = new Set(['return', 'new', 'throw', 'case', 'else', 'yield', 'assert', 'this', 'super', 'package', 'import', 'instanceof', 'goto', 'break', 'continue', 'do', 'try', 'finally', 'default']);

function lastSegment(name: string): string {
  const k = name.lastIndexOf('.');
  return k < 0 ? name : name.slice(k + 1);
}

/** Variables declared in one file (Kotlin `val`/`var`, `for (x in …)`, Java typed declarations). */
function collectVars(file: ParsedFile, functionAtIndex: (i: number) => FunctionDecl | undefined, classAtIndex: (i: number) => ClassDecl | undefined): VarDecl[] {
  const out: VarDecl[] = [];
  const toks = file.tokens;
  const push = (nameIndex: number, type: TypeRef | undefined, init: Range | undefined, elementOf?: Range): void => {
    const fn = functionAtIndex(nameIndex);
    out.push({ name: (toks[nameIndex] as Token).value, file, nameIndex, type, init, elementOf, fn, owner: fn ? undefined : classAtIndex(nameIndex) });
  };
  const initRange = (eq: number): Range | undefined => {
    if (!isOp(toks[eq], '=')) return undefined;
    let end = eq + 1;
    const limit = toks.length;
    // up to the end of the statement: a `;`, a closing bracket of an outer group, or (Kotlin) a new line that does not continue it
    while (end < limit) {
      const t = toks[end] as Token;
      if (end > eq + 1 && file.language === 'kotlin' && t.newlineBefore && !continues(file, end)) break;
      if (isOp(t, ';') || isOp(t, ',') || isOp(t, ')') || isOp(t, '}') || isOp(t, ']')) break;
      const m = file.match[end] ?? -1;
      end = (isOp(t, '(') || isOp(t, '[') || isOp(t, '{')) && m > end ? m + 1 : end + 1;
    }
    return { start: eq + 1, end: end - 1 };
  };
  if (file.language === 'kotlin') {
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i] as Token;
      if (t.kind !== TokenKind.Identifier) continue;
      if ((t.value === 'val' || t.value === 'var') && isIdent(toks[i + 1])) {
        if (isOp(toks[i - 1], '.')) continue;
        let k = i + 1;
        // extension property `val Foo.bar` — not a variable
        if (isOp(toks[k + 1], '.')) continue;
        const nameIndex = k;
        k++;
        let type: TypeRef | undefined;
        if (isOp(toks[k], ':')) {
          const pt = parseType(file, k + 1);
          type = pt.type;
          k = pt.next;
        }
        if (isIdent(toks[k], 'by')) {
          // a delegated property: its declared type, or the type argument of `by instance<T>()` / `by inject<T>()`
          let t2 = type;
          if (!t2 && isIdent(toks[k + 1]) && isOp(toks[k + 2], '<')) t2 = parseType(file, k + 3).type;
          if (t2) push(nameIndex, t2, undefined);
          continue;
        }
        // constructor parameters are recorded with their class
        if (isOp(toks[k], ',') || isOp(toks[k], ')')) continue;
        push(nameIndex, type, initRange(k));
      } else if (t.value === 'for' && isOp(toks[i + 1], '(') && isIdent(toks[i + 2]) && isIdent(toks[i + 3], 'in')) {
        const close = file.match[i + 1] ?? -1;
        if (close > i + 4) push(i + 2, undefined, undefined, { start: i + 4, end: close - 1 });
      } else if (t.value === 'for' && isOp(toks[i + 1], '(') && isIdent(toks[i + 2]) && isOp(toks[i + 3], ':')) {
        const pt = parseType(file, i + 4);
        if (isIdent(toks[pt.next], 'in')) push(i + 2, pt.type, undefined);
      }
    }
    return out;
  }
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Token;
    if (t.kind !== TokenKind.Identifier || JAVA_NOT_TYPES.has(t.value)) continue;
    const prev = toks[i - 1];
    if (prev !== undefined && !(isOp(prev, ';') || isOp(prev, '{') || isOp(prev, '}') || isOp(prev, '(') || isOp(prev, ',') || isOp(prev, ')') ||
      (prev.kind === TokenKind.Identifier && /^(final|private|public|protected|static|volatile|transient)$/.test(prev.value)) || isOp(prev, '@'))) continue;
    if (isOp(prev, '@')) continue;
    if (isOp(prev, ')')) {
      // only after an annotation's arguments: `@Named("x") Foo foo`
      const o = file.match[i - 1] ?? -1;
      if (!(o > 1 && isOp(toks[o - 2], '@'))) continue;
    }
    const pt = parseType(file, i);
    const n = pt.next;
    const nameTok = toks[n];
    if (pt.type === undefined || nameTok?.kind !== TokenKind.Identifier) continue;
    const after = toks[n + 1];
    if (!(isOp(after, '=') || isOp(after, ';') || isOp(after, ',') || isOp(after, ':') || isOp(after, ')'))) continue;
    // a method's parameters are recorded with the method; a for-each variable and catch parameters are recorded here
    if (isOp(after, ':') && !isOp(prev, '(')) continue;
    push(n, pt.type, isOp(after, '=') ? initRange(n + 1) : undefined);
    i = n;
  }
  return out;
}

const CONTINUES_AFTER = new Set(['+', '-', '*', '/', '%', '=', '&&', '||', '?:', '.', '?.', ',', '(', '[', '->', '==', '!=', '<=', '>=', '..', '::', ':', '!']);
const CONTINUES_BEFORE = new Set(['.', '?.', '?:', '&&', '||', ')', ']', '::', '..']);
function continues(file: ParsedFile, i: number): boolean {
  const prev = file.tokens[i - 1];
  const cur = file.tokens[i] as Token;
  if (prev !== undefined && prev.kind === TokenKind.Operator && CONTINUES_AFTER.has(prev.text)) return true;
  if (cur.kind === TokenKind.Operator && CONTINUES_BEFORE.has(cur.text)) return true;
  return isIdent(cur, /^(as|is|in|else)$/);
}

export class Resolver {
  private readonly classesByQName = new Map<string, ClassRef[]>();
  private readonly classesBySimple = new Map<string, ClassRef[]>();
  private readonly varsByFile = new Map<ParsedFile, VarDecl[]>();
  private readonly varsByFn = new Map<FunctionDecl, VarDecl[]>();
  private readonly fieldsByClass = new Map<ClassDecl, VarDecl[]>();
  private readonly topVarsByName = new Map<string, VarDecl[]>();
  private readonly fnsByClass = new Map<ClassDecl, FunctionDecl[]>();
  private readonly fileOfClass = new Map<ClassDecl, ParsedFile>();
  private readonly fileOfFn = new Map<FunctionDecl, ParsedFile>();
  private readonly topFnsByName = new Map<string, FunctionRef[]>();
  private readonly extensionsByName = new Map<string, FunctionRef[]>();
  private readonly superCache = new Map<ClassDecl, ClassRef[]>();
  private readonly subCache = new Map<ClassDecl, ClassRef[]>();
  private readonly returnCache = new Map<FunctionDecl, ResolvedType | undefined | null>();
  private readonly callCache = new Map<ParsedFile, Map<number, FunctionRef[]>>();
  private readonly calleesCache = new Map<FunctionDecl, FunctionRef[]>();
  private callersMap: Map<FunctionDecl, FunctionRef[]> | undefined;
  private siteIndex: Map<string, Array<{ file: ParsedFile; at: number }>> | undefined;
  private readonly reachMemo = new Map<string, Map<FunctionDecl, boolean>>();
  private directSubs: Map<ClassDecl, ClassRef[]> | undefined;
  private readonly typeDepth = { n: 0 };
  private readonly varargCache = new Map<FunctionDecl, boolean>();
  private readonly declNames = new Map<ParsedFile, Set<number>>();

  constructor(private readonly project: Project) {
    for (const file of project.files) {
      const pkg = file.decls.packageName;
      for (const cls of file.decls.classes) {
        this.fileOfClass.set(cls, file);
        if (cls.name === '') continue;
        const ref = { file, cls };
        const q = [...this.outerNames(cls), cls.name].join('.');
        const qn = pkg ? `${pkg}.${q}` : q;
        this.add(this.classesByQName, qn, ref);
        this.add(this.classesBySimple, cls.name, ref);
      }
      const functionAtIndex = (i: number): FunctionDecl | undefined => innermostFunction(file, i);
      const classAtIndex = (i: number): ClassDecl | undefined => innermostClass(file, i);
      for (const fn of file.decls.functions) {
        this.fileOfFn.set(fn, file);
        if (fn.owner) {
          const list = this.fnsByClass.get(fn.owner) ?? [];
          list.push(fn);
          this.fnsByClass.set(fn.owner, list);
        }
        if (fn.receiverType) this.add(this.extensionsByName, fn.name, { file, fn });
        else if (!fn.owner && !innermostFunction(file, fn.nameIndex - 1)) this.add(this.topFnsByName, fn.name, { file, fn });
      }
      const vars = collectVars(file, functionAtIndex, classAtIndex);
      this.varsByFile.set(file, vars);
      for (const v of vars) {
        if (v.fn) {
          const list = this.varsByFn.get(v.fn) ?? [];
          list.push(v);
          this.varsByFn.set(v.fn, list);
        } else if (v.owner) {
          const list = this.fieldsByClass.get(v.owner) ?? [];
          list.push(v);
          this.fieldsByClass.set(v.owner, list);
        } else {
          this.add(this.topVarsByName, v.name, v);
        }
      }
    }
  }

  private add<K, V>(map: Map<K, V[]>, key: K, v: V): void {
    const list = map.get(key);
    if (list) list.push(v);
    else map.set(key, [v]);
  }

  private outerNames(cls: ClassDecl): string[] {
    const out: string[] = [];
    for (let c = cls.parent; c; c = c.parent) if (c.name !== '') out.unshift(c.name);
    return out;
  }

  fileOf(fn: FunctionDecl): ParsedFile | undefined {
    return this.fileOfFn.get(fn);
  }

  // -------------------------------------------------------------------------------------------
  // Types and classes

  /** The project classes a type name written in `file` (at token `at`) refers to: nested, imported, same package, then a unique simple name. */
  classesNamed(name: string, file: ParsedFile, at = -1): ClassRef[] {
    if (name.includes('.')) {
      const exact = this.classesByQName.get(name);
      if (exact) return exact;
      // `Outer.Inner` written from the importing side
      const [head, ...rest] = name.split('.');
      const outer = this.classesNamed(head as string, file, at);
      if (outer.length > 0) {
        let cur = outer;
        for (const seg of rest) {
          const next: ClassRef[] = [];
          for (const o of cur) for (const c of o.file.decls.classes) if (c.parent === o.cls && c.name === seg) next.push({ file: o.file, cls: c });
          cur = next;
        }
        if (cur.length > 0) return cur;
      }
      return this.classesBySimple.get(lastSegment(name))?.filter((r) => this.qualifiedName(r).endsWith(`.${name}`)) ?? [];
    }
    const candidates = this.classesBySimple.get(name);
    if (!candidates || candidates.length === 0) return [];
    // nested in an enclosing class (or the enclosing class itself)
    if (at >= 0) {
      for (const c of classesAround(file, at)) {
        if (c.name === name) return [{ file, cls: c }];
        const nested = candidates.filter((r) => r.file === file && r.cls.parent === c);
        if (nested.length > 0) return nested;
      }
    }
    const pkg = file.decls.packageName ?? '';
    for (const imp of file.decls.imports) {
      if (lastSegment(imp) === name) {
        const hit = this.classesByQName.get(imp);
        if (hit) return hit;
        return [];
      }
    }
    const samePackage = candidates.filter((r) => (r.file.decls.packageName ?? '') === pkg && r.cls.parent === undefined);
    if (samePackage.length > 0) return samePackage;
    for (const imp of file.decls.imports) {
      if (!imp.endsWith('.*')) continue;
      const hit = this.classesByQName.get(`${imp.slice(0, -2)}.${name}`);
      if (hit) return hit;
    }
    const sameFile = candidates.filter((r) => r.file === file);
    if (sameFile.length > 0) return sameFile;
    return candidates.length === 1 ? candidates : [];
  }

  qualifiedName(ref: ClassRef): string {
    const q = [...this.outerNames(ref.cls), ref.cls.name].join('.');
    const pkg = ref.file.decls.packageName;
    return pkg ? `${pkg}.${q}` : q;
  }

  /** Direct project supertypes of a class. */
  supertypesOf(ref: ClassRef): ClassRef[] {
    const cached = this.superCache.get(ref.cls);
    if (cached) return cached;
    const out: ClassRef[] = [];
    this.superCache.set(ref.cls, out);
    for (const s of ref.cls.supertypes) {
      for (const r of this.classesNamed(s, ref.file, ref.cls.index - 1)) if (r.cls !== ref.cls) out.push(r);
    }
    return out;
  }

  /** The class and all its project ancestors, nearest first. */
  ancestors(ref: ClassRef): ClassRef[] {
    const out: ClassRef[] = [];
    const seen = new Set<ClassDecl>();
    const queue = [ref];
    for (let q = 0; q < queue.length; q++) {
      const r = queue[q] as ClassRef;
      if (seen.has(r.cls)) continue;
      seen.add(r.cls);
      out.push(r);
      queue.push(...this.supertypesOf(r));
    }
    return out;
  }

  /** All project subclasses (transitively) of a class. */
  descendants(ref: ClassRef): ClassRef[] {
    const cached = this.subCache.get(ref.cls);
    if (cached) return cached;
    if (!this.directSubs) {
      this.directSubs = new Map();
      for (const file of this.project.files) {
        for (const cls of file.decls.classes) {
          for (const s of this.supertypesOf({ file, cls })) this.add(this.directSubs, s.cls, { file, cls });
        }
      }
    }
    const out: ClassRef[] = [];
    const seen = new Set<ClassDecl>([ref.cls]);
    const queue = [...(this.directSubs.get(ref.cls) ?? [])];
    for (let q = 0; q < queue.length; q++) {
      const r = queue[q] as ClassRef;
      if (seen.has(r.cls)) continue;
      seen.add(r.cls);
      out.push(r);
      queue.push(...(this.directSubs.get(r.cls) ?? []));
    }
    this.subCache.set(ref.cls, out);
    return out;
  }

  /** True when `sub` is `sup` or extends it (through project classes, or by a written supertype name). */
  isSubclass(sub: ClassRef, supName: string): boolean {
    return this.ancestors(sub).some((a) => a.cls.name === supName || a.cls.supertypes.some((s) => lastSegment(s) === supName));
  }

  private resolved(type: TypeRef | undefined, file: ParsedFile, at: number, isStatic = false): ResolvedType | undefined {
    if (!type) return undefined;
    return { type, classes: this.classesNamed(type.name, file, at), isStatic };
  }

  /** Members: functions declared in a class body (companion and nested objects of it included for static access). */
  private functionsIn(cls: ClassDecl): FunctionDecl[] {
    return this.fnsByClass.get(cls) ?? [];
  }

  private companionsOf(ref: ClassRef): ClassRef[] {
    return ref.file.decls.classes.filter((c) => c.parent === ref.cls && c.keyword === ClassKeyword.Companion).map((cls) => ({ file: ref.file, cls }));
  }

  /** Fields and properties of a class (its primary constructor's parameters included), by name. */
  private fieldIn(ref: ClassRef, name: string): { type: TypeRef | undefined; init: Range | undefined; file: ParsedFile; at: number } | undefined {
    for (const v of this.fieldsByClass.get(ref.cls) ?? []) if (v.name === name) return { type: v.type, init: v.init, file: v.file, at: v.nameIndex };
    for (const p of ref.cls.primaryParams) if (p.name === name) return { type: p.type, init: undefined, file: ref.file, at: p.index };
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Expressions

  /** The type of a variable named `name` visible at token `at` of `file`. */
  typeOfName(file: ParsedFile, name: string, at: number): ResolvedType | undefined {
    if (name === 'this') {
      const c = classesAround(file, at).find((x) => x.keyword !== ClassKeyword.Anonymous) ?? classesAround(file, at)[0];
      return c ? { type: { name: c.name, args: [] }, classes: [{ file, cls: c }], isStatic: false } : undefined;
    }
    // lambda parameters
    const lp = this.lambdaParam(file, name, at);
    if (lp !== null) return lp;
    // locals and parameters of the enclosing functions, innermost first
    for (const fn of functionsAround(file, at)) {
      let best: VarDecl | undefined;
      for (const v of this.varsByFn.get(fn) ?? []) if (v.name === name && v.nameIndex < at && (!best || v.nameIndex > best.nameIndex)) best = v;
      if (best) return this.typeOfVar(best);
      const p = fn.params.find((x) => x.name === name);
      if (p) return this.resolved(p.type, file, at);
    }
    // fields of the enclosing classes and their ancestors
    for (const c of classesAround(file, at)) {
      for (const a of this.ancestors({ file, cls: c })) {
        for (const target of [a, ...this.companionsOf(a)]) {
          const f = this.fieldIn(target, name);
          if (f) return f.type ? this.resolved(f.type, f.file, f.at) : f.init ? this.typeOfRange(f.file, f.init) : undefined;
        }
      }
    }
    // top-level properties: same file, same package, imported
    const tops = this.topVarsByName.get(name);
    if (tops) {
      const pkg = file.decls.packageName ?? '';
      const v = tops.find((x) => x.file === file) ?? tops.find((x) => (x.file.decls.packageName ?? '') === pkg) ?? tops.find((x) => file.decls.imports.some((imp) => imp === `${x.file.decls.packageName ?? ''}.${name}`));
      if (v) return this.typeOfVar(v);
    }
    // a class or object name
    if (/^[A-Z]/.test(name)) {
      const cls = this.classesNamed(name, file, at);
      return { type: { name, args: [] }, classes: cls, isStatic: true };
    }
    return undefined;
  }

  private typeOfVar(v: VarDecl): ResolvedType | undefined {
    if (v.type) return this.resolved(v.type, v.file, v.nameIndex);
    if (v.init) return this.typeOfRange(v.file, v.init);
    if (v.elementOf) return this.elementType(this.typeOfRange(v.file, v.elementOf), v.file, v.nameIndex);
    return undefined;
  }

  private elementType(t: ResolvedType | undefined, file: ParsedFile, at: number): ResolvedType | undefined {
    if (!t) return undefined;
    if (COLLECTIONS.test(lastSegment(t.type.name)) && t.type.args.length > 0) return this.resolved(t.type.args[t.type.args.length - 1], file, at);
    return undefined;
  }

  /** `it` or a named parameter of the Kotlin lambda around `at`; null when `name` is not one. */
  private lambdaParam(file: ParsedFile, name: string, at: number): ResolvedType | undefined | null {
    if (file.language !== 'kotlin') return null;
    for (let open = file.enclosingBrace[at] ?? -1; open >= 0; open = file.enclosingBrace[open] ?? -1) {
      const named = isIdent(file.tokens[open + 1]) && isOp(file.tokens[open + 2], '->') ? (file.tokens[open + 1] as Token).value : undefined;
      if (named === undefined && name !== 'it') continue;
      if (named !== undefined && named !== name) continue;
      // the call this lambda is passed to
      let callee = open - 1;
      if (isOp(file.tokens[callee], ')')) callee = (file.match[callee] ?? 0) - 1;
      const t = file.tokens[callee];
      if (!isIdent(t) || (!isOp(file.tokens[callee - 1], '.') && !isOp(file.tokens[callee - 1], '?.'))) return undefined;
      const recv = this.typeOfRange(file, { start: chainStart(file, callee), end: callee - 2 });
      const fnName = (t as Token).value;
      if (SELF_LAMBDAS.test(fnName)) return recv;
      if (ELEMENT_LAMBDAS.test(fnName)) return this.elementType(recv, file, at);
      return undefined;
    }
    return null;
  }

  /** The type of an expression range (a postfix chain, `new X(…)`, a cast, an elvis). */
  typeOfRange(file: ParsedFile, range: Range): ResolvedType | undefined {
    if (range.end < range.start) return undefined;
    if (this.typeDepth.n > 40) return undefined;
    this.typeDepth.n++;
    try {
      return this.typeOfRangeInner(file, range);
    } finally {
      this.typeDepth.n--;
    }
  }

  private typeOfRangeInner(file: ParsedFile, range: Range): ResolvedType | undefined {
    const toks = file.tokens;
    // top-level `as T`, `?:`
    let depthEnd = range.end;
    for (let k = range.start; k <= range.end; k++) {
      const t = toks[k] as Token;
      if ((isOp(t, '(') || isOp(t, '[') || isOp(t, '{')) && (file.match[k] ?? -1) > k) {
        k = file.match[k] as number;
        continue;
      }
      if (isIdent(t, 'as') && k > range.start) {
        const pt = parseType(file, isOp(toks[k + 1], '?') ? k + 2 : k + 1);
        return this.resolved(pt.type, file, k);
      }
      if (isOp(t, '?:') && k > range.start) {
        depthEnd = k - 1;
        break;
      }
      if (t.kind === TokenKind.Operator && ['=', '==', '!=', '&&', '||', '+', '-', '*', '/', '<', '>', '<=', '>='].includes(t.text) && k > range.start) {
        if (isOp(t, '<') && skipAngles(file, k) > k) {
          k = skipAngles(file, k) - 1;
          continue;
        }
        return undefined;
      }
    }
    return this.typeOfChain(file, range.start, depthEnd);
  }

  /** The type of the postfix chain `start..end` (`a.b(c).d!!`, `new Foo()`, `Foo(…)`, `this.x`). */
  private typeOfChain(file: ParsedFile, start: number, end: number): ResolvedType | undefined {
    const toks = file.tokens;
    let k = start;
    let cur: ResolvedType | undefined;
    const first = toks[k];
    if (first === undefined) return undefined;
    if (isOp(first, '(') && (file.match[k] ?? -1) > k) {
      const close = file.match[k] as number;
      cur = this.typeOfRange(file, { start: k + 1, end: close - 1 });
      k = close + 1;
    } else if (isIdent(first, 'new')) {
      const pt = parseType(file, k + 1);
      if (!pt.type) return undefined;
      cur = this.resolved(pt.type, file, k);
      k = pt.next;
      if (isOp(toks[k], '(')) k = (file.match[k] ?? k) + 1;
      if (isOp(toks[k], '{')) k = (file.match[k] ?? k) + 1;
    } else if (first.kind === TokenKind.String) {
      cur = { type: { name: 'String', args: [] }, classes: [], isStatic: false };
      k++;
    } else if (first.kind === TokenKind.Identifier) {
      if (callOpenParen(file, k) >= 0) {
        cur = this.typeOfCall(file, k);
        k = this.afterCall(file, k);
      } else if (isIdent(first, 'super')) {
        const c = classesAround(file, k).find((x) => x.keyword !== ClassKeyword.Anonymous);
        const sup = c ? this.supertypesOf({ file, cls: c })[0] : undefined;
        cur = sup ? { type: { name: sup.cls.name, args: [] }, classes: [sup], isStatic: false } : undefined;
        k++;
      } else {
        // a qualified class name `a.b.Foo` reads as one name
        cur = this.typeOfName(file, first.value, k);
        k++;
        if (!cur && /^[a-z]/.test(first.value)) {
          let name = first.value;
          while (isOp(toks[k], '.') && isIdent(toks[k + 1]) && k + 1 <= end) {
            name += `.${(toks[k + 1] as Token).value}`;
            k += 2;
            const cls = this.classesByQName.get(name);
            if (cls) {
              cur = { type: { name, args: [] }, classes: cls, isStatic: true };
              break;
            }
          }
          if (!cur) return undefined;
        }
      }
    } else {
      return undefined;
    }
    while (k <= end && cur) {
      const t = toks[k] as Token;
      if (isOp(t, '!!')) {
        k++;
        continue;
      }
      if (isOp(t, '[')) {
        cur = this.elementType(cur, file, k);
        k = (file.match[k] ?? k) + 1;
        continue;
      }
      if ((isOp(t, '.') || isOp(t, '?.')) && isIdent(toks[k + 1])) {
        const m = k + 1;
        const name = (toks[m] as Token).value;
        if (name === 'class' || name === 'java' || name === 'javaClass') return undefined;
        if (callOpenParen(file, m) >= 0 || trailingLambda(file, m) >= 0) {
          cur = this.typeOfCall(file, m, cur);
          k = this.afterCall(file, m);
        } else {
          cur = this.memberType(cur, name);
          k = m + 1;
        }
        continue;
      }
      return undefined;
    }
    return cur;
  }

  private afterCall(file: ParsedFile, i: number): number {
    let k = i + 1;
    if (isOp(file.tokens[k], '<')) k = skipAngles(file, k);
    if (isOp(file.tokens[k], '(')) k = (file.match[k] ?? k) + 1;
    if (file.language === 'kotlin' && isOp(file.tokens[k], '{') && !(file.tokens[k] as Token).newlineBefore) k = (file.match[k] ?? k) + 1;
    return k;
  }

  private memberType(owner: ResolvedType, name: string): ResolvedType | undefined {
    for (const c of owner.classes) {
      for (const a of this.ancestors(c)) {
        for (const target of [a, ...this.companionsOf(a)]) {
          const f = this.fieldIn(target, name);
          if (f) return f.type ? this.resolved(f.type, f.file, f.at) : f.init ? this.typeOfRange(f.file, f.init) : undefined;
        }
        // a nested class or object: `Outer.Inner`
        const nested = a.file.decls.classes.find((x) => x.parent === a.cls && x.name === name);
        if (nested) return { type: { name, args: [] }, classes: [{ file: a.file, cls: nested }], isStatic: true };
        // a Kotlin property read through its getter name
        const getter = this.functionsIn(a.cls).find((f) => f.name === `get${name.charAt(0).toUpperCase()}${name.slice(1)}` && f.params.length === 0);
        if (getter) return this.returnTypeOf({ file: a.file, fn: getter });
      }
    }
    if (owner.isStatic && owner.classes.length === 0 && /^[A-Z]/.test(name)) {
      const q = this.classesByQName.get(`${owner.type.name}.${name}`);
      if (q) return { type: { name: `${owner.type.name}.${name}`, args: [] }, classes: q, isStatic: true };
    }
    return undefined;
  }

  /** The declared (or, for a Kotlin expression body, inferred) return type of a function. */
  returnTypeOf(ref: FunctionRef): ResolvedType | undefined {
    const c = this.returnCache.get(ref.fn);
    if (c !== undefined) return c ?? undefined;
    this.returnCache.set(ref.fn, null);
    let t: ResolvedType | undefined;
    if (ref.fn.returnType) t = this.resolved(ref.fn.returnType, ref.file, ref.fn.nameIndex);
    else if (ref.fn.body && !isOp(ref.file.tokens[ref.fn.body.start], '{')) t = this.typeOfRange(ref.file, ref.fn.body);
    this.returnCache.set(ref.fn, t ?? null);
    return t;
  }

  private typeOfCall(file: ParsedFile, i: number, receiver?: ResolvedType): ResolvedType | undefined {
    const name = (file.tokens[i] as Token).value;
    const targets = this.resolveCallAt(file, i, receiver);
    if (targets.length > 0) {
      const first = targets[0] as FunctionRef;
      if (first.fn.constructor) return { type: { name: first.fn.name, args: [] }, classes: first.fn.owner ? [{ file: first.file, cls: first.fn.owner }] : [], isStatic: false };
      const rt = this.returnTypeOf(first);
      if (rt) return rt;
    }
    if (receiver === undefined && /^[A-Z]/.test(name)) {
      // a constructor call (Kotlin) or a factory named like its class
      const cls = this.classesNamed(name, file, i);
      if (cls.length > 0 || targets.length === 0) return { type: { name, args: [] }, classes: cls, isStatic: false };
    }
    // `x.apply { … }` and `x.also { … }` return their receiver
    if (receiver && /^(apply|also)$/.test(name)) return receiver;
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Calls

  /** Number of arguments at the call at `i` (a trailing lambda counts as one), or -1 for a method reference. */
  private argCount(file: ParsedFile, i: number): number {
    const open = callOpenParen(file, i);
    let n = open >= 0 ? splitArgs(file, open).length : 0;
    if (trailingLambda(file, i) >= 0) n++;
    return open < 0 && trailingLambda(file, i) < 0 ? -1 : n;
  }

  private arityFits(fn: FunctionDecl, n: number): boolean {
    if (n < 0) return true;
    let vararg = this.varargCache.get(fn);
    if (vararg === undefined) {
      vararg = false;
      const file = this.fileOfFn.get(fn);
      const close = file ? (file.match[fn.paramsOpen] ?? -1) : -1;
      if (file) for (let k = fn.paramsOpen + 1; k < close; k++) if (isIdent(file.tokens[k], 'vararg') || isOp(file.tokens[k], '...')) vararg = true;
      this.varargCache.set(fn, vararg);
    }
    const required = fn.params.filter((p) => p.defaultValue === undefined).length;
    return n >= (vararg ? required - 1 : required) && (vararg || n <= fn.params.length);
  }

  /** Methods named `name` callable on `cls`: declared in it or inherited, and overrides in its subclasses. */
  private methodsOn(cls: ClassRef, name: string, n: number, dispatch: boolean): FunctionRef[] {
    const out: FunctionRef[] = [];
    for (const a of this.ancestors(cls)) {
      for (const target of [a, ...this.companionsOf(a)]) {
        for (const fn of this.functionsIn(target.cls)) if (fn.name === name && !fn.constructor && this.arityFits(fn, n)) out.push({ file: target.file, fn });
      }
      if (out.length > 0) break;
    }
    if (dispatch) {
      for (const d of this.descendants(cls)) for (const fn of this.functionsIn(d.cls)) if (fn.name === name && !fn.constructor && this.arityFits(fn, n)) out.push({ file: d.file, fn });
    }
    return out;
  }

  private extensionsFor(type: ResolvedType | undefined, name: string, n: number): FunctionRef[] {
    const cands = this.extensionsByName.get(name) ?? [];
    if (cands.length === 0) return [];
    if (!type) return [];
    const names = new Set<string>([lastSegment(type.type.name)]);
    for (const c of type.classes) for (const a of this.ancestors(c)) names.add(a.cls.name);
    for (const c of type.classes) for (const a of this.ancestors(c)) for (const s of a.cls.supertypes) names.add(lastSegment(s));
    return cands.filter((r) => r.fn.receiverType !== undefined && names.has(lastSegment(r.fn.receiverType.name)) && this.arityFits(r.fn, n));
  }

  /** A call whose receiver is unknown: linked only when the project declares `name` in one class hierarchy (or once at top level). */
  private byUniqueName(name: string, n: number): FunctionRef[] {
    const cands = (this.project.functionsByName.get(name) ?? []).filter((r) => !r.fn.constructor && this.arityFits(r.fn, n));
    if (cands.length === 0) return [];
    if (cands.length === 1) return cands;
    const owners = cands.map((r) => (r.fn.owner ? { file: r.file, cls: r.fn.owner } : undefined));
    if (owners.some((o) => o === undefined)) return [];
    // one hierarchy: some candidate's class is an ancestor of all others
    for (const o of owners as ClassRef[]) {
      if ((owners as ClassRef[]).every((x) => x.cls === o.cls || this.ancestors(x).some((a) => a.cls === o.cls))) return cands;
    }
    return [];
  }

  /** The project functions the call at identifier `i` can run. */
  resolveCall(file: ParsedFile, i: number): FunctionRef[] {
    let m = this.callCache.get(file);
    if (!m) {
      m = new Map();
      this.callCache.set(file, m);
    }
    const c = m.get(i);
    if (c) return c;
    const r = this.resolveCallAt(file, i);
    m.set(i, r);
    return r;
  }

  private resolveCallAt(file: ParsedFile, i: number, knownReceiver?: ResolvedType): FunctionRef[] {
    const toks = file.tokens;
    const name = (toks[i] as Token).value;
    const n = this.argCount(file, i);
    const prev = toks[i - 1];
    if (isOp(prev, '.') || isOp(prev, '?.') || isOp(prev, '::')) {
      const recvEnd = isOp(toks[i - 2], '!!') ? i - 3 : i - 2;
      if (isIdent(toks[recvEnd], 'super') && recvEnd === chainStart(file, i)) {
        const c = classesAround(file, i).find((x) => x.keyword !== ClassKeyword.Anonymous);
        if (!c) return [];
        return this.supertypesOf({ file, cls: c }).flatMap((s) => this.methodsOn(s, name, n, false));
      }
      if (isOp(prev, '::') && !isIdent(toks[i - 2]) && !isOp(toks[i - 2], ')') && !isOp(toks[i - 2], '>')) {
        // `::foo`: a function of the enclosing scope
        return this.resolveBare(file, i, name, -1);
      }
      const recv = knownReceiver ?? this.typeOfRange(file, { start: chainStart(file, i), end: recvEnd });
      if (recv) {
        if (recv.classes.length > 0) {
          const out: FunctionRef[] = [];
          for (const c of recv.classes) out.push(...this.methodsOn(c, name, n, !recv.isStatic));
          out.push(...this.extensionsFor(recv, name, n));
          return dedupe(out);
        }
        return this.extensionsFor(recv, name, n);
      }
      return this.byUniqueName(name, n);
    }
    return this.resolveBare(file, i, name, n);
  }

  private resolveBare(file: ParsedFile, i: number, name: string, n: number): FunctionRef[] {
    // local functions of the enclosing functions
    for (const fn of functionsAround(file, i)) {
      const local = file.decls.functions.filter((f) => f.name === name && fn.body && f.nameIndex > fn.body.start && f.nameIndex < fn.body.end && innermostFunction(file, f.nameIndex - 1) === fn);
      if (local.length > 0) return local.map((f) => ({ file, fn: f }));
    }
    // members of the enclosing classes (and what they inherit), with overrides in subclasses
    for (const c of classesAround(file, i)) {
      const ref = { file, cls: c };
      const found = this.methodsOn(ref, name, n, true);
      if (found.length > 0) return found;
      // an enclosing class's extension functions declared in its body apply to `this` of other types: not followed
    }
    // top-level functions: same file, same package, imported
    const tops = (this.topFnsByName.get(name) ?? []).filter((r) => this.arityFits(r.fn, n));
    if (tops.length > 0) {
      const pkg = file.decls.packageName ?? '';
      const visible = tops.filter((r) => r.file === file || (r.file.decls.packageName ?? '') === pkg ||
        file.decls.imports.some((imp) => imp === `${r.file.decls.packageName ?? ''}.${name}` || imp === `${r.file.decls.packageName ?? ''}.*`));
      if (visible.length > 0) return visible;
    }
    // a constructor
    if (/^[A-Z]/.test(name)) {
      const cls = this.classesNamed(name, file, i);
      if (cls.length > 0) return cls.flatMap((c) => this.functionsIn(c.cls).filter((f) => f.constructor).map((fn) => ({ file: c.file, fn })));
    }
    // inside a lambda with a receiver (`apply { … }`, `with(x) { … }`) or an extension function: the receiver's members
    const recv = this.implicitReceiver(file, i);
    if (recv) {
      const out = recv.classes.flatMap((c) => this.methodsOn(c, name, n, true));
      if (out.length > 0) return out;
      const ext = this.extensionsFor(recv, name, n);
      if (ext.length > 0) return ext;
    }
    const ext = (this.extensionsByName.get(name) ?? []).filter((r) => this.arityFits(r.fn, n));
    if (ext.length === 1) return ext;
    return this.byUniqueName(name, n);
  }

  private implicitReceiver(file: ParsedFile, i: number): ResolvedType | undefined {
    if (file.language !== 'kotlin') return undefined;
    for (let open = file.enclosingBrace[i] ?? -1; open >= 0; open = file.enclosingBrace[open] ?? -1) {
      let callee = open - 1;
      if (isOp(file.tokens[callee], ')')) callee = (file.match[callee] ?? 0) - 1;
      const t = file.tokens[callee];
      if (!isIdent(t) || !RECEIVER_LAMBDAS.test((t as Token).value)) continue;
      if ((t as Token).value === 'with') {
        const o = callOpenParen(file, callee);
        const a = o >= 0 ? splitArgs(file, o)[0] : undefined;
        return a ? this.typeOfRange(file, a) : undefined;
      }
      if (isOp(file.tokens[callee - 1], '.') || isOp(file.tokens[callee - 1], '?.')) {
        return this.typeOfRange(file, { start: chainStart(file, callee), end: callee - 2 });
      }
    }
    const fn = functionsAround(file, i).find((f) => f.receiverType);
    return fn?.receiverType ? this.resolved(fn.receiverType, file, i) : undefined;
  }

  /** Every call site in a function's body (nested function declarations excluded) with the functions it runs. */
  callSites(ref: FunctionRef): Array<{ at: number; targets: FunctionRef[] }> {
    const out: Array<{ at: number; targets: FunctionRef[] }> = [];
    const body = ref.fn.body;
    if (!body) return out;
    const file = ref.file;
    for (let k = body.start; k <= body.end; k++) {
      const t = file.tokens[k] as Token;
      if (t.kind !== TokenKind.Identifier) continue;
      const isRef = isOp(file.tokens[k - 1], '::');
      if (!isRef && !isCallAt(file, k)) continue;
      if (NOT_CALLS.has(t.value) && !isRef) continue;
      let names = this.declNames.get(file);
      if (!names) {
        names = new Set(file.decls.functions.map((f) => f.nameIndex));
        this.declNames.set(file, names);
      }
      if (names.has(k)) continue;
      if (isOp(file.tokens[k - 1], '.') && isIdent(file.tokens[k - 2], 'super') && t.value === ref.fn.name) continue;
      const targets = this.resolveCall(file, k);
      if (targets.length > 0) out.push({ at: k, targets });
    }
    return out;
  }

  /** The functions a function can run: its resolved calls, and the functions declared inside it (anonymous classes, local functions). */
  callees(ref: FunctionRef): FunctionRef[] {
    const c = this.calleesCache.get(ref.fn);
    if (c) return c;
    const out: FunctionRef[] = [];
    for (const s of this.callSites(ref)) out.push(...s.targets);
    const body = ref.fn.body;
    if (body) for (const f of ref.file.decls.functions) if (f !== ref.fn && f.nameIndex > body.start && f.nameIndex < body.end) out.push({ file: ref.file, fn: f });
    const d = dedupe(out);
    this.calleesCache.set(ref.fn, d);
    return d;
  }

  /**
   * The functions that call `fn`. Only the call sites spelled with its name (or its class's name,
   * for a constructor) are resolved, so asking about a few functions stays cheap.
   */
  callers(fn: FunctionDecl): FunctionRef[] {
    if (!this.callersMap) this.callersMap = new Map();
    const cached = this.callersMap.get(fn);
    if (cached) return cached;
    if (!this.siteIndex) {
      this.siteIndex = new Map();
      for (const file of this.project.files) {
        const toks = file.tokens;
        for (let k = 0; k < toks.length; k++) {
          const t = toks[k] as Token;
          if (t.kind !== TokenKind.Identifier) continue;
          const next = toks[k + 1];
          if (isOp(toks[k - 1], '::') || isOp(next, '(') || isOp(next, '<') || (isOp(next, '{') && file.language === 'kotlin')) this.add(this.siteIndex, t.value, { file, at: k });
        }
      }
    }
    const out: FunctionRef[] = [];
    const seen = new Set<FunctionDecl>();
    for (const site of this.siteIndex.get(fn.name) ?? []) {
      const isRef = isOp(site.file.tokens[site.at - 1], '::');
      if (!isRef && !isCallAt(site.file, site.at)) continue;
      if (!this.resolveCall(site.file, site.at).some((t) => t.fn === fn)) continue;
      const caller = innermostFunction(site.file, site.at);
      if (caller && caller !== fn && !seen.has(caller)) {
        seen.add(caller);
        out.push({ file: site.file, fn: caller });
      }
    }
    // a function declared inside another (an anonymous class's method, a local function) runs as part of it
    const file = this.fileOfFn.get(fn);
    const outer = file ? innermostFunction(file, fn.nameIndex - 1) : undefined;
    if (file && outer && outer !== fn && !seen.has(outer)) out.push({ file, fn: outer });
    this.callersMap.set(fn, out);
    return out;
  }

  /**
   * True when `ref` or a function it reaches satisfies `direct` (memoised per `key`). Cycles are
   * cut: a function on the current path counts as not satisfying.
   */
  reaches(ref: FunctionRef, key: string, direct: (r: FunctionRef) => boolean): boolean {
    let memo = this.reachMemo.get(key);
    if (!memo) {
      memo = new Map();
      this.reachMemo.set(key, memo);
    }
    const m = memo;
    const visit = (r: FunctionRef, onPath: Set<FunctionDecl>): boolean => {
      const known = m.get(r.fn);
      if (known !== undefined) return known;
      if (onPath.has(r.fn)) return false;
      if (direct(r)) {
        m.set(r.fn, true);
        return true;
      }
      onPath.add(r.fn);
      let hit = false;
      for (const t of this.callees(r)) {
        if (visit(t, onPath)) {
          hit = true;
          break;
        }
      }
      onPath.delete(r.fn);
      if (hit || onPath.size === 0) m.set(r.fn, hit);
      return hit;
    };
    return visit(ref, new Set());
  }

  /** Functions reachable from `roots` through resolved calls (the roots included). */
  reachable(roots: readonly FunctionRef[]): Map<FunctionDecl, FunctionRef> {
    const seen = new Map<FunctionDecl, FunctionRef>();
    const queue = [...roots];
    while (queue.length > 0) {
      const r = queue.pop() as FunctionRef;
      if (seen.has(r.fn)) continue;
      seen.set(r.fn, r);
      for (const t of this.callees(r)) if (!seen.has(t.fn)) queue.push(t);
    }
    return seen;
  }
}

function dedupe(refs: FunctionRef[]): FunctionRef[] {
  const seen = new Set<FunctionDecl>();
  return refs.filter((r) => (seen.has(r.fn) ? false : (seen.add(r.fn), true)));
}

interface FileIndex {
  /** For each token, the innermost function whose body contains it (index into decls.functions), or -1. */
  readonly fnAt: Int32Array;
  /** For each token, the innermost class whose body contains it (index into decls.classes), or -1. */
  readonly classAt: Int32Array;
  /** For each function and class (by index), the function or class enclosing it, or -1. */
  readonly fnParent: Int32Array;
  readonly classParent: Int32Array;
}

const fileIndexes = new WeakMap<ParsedFile, FileIndex>();

function fileIndex(file: ParsedFile): FileIndex {
  let ix = fileIndexes.get(file);
  if (ix) return ix;
  const n = file.tokens.length;
  const fnAt = new Int32Array(n).fill(-1);
  const classAt = new Int32Array(n).fill(-1);
  const fns = file.decls.functions;
  const order = fns.map((_, k) => k).filter((k) => fns[k]?.body).sort((a, b) => ((fns[a] as FunctionDecl).body as Range).start - ((fns[b] as FunctionDecl).body as Range).start);
  for (const k of order) {
    const b = (fns[k] as FunctionDecl).body as Range;
    for (let t = b.start; t <= b.end && t < n; t++) fnAt[t] = k;
  }
  const fnParent = new Int32Array(fns.length).fill(-1);
  for (let k = 0; k < fns.length; k++) {
    const f = fns[k] as FunctionDecl;
    const at = f.nameIndex;
    fnParent[k] = at >= 0 && at < n ? (fnAt[at] as number) : -1;
    if (fnParent[k] === k) fnParent[k] = -1;
  }
  const classes = file.decls.classes;
  const corder = classes.map((_, k) => k).filter((k) => classes[k]?.body).sort((a, b) => ((classes[a] as ClassDecl).body as Range).start - ((classes[b] as ClassDecl).body as Range).start);
  for (const k of corder) {
    const b = (classes[k] as ClassDecl).body as Range;
    for (let t = b.start + 1; t < b.end && t < n; t++) classAt[t] = k;
  }
  const classParent = new Int32Array(classes.length).fill(-1);
  for (let k = 0; k < classes.length; k++) {
    const p = (classes[k] as ClassDecl).parent;
    classParent[k] = p ? classes.indexOf(p) : -1;
  }
  ix = { fnAt, classAt, fnParent, classParent };
  fileIndexes.set(file, ix);
  return ix;
}

/** The innermost function whose body contains token `i`. */
export function innermostFunction(file: ParsedFile, i: number): FunctionDecl | undefined {
  if (i < 0 || i >= file.tokens.length) return undefined;
  const k = fileIndex(file).fnAt[i] as number;
  return k >= 0 ? file.decls.functions[k] : undefined;
}

function innermostClass(file: ParsedFile, i: number): ClassDecl | undefined {
  return classesAround(file, i)[0];
}

/** The functions whose bodies contain token `i`, innermost first. */
export function functionsAround(file: ParsedFile, i: number): FunctionDecl[] {
  if (i < 0 || i >= file.tokens.length) return [];
  const ix = fileIndex(file);
  const out: FunctionDecl[] = [];
  for (let k = ix.fnAt[i] as number; k >= 0; k = ix.fnParent[k] as number) {
    out.push(file.decls.functions[k] as FunctionDecl);
    if (out.length > 50) break;
  }
  return out;
}

/** The classes whose bodies contain token `i`, innermost first. */
export function classesAround(file: ParsedFile, i: number): ClassDecl[] {
  if (i < 0 || i >= file.tokens.length) return [];
  const ix = fileIndex(file);
  const out: ClassDecl[] = [];
  for (let k = ix.classAt[i] as number; k >= 0; k = ix.classParent[k] as number) {
    out.push(file.decls.classes[k] as ClassDecl);
    if (out.length > 50) break;
  }
  return out;
}

const resolvers = new WeakMap<Project, Resolver>();

/** The resolver of a project (built once). */
export function resolverOf(project: Project): Resolver {
  let r = resolvers.get(project);
  if (!r) {
    r = new Resolver(project);
    resolvers.set(project, r);
  }
  return r;
}
