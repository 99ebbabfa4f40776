/**
 * report.html (docs/design.md §9): one self-contained page (inline CSS, no script, no URL to fetch;
 * a Content-Security-Policy forbids any load) that tells what happened: the verdict with the
 * device and app facts, the verdict table (scenario × device), the failing findings up front,
 * and per scenario and device a timeline of runs, clock moves, fetches, posts and rows with
 * every anomaly marked on it, listed with its evidence and cross-linked both ways.
 *
 * `renderHtmlReport` is pure. `writeHtmlReport` streams `history.jsonl` (bounded memory: see
 * model.ts for what is capped) and writes `report.html` next to it.
 */
import { effectOf } from '../../checker/kinds.js';
import { rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDuration } from '../../checker/describe.js';
import { describeError } from '../../errors.js';
import type { HistoryEvent } from '../../history/events.js';
import { readHistory } from '../../history/jsonl.js';
import { VERSION } from '../../version.js';
import { attrs, escapeHtml } from './escape.js';
import { ReportModelBuilder, buildReportModel, isInformational, resolveOptions, runsOf, type EntryView, type HtmlReportOptions, type ReportModel, type ResolvedOptions, type SectionView, type Segment } from './model.js';
import { REPORT_CSS } from './style.js';
import { describeKill, endingEvidence, findRun, formatClockLong, itemStory, readingOf, renderTimeline, type AnomalyRef, type TimelineView } from './timeline.js';
import { collapseScenarios, describeTrials, devicesOf, formatPercent } from '../merge.js';
import type { ReportAnomaly, RunReport, ScenarioReport } from '../types.js';

export type { HtmlReportOptions } from './model.js';

export const HTML_REPORT_FILE = 'report.html';
export const HISTORY_FILE = 'history.jsonl';

/** Findings listed at the top of the page, per scenario entry. */
const FINDINGS_PER_ENTRY = 6;

/** The verdict words of the report, defined once (docs/design.md §5). */
const GLOSSARY: readonly (readonly [string, string])[] = [
  ['eligible', 'a published item with a link and a parseable date that a run fetched while it was inside the window, in a run that did not end killed or refused before handling it'],
  ['lost', 'eligible in an epoch, never notified in that epoch'],
  ['duplicated', 'notified more than once in one epoch: a post, or an update of a notification still showing that alerts again; re-notified after its row was deleted is not duplicated'],
  ['tolerated', 'a duplicated item whose repeat follows a run that was killed after notifying it and before storing its row; at most allowedDuplicates items per killed run, every other repeat fails'],
  ['silent-repost', 'an update of a notification still showing that carries FLAG_ONLY_ALERT_ONCE: the user is not alerted again (informational)'],
  ['unexpected', 'notified but never eligible (bad date, no link, outside the window, never served)'],
  ['out-of-order', 'within one run, a post whose publication time is older than the post before it'],
  ['recovered', 'notified in a later run than the first run in which it was eligible (informational)'],
  ['os-shed', 'the OS refused the post (notification cap, rate limit): not an app bug, not lost'],
  ['refused-run', 'a forced run that did not happen: the history cannot decide (verdict unknown)'],
  ['epoch', 'the span between two deletions of an item’s row; a new epoch may notify the item again'],
];

function verdictBadge(verdict: string): string {
  return `<span${attrs({ class: `badge b-${verdict}` })}>${escapeHtml(verdict)}</span>`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// ------------------------------------------------------------------------------------ header

function renderHeader(report: RunReport): string {
  const devices = devicesOf(report);
  const app = report.app;
  const version = [app.versionName, app.versionCode !== undefined ? `(${app.versionCode})` : undefined].filter((s) => s !== undefined).join(' ');
  const cases = collapseScenarios(report.scenarios);
  const by = (v: string): number => cases.filter((c) => c.verdict === v).length;
  const totals = cases.reduce(
    (t, c) => ({ lost: t.lost + c.counts.lostCount, dup: t.dup + c.counts.duplicatedCount, unexp: t.unexp + c.counts.unexpectedCount, order: t.order + c.counts.outOfOrderCount }),
    { lost: 0, dup: 0, unexp: 0, order: 0 },
  );
  const anomalyWords = [
    totals.lost > 0 ? `${totals.lost} lost` : '',
    totals.dup > 0 ? `${totals.dup} duplicated` : '',
    totals.unexp > 0 ? `${totals.unexp} unexpected` : '',
    totals.order > 0 ? `${totals.order} out of order` : '',
  ].filter((s) => s !== '');
  const started = Date.parse(report.startedAt);
  const deviceList = devices
    .map((d) => {
      const facts = [d.apiLevel !== undefined && d.apiLevel > 0 ? `API ${d.apiLevel}` : '', d.model ?? ''].filter((s) => s !== '').join(', ');
      return `<span class="nowrap"><code>${escapeHtml(d.serial)}</code>${facts !== '' ? ` (${escapeHtml(facts)})` : ''} ${verdictBadge(d.verdict)}` +
        `${d.tainted === true ? ` <span class="badge b-fail" title="the device could not be put back as it was">tainted: run dedup-verify restore --device ${escapeHtml(d.serial)}</span>` : ''}` +
        `${d.error !== undefined ? ` <span class="muted">${escapeHtml(d.error)}</span>` : ''}</span>`;
    })
    .join('<br>');
  return [
    `<header${attrs({ class: `page v-${report.verdict}` })}>`,
    `<div class="title-row"><span${attrs({ class: `verdict-big v-${report.verdict}` })}>${escapeHtml(report.verdict.toUpperCase())}</span>`,
    `<h1>dedup-verify: <code>${escapeHtml(app.package)}</code>${version !== '' ? ` <span class="muted">${escapeHtml(version)}</span>` : ''}</h1></div>`,
    `<p class="summary-line">${escapeHtml(plural(cases.length, 'scenario'))}: ${escapeHtml(by('pass'))} pass, ${escapeHtml(by('fail'))} fail, ${escapeHtml(by('unknown'))} unknown, ${escapeHtml(by('skipped'))} skipped` +
      `${anomalyWords.length > 0 ? ` — <b>${escapeHtml(anomalyWords.join(', '))}</b>` : ''}</p>`,
    '<dl class="facts">',
    `<dt>${devices.length === 1 ? 'device' : 'devices'}</dt><dd>${deviceList}</dd>`,
    `<dt>app</dt><dd><code>${escapeHtml(app.package)}</code>${version !== '' ? ` ${escapeHtml(version)}` : ''}</dd>`,
    `<dt>started</dt><dd>${escapeHtml(Number.isFinite(started) ? formatClockLong(started) : report.startedAt)} <span class="muted">(host time)</span></dd>`,
    `<dt>duration</dt><dd>${escapeHtml(formatDuration(report.durationMs))}</dd>`,
    `<dt>tool</dt><dd>${escapeHtml(report.tool ? `${report.tool.name} ${report.tool.version}` : 'unknown')}</dd>`,
    '</dl>',
    '</header>',
  ].join('\n');
}

// ------------------------------------------------------------------------------ verdict table

function renderVerdictTable(report: RunReport, model: ReportModel): string {
  const cases = collapseScenarios(report.scenarios);
  const multi = new Set(cases.map((c) => c.device)).size > 1;
  const sectionOf = new Map(model.sections.map((s) => [JSON.stringify([s.name, s.device]), s.id]));
  const num = (n: number, bad: boolean): string => `<td${attrs({ class: bad && n > 0 ? 'num bad' : 'num' })}>${escapeHtml(n)}</td>`;
  const rows = cases.map((c) => {
    const id = sectionOf.get(JSON.stringify([c.name, c.device]));
    const trials = c.trials !== undefined && c.violations !== undefined
      ? `${escapeHtml(c.violations)}/${escapeHtml(c.trials)}${c.interval95 ? ` <span class="muted">(95% ${escapeHtml(formatPercent(c.interval95.low))}–${escapeHtml(formatPercent(c.interval95.high))})</span>` : ''}${c.undecided !== undefined && c.undecided > 0 ? ` <span class="muted">+${escapeHtml(c.undecided)} undecided</span>` : ''}`
      : '';
    return (
      `<tr${attrs({ class: `row-${c.verdict}` })}><td>${id !== undefined ? `<a${attrs({ href: `#${id}` })}>${escapeHtml(c.name)}</a>` : escapeHtml(c.name)}</td>` +
      `${multi ? `<td><code>${escapeHtml(c.device)}</code></td>` : ''}<td>${verdictBadge(c.verdict)}</td>` +
      num(c.counts.lostCount, true) + num(c.counts.duplicatedCount, c.verdict === 'fail') + num(c.counts.unexpectedCount, true) + num(c.counts.outOfOrderCount, true) + num(c.counts.notifiedCount, false) +
      `<td class="num">${trials}</td><td class="num">${escapeHtml(formatDuration(c.durationMs))}</td></tr>`
    );
  });
  return [
    '<section aria-labelledby="verdicts-h"><h2 id="verdicts-h">Verdicts</h2>',
    '<table class="grid"><thead><tr><th>scenario</th>',
    multi ? '<th>device</th>' : '',
    '<th>verdict</th><th class="num">lost</th><th class="num">dup</th><th class="num">unexpected</th><th class="num">order</th><th class="num">notified</th><th class="num">violations / trials</th><th class="num">duration</th></tr></thead>',
    `<tbody>${rows.join('\n')}</tbody></table>`,
    renderAggregate(report),
    '</section>',
  ].join('\n');
}

function renderAggregate(report: RunReport): string {
  const aggregate = report.aggregate;
  if (!aggregate || aggregate.length === 0 || !aggregate.some((a) => a.trials + a.undecided > 1)) return '';
  const rows = aggregate.map(
    (a) =>
      `<tr${attrs({ class: `row-${a.verdict}` })}><td>${escapeHtml(a.name)}</td><td>${verdictBadge(a.verdict)}</td><td class="num">${escapeHtml(a.violations)}/${escapeHtml(a.trials)}${a.undecided > 0 ? ` <span class="muted">+${escapeHtml(a.undecided)} undecided</span>` : ''}</td>` +
      `<td class="num">${escapeHtml(formatPercent(a.interval95.low))}–${escapeHtml(formatPercent(a.interval95.high))}</td><td class="num">${escapeHtml(a.skipped)}</td><td>${a.devices.map((d) => `<code>${escapeHtml(d)}</code>`).join(', ')}</td></tr>`,
  );
  return [
    '<h3>Per scenario, all devices and repeats</h3>',
    '<table class="grid"><thead><tr><th>scenario</th><th>verdict</th><th class="num">violations / trials</th><th class="num">95% interval</th><th class="num">skipped</th><th>devices</th></tr></thead>',
    `<tbody>${rows.join('\n')}</tbody></table>`,
  ].join('\n');
}

// ------------------------------------------------------------------------------------ findings

interface EntryIds {
  readonly prefix: string;
  readonly refs: AnomalyRef[];
}

function entryIds(section: SectionView, index: number, entry: EntryView, options: ResolvedOptions): EntryIds {
  const prefix = section.entries.length > 1 ? `${section.id}-t${index + 1}` : section.id;
  const refs = entry.anomalies.slice(0, options.maxAnomalies).map((anomaly, k) => ({ id: `${prefix}-a${k + 1}`, anomaly }));
  return { prefix, refs };
}

function runWords(a: ReportAnomaly): string {
  const runs = runsOf(a);
  return runs.length === 0 ? '' : `${runs.length === 1 ? 'run' : 'runs'} ${runs.join(', ')}`;
}

/** "eligible in run 3, which was killed (am kill)": the run outcome that explains a lost item. */
function lostCause(a: ReportAnomaly, segment: Segment | undefined): string {
  if (a.kind !== 'lost' || a.run === undefined || !segment) return '';
  const column = findRun(segment, a.run);
  if (!column?.outcome || column.outcome === 'success') return '';
  const how = column.outcome === 'killed' ? describeKill(column) : '';
  return `run ${a.run} was ${column.outcome}${how !== '' ? ` (${how})` : ''}`;
}

function renderFindings(model: ReportModel, ids: ReadonlyMap<EntryView, EntryIds>): string {
  const failing: string[] = [];
  const undecided: string[] = [];
  for (const section of model.sections) {
    for (const entry of section.entries) {
      const e = ids.get(entry);
      if (!e) continue;
      const where = `${section.name} on ${section.device}${entry.trial !== undefined ? `, trial ${entry.trial}` : ''}`;
      const refs = e.refs.filter((r) => !isInformational(r.anomaly));
      const shown = refs.slice(0, FINDINGS_PER_ENTRY);
      for (const r of shown) {
        const a = r.anomaly;
        const cause = lostCause(a, entry.segment);
        const line =
          `<li><a${attrs({ href: `#${r.id}` })}><span${attrs({ class: `badge b-${a.kind}` })}>${escapeHtml(a.kind)}</span> ` +
          `${a.item === '' && a.kind === 'refused-run' ? '' : `<code>${escapeHtml(a.item === '' ? '(no link)' : a.item)}</code>`}</a> ` +
          `<span class="muted">${escapeHtml(where)}${runWords(a) !== '' ? ` · ${escapeHtml(runWords(a))}` : ''}</span>` +
          `${cause !== '' ? ` — <b>${escapeHtml(cause)}</b>` : ''}</li>`;
        (effectOf(a.kind) === 'unknown' || a.undecided === true ? undecided : failing).push(line);
      }
      if (refs.length > shown.length) {
        (entry.report.verdict === 'fail' ? failing : undecided).push(`<li><a${attrs({ href: `#${e.prefix}-anomalies` })}>${escapeHtml(refs.length - shown.length)} more in ${escapeHtml(where)}</a></li>`);
      }
      if (entry.report.verdict === 'unknown' && entry.report.error !== undefined) {
        undecided.push(`<li><a${attrs({ href: `#${e.prefix}` })}>${escapeHtml(where)}</a>: ${escapeHtml(entry.report.error)}</li>`);
      }
    }
  }
  const out: string[] = [];
  if (failing.length > 0) {
    out.push(`<section class="findings" aria-labelledby="findings-h"><h2 id="findings-h">What failed</h2><ul>${failing.join('\n')}</ul></section>`);
  }
  if (undecided.length > 0) {
    out.push(`<section class="findings f-unknown" aria-labelledby="undecided-h"><h2 id="undecided-h">What could not be decided</h2><ul>${undecided.join('\n')}</ul></section>`);
  }
  return out.join('\n');
}

// ----------------------------------------------------------------------------- scenario parts

function renderAnomaly(ref: AnomalyRef, prefix: string, entry: EntryView, view: TimelineView | undefined, options: ResolvedOptions): string {
  const a = ref.anomaly;
  const segment = entry.segment;
  const informational = isInformational(a);
  const runs = runsOf(a);
  const runLinks = runs.map((r) => {
    const column = segment ? findRun(segment, r) : undefined;
    const outcome = column?.outcome;
    const text = `run ${r}`;
    const badge = outcome !== undefined && outcome !== 'success' ? ` ${verdictBadge(outcome)}` : '';
    return view?.listedRuns.has(r) ? `<a${attrs({ href: `#${prefix}-run${r}` })}>${escapeHtml(text)}</a>${badge}` : `${escapeHtml(text)}${badge}`;
  });
  const head = [
    `<span${attrs({ class: `badge b-${informational ? (a.tolerated === true ? 'tolerated' : 'other') : a.kind}` })}>${escapeHtml(a.kind)}${a.tolerated === true ? ' (tolerated)' : ''}</span>`,
    a.kind === 'refused-run' && a.item === '' ? '' : `<span class="a-item">${escapeHtml(a.item === '' ? '(no link)' : a.item)}</span>`,
    runLinks.length > 0 ? `<span class="nowrap">${runLinks.join(', ')}</span>` : '',
    a.epoch !== undefined ? `<span class="muted">epoch ${escapeHtml(a.epoch)}</span>` : '',
    a.trial !== undefined && entry.trial === undefined ? `<span class="muted">trial ${escapeHtml(a.trial)}</span>` : '',
  ].filter((s) => s !== '');

  const story = segment && a.item !== '' ? itemStory(segment, a.item, options.maxEvidenceLines) : { lines: [], more: 0 };
  const storyHtml = story.lines.length > 0
    ? `<h4>What the history shows</h4><ul class="story">${story.lines
        .map((l) => `<li>${view?.listedRuns.has(l.run) ? `<a${attrs({ href: `#${prefix}-run${l.run}` })}>run ${escapeHtml(l.run)}</a>` : `run ${escapeHtml(l.run)}`} ${verdictBadge(l.outcome ?? 'running')}: ${escapeHtml(l.what)}</li>`)
        .join('')}${story.more > 0 ? `<li class="muted">… ${escapeHtml(story.more)} more runs</li>` : ''}</ul>`
    : '';

  const reading = segment && a.item !== '' ? readingOf(segment, a) : '';
  const readingHtml = reading !== '' ? `<p class="reading"><b>Reading:</b> ${escapeHtml(reading)}</p>` : '';

  // Evidence: the anomaly's own lines, then how each run it names ended (kills, refusals).
  const blocks: string[] = [];
  const own = (a.evidence ?? []).slice(0, options.maxEvidenceLines);
  if (own.length > 0) blocks.push(own.map((l) => `<pre>${escapeHtml(l.trim())}</pre>`).join(''));
  if ((a.evidence?.length ?? 0) > own.length) blocks.push(`<pre class="src">… ${escapeHtml((a.evidence?.length ?? 0) - own.length)} more lines</pre>`);
  for (const r of runs) {
    const column = segment ? findRun(segment, r) : undefined;
    if (!column || column.outcome === 'success' || column.outcome === undefined) continue;
    const shown = new Set(own);
    const lines = (column.outcome === 'refused' ? column.evidence : endingEvidence(column)).filter((l) => !shown.has(l));
    if (lines.length === 0) continue;
    blocks.push(`<pre class="src"># run ${r} ended ${escapeHtml(column.outcome)}:</pre>${lines.map((l) => `<pre>${escapeHtml(l)}</pre>`).join('')}`);
  }
  const evidence = blocks.length > 0
    ? `<div class="evidence"${attrs({ id: `${ref.id}-ev` })}><h4>Evidence</h4>${blocks.join('')}</div>`
    : `<div class="evidence"${attrs({ id: `${ref.id}-ev` })}><h4>Evidence</h4><pre class="src">${escapeHtml(
        a.kind === 'lost' ? 'no notification_enqueue line for this item: that absence is the finding (see what the history shows above)' : 'no raw lines recorded for this anomaly',
      )}</pre></div>`;

  const markId = view?.markIds.get(ref.id);
  const links = [
    `<a${attrs({ href: `#${ref.id}-ev` })}>evidence ↓</a>`,
    markId !== undefined ? `<a${attrs({ href: `#${markId}` })}>on the timeline ↑</a>` : `<span class="muted">${segment ? 'not drawn on the timeline' : 'no timeline (no history segment)'}</span>`,
  ];
  const kindClass = `k-${a.kind.replace(/[^a-z0-9-]/gi, '_')}`;
  return [
    `<li${attrs({ id: ref.id, class: `${kindClass}${informational ? ' informational' : ''}` })}>`,
    `<div class="a-head">${head.join(' ')}</div>`,
    `<p class="a-detail">${escapeHtml(a.detail)}</p>`,
    storyHtml,
    readingHtml,
    evidence,
    `<div class="a-links">${links.join('')}</div>`,
    '</li>',
  ].join('\n');
}

function renderCounts(s: ScenarioReport): string {
  const c = s.counts;
  const parts = [
    `${c.lostCount} lost`, `${c.duplicatedCount} duplicated`, `${c.unexpectedCount} unexpected`, `${c.outOfOrderCount} out of order`,
    `${c.notifiedCount} notified`, `${c.eligibleCount} eligible`,
  ];
  if (c.recoveredCount > 0) parts.push(`${c.recoveredCount} recovered`);
  if (c.shedCount > 0) parts.push(`${c.shedCount} shed`);
  return parts.join(' · ');
}

function renderEntry(section: SectionView, entry: EntryView, ids: EntryIds, options: ResolvedOptions): string {
  const { prefix, refs } = ids;
  const s = entry.report;
  const view = entry.segment ? renderTimeline(prefix, entry.segment, refs, options) : undefined;
  const out: string[] = [`<div${attrs({ class: 'entry', id: section.entries.length > 1 ? prefix : undefined })}>`];
  if (section.entries.length > 1) {
    out.push(`<h3>trial ${escapeHtml(entry.trial ?? '')} ${verdictBadge(entry.anomalies.some((a) => !isInformational(a) && a.kind !== 'refused-run') ? 'fail' : s.verdict)}</h3>`);
  }
  const trials = describeTrials(s);
  out.push(`<p class="muted">${escapeHtml(renderCounts(s))} · ${escapeHtml(formatDuration(s.durationMs))}${trials !== '' && section.entries.length === 1 ? ` · ${escapeHtml(trials)}` : ''}${s.attempts !== undefined && s.attempts > 1 ? ` · ${escapeHtml(s.attempts)} attempts` : ''}</p>`);
  if (s.error !== undefined) out.push(`<div class="error-box"><b>${s.verdict === 'skipped' ? 'skipped' : 'could not decide'}:</b> ${escapeHtml(s.error)}</div>`);

  out.push('<h3>Timeline</h3>');
  if (view) out.push(view.html);
  else out.push(`<p class="muted">No history segment for ${escapeHtml(section.name)} on ${escapeHtml(section.device)}${entry.trial !== undefined ? ` (trial ${escapeHtml(entry.trial)})` : ''} in ${HISTORY_FILE}.</p>`);

  out.push(`<h3${attrs({ id: `${prefix}-anomalies` })}>Anomalies (${escapeHtml(refs.length)}${entry.anomalies.length > refs.length ? ` of ${escapeHtml(entry.anomalies.length)}` : ''})</h3>`);
  if (refs.length === 0) out.push('<p class="muted">None.</p>');
  else out.push(`<ol class="anomalies">${refs.map((r) => renderAnomaly(r, prefix, entry, view, options)).join('\n')}</ol>`);
  if (entry.anomalies.length > refs.length) out.push(`<p class="caps-note">${escapeHtml(entry.anomalies.length - refs.length)} more anomalies not listed (at most ${escapeHtml(options.maxAnomalies)}); report.json has them all.</p>`);

  if (view) {
    out.push('<h3>Runs</h3>');
    out.push(view.runsHtml);
  }
  const notes = s.evidence ?? [];
  if (notes.length > 0 && (entry === section.entries[0] || s !== section.entries[0]?.report)) {
    out.push('<h3>Notes</h3>');
    out.push(`<ul class="notes">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`);
  }
  out.push('</div>');
  return out.join('\n');
}

function sectionVerdict(section: SectionView): string {
  const verdicts = new Set(section.entries.map((e) => e.report.verdict));
  for (const v of ['fail', 'unknown', 'pass', 'skipped']) if (verdicts.has(v as ScenarioReport['verdict'])) return v;
  return 'unknown';
}

function renderSection(section: SectionView, ids: ReadonlyMap<EntryView, EntryIds>, options: ResolvedOptions): string {
  const verdict = sectionVerdict(section);
  return [
    `<section${attrs({ class: `scenario v-${verdict}`, id: section.id, 'aria-labelledby': `${section.id}-h` })}>`,
    `<div class="s-head"><h2${attrs({ id: `${section.id}-h` })}>${escapeHtml(section.name)}</h2> ${verdictBadge(verdict)} <span>on <code>${escapeHtml(section.device)}</code></span>` +
      `${section.entries.length > 1 ? ` <span class="muted">${escapeHtml(section.entries.length)} trials</span>` : ''}</div>`,
    '<div class="s-body">',
    ...section.entries.map((entry) => {
      const e = ids.get(entry);
      return e ? renderEntry(section, entry, e, options) : '';
    }),
    '</div></section>',
  ].join('\n');
}

function renderOrphans(model: ReportModel, options: ResolvedOptions): string {
  if (model.orphans.length === 0) return '';
  const parts = model.orphans.map((segment, i) => {
    const prefix = `o${i + 1}`;
    const view = renderTimeline(prefix, segment, [], options);
    const name = [segment.scenario, segment.device].filter((s) => s !== undefined).join(' on ');
    return `<section${attrs({ class: 'scenario', id: prefix })}><div class="s-head"><h2>${escapeHtml(name !== '' ? name : `history segment ${segment.index + 1}`)}</h2> <span class="muted">in ${HISTORY_FILE}, not in report.json</span></div><div class="s-body">${view.html}<h3>Runs</h3>${view.runsHtml}</div></section>`;
  });
  return `<h2>History without a scenario in the report</h2>${parts.join('\n')}`;
}

// --------------------------------------------------------------------------------------- page

/** `script-src 'none'`: the page runs no script; styles are inline; nothing may be fetched. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'none'; base-uri 'none'; form-action 'none'";

/** Renders report.html from a model (see buildReportModel / ReportModelBuilder). */
export function renderHtmlFromModel(report: RunReport, model: ReportModel, options: HtmlReportOptions = {}): string {
  const resolved = resolveOptions(options);
  const ids = new Map<EntryView, EntryIds>();
  for (const section of model.sections) section.entries.forEach((entry, i) => ids.set(entry, entryIds(section, i, entry, resolved)));
  const title = `dedup-verify ${report.verdict.toUpperCase()}: ${report.app.package} on ${report.device}`;
  const historyProblem = options.historyProblem;
  const body = [
    renderHeader(report),
    historyProblem !== undefined ? `<div class="error-box"><b>Timelines incomplete:</b> ${escapeHtml(historyProblem)}</div>` : '',
    renderFindings(model, ids),
    renderVerdictTable(report, model),
    ...model.sections.map((s) => renderSection(s, ids, resolved)),
    renderOrphans(model, resolved),
    '<details class="glossary"><summary>What the words mean</summary><dl>',
    ...GLOSSARY.map(([term, meaning]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(meaning)}</dd>`),
    '</dl></details>',
    `<footer>Rendered by dedup-verify ${escapeHtml(VERSION)} from report.json${model.events > 0 ? ` and ${escapeHtml(plural(model.events, 'history event'))}` : ''}. Device times are device wall-clock UTC; the clock is moved on purpose between runs.</footer>`,
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy"${attrs({ content: CSP })}>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body><main>',
    ...body.filter((s) => s !== ''),
    '</main></body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Renders report.html. `history` is the whole history.jsonl (config lines included: they cut
 * it into one segment per scenario and device). Pure.
 */
export function renderHtmlReport(report: RunReport, history: readonly HistoryEvent[], options: HtmlReportOptions = {}): string {
  return renderHtmlFromModel(report, buildReportModel(report, history, options), options);
}

export interface WriteHtmlOptions extends HtmlReportOptions {
  /** Told about a history that could not be read (the page is still written, and says so). */
  readonly onWarning?: (text: string) => void;
}

/**
 * Writes `dir/report.html` from `report` and `dir/history.jsonl` (streamed; missing or broken
 * history: the page says so and shows what it could read). Through a temporary file, so a
 * reader never sees half a page.
 */
export async function writeHtmlReport(dir: string, report: RunReport, options: WriteHtmlOptions = {}): Promise<void> {
  const builder = new ReportModelBuilder(report, options);
  const historyPath = join(dir, HISTORY_FILE);
  let problem: string | undefined;
  const exists = await stat(historyPath).then((s) => s.isFile(), () => false);
  if (!exists) {
    problem = `${historyPath} is missing, so there are no timelines; run --out DIR writes it next to report.json.`;
  } else {
    try {
      for await (const event of readHistory(historyPath)) builder.add(event);
    } catch (e) {
      problem = `${describeError(e)} (the timelines show the events before that point)`;
    }
  }
  if (problem !== undefined) options.onWarning?.(problem);
  const html = renderHtmlFromModel(report, builder.finish(), { ...options, ...(problem !== undefined ? { historyProblem: problem } : {}) });
  const path = join(dir, HTML_REPORT_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, html, { encoding: 'utf8', flag: 'wx' });
  await rename(tmp, path);
}
