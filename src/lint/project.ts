/**
 * Builds the parsed project from file contents (pure) and answers the questions several rules
 * share: which classes are Workers or Activities, what a function calls, what is reachable from
 * a worker, where "now" is read, where a date is parsed.
 */
import type { ValueDecl } from './constants.js';
import { ConstantResolver, collectValueDecls } from './constants.js';
import type { ClassDecl, FunctionDecl } from './declarations.js';
import { findDeclarations, functionAt } from './declarations.js';
import type { ClassRef, FunctionRef, ParsedFile, Project, SourceText } from './model.js';
import type { RoomSchema } from './room-schema.js';
import { parseRoomSchema } from './room-schema.js';
import type { SqlDelightFile } from './sqldelight.js';
import { isSqlDelightPath, parseSqlDelightFile, sqlDelightQueries, sqlDelightSchemas } from './sqldelight.js';
import type { Range } from './syntax.js';
import { callOpenParen, isCallAt, matchBrackets } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp, languageOf, tokenize } from './tokenizer.js';
import { resolverOf } from './resolve.js';

export function parseSourceFile(path: string, text: string): ParsedFile | undefined {
  const language = languageOf(path);
  if (language === undefined) return undefined;
  const { tokens, comments } = tokenize(text, language);
  const { match, enclosingBrace } = matchBrackets(tokens);
  const unit = { path, language, tokens, match, enclosingBrace };
  return { ...unit, decls: findDeclarations(unit), comments };
}

/** Parses every source and schema file; files that are neither are skipped and not counted. */
export function buildProject(sources: readonly SourceText[]): { project: Project; scanned: number } {
  const files: ParsedFile[] = [];
  const schemas: RoomSchema[] = [];
  const sqlFiles: SqlDelightFile[] = [];
  let scanned = 0;
  for (const s of sources) {
    if (isSqlDelightPath(s.path)) {
      sqlFiles.push(parseSqlDelightFile(s.path, s.text));
      scanned++;
      continue;
    }
    if (/\.json$/i.test(s.path)) {
      const schema = parseRoomSchema(s.path, s.text);
      if (schema) {
        schemas.push(schema);
        scanned++;
      }
      continue;
    }
    const f = parseSourceFile(s.path, s.text);
    if (f) {
      files.push(f);
      scanned++;
    }
  }
  const functionsByName = new Map<string, FunctionRef[]>();
  const classesByName = new Map<string, ClassRef[]>();
  const values: ValueDecl[] = [];
  for (const file of files) {
    for (const fn of file.decls.functions) {
      const list = functionsByName.get(fn.name) ?? [];
      list.push({ file, fn });
      functionsByName.set(fn.name, list);
    }
    for (const cls of file.decls.classes) {
      if (cls.name === '') continue;
      const list = classesByName.get(cls.name) ?? [];
      list.push({ file, cls });
      classesByName.set(cls.name, list);
    }
    values.push(...collectValueDecls(file));
  }
  schemas.push(...sqlDelightSchemas(sqlFiles));
  return { project: { files, schemas, sqlFiles, sqlQueries: sqlDelightQueries(sqlFiles), functionsByName, classesByName, values, resolver: new ConstantResolver(values) }, scanned };
}

// ---------------------------------------------------------------------------------------------
// Class kinds

/** androidx.work worker base classes (work-runtime `ListenableWorker`, `Worker`, `CoroutineWorker`, `RxWorker`, multiprocess `Remote*`). */
export const WORKER_BASES = new Set(['Worker', 'CoroutineWorker', 'ListenableWorker', 'RxWorker', 'RemoteCoroutineWorker', 'RemoteListenableWorker']);
/** Entry points that run without any Activity: the Application, services, receivers, providers, workers. */
const HEADLESS_BASES = new Set([
  'Application', 'MultiDexApplication', 'Service', 'LifecycleService', 'IntentService', 'JobIntentService', 'JobService',
  'BroadcastReceiver', 'ContentProvider', 'FirebaseMessagingService', 'Initializer', ...WORKER_BASES,
]);

/** True when the class extends (directly or through project classes) one of `bases`, or one matching `pattern`. */
export function extendsAny(project: Project, cls: ClassDecl, bases: ReadonlySet<string>, pattern?: RegExp, seen = new Set<string>()): boolean {
  for (const s of cls.supertypes) {
    if (bases.has(s) || (pattern !== undefined && pattern.test(s))) return true;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const ref of project.classesByName.get(s) ?? []) {
      if (extendsAny(project, ref.cls, bases, pattern, seen)) return true;
    }
  }
  return false;
}

export function isWorkerClass(project: Project, cls: ClassDecl): boolean {
  return extendsAny(project, cls, WORKER_BASES);
}

/**
 * The framework's other periodic entry points, followed as worker paths: a JobScheduler job
 * (`android.app.job.JobService`, whose `onStartJob` the system calls for each run of a
 * `JobInfo.Builder.setPeriodic` job: aosp-mirror/platform_frameworks_base
 * core/java/android/app/job/JobService.java) and a sync adapter
 * (`android.content.AbstractThreadedSyncAdapter.onPerformSync`, run for `addPeriodicSync`:
 * core/java/android/content/AbstractThreadedSyncAdapter.java).
 */
export const JOB_BASES = new Set(['JobService', 'AbstractThreadedSyncAdapter']);

/** True for a JobScheduler `JobService` or a SyncAdapter (through project superclasses). */
export function isJobClass(project: Project, cls: ClassDecl): boolean {
  return extendsAny(project, cls, JOB_BASES);
}

/** A class whose code is a background run's path: a WorkManager worker, a JobService or a SyncAdapter. */
export function isWorkerPathClass(project: Project, cls: ClassDecl): boolean {
  return isWorkerClass(project, cls) || isJobClass(project, cls);
}

/** Activities and Fragments: code that only runs while the UI is shown. */
export function isUiClass(project: Project, cls: ClassDecl): boolean {
  return extendsAny(project, cls, new Set(), /(Activity|Fragment)$/);
}

export function isHeadlessEntryClass(project: Project, cls: ClassDecl): boolean {
  return extendsAny(project, cls, HEADLESS_BASES);
}

/** The outermost named class containing `cls` (anonymous objects and companions belong to it). */
export function topClass(cls: ClassDecl | undefined): ClassDecl | undefined {
  let c = cls;
  while (c?.parent) c = c.parent;
  return c;
}

/** All classes around token `i`, innermost first. */
export function classesAround(file: ParsedFile, i: number): ClassDecl[] {
  const out = file.decls.classes.filter((c) => c.body !== undefined && i > c.body.start && i < c.body.end);
  return out.sort((a, b) => (b.body as Range).start - (a.body as Range).start);
}

export function workerClasses(project: Project): ClassRef[] {
  return project.files.flatMap((file) => file.decls.classes.filter((cls) => isWorkerClass(project, cls)).map((cls) => ({ file, cls })));
}

// ---------------------------------------------------------------------------------------------
// Calls and reachability

/** Indices of call sites of `name` (or names matching) in a token range (default: the whole file). */
export function callsIn(file: ParsedFile, name: string | RegExp | ((name: string) => boolean), range?: Range): number[] {
  const out: number[] = [];
  const start = range?.start ?? 0;
  const end = range?.end ?? file.tokens.length - 1;
  const matches = typeof name === 'string' ? (n: string) => n === name : name instanceof RegExp ? (n: string) => name.test(n) : name;
  for (let i = start; i <= end; i++) {
    const t = file.tokens[i] as Token;
    if (t.kind !== TokenKind.Identifier) continue;
    if (!matches(t.value)) continue;
    if (isCallAt(file, i) && !isDeclarationName(file, i)) out.push(i);
  }
  return out;
}

function isDeclarationName(file: ParsedFile, i: number): boolean {
  return file.decls.functions.some((f) => f.nameIndex === i);
}

/**
 * Functions reachable from `roots` through calls resolved by receiver type, class, imports and
 * package (resolve.ts), the roots included. With `sameClass`, only functions of the same
 * top-level class are followed.
 */
export function reachableFunctions(project: Project, roots: readonly FunctionRef[], sameClass = false): FunctionRef[] {
  const resolver = resolverOf(project);
  const seen = new Set<FunctionDecl>();
  const out: FunctionRef[] = [];
  const queue = [...roots];
  for (let q = 0; q < queue.length; q++) {
    const ref = queue[q] as FunctionRef;
    if (seen.has(ref.fn)) continue;
    seen.add(ref.fn);
    out.push(ref);
    for (const target of resolver.callees(ref)) {
      if (seen.has(target.fn)) continue;
      if (sameClass && (target.file !== ref.file || topClass(target.fn.owner) !== topClass(ref.fn.owner))) continue;
      queue.push(target);
    }
  }
  return out;
}

export function functionsOf(project: Project, file: ParsedFile, cls: ClassDecl): FunctionRef[] {
  return file.decls.functions.filter((fn) => {
    for (let c = fn.owner; c; c = c.parent) if (c === cls) return true;
    return false;
  }).map((fn) => ({ file, fn }));
}

// ---------------------------------------------------------------------------------------------
// Time

const NOW_STARTS = new Set(['System', 'Clock', 'Date', 'new', 'Calendar']);
const NOW_TYPES = new Set(['Instant', 'ZonedDateTime', 'OffsetDateTime', 'LocalDateTime', 'LocalDate']);
const TIME_PROPS = new Set(['time', 'timeInMillis', 'epochSecond']);
const TIME_METHODS = new Set(['toEpochMilli', 'getTime', 'getTimeInMillis', 'toEpochMilliseconds', 'toInstant', 'atZone', 'toEpochSecond']);

/**
 * When a "current time" expression starts at token `i`, the index of its last token (with
 * `.time`/`.toEpochMilli()` and similar conversions); otherwise -1. Recognised:
 * `System.currentTimeMillis()`, `Instant.now()` (and the other java.time `now()`),
 * `Clock.System.now()` (kotlinx-datetime), `Date()` / `new Date()`, `Calendar.getInstance()`,
 * `clock.millis()`-style injected clocks, and method references `System::currentTimeMillis`.
 */
export function nowExpressionEnd(file: ParsedFile, i: number): number {
  const t = file.tokens;
  const first = t[i];
  if (first === undefined || first.kind !== TokenKind.Identifier || !(NOW_STARTS.has(first.value) || NOW_TYPES.has(first.value) || /clock$/i.test(first.value))) return -1;
  const at = (k: number, s: string): boolean => isIdent(t[k], s);
  const dot = (k: number): boolean => isOp(t[k], '.');
  const emptyCall = (k: number): boolean => isOp(t[k], '(') && (file.match[k] ?? -1) === k + 1;
  const callEnd = (k: number): number => (isOp(t[k], '(') ? (file.match[k] ?? -1) : -1);
  if (isOp(t[i - 1], '.') && !(isIdent(t[i - 2], /^(java|lang|util|time)$/))) {
    // only the start of a chain counts, except fully qualified names
    if (!(at(i, 'System') || at(i, 'Instant') || at(i, 'Date'))) return -1;
  }
  let end = -1;
  if (at(i, 'System') && dot(i + 1) && at(i + 2, 'currentTimeMillis') && emptyCall(i + 3)) end = i + 4;
  else if (at(i, 'System') && isOp(t[i + 1], '::') && at(i + 2, 'currentTimeMillis')) return i + 2;
  else if (isIdent(t[i]) && NOW_TYPES.has((t[i] as Token).value) && isOp(t[i + 1], '::') && at(i + 2, 'now')) return i + 2;
  else if (isIdent(t[i]) && NOW_TYPES.has((t[i] as Token).value) && dot(i + 1) && at(i + 2, 'now') && isOp(t[i + 3], '(')) end = callEnd(i + 3);
  else if (at(i, 'Clock') && dot(i + 1) && at(i + 2, 'System') && dot(i + 3) && at(i + 4, 'now') && emptyCall(i + 5)) end = i + 6;
  else if (at(i, 'Date') && emptyCall(i + 1) && !isOp(t[i - 1], '.')) end = i + 2;
  else if (at(i, 'new') && at(i + 1, 'Date') && emptyCall(i + 2)) end = i + 3;
  else if (at(i, 'Calendar') && dot(i + 1) && at(i + 2, 'getInstance') && isOp(t[i + 3], '(')) end = callEnd(i + 3);
  else if (isIdent(t[i], /clock$/i) && dot(i + 1) && isIdent(t[i + 2], /^(millis|now|currentTimeMillis|instant)$/) && emptyCall(i + 3)) end = i + 4;
  if (end < 0) return -1;
  // conversions: `.time`, `.toEpochMilli()`, `.timeInMillis`
  for (;;) {
    if (dot(end + 1) && isIdent(t[end + 2]) && TIME_PROPS.has((t[end + 2] as Token).value) && !isOp(t[end + 3], '(')) {
      end += 2;
      continue;
    }
    if (dot(end + 1) && isIdent(t[end + 2]) && TIME_METHODS.has((t[end + 2] as Token).value) && isOp(t[end + 3], '(')) {
      end = callEnd(end + 3);
      if (end < 0) return -1;
      continue;
    }
    return end;
  }
}

const localsCache = new WeakMap<Project, Map<FunctionDecl, ValueDecl[]>>();

/** The value declarations local to `fn` (its `val`s, `var`s and Java locals), in source order; one pass over the project builds the index. */
export function localsOf(project: Project, fn: FunctionDecl): readonly ValueDecl[] {
  let index = localsCache.get(project);
  if (!index) {
    index = new Map();
    for (const d of project.values) {
      if (d.fn === undefined) continue;
      const list = index.get(d.fn);
      if (list) list.push(d);
      else index.set(d.fn, [d]);
    }
    localsCache.set(project, index);
  }
  return index.get(fn) ?? [];
}

/** Names of locals in `fn` initialised from a current-time expression (`val now = System.currentTimeMillis()`). */
const aliasCache = new WeakMap<FunctionDecl, Set<string>>();

export function nowAliases(project: Project, file: ParsedFile, fn: FunctionDecl | undefined): Set<string> {
  const names = new Set<string>();
  if (!fn) return names;
  const cached = aliasCache.get(fn);
  if (cached) return cached;
  aliasCache.set(fn, names);
  for (const d of localsOf(project, fn)) {
    if (d.file !== file) continue;
    for (let k = d.init.start; k <= d.init.end; k++) {
      if (nowExpressionEnd(file, k) >= 0) {
        names.add(d.name);
        break;
      }
    }
  }
  return names;
}

/** True when the range reads the current time (directly, through a `now` local, or a `now` parameter). */
export function readsNow(project: Project, file: ParsedFile, range: Range): boolean {
  const fn = functionAt(file.decls, range.start);
  const aliases = nowAliases(project, file, fn);
  for (let k = range.start; k <= range.end; k++) {
    if (nowExpressionEnd(file, k) >= 0) return true;
    const tk = file.tokens[k] as Token;
    if (tk.kind === TokenKind.Identifier && !isOp(file.tokens[k - 1], '.') && (aliases.has(tk.value) || /^(now|nowMs|nowMillis|currentTime|currentTimeMs|currentTimeMillis|nowEpochMs)$/.test(tk.value))) {
      return true;
    }
  }
  return false;
}

/** True when the call at identifier `i` parses a date or time (`parse`, `parseDate`, `parseRfc822`, `ZonedDateTime.parse`). */
export function isDateParseCall(file: ParsedFile, i: number): boolean {
  const t = file.tokens[i] as Token;
  if (t.kind !== TokenKind.Identifier || callOpenParen(file, i) < 0) return false;
  if (t.value === 'parse') return true;
  return /^(try)?parse/i.test(t.value) && /(date|time|instant|rfc|iso|pub|publish|updat|stamp)/i.test(t.value);
}

export function containsDateParse(file: ParsedFile, range: Range): number {
  for (let k = range.start; k <= range.end; k++) if (isDateParseCall(file, k)) return k;
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Notifications

/**
 * True when the call at `i` posts a notification: `notify(id, notification)` or
 * `notify(tag, id, notification)` (android.app.NotificationManager / NotificationManagerCompat;
 * `Object.notify()` takes no arguments).
 */
export function isNotifyCall(file: ParsedFile, i: number): boolean {
  if (!isIdent(file.tokens[i], 'notify')) return false;
  const open = callOpenParen(file, i);
  if (open < 0) return false;
  let commas = 0;
  for (let k = open + 1; k < (file.match[open] ?? open); k++) {
    if (isOp(file.tokens[k], '(') || isOp(file.tokens[k], '[') || isOp(file.tokens[k], '{')) {
      k = (file.match[k] ?? k);
      continue;
    }
    if (isOp(file.tokens[k], ',')) commas++;
  }
  return commas === 1 || commas === 2;
}

/** The notify calls in a function body. */
export function notifyCallsIn(ref: FunctionRef): number[] {
  if (!ref.fn.body) return [];
  return callsIn(ref.file, 'notify', ref.fn.body).filter((k) => isNotifyCall(ref.file, k));
}

/** True when the function posts a notification itself or through what it calls (resolved calls). */
export function notifiesTransitively(project: Project, ref: FunctionRef): boolean {
  return resolverOf(project).reaches(ref, 'notify', (r) => notifyCallsIn(r).length > 0);
}
