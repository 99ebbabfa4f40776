/**
 * What report.html draws, built from report.json and the history in one pass, in bounded
 * memory: the history is cut into segments at its `config` lines (one per scenario and device,
 * docs/design.md §5), each segment becomes columns (a run, or what happened between runs) and lanes
 * (one per item), and each segment is matched to its scenario entry in the report. Pure: the
 * caller feeds events from memory or from a stream (src/history/jsonl.ts readHistory).
 *
 * Bounds, so a history of millions of events renders: at most `maxLanes` item lanes per
 * segment (items named by an anomaly first, then in order of appearance), `maxMarksPerLane`
 * marks per lane, `maxEvidenceLines` evidence lines per mark or run, and at most
 * MAX_COLUMNS_KEPT columns per segment; what is left out is counted and the report says so.
 */
import { effectOf } from '../../checker/kinds.js';
import type { ConfigEvent, HistoryEvent, NotifyStatus, RunOutcome } from '../../history/events.js';
import type { ReportAnomaly, RunReport, ScenarioReport } from '../types.js';

export interface HtmlReportOptions {
  /** Item lanes per timeline; items named by an anomaly come first. Default 60. */
  readonly maxLanes?: number;
  /** Run columns drawn per timeline; runs named by an anomaly, killed and refused runs first. Default 60. */
  readonly maxRuns?: number;
  /** Marks drawn per item lane. Default 40. */
  readonly maxMarksPerLane?: number;
  /** Evidence lines kept per anomaly, mark and run. Default 12. */
  readonly maxEvidenceLines?: number;
  /** Anomalies listed per scenario entry. Default 200. */
  readonly maxAnomalies?: number;
  /** A problem reading the history, shown in the report instead of the timelines it prevented. */
  readonly historyProblem?: string;
}

export interface ResolvedOptions {
  readonly maxLanes: number;
  readonly maxRuns: number;
  readonly maxMarksPerLane: number;
  readonly maxEvidenceLines: number;
  readonly maxAnomalies: number;
}

export function resolveOptions(options: HtmlReportOptions = {}): ResolvedOptions {
  const whole = (v: number | undefined, fallback: number): number => (v !== undefined && Number.isFinite(v) && v >= 1 ? Math.floor(v) : fallback);
  return {
    maxLanes: whole(options.maxLanes, 60),
    maxRuns: whole(options.maxRuns, 60),
    maxMarksPerLane: whole(options.maxMarksPerLane, 40),
    maxEvidenceLines: whole(options.maxEvidenceLines, 12),
    maxAnomalies: whole(options.maxAnomalies, 200),
  };
}

/** Columns kept per segment while reading (runs beyond are counted, not kept). */
export const MAX_COLUMNS_KEPT = 5_000;
/** Items without a lane counted one by one (beyond: "more than"). */
export const MAX_OMITTED_ITEMS_COUNTED = 10_000;
/** Fetches kept per run column. */
const MAX_FETCHES_PER_RUN = 8;

export interface FetchSummary {
  readonly status: number;
  readonly items: number;
}

export interface RunColumn {
  readonly kind: 'run';
  readonly id: number;
  readonly run: number;
  /** The run-started deviceTime, when the run-started event was seen. */
  deviceTime: number | undefined;
  firstT: number;
  outcome: RunOutcome | undefined;
  fetches: FetchSummary[];
  moreFetches: number;
  posts: number;
  updates: number;
  stored: number;
  /** Posts the OS refused (named or not). */
  shed: number;
  evidence: string[];
  moreEvidence: number;
}

export interface GapColumn {
  readonly kind: 'gap';
  readonly id: number;
  firstT: number;
  /** New items the feed started serving. */
  published: number;
  /** Items the feed changed (title, date or link). */
  edited: number;
  /** `forgotten` events: "all", or how many items. */
  forgotten: ('all' | number)[];
}

export type Column = RunColumn | GapColumn;

export const MarkKind = {
  Published: 'published',
  Edited: 'edited',
  Served: 'served',
  Post: 'post',
  Update: 'update',
  Stored: 'stored',
  Forgotten: 'forgotten',
  Shed: 'shed',
} as const;
export type MarkKind = (typeof MarkKind)[keyof typeof MarkKind];

export interface Mark {
  readonly kind: MarkKind;
  readonly column: number;
  readonly t: number;
  /** The run it happened in (undefined between runs). */
  readonly run: number | undefined;
  /** For posts: the how-manieth post of the item in its epoch (1 = first). */
  readonly nth?: number;
  /** For posts: the how-manieth post of its run (1 = first), when the run column is kept. */
  readonly seq?: number;
  /** For published/edited: the title served. */
  readonly title?: string;
  readonly evidence?: readonly string[];
}

export interface Lane {
  readonly item: string;
  readonly index: number;
  title: string | undefined;
  publishedAt: number | undefined;
  readonly marks: Mark[];
  omittedMarks: number;
  /** Posts in the current epoch (reset by `forgotten`). */
  postsInEpoch: number;
  /** Per run: posts, updates, stored, served, shed (for the anomaly story; never capped). */
  readonly perRun: Map<number, RunFacts>;
}

export interface RunFacts {
  served: boolean;
  posts: number;
  updates: number;
  stored: boolean;
  shed: boolean;
}

export interface Segment {
  /** 0-based order in the history. */
  readonly index: number;
  readonly config: ConfigEvent | undefined;
  readonly scenario: string | undefined;
  readonly device: string | undefined;
  readonly columns: Column[];
  /** Columns not kept past MAX_COLUMNS_KEPT. */
  omittedColumns: number;
  readonly lanes: Map<string, Lane>;
  /** Events of items that got no lane (beyond `maxLanes`). */
  omittedItemEvents: number;
  /** Items that got no lane, up to MAX_OMITTED_ITEMS_COUNTED (then `omittedItemsOverflow`). */
  readonly omittedItemKeys: Set<string>;
  omittedItemsOverflow: boolean;
  events: number;
  /** Items named by an anomaly of the segment's entry: they get a lane before any other item. */
  readonly reserved: ReadonlySet<string>;
  /** Runs named by failing anomalies, per item: their marks are drawn past `maxMarksPerLane` (up to twice it). */
  readonly anomalyRuns: ReadonlyMap<string, ReadonlySet<number>>;
  reservedLanes: number;
  otherLanes: number;
}

/** One scenario entry of the report and the history segment it was recorded in. */
export interface EntryView {
  readonly report: ScenarioReport;
  /** 1-based trial when the scenario ran several times on this device. */
  readonly trial: number | undefined;
  readonly anomalies: readonly ReportAnomaly[];
  segment: Segment | undefined;
}

/** One scenario on one device: its entries (trials) in order. */
export interface SectionView {
  readonly id: string;
  readonly name: string;
  readonly device: string;
  readonly entries: EntryView[];
}

export interface ReportModel {
  readonly sections: SectionView[];
  /** Segments that match no scenario entry of the report. */
  readonly orphans: Segment[];
  /** Events seen in the whole history. */
  events: number;
}

function keyOf(name: string, device: string): string {
  return JSON.stringify([name, device]);
}

/**
 * The sections of a report, one per scenario and device in first-seen order, each with one
 * entry per trial. A merged entry (repeats already folded, anomalies carrying `trial`) is split
 * back into its trials when the history holds one segment per trial.
 */
function sectionsOf(report: RunReport): SectionView[] {
  const sections = new Map<string, SectionView>();
  for (const s of report.scenarios) {
    const key = keyOf(s.name, s.device);
    let section = sections.get(key);
    if (!section) {
      section = { id: `s${sections.size + 1}`, name: s.name, device: s.device, entries: [] };
      sections.set(key, section);
    }
    section.entries.push({ report: s, trial: s.repeat, anomalies: s.anomalies, segment: undefined });
  }
  for (const section of sections.values()) {
    if (section.entries.length > 1 && section.entries.some((e) => e.trial === undefined)) {
      section.entries.forEach((e, i) => {
        (e as { trial: number | undefined }).trial = e.trial ?? i + 1;
      });
    }
  }
  return [...sections.values()];
}

/** The runs an anomaly names: `runs`, else `run`. */
export function runsOf(a: ReportAnomaly): number[] {
  if (a.runs && a.runs.length > 0) return [...new Set(a.runs)];
  return a.run !== undefined ? [a.run] : [];
}

/** A tolerated duplicate, an informational out-of-order, or a kind that informs (recovered, os-shed, silent-repost): reported, not failing. */
export function isInformational(a: ReportAnomaly): boolean {
  return a.tolerated === true || a.informational === true || effectOf(a.kind) === 'info';
}

/** Per item named by an anomaly: the runs named by its failing anomalies (possibly none). */
function anomalyRuns(anomalies: readonly ReportAnomaly[]): Map<string, Set<number>> {
  const map = new Map<string, Set<number>>();
  for (const a of anomalies) {
    if (a.kind === 'refused-run') continue;
    const runs = map.get(a.item) ?? new Set<number>();
    if (!isInformational(a)) for (const r of runsOf(a)) runs.add(r);
    map.set(a.item, runs);
  }
  return map;
}

/**
 * Builds the model one event at a time. `add` every event of the history in file order (config
 * lines included), then `finish`.
 */
export class ReportModelBuilder {
  private readonly options: ResolvedOptions;
  private readonly sections: SectionView[];
  private readonly byKey = new Map<string, SectionView>();
  private readonly seenPerKey = new Map<string, number>();
  private readonly orphans: Segment[] = [];
  private readonly unkeyed: Segment[] = [];
  private current: Segment | undefined;
  private runColumns = new Map<number, RunColumn>();
  private lastColumn: Column | undefined;
  private events = 0;
  private segments = 0;

  constructor(private readonly report: RunReport, options: HtmlReportOptions = {}) {
    this.options = resolveOptions(options);
    this.sections = sectionsOf(report);
    for (const s of this.sections) this.byKey.set(keyOf(s.name, s.device), s);
  }

  add(event: HistoryEvent): void {
    this.events += 1;
    if (event.type === 'config') {
      this.startSegment(event);
      return;
    }
    const segment = this.current ?? this.startSegment(undefined);
    segment.events += 1;
    switch (event.type) {
      case 'published': {
        const column = this.gapColumn(segment, event.t);
        const lane = this.lane(segment, event.item);
        const changed = lane !== undefined && lane.title !== undefined && (lane.title !== event.title || lane.publishedAt !== event.publishedAt);
        if (column) {
          if (changed) column.edited += 1;
          else column.published += 1;
        }
        if (lane) {
          this.mark(lane, { kind: changed ? 'edited' : 'published', column: column?.id ?? -1, t: event.t, run: undefined, title: event.title });
          lane.title = event.title;
          lane.publishedAt = event.publishedAt;
        }
        return;
      }
      case 'run-started': {
        const column = this.runColumn(segment, event.run, event.t);
        if (column) {
          column.deviceTime = event.deviceTime;
          this.runEvidence(column, event.evidence);
        }
        return;
      }
      case 'fetched': {
        const column = this.runColumn(segment, event.run, event.t);
        if (column) {
          if (column.fetches.length < MAX_FETCHES_PER_RUN) column.fetches.push({ status: event.status, items: event.items.length });
          else column.moreFetches += 1;
        }
        const ok = event.status >= 200 && event.status <= 299;
        if (!ok) return;
        for (const item of event.items) {
          const lane = this.lane(segment, item);
          if (!lane) continue;
          const facts = this.facts(lane, event.run);
          if (facts.served) continue;
          facts.served = true;
          this.mark(lane, { kind: 'served', column: column?.id ?? -1, t: event.t, run: event.run, ...this.evidence(event.evidence) });
        }
        return;
      }
      case 'notified': {
        const column = this.runColumn(segment, event.run, event.t);
        if (column) {
          if (event.status === 'post') column.posts += 1;
          else column.updates += 1;
        }
        const lane = this.lane(segment, event.item);
        if (!lane) return;
        const facts = this.facts(lane, event.run);
        if (event.status === 'post') {
          facts.posts += 1;
          lane.postsInEpoch += 1;
        } else facts.updates += 1;
        const status: NotifyStatus = event.status;
        this.mark(lane, {
          kind: status === 'post' ? 'post' : 'update',
          column: column?.id ?? -1,
          t: event.t,
          run: event.run,
          ...(status === 'post' ? { nth: lane.postsInEpoch, ...(column ? { seq: column.posts } : {}) } : {}),
          ...this.evidence(event.evidence),
        });
        return;
      }
      case 'stored': {
        const column = this.runColumn(segment, event.run, event.t);
        if (column) column.stored += 1;
        const lane = this.lane(segment, event.item);
        if (!lane) return;
        this.facts(lane, event.run).stored = true;
        this.mark(lane, { kind: 'stored', column: column?.id ?? -1, t: event.t, run: event.run, ...this.evidence(event.evidence) });
        return;
      }
      case 'run-finished': {
        const column = this.runColumn(segment, event.run, event.t);
        if (column) {
          column.outcome = event.outcome;
          this.runEvidence(column, event.evidence);
        }
        return;
      }
      case 'forgotten': {
        const column = this.gapColumn(segment, event.t);
        if (column) column.forgotten.push(event.items === 'all' ? 'all' : event.items.length);
        const lanes = event.items === 'all' ? [...segment.lanes.values()] : event.items.map((i) => segment.lanes.get(i)).filter((l): l is Lane => l !== undefined);
        for (const lane of lanes) {
          lane.postsInEpoch = 0;
          this.mark(lane, { kind: 'forgotten', column: column?.id ?? -1, t: event.t, run: undefined });
        }
        return;
      }
      case 'shed': {
        const column = event.run !== undefined ? this.runColumn(segment, event.run, event.t) : this.gapColumn(segment, event.t);
        if (column && column.kind === 'run') column.shed += 1;
        if (event.item === '') return;
        const lane = this.lane(segment, event.item);
        if (!lane) return;
        if (event.run !== undefined) this.facts(lane, event.run).shed = true;
        this.mark(lane, { kind: 'shed', column: column?.id ?? -1, t: event.t, run: event.run, ...this.evidence(event.evidence) });
        return;
      }
      case 'request':
      case 'effect':
      case 'rows':
      case 'schedule':
      case 'schema':
      case 'action':
      case 'aborted':
      case 'unparsed':
      case 'system-summary':
      case 'not-an-item':
        // Observations of the property checks: their anomalies reach the page through the report.
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown history event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  finish(): ReportModel {
    // Segments without scenario/device: attach in order to entries that got none.
    const waiting = this.sections.flatMap((s) => s.entries.filter((e) => e.segment === undefined));
    for (const segment of this.unkeyed) {
      const entry = waiting.shift();
      if (entry) entry.segment = segment;
      else this.orphans.push(segment);
    }
    return { sections: this.sections, orphans: this.orphans, events: this.events };
  }

  // ---------------------------------------------------------------- segments

  private startSegment(config: ConfigEvent | undefined): Segment {
    const scenario = config?.scenario;
    const device = config?.device;
    let entry: EntryView | undefined;
    let splitFrom: { section: SectionView; trial: number } | undefined;
    if (scenario !== undefined && device !== undefined) {
      const key = keyOf(scenario, device);
      const seen = this.seenPerKey.get(key) ?? 0;
      this.seenPerKey.set(key, seen + 1);
      const section = this.byKey.get(key);
      if (section) {
        const only = section.entries[0];
        const merged = section.entries.length === 1 && only !== undefined && (only.report.trials ?? 0) + (only.report.undecided ?? 0) > 1;
        if (merged && only) splitFrom = { section, trial: seen + 1 };
        else entry = section.entries[seen];
      }
    }
    const anomalies = entry ? entry.anomalies : splitFrom ? (splitFrom.section.entries[0]?.anomalies.filter((a) => a.trial === splitFrom.trial) ?? []) : this.unkeyedAnomalies();
    const runsByItem = anomalyRuns(anomalies);
    const segment: Segment = {
      index: this.segments++,
      config,
      scenario,
      device,
      columns: [],
      omittedColumns: 0,
      lanes: new Map(),
      omittedItemEvents: 0,
      omittedItemKeys: new Set(),
      omittedItemsOverflow: false,
      events: 0,
      reserved: new Set(runsByItem.keys()),
      anomalyRuns: runsByItem,
      reservedLanes: 0,
      otherLanes: 0,
    };
    this.current = segment;
    this.runColumns = new Map();
    this.lastColumn = undefined;
    if (entry) entry.segment = segment;
    else if (splitFrom) this.attachTrial(splitFrom.section, splitFrom.trial, segment);
    else if (scenario !== undefined && device !== undefined) this.orphans.push(segment);
    else this.unkeyed.push(segment);
    return segment;
  }

  /** Without scenario names in the history, the anomalies of the entry the segment will attach to. */
  private unkeyedAnomalies(): readonly ReportAnomaly[] {
    const waiting = this.sections.flatMap((s) => s.entries.filter((e) => e.segment === undefined));
    return waiting[this.unkeyed.length]?.anomalies ?? [];
  }

  /** A merged entry (repeats folded in report.json) gets one entry per trial segment. */
  private attachTrial(section: SectionView, trial: number, segment: Segment): void {
    const merged = section.entries[0];
    if (!merged) return;
    const existing = section.entries.find((e) => e.trial === trial && e.segment === undefined);
    if (existing) {
      existing.segment = segment;
      return;
    }
    const view: EntryView = { report: merged.report, trial, anomalies: merged.report.anomalies.filter((a) => a.trial === trial), segment };
    if (merged.segment === undefined && merged.trial === undefined) section.entries.splice(0, 1, view);
    else section.entries.push(view);
  }

  // ---------------------------------------------------------------- columns, lanes, marks

  private newColumn<C extends Column>(segment: Segment, column: C): C | undefined {
    if (segment.columns.length >= MAX_COLUMNS_KEPT) {
      segment.omittedColumns += 1;
      return undefined;
    }
    segment.columns.push(column);
    this.lastColumn = column;
    return column;
  }

  private runColumn(segment: Segment, run: number, t: number): RunColumn | undefined {
    const existing = this.runColumns.get(run);
    if (existing) {
      this.lastColumn = existing;
      return existing;
    }
    const column = this.newColumn<RunColumn>(segment, {
      kind: 'run', id: segment.columns.length, run, deviceTime: undefined, firstT: t, outcome: undefined,
      fetches: [], moreFetches: 0, posts: 0, updates: 0, stored: 0, shed: 0, evidence: [], moreEvidence: 0,
    });
    if (column) this.runColumns.set(run, column);
    return column;
  }

  /** Events between runs (feed changes, rows deleted) share one column until the next run. */
  private gapColumn(segment: Segment, t: number): GapColumn | undefined {
    const last = this.lastColumn;
    if (last && last.kind === 'gap') return last;
    return this.newColumn<GapColumn>(segment, { kind: 'gap', id: segment.columns.length, firstT: t, published: 0, edited: 0, forgotten: [] });
  }

  private lane(segment: Segment, item: string): Lane | undefined {
    const existing = segment.lanes.get(item);
    if (existing) return existing;
    const max = this.options.maxLanes;
    const isReserved = segment.reserved.has(item);
    const admit = isReserved ? segment.reservedLanes < max : segment.otherLanes < max - Math.min(segment.reserved.size, max);
    if (!admit) {
      segment.omittedItemEvents += 1;
      if (segment.omittedItemKeys.size < MAX_OMITTED_ITEMS_COUNTED) segment.omittedItemKeys.add(item);
      else segment.omittedItemsOverflow = true;
      return undefined;
    }
    const lane: Lane = { item, index: segment.lanes.size, title: undefined, publishedAt: undefined, marks: [], omittedMarks: 0, postsInEpoch: 0, perRun: new Map() };
    segment.lanes.set(item, lane);
    if (isReserved) segment.reservedLanes += 1;
    else segment.otherLanes += 1;
    return lane;
  }

  private facts(lane: Lane, run: number): RunFacts {
    let facts = lane.perRun.get(run);
    if (!facts) {
      facts = { served: false, posts: 0, updates: 0, stored: false, shed: false };
      // perRun is bounded by the runs of the segment an item takes part in; cap like marks.
      if (lane.perRun.size < MAX_COLUMNS_KEPT) lane.perRun.set(run, facts);
    }
    return facts;
  }

  private mark(lane: Lane, mark: Mark): void {
    // Marks of a run named by a failing anomaly are drawn past the cap (up to twice the cap).
    const max = this.options.maxMarksPerLane;
    const named = mark.kind !== 'served' && mark.run !== undefined && this.current?.anomalyRuns.get(lane.item)?.has(mark.run) === true;
    if (lane.marks.length >= (named ? 2 * max : max)) {
      lane.omittedMarks += 1;
      return;
    }
    lane.marks.push(mark);
  }

  /** Evidence of a run (its start and its end), each line once, at most `maxEvidenceLines`. */
  private runEvidence(column: RunColumn, lines: readonly string[] | undefined): void {
    for (const line of lines ?? []) {
      if (column.evidence.includes(line)) continue;
      if (column.evidence.length < this.options.maxEvidenceLines) column.evidence.push(line);
      else column.moreEvidence += 1;
    }
  }

  private evidence(lines: readonly string[] | undefined): { evidence?: readonly string[] } {
    if (!lines || lines.length === 0) return {};
    return { evidence: lines.slice(0, this.options.maxEvidenceLines) };
  }
}

/** Builds the model from events held in memory. */
export function buildReportModel(report: RunReport, history: Iterable<HistoryEvent>, options: HtmlReportOptions = {}): ReportModel {
  const builder = new ReportModelBuilder(report, options);
  for (const event of history) builder.add(event);
  return builder.finish();
}
