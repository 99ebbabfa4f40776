/**
 * The timeline of one scenario entry in report.html: an HTML table whose columns are the runs
 * (and what happened between them: feed changes, rows deleted) and whose rows are lanes: the
 * device clock at each run start, fetches with their HTTP status, posts and rows per run, then
 * one lane per item with a mark per event (served, posted, updated, row stored, shed,
 * forgotten). Killed and refused runs are hatched across every lane; an item lost in a run gets
 * a "lost" mark in that run's column. Every anomalous mark links to its anomaly, and every
 * anomaly links back to its first mark (ids `<anomaly>-m`). Pure.
 */
import { formatDuration, formatInstant } from '../../checker/describe.js';
import type { RunOutcome } from '../../history/events.js';
import { attrs, escapeHtml, shortenStart } from './escape.js';
import { MAX_OMITTED_ITEMS_COUNTED, isInformational, runsOf, type Column, type Lane, type Mark, type ResolvedOptions, type RunColumn, type Segment } from './model.js';
import type { ReportAnomaly } from '../types.js';

/** An anomaly with the id of its entry in the page. */
export interface AnomalyRef {
  readonly id: string;
  readonly anomaly: ReportAnomaly;
}

export interface TimelineView {
  /** The timeline block: tools, notes about what was left out, the table and its legend. */
  readonly html: string;
  /** The list of runs with their evidence. */
  readonly runsHtml: string;
  /** Anomaly id → id of its first mark on the timeline (absent when it has no drawn mark). */
  readonly markIds: ReadonlyMap<string, string>;
  /** Run numbers whose entry is in the runs list (anchor `<prefix>-run<N>`). */
  readonly listedRuns: ReadonlySet<number>;
}


/** "06-03 12:00:07" (UTC): compact enough for a column header; the full instant goes in a title. */
export function formatClock(ms: number): string {
  const iso = formatInstant(ms);
  const m = /^\d{4}-(\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

/** "2024-06-03 12:00:07.100 UTC". */
export function formatClockLong(ms: number): string {
  const iso = formatInstant(ms);
  return /Z$/.test(iso) ? `${iso.replace('T', ' ').replace(/\.000Z$/, 'Z').replace(/Z$/, '')} UTC` : iso;
}

export function outcomeClass(outcome: RunOutcome | undefined): string {
  return outcome === undefined ? 'running' : outcome;
}

export function describeFetch(f: { status: number; items: number }): string {
  if (f.status === 0) return 'no response';
  const ok = f.status >= 200 && f.status <= 299;
  return ok ? `${f.status} · ${f.items} ${f.items === 1 ? 'item' : 'items'}` : String(f.status);
}

/** The evidence lines of a run that say how it ended (the kill, the held request), not how it started. */
export function endingEvidence(column: RunColumn): string[] {
  return column.evidence.filter((l) => !/^\$ cmd jobscheduler run\b/.test(l));
}

/**
 * How a killed run was killed, from its evidence: "am kill", "am force-stop", "run-as kill -9",
 * or the first command line the evidence records after the run was started.
 */
export function killCommand(column: RunColumn): string | undefined {
  for (const line of column.evidence) {
    const am = /^\$ (am (?:kill|force-stop|crash|stop-app))\b/.exec(line);
    if (am?.[1]) return am[1];
    const runAs = /^\$ run-as \S+ (kill(?: -\S+)?)(?: |$)/.exec(line);
    if (runAs?.[1]) return `run-as ${runAs[1]}`;
    const kill = /^\$ (kill(?: -\S+)?)(?: |$)/.exec(line);
    if (kill?.[1]) return kill[1];
  }
  const other = column.evidence.find((l) => l.startsWith('$ ') && !/^\$ cmd jobscheduler run\b/.test(l));
  return other !== undefined ? shortenEnd(other.slice(2), 40) : undefined;
}

function shortenEnd(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function runColumns(segment: Segment): RunColumn[] {
  return segment.columns.filter((c): c is RunColumn => c.kind === 'run');
}

export function findRun(segment: Segment, run: number): RunColumn | undefined {
  return runColumns(segment).find((c) => c.run === run);
}

/** The columns drawn: every column when the runs fit, else the runs that matter first. */
function selectColumns(segment: Segment, anomalies: readonly AnomalyRef[], maxRuns: number): Set<number> {
  const runs = runColumns(segment);
  if (runs.length <= maxRuns) return new Set(segment.columns.map((c) => c.id));
  const byRun = new Map(runs.map((c) => [c.run, c]));
  const keep = new Set<number>();
  const take = (run: number | RunColumn | undefined): void => {
    const c = typeof run === 'number' ? byRun.get(run) : run;
    if (c && keep.size < maxRuns) keep.add(c.id);
  };
  const failing = anomalies.filter((a) => !isInformational(a.anomaly));
  const informational = anomalies.filter((a) => isInformational(a.anomaly));
  // First the runs that tell each failing anomaly (a loss's run, a duplicate's first two posts),
  // then killed and refused runs, then the other runs anomalies name, then the rest in order.
  for (const a of failing) for (const r of runsOf(a.anomaly).slice(0, 2)) take(r);
  for (const c of runs) if (c.outcome === 'killed' || c.outcome === 'refused') take(c);
  for (const a of [...failing, ...informational]) for (const r of runsOf(a.anomaly)) take(r);
  for (const c of runs) take(c);
  const drawn = new Set(keep);
  segment.columns.forEach((c, i) => {
    if (c.kind !== 'gap') return;
    const next = segment.columns[i + 1];
    const previous = segment.columns[i - 1];
    if ((next && keep.has(next.id)) || (previous && keep.has(previous.id)) || (!next && !previous)) drawn.add(c.id);
  });
  return drawn;
}

type Slot = { kind: 'column'; column: Column } | { kind: 'omitted'; runs: number[]; columns: number };

function slotsOf(segment: Segment, drawn: ReadonlySet<number>): Slot[] {
  const slots: Slot[] = [];
  for (const column of segment.columns) {
    if (drawn.has(column.id)) {
      slots.push({ kind: 'column', column });
      continue;
    }
    const last = slots[slots.length - 1];
    const target = last && last.kind === 'omitted' ? last : { kind: 'omitted' as const, runs: [] as number[], columns: 0 };
    if (target !== last) slots.push(target);
    target.columns += 1;
    if (column.kind === 'run') target.runs.push(column.run);
  }
  return slots;
}

function describeRunSpan(runs: readonly number[]): string {
  if (runs.length === 0) return 'between runs';
  const first = runs[0];
  const last = runs[runs.length - 1];
  return runs.length === 1 ? `run ${first}` : `runs ${first}–${last}`;
}

/** Which drawn marks belong to which anomaly, and the lost marks to add per column. */
interface LaneAnomalies {
  readonly byMark: Map<Mark, AnomalyRef[]>;
  readonly lost: Map<number, AnomalyRef[]>;
  readonly kinds: Set<string>;
  readonly failing: boolean;
}

function laneAnomalies(segment: Segment, lane: Lane, anomalies: readonly AnomalyRef[]): LaneAnomalies {
  const byMark = new Map<Mark, AnomalyRef[]>();
  const lost = new Map<number, AnomalyRef[]>();
  const kinds = new Set<string>();
  let failing = false;
  const add = (mark: Mark, ref: AnomalyRef): void => {
    const list = byMark.get(mark) ?? [];
    list.push(ref);
    byMark.set(mark, list);
  };
  for (const ref of anomalies) {
    const a = ref.anomaly;
    if (a.item !== lane.item || a.kind === 'refused-run') continue;
    kinds.add(a.kind);
    if (!isInformational(a)) failing = true;
    const runs = new Set(runsOf(a));
    switch (a.kind) {
      case 'lost': {
        const column = a.run !== undefined ? findRun(segment, a.run) : undefined;
        if (column) {
          const list = lost.get(column.id) ?? [];
          list.push(ref);
          lost.set(column.id, list);
        }
        break;
      }
      case 'duplicated': {
        const posts = lane.marks.filter((m) => m.kind === 'post' && (runs.size === 0 || (m.run !== undefined && runs.has(m.run))));
        const repeats = posts.filter((m) => (m.nth ?? 1) >= 2);
        for (const m of repeats.length > 0 ? repeats : posts.slice(1)) add(m, ref);
        break;
      }
      case 'out-of-order':
      case 'unexpected':
      default: {
        const kindsOfMark = a.kind === 'os-shed' ? ['shed'] : ['post', 'update'];
        for (const m of lane.marks) {
          if (!kindsOfMark.includes(m.kind)) continue;
          if (a.kind === 'out-of-order' && m.kind !== 'post') continue;
          if (runs.size === 0 || (m.run !== undefined && runs.has(m.run))) add(m, ref);
        }
        break;
      }
    }
  }
  return { byMark, lost, kinds, failing };
}

const MARK_TEXT: Readonly<Record<Mark['kind'], string>> = {
  published: '+',
  edited: '✎',
  served: '',
  post: 'P',
  update: 'U',
  stored: 'R',
  forgotten: '⊘',
  shed: 'S',
};

/**
 * Marks of one cell in the order a run does things: served by the fetch, posted, row stored.
 * Not by `t`: fetch times come from the host clock and posts from the device clock, which the
 * scenario moves. The sort is stable, so marks of one kind keep their history order.
 */
function byStep(a: Mark, b: Mark): number {
  return MARK_ORDER[a.kind] - MARK_ORDER[b.kind];
}

const MARK_ORDER: Readonly<Record<Mark['kind'], number>> = { published: 0, edited: 1, forgotten: 2, served: 3, post: 4, update: 5, shed: 6, stored: 7 };

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

function markTitle(mark: Mark, lane: Lane): string {
  const where = mark.run !== undefined ? ` in run ${mark.run}` : '';
  const at = ` at ${formatClockLong(mark.t)}`;
  switch (mark.kind) {
    case 'published':
      return `the feed started serving it${at}: "${mark.title ?? ''}"`;
    case 'edited':
      return `the feed changed it${at}: "${mark.title ?? ''}"`;
    case 'served':
      return `served in the fetch${where}`;
    case 'post':
      return `posted${where}${at} (${ordinal(mark.nth ?? 1)} post${(mark.nth ?? 1) > 1 ? ' in this epoch' : ''})`;
    case 'update':
      return `notification updated${where}${at}`;
    case 'stored':
      return `row stored${where}`;
    case 'forgotten':
      return `row deleted${at}: a new dedup epoch for ${lane.item}`;
    case 'shed':
      return `the OS refused the post${where}`;
    default: {
      const unreachable: never = mark.kind;
      return String(unreachable);
    }
  }
}

function renderMark(mark: Mark, lane: Lane, refs: readonly AnomalyRef[] | undefined, markIds: Map<string, string>, showSeq: boolean): string {
  const text = mark.kind === 'post' && (mark.nth ?? 1) > 1 ? `P${mark.nth ?? ''}` : MARK_TEXT[mark.kind];
  const title = `${markTitle(mark, lane)}${mark.seq !== undefined ? `; ${ordinal(mark.seq)} post of the run` : ''}`;
  const seq = showSeq && mark.seq !== undefined ? `<span${attrs({ class: 'seq', title: `${ordinal(mark.seq)} post of run ${mark.run ?? ''}` })}>${mark.seq}</span>` : '';
  if (!refs || refs.length === 0) return `<span${attrs({ class: `mk ${mark.kind}`, title })}>${escapeHtml(text)}</span>${seq}`;
  const first = refs[0]!;
  const a = first.anomaly;
  const kindClass = a.tolerated === true ? 'a-tolerated' : ['duplicated', 'out-of-order', 'unexpected', 'os-shed'].includes(a.kind) ? `a-${a.kind}` : 'a-other';
  let id: string | undefined;
  for (const ref of refs) {
    if (!markIds.has(ref.id)) {
      markIds.set(ref.id, `${ref.id}-m`);
      id ??= `${ref.id}-m`;
    }
  }
  const label = `${title} — ${refs.map((r) => `${r.anomaly.kind}${r.anomaly.tolerated === true ? ' (tolerated)' : ''}`).join(', ')}: see the anomaly`;
  return `<a${attrs({ class: `mk ${mark.kind} ${kindClass}`, href: `#${first.id}`, id, title: label })}>${escapeHtml(text)}</a>${seq}`;
}

function renderLostMark(refs: readonly AnomalyRef[], run: number, markIds: Map<string, string>): string {
  const first = refs[0]!;
  let id: string | undefined;
  for (const ref of refs) {
    if (!markIds.has(ref.id)) {
      markIds.set(ref.id, `${ref.id}-m`);
      id ??= `${ref.id}-m`;
    }
  }
  return `<a${attrs({ class: 'mk lost', href: `#${first.id}`, id, title: `lost: eligible from run ${run} on, never notified — see the anomaly` })}>✕ lost</a>`;
}

/** The common start of the item keys, cut after its last "/" (shown once above the lanes). */
function commonPrefix(items: readonly string[]): string {
  if (items.length < 2) {
    const only = items[0] ?? '';
    const slash = only.lastIndexOf('/');
    return slash > 8 ? only.slice(0, slash + 1) : '';
  }
  let prefix = items[0] ?? '';
  for (const item of items) {
    let i = 0;
    while (i < prefix.length && i < item.length && prefix[i] === item[i]) i++;
    prefix = prefix.slice(0, i);
  }
  const slash = prefix.lastIndexOf('/');
  return slash > 8 ? prefix.slice(0, slash + 1) : '';
}

function headerCell(prefix: string, column: Column, listed: ReadonlySet<number>): string {
  if (column.kind === 'gap') {
    const label = column.forgotten.length > 0 ? 'rows deleted' : column.published + column.edited > 0 ? 'feed' : 'between';
    return `<th${attrs({ class: 'col gap', scope: 'col', id: `${prefix}-c${column.id}`, title: 'between runs' })}>${escapeHtml(label)}</th>`;
  }
  const outcome = outcomeClass(column.outcome);
  const how = column.outcome === 'killed' ? killCommand(column) : undefined;
  const link = listed.has(column.run) ? `<a${attrs({ href: `#${prefix}-run${column.run}` })}>run ${column.run}</a>` : `run ${column.run}`;
  const title = `run ${column.run}: ${column.outcome ?? 'no run-finished event'}${column.deviceTime !== undefined ? `, device clock ${formatClockLong(column.deviceTime)}` : ''}`;
  return (
    `<th${attrs({ class: `col run o-${outcome}`, scope: 'col', id: `${prefix}-c${column.id}`, title })}>${link}` +
    `<span class="oc">${column.outcome === 'killed' ? '✕ ' : ''}${escapeHtml(column.outcome ?? 'unfinished')}</span>` +
    `${how !== undefined ? `<span class="kill-how">${escapeHtml(how)}</span>` : ''}</th>`
  );
}

interface SystemRow {
  readonly label: string;
  readonly title: string;
  readonly cell: (c: Column, previousRun: RunColumn | undefined) => string;
}

function systemRows(segment: Segment): SystemRow[] {
  const runs = runColumns(segment);
  const gaps = segment.columns.filter((c) => c.kind === 'gap');
  const rows: SystemRow[] = [
    {
      label: 'device clock',
      title: 'the device wall clock when the run started (run-started deviceTime), and how far it moved since the previous run',
      cell: (c, previous) => {
        if (c.kind !== 'run' || c.deviceTime === undefined) return '';
        const jump = previous?.deviceTime !== undefined ? c.deviceTime - previous.deviceTime : undefined;
        const jumpText = jump !== undefined ? `<br><span${attrs({ class: jump >= 3_600_000 ? 'jump big' : 'jump', title: `${jump} ms since run ${previous?.run ?? ''} started` })}>${jump >= 0 ? '+' : ''}${escapeHtml(formatDuration(jump))}</span>` : '';
        return `<span${attrs({ title: formatClockLong(c.deviceTime) })}>${escapeHtml(formatClock(c.deviceTime))}</span>${jumpText}`;
      },
    },
    {
      label: 'fetch',
      title: 'feed requests of the run: HTTP status and number of items served (0: no response)',
      cell: (c) => {
        if (c.kind !== 'run') return '';
        const chips = c.fetches.map((f) => {
          const ok = f.status >= 200 && f.status <= 299;
          return `<span${attrs({ class: `badge ${ok ? 'b-success' : f.status === 0 ? 'b-refused' : 'b-retry'}` })}>${escapeHtml(describeFetch(f))}</span>`;
        });
        if (c.moreFetches > 0) chips.push(`<span class="muted">+${escapeHtml(c.moreFetches)}</span>`);
        return chips.length > 0 ? chips.join('<br>') : '<span class="muted">none</span>';
      },
    },
    {
      label: 'notifications',
      title: 'notification_enqueue events of the run: posts and updates',
      cell: (c) => (c.kind === 'run' ? [c.posts > 0 ? `${c.posts} posted` : '', c.updates > 0 ? `${c.updates} updated` : ''].filter((s) => s !== '').join(', ') || '—' : ''),
    },
    {
      label: 'rows stored',
      title: 'rows that appeared in the dedup table during the run',
      cell: (c) => (c.kind === 'run' ? (c.stored > 0 ? `+${c.stored}` : '—') : ''),
    },
  ];
  if (runs.some((c) => c.shed > 0)) {
    rows.push({ label: 'shed by the OS', title: 'posts the OS refused (notification cap, rate limit)', cell: (c) => (c.kind === 'run' && c.shed > 0 ? `${c.shed} shed` : '') });
  }
  if (gaps.some((c) => c.kind === 'gap' && c.published + c.edited > 0)) {
    rows.push({
      label: 'feed',
      title: 'items the feed started serving or changed before the next run',
      cell: (c) => (c.kind === 'gap' ? [c.published > 0 ? `+${c.published} new` : '', c.edited > 0 ? `${c.edited} changed` : ''].filter((s) => s !== '').join('<br>') : ''),
    });
  }
  if (gaps.some((c) => c.kind === 'gap' && c.forgotten.length > 0)) {
    rows.push({
      label: 'rows deleted',
      title: 'forgotten: rows deleted, a new dedup epoch for those items',
      cell: (c) => (c.kind === 'gap' ? c.forgotten.map((f) => (f === 'all' ? 'all rows' : `${f} ${f === 1 ? 'row' : 'rows'}`)).join('<br>') : ''),
    });
  }
  return rows;
}

function tdClass(column: Column): string {
  return column.kind === 'gap' ? 'gap' : `o-${outcomeClass(column.outcome)}`;
}

/** Renders the timeline of a segment with the anomalies of its entry. */
export function renderTimeline(prefix: string, segment: Segment, anomalies: readonly AnomalyRef[], options: ResolvedOptions): TimelineView {
  const markIds = new Map<string, string>();
  const drawn = selectColumns(segment, anomalies, options.maxRuns);
  const slots = slotsOf(segment, drawn);
  const listed = new Set(runColumns(segment).filter((c) => drawn.has(c.id)).map((c) => c.run));
  const lanes = [...segment.lanes.values()];
  const prefixText = commonPrefix(lanes.map((l) => l.item));
  // Runs where the order of posts is the finding: each post shows its place in the run.
  const refsByItem = new Map<string, AnomalyRef[]>();
  for (const ref of anomalies) {
    if (ref.anomaly.kind === 'refused-run') continue;
    const list = refsByItem.get(ref.anomaly.item) ?? [];
    list.push(ref);
    refsByItem.set(ref.anomaly.item, list);
  }
  const orderRuns = new Set(anomalies.filter((a) => a.anomaly.kind === 'out-of-order').flatMap((a) => runsOf(a.anomaly)));

  const head = slots.map((slot) =>
    slot.kind === 'column'
      ? headerCell(prefix, slot.column, listed)
      : `<th${attrs({ class: 'omitted', scope: 'col', title: `${slot.columns} columns not drawn` })}>⋯<br>${escapeHtml(describeRunSpan(slot.runs))}<br>not drawn</th>`,
  );

  const rows: string[] = [];
  for (const row of systemRows(segment)) {
    let previousRun: RunColumn | undefined;
    const cells: string[] = [];
    for (const slot of slots) {
      if (slot.kind === 'omitted') {
        cells.push('<td class="omitted"></td>');
        continue;
      }
      const c = slot.column;
      cells.push(`<td${attrs({ class: tdClass(c) })}>${row.cell(c, previousRun)}</td>`);
      if (c.kind === 'run') previousRun = c;
    }
    rows.push(`<tr class="sys"><th${attrs({ scope: 'row', title: row.title })}>${escapeHtml(row.label)}</th>${cells.join('')}</tr>`);
  }

  for (const lane of lanes) {
    const la = laneAnomalies(segment, lane, refsByItem.get(lane.item) ?? []);
    const byColumn = new Map<number, Mark[]>();
    for (const mark of lane.marks) {
      const list = byColumn.get(mark.column) ?? [];
      list.push(mark);
      byColumn.set(mark.column, list);
    }
    const cells: string[] = [];
    for (const slot of slots) {
      if (slot.kind === 'omitted') {
        cells.push('<td class="omitted"></td>');
        continue;
      }
      const c = slot.column;
      const showSeq = c.kind === 'run' && orderRuns.has(c.run);
      const marks = (byColumn.get(c.id) ?? []).sort(byStep).map((m) => renderMark(m, lane, la.byMark.get(m), markIds, showSeq));
      const lost = la.lost.get(c.id);
      if (lost && c.kind === 'run') marks.push(renderLostMark(lost, c.run, markIds));
      cells.push(`<td${attrs({ class: tdClass(c) })}>${marks.join('')}</td>`);
    }
    const name = prefixText !== '' && lane.item.startsWith(prefixText) ? lane.item.slice(prefixText.length) : lane.item;
    const kinds = [...la.kinds].filter((k) => k !== 'recovered');
    const badges = kinds.map((k) => `<span${attrs({ class: `badge b-${la.failing ? k : 'tolerated'}` })}>${escapeHtml(k)}</span> `).join('');
    const more = lane.omittedMarks > 0 ? ` <span${attrs({ class: 'muted', title: `${lane.omittedMarks} more marks not drawn (at most ${options.maxMarksPerLane} per lane)` })}>+${lane.omittedMarks}</span>` : '';
    const laneClass = ['lane', la.failing ? 'anomalous' : '', la.kinds.has('lost') && la.failing ? 'k-lost' : ''].filter((s) => s !== '').join(' ');
    const label = lane.item === '' ? '(no link)' : shortenStart(name, 48);
    rows.push(
      `<tr${attrs({ class: laneClass, id: `${prefix}-l${lane.index}` })}><th scope="row">${badges}<span${attrs({ class: 'lane-name', title: lane.item })}>${escapeHtml(label)}</span>${more}` +
        `${lane.title !== undefined ? `<span${attrs({ class: 'lane-title', title: lane.title })}>${escapeHtml(lane.title)}</span>` : ''}</th>${cells.join('')}</tr>`,
    );
  }

  const notes: string[] = [];
  const runCount = runColumns(segment).length;
  if (listed.size < runCount) notes.push(`${listed.size} of ${runCount} runs drawn (runs named by an anomaly, killed and refused runs first; at most ${options.maxRuns})`);
  if (segment.omittedColumns > 0) notes.push(`${segment.omittedColumns} later runs or feed changes not kept (more than ${segment.columns.length} columns)`);
  const omittedItems = segment.omittedItemKeys.size;
  if (omittedItems > 0) {
    notes.push(`${segment.omittedItemsOverflow ? `more than ${MAX_OMITTED_ITEMS_COUNTED}` : omittedItems} more ${omittedItems === 1 ? 'item' : 'items'} without a lane (at most ${options.maxLanes} lanes; items named by an anomaly first), ${segment.omittedItemEvents} of their events not drawn`);
  }
  const cappedLanes = lanes.filter((l) => l.omittedMarks > 0).length;
  if (cappedLanes > 0) notes.push(`${cappedLanes} ${cappedLanes === 1 ? 'lane has' : 'lanes have'} more than ${options.maxMarksPerLane} marks: the first ones are drawn (and every mark of a run named by an anomaly), the count of the rest is shown next to the item`);

  const anyFailingLane = lanes.some((l) => (refsByItem.get(l.item) ?? []).some((a) => !isInformational(a.anomaly)));
  const html = [
    `<div class="timeline-block only-anomalous">`,
    `<div class="tl-tools"><span class="muted">${escapeHtml(runCount)} ${runCount === 1 ? 'run' : 'runs'}, ${escapeHtml(lanes.length)} ${lanes.length === 1 ? 'item' : 'items'}${prefixText !== '' ? ` under <code>${escapeHtml(prefixText)}</code>` : ''}; ${escapeHtml(segment.events)} events</span>` +
      (anyFailingLane ? `<label><input type="checkbox"> only items with anomalies</label>` : '') +
      `</div>`,
    ...notes.map((n) => `<p class="caps-note">Not everything is drawn: ${escapeHtml(n)}.</p>`),
    `<div class="tl-wrap" tabindex="0"${attrs({ 'aria-label': 'timeline: one column per run, one row per item' })}><table class="timeline">`,
    `<thead><tr><th class="lane-h" scope="col">lane</th>${head.join('')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody></table></div>`,
    LEGEND,
    `</div>`,
  ].join('\n');

  // An anomaly about a run rather than an item (refused-run): its mark is the run's column.
  for (const ref of anomalies) {
    if (markIds.has(ref.id) || ref.anomaly.item !== '') continue;
    const column = runsOf(ref.anomaly).map((r) => findRun(segment, r)).find((c) => c !== undefined && drawn.has(c.id));
    if (column) markIds.set(ref.id, `${prefix}-c${column.id}`);
  }
  return { html, runsHtml: renderRuns(prefix, segment, drawn, listed), markIds, listedRuns: listed };
}

const LEGEND = [
  '<div class="legend" aria-label="legend">',
  '<span><span class="mk served"></span> served in the fetch</span>',
  '<span><span class="mk post">P</span> posted (P2: 2nd post in the epoch)</span>',
  '<span><span class="mk update">U</span> updated</span>',
  '<span><span class="mk stored">R</span> row stored</span>',
  '<span><span class="mk published">+</span> feed serves it</span>',
  '<span><span class="mk edited">✎</span> feed changed it</span>',
  '<span><span class="mk forgotten">⊘</span> row deleted</span>',
  '<span><span class="mk shed">S</span> shed by the OS</span>',
  '<span><span class="mk lost">✕ lost</span> eligible, never notified</span>',
  '<span><span class="mk post a-duplicated">P2</span> duplicated</span>',
  '<span><span class="mk post a-out-of-order">P</span><span class="seq">2</span> out of order (small number: place of the post in its run)</span>',
  '<span><span class="mk post a-unexpected">P</span> unexpected</span>',
  '<span><span class="badge b-killed">killed</span> hatched column: run killed</span>',
  '</div>',
].join('');

function renderRuns(prefix: string, segment: Segment, drawn: ReadonlySet<number>, listed: ReadonlySet<number>): string {
  const runs = runColumns(segment).filter((c) => drawn.has(c.id));
  if (runs.length === 0) return '<p class="muted">No runs in this history segment.</p>';
  let previous: RunColumn | undefined;
  const items = runs.map((c) => {
    const outcome = outcomeClass(c.outcome);
    const parts: string[] = [`<b>run ${escapeHtml(c.run)}</b>`];
    if (c.deviceTime !== undefined) {
      const jump = previous?.deviceTime !== undefined ? ` (${c.deviceTime - previous.deviceTime >= 0 ? '+' : ''}${formatDuration(c.deviceTime - previous.deviceTime)})` : '';
      parts.push(`device clock ${escapeHtml(formatClockLong(c.deviceTime))}${escapeHtml(jump)}`);
    }
    parts.push(`<span${attrs({ class: `badge b-${outcome}` })}>${escapeHtml(c.outcome ?? 'unfinished')}</span>`);
    parts.push(c.fetches.length > 0 ? `fetch ${c.fetches.map((f) => escapeHtml(describeFetch(f))).join(', ')}` : 'no fetch');
    parts.push(escapeHtml(`${c.posts} posted${c.updates > 0 ? `, ${c.updates} updated` : ''}`));
    parts.push(escapeHtml(`${c.stored} ${c.stored === 1 ? 'row' : 'rows'} stored`));
    if (c.shed > 0) parts.push(escapeHtml(`${c.shed} shed`));
    previous = c;
    const evidence = c.evidence.length > 0
      ? `<details${attrs({ open: c.outcome === 'killed' || c.outcome === 'refused' })}><summary>evidence (${escapeHtml(c.evidence.length + c.moreEvidence)} ${c.evidence.length + c.moreEvidence === 1 ? 'line' : 'lines'})</summary>` +
        `<pre>${c.evidence.map(escapeHtml).join('\n')}${c.moreEvidence > 0 ? `\n… ${escapeHtml(c.moreEvidence)} more` : ''}</pre></details>`
      : '';
    return `<li${attrs({ id: listed.has(c.run) ? `${prefix}-run${c.run}` : undefined, class: `o-${outcome}` })}>${parts.join(' · ')} <a${attrs({ href: `#${prefix}-c${c.id}`, class: 'muted' })}>timeline ↑</a>${evidence}</li>`;
  });
  return `<ol class="runs">${items.join('\n')}</ol>`;
}

export interface StoryLine {
  readonly run: number;
  readonly outcome: RunOutcome | undefined;
  readonly what: string;
}

/**
 * What the history shows about an item, run by run (served, posted, row stored, shed), for the
 * anomaly's entry. At most `max` runs; `more` counts the rest.
 */
export function itemStory(segment: Segment, item: string, max: number): { lines: StoryLine[]; more: number } {
  const lane = segment.lanes.get(item);
  if (!lane) return { lines: [], more: 0 };
  const runs = [...lane.perRun.entries()].sort((a, b) => a[0] - b[0]);
  const lines = runs.slice(0, max).map(([run, f]): StoryLine => {
    const what: string[] = [];
    if (f.served) what.push('served in the fetch');
    if (f.posts > 0) what.push(f.posts === 1 ? 'posted' : `posted ${f.posts} times`);
    if (f.updates > 0) what.push(f.updates === 1 ? 'updated' : `updated ${f.updates} times`);
    if (f.posts === 0 && f.updates === 0) what.push('not notified');
    what.push(f.stored ? 'row stored' : 'no row stored');
    if (f.shed) what.push('shed by the OS');
    return { run, outcome: findRun(segment, run)?.outcome, what: what.join(', ') };
  });
  return { lines, more: Math.max(0, runs.length - max) };
}

/** "am kill while POST /receipts (request 9) was held": how a killed run ended, from its evidence. */
export function describeKill(column: RunColumn): string {
  const how = killCommand(column);
  const held = column.evidence.map((l) => /^held (\S+ \S+) \((request \d+)\)/.exec(l)).find((m) => m !== null);
  if (how !== undefined && held) return `${how} while ${held[1] ?? ''} (${held[2] ?? ''}) was held`;
  if (how !== undefined) return how;
  return endingEvidence(column).join('; ');
}

/**
 * What the history says about why an anomaly happened, when it shows a known pattern:
 * a lost item whose row a killed run stored without posting it (record before notify), or an
 * item posted by a killed run before its row was stored and posted again later (the
 * notify-then-record window). Empty when no such pattern is in the history.
 */
export function readingOf(segment: Segment, a: ReportAnomaly): string {
  const lane = segment.lanes.get(a.item);
  if (!lane) return '';
  const runs = [...lane.perRun.entries()].sort((x, y) => x[0] - y[0]);
  const killed = (run: number): boolean => findRun(segment, run)?.outcome === 'killed';
  if (a.kind === 'lost') {
    const everNotified = runs.some(([, f]) => f.posts + f.updates > 0);
    const silent = runs.find(([run, f]) => f.stored && f.posts + f.updates === 0 && killed(run));
    if (silent && !everNotified) {
      return `Its row was stored in run ${silent[0]}, which was killed, and it was never posted: the row was written before the notification and the kill fell between the two, so the runs after it skip the item as already notified.`;
    }
    return '';
  }
  if (a.kind === 'duplicated') {
    const open = runs.find(([run, f]) => f.posts + f.updates > 0 && !f.stored && killed(run));
    const again = open ? runs.find(([run, f]) => run > open[0] && f.posts + f.updates > 0) : undefined;
    if (open && again) {
      return `Notified in run ${open[0]}, which was killed before its row was stored; run ${again[0]} notified it again: the notify-then-record window${a.tolerated === true ? ' (tolerated: the kill excuses one item)' : ' (one kill excuses at most allowedDuplicates items)'}.`;
    }
  }
  return '';
}
