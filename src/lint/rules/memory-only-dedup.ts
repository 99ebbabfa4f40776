/**
 * Rule `memory-only-dedup`: the dedup check reads an in-memory collection that dies with the
 * process, and nothing durable is checked.
 *
 * docs/sources/000: "Worker state is not state … 'last seen id' held in memory is gone. Anything that
 * must survive belongs in the database." docs/sources/003 (ADR-0073): the in-memory session-key set
 * "is dropped on process death"; it may remain "a cheap in-process optimization" only while
 * the unique index is the durable guarantee. Flagged: a mutable set/map/list held in a
 * companion object, an `object`, at top level, in a Java `static` field or in a Worker's field,
 * used as a dedup check on an item key (`seen.contains(item.link)`, `key in seen`,
 * `if (seen.add(k))`, `.filter { seen.add(it.link) }`, `containsKey`, `putIfAbsent`) in a
 * function that then acts on the item (posts, inserts, sends) and makes no database check (an `…Exists(…)`/`findBy…` call, a Room `@Query` function, or an insert whose
 * result is compared with -1).
 */
import type { ValueDecl } from '../constants.js';
import { ClassKeyword, functionAt, namedOwner } from '../declarations.js';
import type { ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { isWorkerClass } from '../project.js';
import type { Range } from '../syntax.js';
import { callOpenParen, chainStart, isCallAt, leftOperand, statementEnd } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.MemoryOnlyDedup;
const COLLECTION_FACTORIES = new Set([
  'mutableSetOf', 'hashSetOf', 'linkedSetOf', 'sortedSetOf', 'mutableMapOf', 'hashMapOf', 'linkedMapOf', 'mutableListOf', 'arrayListOf',
  'HashSet', 'LinkedHashSet', 'TreeSet', 'HashMap', 'LinkedHashMap', 'ConcurrentHashMap', 'ConcurrentSkipListSet', 'CopyOnWriteArraySet',
  'ArrayList', 'synchronizedSet', 'synchronizedMap', 'newSetFromMap', 'newKeySet', 'LruCache', 'ArraySet', 'ArrayMap',
]);
const DURABLE_CHECK = /^(is\w*Exists?|exists\w*|\w+Exists|isNotified|wasNotified|alreadyNotified|hasBeenNotified|isKnown|findBy\w*|countBy\w*|getBy\w*|isRecorded|isStored)$/;

function isMutableCollection(d: ValueDecl): boolean {
  for (let k = d.init.start; k <= Math.min(d.init.end, d.init.start + 8); k++) {
    const t = d.file.tokens[k] as Token;
    if (t.kind === TokenKind.Identifier && COLLECTION_FACTORIES.has(t.value) && (isCallAt(d.file, k) || isIdent(d.file.tokens[k - 1], 'new'))) return true;
  }
  return false;
}

/** Where the collection lives, when it outlives nothing durable: a description, or undefined. */
function lifetime(project: Project, d: ValueDecl): string | undefined {
  if (d.fn !== undefined) return undefined;
  if (d.owner === undefined) return 'a top-level property';
  if (d.owner.keyword === ClassKeyword.Companion) return 'a companion object';
  if (d.owner.keyword === ClassKeyword.Object) return `object ${d.owner.name}`;
  if (d.file.language === 'java' && d.modifiers.includes('static')) return 'a static field';
  const owner = namedOwner(d.owner);
  if (owner && isWorkerClass(project, owner)) return `a field of the Worker ${owner.name} (a new instance every run)`;
  return undefined;
}

/** The token after which a use of `d` sits, for each reference to it in the project. */
function references(project: Project, d: ValueDecl): Array<{ file: ParsedFile; i: number }> {
  const out: Array<{ file: ParsedFile; i: number }> = [];
  const ownerName = namedOwner(d.owner)?.name ?? d.owner?.name;
  for (const file of project.files) {
    for (let i = 0; i < file.tokens.length; i++) {
      const t = file.tokens[i] as Token;
      if (t.kind !== TokenKind.Identifier || t.value !== d.name || i === d.nameIndex) continue;
      const prev = file.tokens[i - 1];
      if (isOp(prev, '.')) {
        const q = file.tokens[i - 2];
        if (!(isIdent(q, 'this') || (ownerName !== undefined && isIdent(q, ownerName)) || isIdent(q, 'Companion'))) continue;
      } else if (file !== d.file) {
        continue;
      }
      out.push({ file, i });
    }
  }
  return out;
}

/** True when the reference at `i` is a dedup check on the collection. */
function isDedupUse(file: ParsedFile, i: number): boolean {
  const next = file.tokens[i + 1];
  const method = file.tokens[i + 2];
  if (isOp(next, '.') && isIdent(method, /^(contains|containsKey|putIfAbsent|computeIfAbsent)$/)) return true;
  if (isOp(next, '.') && isIdent(method, 'add') && callOpenParen(file, i + 2) >= 0) {
    // `if (seen.add(k))`, `if (!seen.add(k))`, `.filter { seen.add(it.link) }`
    const start = chainStart(file, i);
    const before = file.tokens[start - 1];
    if (isOp(before, '!') || isOp(before, '&&') || isOp(before, '||')) return true;
    if (isOp(before, '(') && isIdent(file.tokens[start - 2], /^(if|while|takeIf|filter)$/)) return true;
    if (isOp(before, '{') && isIdent(file.tokens[start - 2], /^(filter|filterNot|takeIf|takeUnless|distinctBy)$/)) return true;
    return false;
  }
  // a qualified reference `SeenLinks.seen` starts at its qualifier
  const refStart = isOp(file.tokens[i - 1], '.') ? i - 2 : i;
  const prev = file.tokens[refStart - 1];
  if (isIdent(prev, 'in')) {
    // `k in seen` / `k !in seen`, but not `for (x in seen)`
    let k = refStart - 2;
    if (isOp(file.tokens[k], '!')) k--;
    for (let m = k; m >= Math.max(0, k - 12); m--) {
      if (isIdent(file.tokens[m], 'for') && isOp(file.tokens[m + 1], '(')) return false;
      if (isOp(file.tokens[m], ';') || isOp(file.tokens[m], '{') || isOp(file.tokens[m], '}')) break;
    }
    return true;
  }
  return false;
}

/** `== -1`, `!= -1L`, `< 0` at token `m`: the result test of an IGNORE insert. */
function comparesWithMinusOne(file: ParsedFile, m: number): boolean {
  const op = file.tokens[m];
  const next = file.tokens[m + 1];
  if (isOp(op, '==') || isOp(op, '!=')) return isOp(next, '-');
  if (isOp(op, '<') || isOp(op, '>=')) return next?.kind === TokenKind.Number && next.numberValue === 0;
  return false;
}

/** Names of collections that hold dedup state. */
const DEDUP_NAME = /seen|notified|known|processed|handled|posted|delivered|sent|dedup|keys?$|ids?$|links?$|urls?$|guids?$/i;
const ITEM_KEY = /^(link|url|guid|key|id|notificationKey|dedupKey|getLink|getUrl|getGuid|getId|getKey)$/;

/** True when the element tested against the collection at `i` is an item key (`item.link`, `key`). */
function checksItemKey(file: ParsedFile, i: number): boolean {
  const refStart = isOp(file.tokens[i - 1], '.') ? i - 2 : i;
  let range: Range | undefined;
  if (isIdent(file.tokens[refStart - 1], 'in')) range = leftOperand(file, isOp(file.tokens[refStart - 2], '!') ? refStart - 2 : refStart - 1);
  else if (isOp(file.tokens[i + 1], '.')) {
    const open = callOpenParen(file, i + 2);
    if (open >= 0) range = { start: open + 1, end: (file.match[open] ?? open) - 1 };
  }
  if (!range) return false;
  // the value is the last name of the element expression: `item.link`, `key`, `a.getLink()`
  let last: Token | undefined;
  for (let k = range.start; k <= range.end; k++) {
    const t = file.tokens[k] as Token;
    if (isOp(t, '(') && (file.match[k] ?? -1) === k + 1) {
      k++;
      continue;
    }
    if (t.kind === TokenKind.Identifier) last = t;
    else if (!isOp(t, '.') && !isOp(t, '?.') && !isOp(t, '!!')) last = undefined;
  }
  return last !== undefined && (ITEM_KEY.test(last.value) || /Key$/.test(last.value));
}

/** Calls that act on an item once it passed the dedup check: post, store, send. */
const EFFECT_CALL = /^(notify\w*|show\w*|post\w*|insert\w*|save\w*|send\w*|enqueue\w*|record\w*|publish\w*|deliver\w*|upsert\w*)$/;

/** True when the function acts on items (a call of EFFECT_CALL not made on the collection itself). */
function hasEffect(file: ParsedFile, body: Range, name: string): boolean {
  for (let k = body.start; k <= body.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind !== TokenKind.Identifier || !EFFECT_CALL.test(t.value) || !isCallAt(file, k)) continue;
    if (isOp(file.tokens[k - 1], '.') && isIdent(file.tokens[k - 2], name)) continue;
    return true;
  }
  return false;
}

function hasDurableCheck(project: Project, file: ParsedFile, body: Range, name: string): boolean {
  for (let k = body.start; k <= body.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind !== TokenKind.Identifier || !isCallAt(file, k)) continue;
    const recv = isOp(file.tokens[k - 1], '.') ? file.tokens[k - 2] : undefined;
    if (recv !== undefined && recv.value === name) continue;
    if (DURABLE_CHECK.test(t.value)) return true;
    // a Room DAO query function
    if ((project.functionsByName.get(t.value) ?? []).some((r) => r.fn.annotations.some((a) => a.name === 'Query'))) return true;
    // `if (dao.insert(row) == -1L)`: Room's OnConflictStrategy.IGNORE returns -1 for a duplicate
    if (/^insert/i.test(t.value)) {
      const end = statementEnd(file, k);
      for (let m = k; m <= end; m++) if (comparesWithMinusOne(file, m)) return true;
      // `val rowId = dao.insert(row)` … `if (rowId == -1L)`
      const d = project.values.find((v) => v.file === file && k >= v.init.start && k <= v.init.end);
      if (d) {
        for (let m = d.init.end + 1; m <= body.end; m++) {
          if (isIdent(file.tokens[m], d.name) && comparesWithMinusOne(file, m + 1)) return true;
        }
      }
    }
  }
  return false;
}

export function checkMemoryOnlyDedup(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  for (const d of project.values) {
    if (!isMutableCollection(d)) continue;
    const where = lifetime(project, d);
    if (where === undefined) continue;
    const uses = references(project, d).filter((r) => isDedupUse(r.file, r.i) && (DEDUP_NAME.test(d.name) || checksItemKey(r.file, r.i)));
    const undurable = uses.filter((u) => {
      const fn = functionAt(u.file.decls, u.i);
      return fn?.body !== undefined && hasEffect(u.file, fn.body, d.name) && !hasDurableCheck(project, u.file, fn.body, d.name);
    });
    const first = undurable[0];
    if (!first) continue;
    const t = d.file.tokens[d.nameIndex] as Token;
    const useTok = first.file.tokens[first.i] as Token;
    findings.push({
      file: d.file.path,
      line: t.line,
      column: t.column,
      rule: RULE,
      message:
        `\`${d.name}\` (${where}) is the dedup check, and it lives only in memory: after process death it starts empty and the next run notifies again; ` +
        'check the database (a UNIQUE key column) instead, and keep the set at most as a shortcut in front of it',
      related: [{ file: first.file.path, line: useTok.line, what: `dedup check on ${d.name}` }],
    });
  }
  return { findings, unresolved: [] };
}
