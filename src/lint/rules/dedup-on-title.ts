/**
 * Rule `dedup-on-title`: the dedup identity is display text.
 *
 * docs/sources/000: "Key the dedup on a stable identifier, not on display text … A title is what you
 * show, and a title can be edited upstream between two runs." Flagged:
 * - an existence check whose argument is a title (`isNotificationExists(item.title)`,
 *   `seen.contains(item.title)`, `item.title in seen`);
 * - a key built from a title (`val key = item.title`, `link = item.title` in an entity,
 *   `val notificationId = item.title.hashCode()`), also a composite that includes it;
 * - a notification id or tag built from a title (`notify(item.title.hashCode(), n)`);
 * - a Room `@Query` that looks rows up by a title column (`WHERE title = :title`).
 */
import type { Annotation, FunctionDecl } from '../declarations.js';
import { functionAt } from '../declarations.js';
import { Reach, contextOf, stableLookup } from '../paths.js';
import { resolverOf } from '../resolve.js';
import type { FunctionRef, ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { callsIn, isNotifyCall } from '../project.js';
import type { Range } from '../syntax.js';
import { callOpenParen, chainStart, leftOperand, rangeText, splitArgs, statementEnd, tokensIn } from '../syntax.js';
import { isKeyword, splitStatements, tokenizeSql, whereColumns } from '../sql.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.DedupOnTitle;
const TITLE_NAMES = new Set(['title', 'displayName', 'displayTitle', 'headline', 'subject', 'label', 'text', 'getTitle', 'getDisplayName', 'getHeadline', 'getSubject', 'getText', 'contentTitle']);
const TITLE_COLUMNS = /^(title|display_?name|display_?title|headline|subject|label|text|content_?title)$/i;
const EXIST_CALL = /^(is\w*Exists?|exists?\w*|\w+Exists?|contains|containsKey|has(Notified|Seen|Key|Item|Entry|Notification)\w*|(is|was|already|isAlready|wasAlready)(Notified|Seen|Shown|Posted|Sent|Handled|Processed)|isKnown|isDuplicate|findBy\w*|countBy\w*)$/;
/** Names of dedup keys. A bare `tag` is not one (a manga's or an article's tags); a notification's tag is checked where notify() takes it. */
const KEY_NAME = /^(key|\w*Key|link|url|guid|uniqueId|dedupId|notificationId|notificationTag)$/;

/** True when token `i` reads a title-like value (`item.title`, `getTitle()`, a `title` local). */
function isTitleAt(file: ParsedFile, i: number): boolean {
  const t = file.tokens[i] as Token;
  if (t.kind !== TokenKind.Identifier || !TITLE_NAMES.has(t.value)) return false;
  const next = file.tokens[i + 1];
  if (isOp(next, '=') || isOp(next, ':')) return false; // a named argument, parameter or assignment target
  const prev = file.tokens[i - 1];
  if (isIdent(prev, 'string') && isOp(file.tokens[i - 2], '.')) return false; // R.string.title
  if (t.value === 'text' && !(isOp(prev, '.') || isOp(prev, '?.'))) return false; // a bare `text` is too vague
  return true;
}

/** True when token `i` is the value of a named argument whose name is not a key (`title = item.title`). */
function inNonKeyNamedArg(file: ParsedFile, i: number, range: Range): boolean {
  for (let k = i - 1; k >= range.start; k--) {
    const t = file.tokens[k] as Token;
    if (isOp(t, ')') || isOp(t, ']') || isOp(t, '}')) {
      k = Math.min(k, file.match[k] ?? k);
      continue;
    }
    if (isOp(t, '(') || isOp(t, ',')) {
      const name = file.tokens[k + 1];
      return isIdent(name) && isOp(file.tokens[k + 2], '=') && k + 3 <= i && !KEY_NAME.test((name as Token).value);
    }
  }
  return false;
}

function titleIn(file: ParsedFile, range: Range, skipNonKeyArgs = false): Token | undefined {
  for (let i = range.start; i <= range.end; i++) {
    if (isTitleAt(file, i) && !(skipNonKeyArgs && inNonKeyNamedArg(file, i, range))) return file.tokens[i];
    const t = file.tokens[i] as Token;
    if (t.templates) {
      for (const tpl of t.templates) {
        const hit = tpl.find((x, k) => x.kind === TokenKind.Identifier && TITLE_NAMES.has(x.value) && (x.value !== 'text' || isOp(tpl[k - 1], '.')));
        if (hit) return hit;
      }
    }
  }
  return undefined;
}

/** Calls that make a key of what they are given: a hash, a digest, a format or a join. */
const KEY_MAKER = /hash|md5|sha|digest|format|join|concat|key|uuid|encode/i;

/**
 * True when the title is one argument among others of a call that does not make a key of it:
 * `new Link(url, emote.getTitle())` (Infinity for Reddit af7ccefc,
 * app/src/main/java/ml/docilealligator/infinityforreddit/markdown/emote/EmotePlugin.java:164, a
 * markdown node) carries the title beside the url; the value is not the title.
 */
function titleIsOneArgumentAmongOthers(file: ParsedFile, range: Range, hit: Token): boolean {
  let at = -1;
  for (let i = range.start; i <= range.end; i++) if (file.tokens[i] === hit) at = i;
  if (at < 0) return false;
  for (let i = at - 1; i >= range.start; i--) {
    const t = file.tokens[i] as Token;
    if ((isOp(t, ')') || isOp(t, ']')) && (file.match[i] ?? -1) >= 0) {
      i = file.match[i] as number;
      continue;
    }
    if (!isOp(t, '(')) continue;
    const callee = file.tokens[i - 1];
    if (!isIdent(callee) || KEY_MAKER.test((callee as Token).value)) return false;
    return splitArgs(file, i).length >= 2;
  }
  return false;
}

/** `s.contains(x, ignoreCase = true)`, or `contains`/`startsWith` on a receiver whose type is a String. */
function isTextSearch(project: Project, file: ParsedFile, i: number, open: number): boolean {
  if (splitArgs(file, open).some((a) => a.name === 'ignoreCase') || isIdent(file.tokens[open + 1], 'ignoreCase')) return true;
  if (!isOp(file.tokens[i - 1], '.') && !isOp(file.tokens[i - 1], '?.')) return false;
  const recv = resolverOf(project).typeOfRange(file, { start: chainStart(file, i), end: i - 2 });
  return recv !== undefined && /^(String|CharSequence|StringBuilder|Editable|Spanned)$/.test(recv.type.name);
}

/** Names of things that group items (a folder, a tag, a feed, a subscription): their titles are not an item's identity. */
const CONTAINER = /folder|tag|feed|subscri|podcast|categor|channel|group|label|account|playlist|section|drawer|menu|tab|collection|server|instance|profile|bookmark|list/i;
const ITEM = /item|entry|entries|article|post|episode|story|stories|status|notif|alert|message|news|seen|known|processed|dedup/i;

/**
 * True when a title comparison is about a container, not an item: the lookup or the set is named
 * after one (`findByFolder(title)`, `openFolders.contains(…)`, `subscribedPodcastsSet`), or the
 * title is read from one (`folder.getTitle()`), and nothing in those names says item.
 */
function namesContainer(file: ParsedFile, lookup: Range, titleAt: number): boolean {
  const names: string[] = [];
  for (let k = lookup.start; k <= lookup.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind === TokenKind.Identifier) names.push(t.value);
  }
  if (titleAt > 1 && (isOp(file.tokens[titleAt - 1], '.') || isOp(file.tokens[titleAt - 1], '?.')) && isIdent(file.tokens[titleAt - 2])) names.push((file.tokens[titleAt - 2] as Token).value);
  const fn = functionAt(file.decls, titleAt);
  if (fn) names.push(fn.name);
  return names.some((n) => CONTAINER.test(n)) && !names.some((n) => ITEM.test(n));
}

function queryTitleColumn(ann: Annotation): string | undefined {
  if (ann.name !== 'Query') return undefined;
  for (const sql of ann.strings) {
    for (const stmt of splitStatements(tokenizeSql(sql))) {
      if (!isKeyword(stmt[0], 'SELECT')) continue;
      const col = whereColumns(stmt).find((c) => TITLE_COLUMNS.test(c.column));
      if (col) return col.column;
    }
  }
  return undefined;
}

/**
 * Whether a title comparison at token `at` is the dedup identity on the notifier's path: code
 * shown only by the UI is not, and on a worker's path that also looks items up by a stable id
 * (a `@Query` on guid, link, url, …) a title comparison is an extra filter, not the identity.
 */
function matters(project: Project, file: ParsedFile, at: number): boolean {
  const fn = functionAt(file.decls, at);
  if (!fn) return true;
  const ctx = contextOf(project, { file, fn });
  if (ctx.reach === Reach.Elsewhere) return false;
  if (ctx.reach === Reach.Worker && ctx.workers.some((w) => stableLookup(project, w) !== undefined)) return false;
  return true;
}

const wrapperMemo = new WeakMap<FunctionDecl, boolean>();

/** True when a project function with a body passes a title on to an existence check (`duplicateStoryExists(id, title, link)` → `dao.duplicationExists(…)`). */
function wrapsTitleCheck(ref: FunctionRef): boolean {
  const body = ref.fn.body;
  if (!body) return false;
  const m = wrapperMemo.get(ref.fn);
  if (m !== undefined) return m;
  let v = false;
  for (const i of callsIn(ref.file, EXIST_CALL, body)) {
    const open = callOpenParen(ref.file, i);
    if (open >= 0 && splitArgs(ref.file, open).some((a) => titleIn(ref.file, a) !== undefined)) v = true;
  }
  wrapperMemo.set(ref.fn, v);
  return v;
}

/** A DAO query matters where it is called from (or, called from nowhere scanned, on its own). */
function daoQueryMatters(project: Project, file: ParsedFile, fn: FunctionDecl): boolean {
  const callers = resolverOf(project).callers(fn);
  if (callers.length === 0) return true;
  return callers.some((c) => c.fn.body !== undefined && matters(project, c.file, c.fn.body.start));
}

export function checkDedupOnTitle(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const why = 'a title edited upstream makes the same item look new and notify again; key on the link (or another stable id)';
  // code nothing scanned calls: say what follows where it decides what is notified, no more
  const whyUnreached = 'where it decides what is notified, a title edited upstream makes the same item look new and notify again; key on the link (or another stable id)';
  const add = (file: ParsedFile, at: Token, message: string): void => {
    const index = file.tokens.indexOf(at);
    if (index >= 0 && !matters(project, file, index)) return;
    const fn = index >= 0 ? functionAt(file.decls, index) : undefined;
    const ctx = fn !== undefined ? contextOf(project, { file, fn }) : undefined;
    const unreached = fn !== undefined && fn.annotations.every((a) => a.name !== 'Query') && ctx?.reach === Reach.Unreached;
    // the worker's only possible notifier is a call the sources do not define: say so
    const soft = ctx?.possibleNotify !== undefined
      ? message.replace(why, `if ${ctx.possibleNotify}, which the sources do not define, posts a notification, ${whyUnreached.replace(/^where it decides what is notified, /, '')}`)
      : undefined;
    findings.push({ file: file.path, line: at.line, column: at.column, rule: RULE, message: soft ?? (unreached ? message.replace(why, whyUnreached) : message) });
  };
  for (const file of project.files) {
    // existence checks with a title argument
    for (const i of callsIn(file, EXIST_CALL)) {
      const open = callOpenParen(file, i);
      if (open < 0) continue;
      for (const a of splitArgs(file, open)) {
        const hit = titleIn(file, a);
        if (hit) {
          const start = chainStart(file, i);
          if (namesContainer(file, { start, end: i }, file.tokens.indexOf(hit))) break;
          // a substring test on text (`branch.contains(displayName, ignoreCase = true)`) is no dedup check
          if (isTextSearch(project, file, i, open)) break;
          // a wrapper that hands the title on to another check is reported once, where the check is made
          if (resolverOf(project).resolveCall(file, i).some((r) => wrapsTitleCheck(r))) break;
          add(file, file.tokens[start] as Token, `dedup check \`${rangeText(file, { start, end: file.match[open] ?? open }, 60)}\` is keyed on the title: ${why}`);
          break;
        }
      }
    }
    // `item.title in seen`
    for (let i = 0; i < file.tokens.length; i++) {
      if (!isIdent(file.tokens[i], 'in')) continue;
      const left = leftOperand(file, isOp(file.tokens[i - 1], '!') ? i - 1 : i);
      if (left.end < left.start) continue;
      if (isOp(file.tokens[left.start - 1], '(') && isIdent(file.tokens[left.start - 2], 'for')) continue;
      const hit = titleIn(file, left);
      if (hit) {
        const right = statementEnd(file, i + 1);
        if (namesContainer(file, { start: i + 1, end: Math.min(right, i + 3) }, file.tokens.indexOf(hit))) continue;
        add(file, file.tokens[left.start] as Token, `dedup check \`${rangeText(file, { start: left.start, end: Math.min(right, i + 3) })}\` is keyed on the title: ${why}`);
      }
    }
    // notification id or tag from the title
    for (const i of callsIn(file, 'notify')) {
      if (!isNotifyCall(file, i)) continue;
      const args = splitArgs(file, callOpenParen(file, i));
      for (const a of args.slice(0, args.length - 1)) {
        const hit = titleIn(file, a);
        if (hit) {
          add(file, file.tokens[i] as Token, `notification id/tag \`${rangeText(file, a)}\` is built from the title: ${why}`);
          break;
        }
      }
    }
    // named arguments `link = item.title` and field assignments `entity.key = item.title`
    for (let i = 0; i < file.tokens.length; i++) {
      const t = file.tokens[i] as Token;
      if (t.kind !== TokenKind.Identifier || !KEY_NAME.test(t.value) || !isOp(file.tokens[i + 1], '=')) continue;
      const prev = file.tokens[i - 1];
      const namedArg = file.language === 'kotlin' && (isOp(prev, '(') || isOp(prev, ','));
      const fieldAssign = isOp(prev, '.');
      if (!namedArg && !fieldAssign) continue;
      const value = { start: i + 2, end: statementEnd(file, i + 2, namedArg) };
      const hit = titleIn(file, value);
      if (hit) add(file, t, `dedup key \`${t.value}\` is built from the title (\`${rangeText(file, value, 50)}\`): ${why}`);
    }
    // Room DAO lookups by title
    for (const fn of file.decls.functions) {
      for (const ann of fn.annotations) {
        const col = queryTitleColumn(ann);
        if (col && daoQueryMatters(project, file, fn)) {
          add(file, file.tokens[ann.index] as Token, `DAO query \`${fn.name}\` looks rows up by the \`${col}\` column: ${why}`);
        }
      }
    }
  }
  // key declarations `val key = item.title`
  for (const d of project.values) {
    if (!KEY_NAME.test(d.name)) continue;
    const hit = titleIn(d.file, d.init, true);
    if (!hit) continue;
    // a boolean or a log line is not a key
    if (tokensIn(d.file, d.init).some((x) => isOp(x, '==') || isOp(x, '!=') || isIdent(x, /^is[A-Z]/))) continue;
    if (titleIsOneArgumentAmongOthers(d.file, d.init, hit)) continue;
    if (!matters(project, d.file, d.nameIndex)) continue;
    add(d.file, d.file.tokens[d.nameIndex] as Token, `dedup key \`${d.name}\` is built from the title (\`${rangeText(d.file, d.init, 50)}\`): ${why}`);
  }
  return { findings, unresolved: [] };
}
