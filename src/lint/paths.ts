/**
 * Where a piece of code runs, from the notifier's point of view. A finding of the notifier rules
 * matters on the path from a WorkManager worker, a JobScheduler `JobService` or a SyncAdapter
 * (its `doWork()`, `onStartJob()` or `onPerformSync()` and what it calls, through calls
 * resolved by resolve.ts) to a `notify()` or a write of dedup state; the same code shown only by
 * an Activity, a Fragment, a view, an adapter or a view model (or run by a service or a receiver)
 * is not that path. Code that nothing in the scanned sources reaches (a helper whose callers are
 * outside the scan, a library module) is judged on its own lines.
 */
import type { ClassDecl } from './declarations.js';
import { ClassKeyword, functionAt } from './declarations.js';
import type { ClassRef, FunctionRef, Project } from './model.js';
import { extendsAny, isNotifyCall, isWorkerPathClass } from './project.js';
import { resolverOf } from './resolve.js';
import { isKeyword, splitStatements, tokenizeSql, whereColumns } from './sql.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

export const Reach = {
  /** Reached from a worker that posts notifications or writes dedup state. */
  Worker: 'worker',
  /** Reached only from UI or other non-worker entry points. */
  Elsewhere: 'elsewhere',
  /** Nothing in the scanned sources reaches it. */
  Unreached: 'unreached',
} as const;
export type Reach = (typeof Reach)[keyof typeof Reach];

export interface PathContext {
  readonly reach: Reach;
  /** The workers (posting or writing dedup state) whose path includes the code. */
  readonly workers: readonly ClassRef[];
  /**
   * Set when those workers post or write nothing the sources show, and only a call the sources
   * do not define may post (`Alerts.post(ctx, entry)`): that call, for a softer message.
   */
  readonly possibleNotify?: string;
}

/**
 * Classes whose code runs for the screen: the framework's activities, fragments, views, list
 * adapters and view holders, view models, dialogs, preferences (by their simple names, followed
 * through project superclasses), and project classes extending an unknown `…Activity`,
 * `…Fragment`, `…ViewHolder` or `…ViewModel`.
 */
const UI_BASES = new Set([
  'Activity', 'AppCompatActivity', 'ComponentActivity', 'FragmentActivity', 'PreferenceActivity', 'ListActivity',
  'Fragment', 'DialogFragment', 'BottomSheetDialogFragment', 'AppCompatDialogFragment', 'PreferenceFragmentCompat', 'PreferenceFragment', 'ListFragment',
  'View', 'ViewGroup', 'FrameLayout', 'LinearLayout', 'RelativeLayout', 'ConstraintLayout', 'CoordinatorLayout', 'RecyclerView', 'TextView', 'ImageView', 'WebView', 'Toolbar',
  'Adapter', 'ListAdapter', 'ArrayAdapter', 'BaseAdapter', 'CursorAdapter', 'PagingDataAdapter', 'FragmentStateAdapter', 'PagerAdapter', 'ViewHolder',
  'ViewModel', 'AndroidViewModel', 'Dialog', 'AlertDialog', 'AppCompatDialog', 'BottomSheetDialog', 'Preference', 'DialogPreference', 'ListPreference',
]);
const UI_SUPERTYPE = /(Activity|Fragment|ViewHolder|ViewModel)$/;
/** Non-worker entry points: the application, services, receivers, providers, job services, sync adapters. */
const OTHER_ENTRY = new Set([
  'Application', 'MultiDexApplication', 'Service', 'LifecycleService', 'IntentService', 'JobIntentService', 'JobService', 'MediaBrowserServiceCompat',
  'MediaSessionService', 'MediaLibraryService', 'BroadcastReceiver', 'ContentProvider', 'FirebaseMessagingService', 'AbstractThreadedSyncAdapter',
  'AppWidgetProvider', 'AccessibilityService', 'TileService', 'DreamService',
]);

const UI_OR_OTHER = new Set([...UI_BASES, ...OTHER_ENTRY]);

function outerClasses(cls: ClassDecl | undefined): ClassDecl[] {
  const out: ClassDecl[] = [];
  for (let c = cls; c; c = c.parent) out.push(c);
  return out;
}

/** True when the function runs for a UI or non-worker entry point by where it is declared. */
function isElsewhereEntry(project: Project, ref: FunctionRef): boolean {
  if (ref.fn.annotations.some((a) => a.name === 'Composable' || a.name === 'Preview')) return true;
  return outerClasses(ref.fn.owner).some((c) => !isWorkerPathClass(project, c) && (extendsAny(project, c, UI_OR_OTHER, UI_SUPERTYPE)));
}

function workerOf(project: Project, ref: FunctionRef): ClassRef | undefined {
  for (const c of outerClasses(ref.fn.owner)) if (isWorkerPathClass(project, c)) return { file: ref.file, cls: c };
  return undefined;
}

const contextCache = new WeakMap<Project, Map<FunctionRef['fn'], PathContext>>();

/** Where the function runs: on a posting worker's path, only elsewhere, or reached by nothing scanned. */
export function contextOf(project: Project, ref: FunctionRef): PathContext {
  let cache = contextCache.get(project);
  if (!cache) {
    cache = new Map();
    contextCache.set(project, cache);
  }
  const hit = cache.get(ref.fn);
  if (hit) return hit;
  const resolver = resolverOf(project);
  const workers: ClassRef[] = [];
  let elsewhere = false;
  const seen = new Set<FunctionRef['fn']>();
  const queue: FunctionRef[] = [ref];
  for (let q = 0; q < queue.length && seen.size < 4000; q++) {
    const r = queue[q] as FunctionRef;
    if (seen.has(r.fn)) continue;
    seen.add(r.fn);
    const w = workerOf(project, r);
    if (w) {
      if (!workers.some((x) => x.cls === w.cls)) workers.push(w);
      continue;
    }
    if (isElsewhereEntry(project, r)) {
      elsewhere = true;
      continue;
    }
    const callers = resolver.callers(r.fn);
    for (const c of callers) if (!seen.has(c.fn)) queue.push(c);
    // a callback nothing scanned calls runs where its object is handed to the library: follow the
    // functions that create it (Infinity for Reddit's EmotePlugin, a Markwon plugin made by an Activity)
    if (callers.length === 0) for (const c of creatorsOfCallback(project, r)) if (!seen.has(c.fn)) queue.push(c);
  }
  const posting = workers.filter((w) => workerHasSink(project, w));
  const possible = posting.length > 0 ? [] : workers.map((w) => ({ w, call: possibleNotifyOf(project, w) })).filter((x) => x.call !== undefined);
  const ctx: PathContext = posting.length > 0
    ? { reach: Reach.Worker, workers: posting }
    : possible.length > 0
      ? { reach: Reach.Worker, workers: possible.map((x) => x.w), possibleNotify: possible[0]?.call as string }
      : workers.length > 0 || elsewhere ? { reach: Reach.Elsewhere, workers: [] } : { reach: Reach.Unreached, workers: [] };
  cache.set(ref.fn, ctx);
  return ctx;
}

const creationCache = new WeakMap<Project, Map<string, FunctionRef[]>>();

/** Per project class name: the functions that construct it (`new C(…)`, Kotlin `C(…)`). */
function creationSites(project: Project): Map<string, FunctionRef[]> {
  let m = creationCache.get(project);
  if (m) return m;
  m = new Map();
  for (const file of project.files) {
    const toks = file.tokens;
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i] as Token;
      if (t.kind !== TokenKind.Identifier || !/^[A-Z]/.test(t.value) || !isOp(toks[i + 1], '(') || !project.classesByName.has(t.value)) continue;
      if (file.language === 'java' ? !isIdent(toks[i - 1], 'new') : isOp(toks[i - 1], '.') || isIdent(toks[i - 1], 'fun')) continue;
      const fn = functionAt(file.decls, i);
      if (!fn) continue;
      const list = m.get(t.value) ?? [];
      if (!list.some((x) => x.fn === fn)) list.push({ file, fn });
      m.set(t.value, list);
    }
  }
  creationCache.set(project, m);
  return m;
}

/**
 * Where a callback that nothing scanned calls comes from: an `override` (`@Override`) in a class
 * whose supertypes the sources do not all declare is called by the library it was handed to, so it
 * runs where it was made — the functions that construct its class, or, in an anonymous class, the
 * function around it.
 */
function creatorsOfCallback(project: Project, r: FunctionRef): FunctionRef[] {
  const cls = r.fn.owner;
  if (!cls) return [];
  const isOverride = r.fn.annotations.some((a) => a.name === 'Override') ||
    [1, 2, 3, 4, 5].some((d) => isIdent(r.file.tokens[r.fn.nameIndex - d], 'override'));
  if (!isOverride || cls.supertypes.every((s) => project.classesByName.has(s))) return [];
  if (cls.keyword === ClassKeyword.Anonymous) {
    const fn = functionAt(r.file.decls, cls.index);
    return fn ? [{ file: r.file, fn }] : [];
  }
  return cls.name === '' ? [] : (creationSites(project).get(cls.name) ?? []);
}

/** The functions of a worker class (its own and those of its nested and anonymous classes). */
export function workerFunctions(w: ClassRef): FunctionRef[] {
  return w.file.decls.functions.filter((fn) => outerClasses(fn.owner).includes(w.cls)).map((fn) => ({ file: w.file, fn }));
}

/** True when the function writes rows: a Room `@Insert`/`@Upsert`/`@Update` or an INSERT/UPDATE/REPLACE `@Query`, or SQLiteDatabase `insert…`/`replace…`. */
export function isDbWrite(ref: FunctionRef): boolean {
  for (const a of ref.fn.annotations) {
    if (a.name === 'Insert' || a.name === 'Upsert' || a.name === 'Update') return true;
    if (a.name === 'Query' && a.strings.some((s) => /^\s*(INSERT|UPDATE|REPLACE)\b/i.test(s))) return true;
  }
  const body = ref.fn.body;
  if (!body) return false;
  for (let k = body.start; k <= body.end; k++) {
    if (isIdent(ref.file.tokens[k], /^(insert|insertOrThrow|insertWithOnConflict|replace|replaceOrThrow)$/) && isIdent(ref.file.tokens[k - 2], /^(db|database|sqLiteDatabase|writableDatabase|mDb|sDb)$/i)) return true;
  }
  return false;
}

function postsDirectly(ref: FunctionRef): boolean {
  const body = ref.fn.body;
  if (!body) return false;
  for (let k = body.start; k <= body.end; k++) if (isIdent(ref.file.tokens[k], 'notify') && isNotifyCall(ref.file, k)) return true;
  return false;
}

const sinkCache = new WeakMap<ClassDecl, boolean>();

/** True when a worker reaches a `notify()` or a database write. */
export function workerHasSink(project: Project, w: ClassRef): boolean {
  const c = sinkCache.get(w.cls);
  if (c !== undefined) return c;
  const resolver = resolverOf(project);
  const v = workerFunctions(w).some((r) => resolver.reaches(r, 'sink', (x) => postsDirectly(x) || isDbWrite(x)));
  sinkCache.set(w.cls, v);
  return v;
}

/** Names of calls that may post what they are given: `Alerts.post(ctx, entry)`, `Notify.show(…)`, `notifier.send(…)`. */
const POSTING_NAME = /^(post|show|notify|display|send|alert|publish|push)[A-Z]?\w*$/;
/** Packages whose calls are known not to post a notification on a worker's behalf (logging, collections, coroutines, the JDK). */
const NOT_A_NOTIFIER = /^(java|javax|kotlin|kotlinx|android\.util|timber|okhttp3|retrofit2|androidx\.work)\./;

const possibleCache = new WeakMap<ClassDecl, string | null>();

/**
 * A call on the worker's path that the sources do not define and that may post: a posting name
 * (`post`, `show`, `notify`, `send`, …) on a receiver the sources do not declare (an object or
 * class of a module that was not scanned, a generated class) and that no import places in the
 * JDK, Kotlin or a logging library. Before calls were resolved by type, any `show()` counted;
 * now an unresolved one counts only as a possible notify, and the messages say so.
 * Returns `Receiver.name() (file:line)`, or undefined.
 */
export function possibleNotifyOf(project: Project, w: ClassRef): string | undefined {
  const resolver = resolverOf(project);
  return firstOnWorkerPath(project, w, possibleCache, (r) => {
    const body = r.fn.body;
    if (!body) return undefined;
    for (let k = body.start; k <= body.end; k++) {
      const t = r.file.tokens[k] as Token;
      if (!isIdent(t, POSTING_NAME) || !isOp(r.file.tokens[k + 1], '(') || !isOp(r.file.tokens[k - 1], '.')) continue;
      const recv = r.file.tokens[k - 2];
      if (!isIdent(recv) || isOp(r.file.tokens[k - 3], '.')) continue;
      const recvName = (recv as Token).value;
      // an object (`Alerts.post(…)`), or a field or parameter of a type the sources do not declare
      // (`notifier.show(…)` with `Notifier` in a module that was not scanned)
      const typeName = /^[A-Z]/.test(recvName) ? recvName : resolver.typeOfName(r.file, recvName, k - 2)?.type.name;
      if (typeName === undefined || !isNotDeclared(project, r.file, typeName)) continue;
      if (resolver.resolveCall(r.file, k).length > 0) continue;
      return `${recvName}.${t.value}() (${r.file.path}:${t.line})`;
    }
    return undefined;
  });
}

/** The first answer `find` gives for a function on the worker's path (cached per worker class). */
function firstOnWorkerPath(project: Project, w: ClassRef, cache: WeakMap<ClassDecl, string | null>, find: (r: FunctionRef) => string | undefined): string | undefined {
  const c = cache.get(w.cls);
  if (c !== undefined) return c ?? undefined;
  let found: string | undefined;
  for (const r of resolverOf(project).reachable(workerFunctions(w)).values()) {
    found = find(r);
    if (found !== undefined) break;
  }
  cache.set(w.cls, found ?? null);
  return found;
}

function isNotDeclared(project: Project, file: FunctionRef['file'], name: string): boolean {
  if (project.classesByName.has(name)) return false;
  const imp = file.decls.imports.find((i) => i.endsWith(`.${name}`));
  return imp === undefined || !NOT_A_NOTIFIER.test(imp);
}

/** Column names that identify an item across fetches. */
export const STABLE_KEY_COLUMN = /^(guid|link|url|uri|item_?url|item_?link|identifier|item_?identifier|notification_?key|dedup_?key|item_?key|unique_?key|remote_?id|server_?id|status_?id|download_?url)$/i;

/** The columns a Room `@Query` SELECT compares in its WHERE clause. */
function queryColumns(ref: FunctionRef): string[] {
  const out: string[] = [];
  for (const a of ref.fn.annotations) {
    if (a.name !== 'Query') continue;
    for (const sql of a.strings) {
      for (const stmt of splitStatements(tokenizeSql(sql))) {
        if (!isKeyword(stmt[0], 'SELECT')) continue;
        for (const c of whereColumns(stmt)) out.push(c.column);
      }
    }
  }
  return out;
}

const stableCache = new WeakMap<ClassDecl, string | null>();

/**
 * How a worker's path looks items up by a stable identity: the first `@Query` it runs whose
 * WHERE clause compares a guid, link, url or another identity column (e.g. "`loadFeedItem()` by
 * `guid`"), or undefined when none.
 */
export function stableLookup(project: Project, w: ClassRef): string | undefined {
  return firstOnWorkerPath(project, w, stableCache, (r) => {
    const col = queryColumns(r).find((x) => STABLE_KEY_COLUMN.test(x));
    return col ? `\`${r.fn.name}()\` by \`${col}\`` : idsCheckedAgainstQuery(project, r);
  });
}

const ITEM_ID = /^(id|guid|link|url|uri|remoteId|itemId|entryId|key|getId|getGuid|getLink|getUrl)$/;

/**
 * `entries.removeAll { it.id in existingIds }` where `existingIds` holds what a `@Query` returned:
 * items are matched against the database by their id. Returns a description, or undefined.
 */
function idsCheckedAgainstQuery(project: Project, r: FunctionRef): string | undefined {
  const body = r.fn.body;
  if (!body) return undefined;
  const resolver = resolverOf(project);
  const file = r.file;
  for (let k = body.start + 2; k < body.end; k++) {
    if (!isIdent(file.tokens[k], 'in') || !isIdent(file.tokens[k + 1])) continue;
    const id = file.tokens[k - 1];
    if (!isIdent(id) || !ITEM_ID.test((id as Token).value) || !(isOp(file.tokens[k - 2], '.') || isOp(file.tokens[k - 2], '?.'))) continue;
    const setName = (file.tokens[k + 1] as Token).value;
    const decl = project.values.find((v) => v.file === file && v.fn === r.fn && v.name === setName && v.nameIndex < k);
    if (!decl) continue;
    for (let m = decl.init.start; m <= decl.init.end; m++) {
      if (!isIdent(file.tokens[m]) || !isOp(file.tokens[m + 1], '(')) continue;
      const q = resolver.resolveCall(file, m).find((t) => t.fn.annotations.some((a) => a.name === 'Query'));
      if (q) return `\`${(id as Token).value} in ${setName}\` against \`${q.fn.name}()\``;
    }
  }
  return undefined;
}

/** A short description of where a finding is, for messages: "FeedSyncWorker" or "FeedSyncWorker, SyncWorker". */
export function workerNames(ctx: PathContext): string {
  return ctx.workers.map((w) => w.cls.name).join(', ');
}
