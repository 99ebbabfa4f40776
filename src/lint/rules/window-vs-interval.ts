/**
 * Rule `window-vs-interval`: the worker's look-back window must cover one fully missed run.
 *
 * The schedule lives at the enqueue site and the window next to the worker; the two drift apart
 * (docs/sources/000: "these two numbers are edited by different people at different times"). A run can
 * be skipped (Doze, unmet constraints, the device off), so the next run must still see items
 * published up to two intervals ago: window ≥ 2 × interval. With a flex interval F a run may
 * happen as early as F before the end of its period (PeriodicWorkRequest.kt, "The flex period
 * begins at repeatInterval - flexInterval"), which widens the worst gap to 2 × interval + F.
 *
 * The window is found by its use (`now - item.publishedAt <= C`, `publishedAt >= now - C`) in
 * the worker and what it calls, else by name (WINDOW, WINDOW_MS, LOOKBACK…, MAX_AGE…).
 */
import type { Evaluation, ValueDecl } from '../constants.js';
import { formatDuration, toMillis } from '../constants.js';
import type { FunctionRef, ParsedFile, Project, Related, RuleOutput, UnresolvedNote } from '../model.js';
import { RuleId } from '../model.js';
import type { PeriodicSite } from '../periodic-work.js';
import { findPeriodicSites, readInterval } from '../periodic-work.js';
import { functionsOf, reachableFunctions, readsNow } from '../project.js';
import { isPublicationTimeName, queryWindows } from '../query-window.js';
import type { Range } from '../syntax.js';
import { leftOperand, rangeText, rightOperand, skipAngles, splitTopLevel, unwrapParens } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isOp } from '../tokenizer.js';

const RULE = RuleId.WindowVsInterval;

interface WindowCandidate {
  readonly ms: number;
  readonly file: ParsedFile;
  readonly line: number;
  readonly label: string;
}

/** Names a window constant goes by. UI names (`windowManager`, `window`) fail evaluation and drop out. */
export function isWindowName(name: string): boolean {
  if (/flex|interval|size|width|height|insets|manager/i.test(name)) return false;
  return /window|look_?back|max_?age|max_?item_?age/i.test(name);
}

/** Unit implied by a constant's name when its value is a bare number. */
function unitFromName(name: string): number {
  if (/(DAYS?|Days?)$/.test(name)) return 86_400_000;
  if (/(HOURS?|Hours?|_H)$/.test(name)) return 3_600_000;
  if (/(MINUTES?|Minutes?|MINS?|Mins?)$/.test(name)) return 60_000;
  if (/(SECONDS?|Seconds?|SECS?|Secs?)$/.test(name)) return 1000;
  return 1;
}

function declLabel(d: ValueDecl): string {
  return d.name;
}

function candidateFromEvaluation(project: Project, file: ParsedFile, range: Range, ev: Evaluation): WindowCandidate | undefined {
  const ms = toMillis(ev.value);
  if (ms === undefined) return undefined;
  const first = ev.refs[0];
  const single = range.end - range.start <= 4 && first !== undefined;
  if (single) {
    return { ms, file: first.file, line: (first.file.tokens[first.nameIndex] as Token).line, label: declLabel(first) };
  }
  return { ms, file, line: (file.tokens[range.start] as Token).line, label: `\`${rangeText(file, range, 50)}\`` };
}

/** A single identifier whose local initializer is `now - x`: `val age = now - item.publishedAt`. */
function expandAlias(project: Project, file: ParsedFile, range: Range): { file: ParsedFile; range: Range } {
  if (range.start !== range.end) return { file, range };
  const t = file.tokens[range.start] as Token;
  if (t.kind !== TokenKind.Identifier) return { file, range };
  const cands = project.resolver.lookup(t.value, file, range.start).filter((d) => d.fn !== undefined);
  const d = cands[0];
  return d ? { file: d.file, range: d.init } : { file, range };
}

/** True when the last name read in `range` is an item's publication time (`it.publishedAt`, `item.getPubDate()`), not another timestamp. */
function readsPublicationTime(file: ParsedFile, range: Range): boolean {
  let last: string | undefined;
  let owner: string | undefined;
  for (let k = range.start; k <= range.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind === TokenKind.Identifier && !/^(toEpochMilli|getTime|time|toInstant|inWholeMilliseconds|toEpochSecond)$/.test(t.value)) {
      owner = isOp(file.tokens[k - 1], '.') || isOp(file.tokens[k - 1], '?.') ? last : undefined;
      last = t.value;
    }
  }
  // a feed's own times (`feed.lastUpdatedAt`) say when it was refreshed, not when an item was published
  if (owner !== undefined && FEED_OWNER.test(owner)) return false;
  return last !== undefined && isPublicationTimeName(last);
}

const FEED_OWNER = /^(feed|source|subscription|channel|podcast|account)s?$/i;

/** True when the last name read in `range` is an interval (`feed.refreshInterval`, `syncPeriod`): a schedule, not a window. */
function readsInterval(file: ParsedFile, range: Range): boolean {
  let last: string | undefined;
  for (let k = range.start; k <= range.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind === TokenKind.Identifier && !/^(inWholeMilliseconds|toMillis|getSeconds|seconds)$/.test(t.value)) last = t.value;
  }
  return last !== undefined && /interval|period|frequency/i.test(last);
}

/** Window uses in a token range: comparisons of `now - x` against a constant. */
function windowUses(project: Project, file: ParsedFile, range: Range, notes: UnresolvedNote[]): WindowCandidate[] {
  const out: WindowCandidate[] = [];
  for (let k = range.start; k <= range.end; k++) {
    const t = file.tokens[k] as Token;
    if (t.kind !== TokenKind.Operator || !['<', '<=', '>', '>='].includes(t.text)) continue;
    if (t.text === '<' && skipAngles(file, k) > k) continue; // type arguments
    const l0 = unwrapParens(file, leftOperand(file, k));
    const r0 = unwrapParens(file, rightOperand(file, k));
    if (l0.end < l0.start || r0.end < r0.start) continue;
    const l = expandAlias(project, file, l0);
    const r = expandAlias(project, file, r0);
    const nowL = readsNow(project, l.file, l.range);
    const nowR = readsNow(project, r.file, r.range);
    if (nowL === nowR) continue;
    const nowSide = nowL ? l : r;
    const other = nowL ? r : l;
    // `now - feed.lastUpdatedAt >= feed.refreshInterval`: a per-feed refresh interval is when to
    // fetch again, not how far back items are looked at (Twine 1b9565db,
    // core/data/src/commonMain/kotlin/dev/sasikanth/rss/reader/data/sync/local/LocalSyncCoordinator.kt:248-252)
    if (readsInterval(other.file, other.range)) continue;
    const split = splitTopLevel(nowSide.file, unwrapParens(nowSide.file, nowSide.range), ['+', '-']);
    if (split.parts.length !== 2 || split.ops[0] !== '-') continue;
    const [minuend, subtrahend] = split.parts as [Range, Range];
    if (!readsNow(project, nowSide.file, minuend) || readsNow(project, nowSide.file, subtrahend)) continue;
    // The window is about when items were published: `now - feed.lastRefreshAttempt > C` is
    // another age. `now - published <= C`: the subtracted value is the time; `published >= now - C`:
    // the other side is.
    const otherEv = project.resolver.evaluate(other.file, other.range);
    const otherCand = candidateFromEvaluation(project, other.file, other.range, otherEv);
    if (otherCand) {
      if (readsPublicationTime(nowSide.file, subtrahend)) out.push(otherCand);
      continue;
    }
    const subEv = project.resolver.evaluate(nowSide.file, subtrahend);
    const subCand = candidateFromEvaluation(project, nowSide.file, subtrahend, subEv);
    if (subCand) {
      if (readsPublicationTime(other.file, other.range)) out.push(subCand);
      continue;
    }
    if (!readsPublicationTime(nowSide.file, subtrahend) && !readsPublicationTime(other.file, other.range)) continue;
    notes.push({
      file: file.path,
      line: t.line,
      rule: RULE,
      message: `window used here (\`${rangeText(file, { start: l0.start, end: r0.end }, 60)}\`) could not be evaluated: ${[...otherEv.unresolved, ...subEv.unresolved].join('; ')}`,
    });
  }
  return out;
}

function windowByName(project: Project, decls: readonly ValueDecl[]): WindowCandidate[] {
  const out: WindowCandidate[] = [];
  for (const d of decls) {
    // a window is a constant or a field; a local `val window = 10` is a page size or the like
    if (!isWindowName(d.name) || d.fn !== undefined) continue;
    const ev = project.resolver.evaluateDecl(d);
    if (ev.value === undefined || (ev.value.kind !== 'number' && ev.value.kind !== 'duration')) continue;
    const ms = ev.value.kind === 'duration' ? ev.value.ms : ev.value.value * unitFromName(d.name);
    out.push({ ms, file: d.file, line: (d.file.tokens[d.nameIndex] as Token).line, label: d.name });
  }
  return out;
}

function distinct(cands: readonly WindowCandidate[]): WindowCandidate[] {
  const seen = new Map<string, WindowCandidate>();
  for (const c of cands) {
    const key = `${c.file.path}:${c.line}:${c.ms}`;
    if (!seen.has(key)) seen.set(key, c);
  }
  return [...seen.values()];
}

interface WindowSearch {
  readonly window: WindowCandidate | undefined;
  readonly ambiguous: readonly WindowCandidate[];
}

function pick(cands: readonly WindowCandidate[]): WindowSearch | undefined {
  const d = distinct(cands);
  if (d.length === 0) return undefined;
  const values = new Set(d.map((c) => c.ms));
  if (values.size > 1) return { window: undefined, ambiguous: d };
  return { window: d[0], ambiguous: [] };
}

function findWindow(project: Project, worker: string | undefined, notes: UnresolvedNote[]): WindowSearch | undefined {
  const workerRefs = worker ? (project.classesByName.get(worker) ?? []) : [];
  if (workerRefs.length > 0) {
    const fns: FunctionRef[] = reachableFunctions(project, workerRefs.flatMap((w) => functionsOf(project, w.file, w.cls)));
    const uses: WindowCandidate[] = [];
    for (const w of workerRefs) if (w.cls.body) uses.push(...windowUses(project, w.file, w.cls.body, notes));
    for (const f of fns) if (f.fn.body && !workerRefs.some((w) => w.file === f.file && w.cls.body && f.fn.nameIndex > w.cls.body.start && f.fn.nameIndex < w.cls.body.end)) {
      uses.push(...windowUses(project, f.file, f.fn.body, notes));
    }
    // `now - C` bound to a query's lower bound on a publication time (`published_at > :postsAfter`)
    uses.push(...queryWindows(project, fns));
    const byUse = pick(uses);
    if (byUse) return byUse;
    const files = new Set<ParsedFile>([...workerRefs.map((w) => w.file), ...fns.map((f) => f.file)]);
    const byName = pick(windowByName(project, project.values.filter((d) => files.has(d.file))));
    if (byName) return byName;
    // The worker is in the sources and reaches no window: constants elsewhere (a timeout, a UI
    // animation) are not its window.
    return undefined;
  }
  const all: WindowCandidate[] = [];
  for (const f of project.files) all.push(...windowUses(project, f, { start: 0, end: f.tokens.length - 1 }, notes));
  return pick(all) ?? pick(windowByName(project, project.values));
}

function relatedFor(site: PeriodicSite, ev: Evaluation | undefined, what: string): Related[] {
  const d = ev?.refs[0];
  if (!d) return [];
  const line = (d.file.tokens[d.nameIndex] as Token).line;
  if (d.file === site.file && line === (site.file.tokens[site.index] as Token).line) return [];
  return [{ file: d.file.path, line, what: `${what} ${d.name}` }];
}

export function checkWindowVsInterval(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const unresolved: UnresolvedNote[] = [];
  const sites = findPeriodicSites(project);
  const windowNotes: UnresolvedNote[] = [];
  const windows = new Map<string, WindowSearch | undefined>();
  for (const site of sites) {
    const tk = site.file.tokens[site.start] as Token;
    const reading = readInterval(project, site);
    if (reading.intervalMs === undefined) {
      unresolved.push({
        file: site.file.path,
        line: tk.line,
        rule: RULE,
        message: `repeat interval could not be evaluated${reading.unresolved.length > 0 ? `: ${[...new Set(reading.unresolved)].join('; ')}` : ''}`,
      });
      continue;
    }
    const key = site.worker ?? '';
    if (!windows.has(key)) windows.set(key, findWindow(project, site.worker, windowNotes));
    const search = windows.get(key);
    if (!search || !search.window) {
      const why = search && search.ambiguous.length > 0
        ? `several windows with different values: ${search.ambiguous.map((c) => `${c.label} = ${formatDuration(c.ms)} (${c.file.path}:${c.line})`).join(', ')}`
        : `no window constant found${site.worker ? ` for ${site.worker}` : ''} (looked for a comparison of \`now - publishedAt\` with a constant, and names like WINDOW_MS)`;
      unresolved.push({ file: site.file.path, line: tk.line, rule: RULE, message: why });
      continue;
    }
    const w = search.window;
    const interval = reading.intervalMs;
    // WorkSpec.setPeriodic clamps flex to at most the interval (PeriodicWorkRequest.Builder → WorkSpec.kt).
    const flex = reading.flexMs === undefined ? 0 : Math.min(reading.flexMs, interval);
    const required = 2 * interval + flex;
    if (w.ms >= required) continue;
    const flexText = reading.flexMs !== undefined ? ` + flex ${formatDuration(flex)}` : '';
    findings.push({
      file: site.file.path,
      line: tk.line,
      column: tk.column,
      rule: RULE,
      message:
        `window ${w.label} = ${formatDuration(w.ms)} (${w.file.path}:${w.line}) is shorter than 2 × the repeat interval ${formatDuration(interval)}${flexText} = ${formatDuration(required)}: ` +
        'items published while one run is missed age out before the next run sees them',
      related: [
        { file: w.file.path, line: w.line, what: `window ${w.label} = ${formatDuration(w.ms)}` },
        ...relatedFor(site, reading.interval, 'repeat interval'),
        ...(reading.flexMs !== undefined ? relatedFor(site, reading.flex, 'flex interval') : []),
      ],
    });
  }
  // Notes about window uses that could not be evaluated matter only when a site needed them.
  if (sites.length > 0) {
    for (const n of windowNotes) if (!unresolved.some((u) => u.file === n.file && u.line === n.line && u.message === n.message)) unresolved.push(n);
  }
  return { findings, unresolved };
}
