/**
 * Rule `newest-first`: items are ordered newest first before the loop that notifies.
 *
 * docs/sources/000: "Oldest-first is not cosmetic … a run killed partway through has handled the
 * oldest items … Sort newest-first and an interruption strands the oldest items right at the
 * far edge of the window, where they may age out before the retry." Flagged, on a publication
 * time (publishedAt, pubDate, date, timestamp, updated, …), in a function that then notifies:
 * `sortedByDescending { … }`, `sortByDescending`, `compareByDescending`, `.reversed()` /
 * `.asReversed()` / `.reverse()` after an ascending sort, `Comparator.comparing(…).reversed()`,
 * `Collections.reverseOrder(…)`, `sortedBy { -it.publishedAt }`, a comparator lambda that
 * compares `b` before `a`. "Then notifies": a `notify(id, notification)` call, a call into
 * project code that posts, or a helper named like one (`notifier.notify(item)`, `showNotification`).
 */
import { functionAt } from '../declarations.js';
import type { ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { callsIn, isNotifyCall, notifiesTransitively } from '../project.js';
import { resolverOf } from '../resolve.js';
import { Reach, contextOf } from '../paths.js';
import type { Range } from '../syntax.js';
import { callEnd, callOpenParen, chainStart, rangeText, trailingLambda } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.NewestFirst;
const TIME_NAME = /(publish|pubdate|date|time|timestamp|updated|created|posted|epoch)/i;
/** Helpers that post by their name (`notifier.notify(item)`, `showNotification(item)`) when their code is not scanned. */
const NOTIFY_NAME = /^(notify\w*|show\w*Notification\w*|post\w*Notification\w*)$/;
const SORT_CALLS = /^(sortedBy|sortBy|sortedWith|sortWith|sort|sorted|compareBy|thenBy|comparing|comparingLong|comparingInt|comparingDouble)$/;

function hasTimeName(file: ParsedFile, range: Range): boolean {
  for (let k = range.start; k <= range.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind === TokenKind.Identifier && TIME_NAME.test(t.value) && !/title|link|name/i.test(t.value)) return true;
  }
  return false;
}

/** The argument and trailing-lambda tokens of the call at `i`. */
function callPayload(file: ParsedFile, i: number): Range {
  const open = callOpenParen(file, i);
  const start = open >= 0 ? open : trailingLambda(file, i);
  return { start: start < 0 ? i : start, end: callEnd(file, i) };
}

/** A two-parameter comparator lambda that reads its second parameter first: `{ a, b -> b.t.compareTo(a.t) }`, `(a, b) -> Long.compare(b.t, a.t)`. */
function isReversedComparatorLambda(file: ParsedFile, range: Range): boolean {
  for (let k = range.start; k <= range.end; k++) {
    let p1: string | undefined;
    let p2: string | undefined;
    let bodyStart = -1;
    if (isOp(file.tokens[k], '{') && isIdent(file.tokens[k + 1]) && isOp(file.tokens[k + 2], ',') && isIdent(file.tokens[k + 3]) && isOp(file.tokens[k + 4], '->')) {
      p1 = (file.tokens[k + 1] as Token).value;
      p2 = (file.tokens[k + 3] as Token).value;
      bodyStart = k + 5;
    } else if (isOp(file.tokens[k], '(') && isIdent(file.tokens[k + 1]) && isOp(file.tokens[k + 2], ',') && isIdent(file.tokens[k + 3]) && isOp(file.tokens[k + 4], ')') && isOp(file.tokens[k + 5], '->')) {
      p1 = (file.tokens[k + 1] as Token).value;
      p2 = (file.tokens[k + 3] as Token).value;
      bodyStart = k + 6;
    }
    if (p1 === undefined || p2 === undefined) continue;
    let compares = false;
    for (let m = bodyStart; m <= range.end; m++) {
      const t = file.tokens[m] as Token;
      if (isIdent(t, /^compare(To)?$/)) compares = true;
      if (t.kind !== TokenKind.Identifier || isOp(file.tokens[m - 1], '.')) continue;
      if (t.value === p1) return false;
      if (t.value === p2) return compares || hasTimeName(file, { start: m, end: Math.min(m + 3, range.end) });
    }
  }
  return false;
}

/** `sortedBy { -it.publishedAt }`: a negated key. */
function isNegatedKey(file: ParsedFile, range: Range): boolean {
  for (let k = range.start; k <= range.end; k++) {
    if (isOp(file.tokens[k], '-') && (isOp(file.tokens[k - 1], '{') || isOp(file.tokens[k - 1], '->') || isOp(file.tokens[k - 1], '(')) && hasTimeName(file, { start: k + 1, end: Math.min(k + 4, range.end) })) {
      return true;
    }
  }
  return false;
}

interface Hit {
  readonly at: number;
  readonly what: string;
}

function descendingSorts(file: ParsedFile): Hit[] {
  const hits: Hit[] = [];
  for (const i of callsIn(file, /^(sortedByDescending|sortByDescending|compareByDescending|thenByDescending)$/)) {
    const payload = callPayload(file, i);
    if (hasTimeName(file, payload)) hits.push({ at: i, what: `\`${rangeText(file, { start: i, end: payload.end }, 60)}\`` });
  }
  for (const i of callsIn(file, SORT_CALLS)) {
    const payload = callPayload(file, i);
    if (isNegatedKey(file, payload) || (isReversedComparatorLambda(file, payload) && hasTimeName(file, payload))) {
      hits.push({ at: i, what: `\`${rangeText(file, { start: i, end: payload.end }, 60)}\`` });
    }
  }
  // `.reversed()` / `.asReversed()` / `.reverse()` on a chain that sorts ascending by time
  for (const i of callsIn(file, /^(reversed|asReversed|reverse)$/)) {
    if (!isOp(file.tokens[i - 1], '.')) continue;
    const chain = { start: chainStart(file, i), end: i - 1 };
    let sorted = false;
    for (let k = chain.start; k <= chain.end; k++) {
      if (isIdent(file.tokens[k], SORT_CALLS) && hasTimeName(file, callPayload(file, k))) sorted = true;
    }
    // `items.sortBy { it.publishedAt }` … `items.reverse()` on the same receiver in the function
    if (!sorted && chain.start === i - 2 && isIdent(file.tokens[chain.start])) {
      const recv = (file.tokens[chain.start] as Token).value;
      const fn = functionAt(file.decls, i);
      if (fn?.body) {
        for (let k = fn.body.start; k < chain.start; k++) {
          if (isIdent(file.tokens[k], recv) && isOp(file.tokens[k + 1], '.') && isIdent(file.tokens[k + 2], /^(sortBy|sortWith|sort)$/) && hasTimeName(file, callPayload(file, k + 2))) sorted = true;
        }
      }
    }
    if (sorted) hits.push({ at: i, what: `\`.${(file.tokens[i] as Token).value}()\` after a sort by time` });
  }
  // `Collections.reverseOrder(comparing(…time…))`, `Comparator.reverseOrder()` applied to a time key
  for (const i of callsIn(file, 'reverseOrder')) {
    const payload = callPayload(file, i);
    const around = { start: chainStart(file, i), end: payload.end };
    if (hasTimeName(file, around) || hasTimeName(file, payload)) hits.push({ at: i, what: `\`${rangeText(file, { start: i, end: payload.end }, 60)}\`` });
  }
  return hits;
}

function isEmptyCall(file: ParsedFile, i: number): boolean {
  const open = callOpenParen(file, i);
  return open >= 0 && (file.match[open] ?? -1) === open + 1;
}

export function checkNewestFirst(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const resolver = resolverOf(project);
  for (const file of project.files) {
    for (const hit of descendingSorts(file)) {
      const fn = functionAt(file.decls, hit.at);
      if (!fn?.body) continue;
      // a list sorted for the screen (an Activity, a Fragment, an adapter) is not the notifier's path
      if (contextOf(project, { file, fn }).reach === Reach.Elsewhere) continue;
      // The function must go on to notify after the sort: a notify call or a call into code that
      // notifies (resolved by receiver type), or a helper named like one when its code is not scanned.
      let notifiesAfter = false;
      for (let k = hit.at + 1; k <= fn.body.end && !notifiesAfter; k++) {
        const t = file.tokens[k] as Token;
        if (t.kind !== TokenKind.Identifier) continue;
        if (callOpenParen(file, k) < 0 || t.value === fn.name) continue;
        if (isNotifyCall(file, k)) notifiesAfter = true;
        else {
          const targets = resolver.resolveCall(file, k);
          if (targets.length > 0) notifiesAfter = targets.some((r) => notifiesTransitively(project, r));
          else if (NOTIFY_NAME.test(t.value) && !isEmptyCall(file, k) && !/^notify(DataSetChanged|Item\w*|Change\w*|PropertyChanged|All\w*)$/.test(t.value)) notifiesAfter = true;
        }
      }
      if (!notifiesAfter) continue;
      const t = file.tokens[hit.at] as Token;
      findings.push({
        file: file.path,
        line: t.line,
        column: t.column,
        rule: RULE,
        message:
          `items are ordered newest first (${hit.what}) before they are notified: a run killed part-way leaves the oldest items unhandled at the far edge of the window, ` +
          'where they can age out before the next run; notify oldest first (sort ascending by publication time)',
      });
    }
  }
  return { findings, unresolved: [] };
}
