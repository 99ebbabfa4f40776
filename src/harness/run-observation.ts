/**
 * What one worker run was seen to do, as history events: the logcat lines of the run (posts and
 * updates from `notification_enqueue`, what NotificationManagerService shed, lines the parsers
 * could not read), the fixture server's journal (requests, their effects, the feed as fetched)
 * and the rows the app stored. DeviceHarness drives the device and hands what it observed here;
 * this module only turns observations into events, so every event of a run comes from one place.
 */
import type { JournalEntry, ReceiptEffect } from '../feed/fixture-server.js';
import type { FetchError, HistoryEvent, OutcomeSource, RunOutcome } from '../history/events.js';
import type { FeedItemIndex, NotificationMatch } from '../android/notification-mapping.js';
import { isSystemSummaryTag, notAnItemReason, parseNotificationEnqueue } from '../android/parsers/notification-events.js';
import { parseFetchError } from '../android/parsers/fetch-errors.js';
import { parseNmsWarning } from '../android/parsers/nms-warnings.js';
import { parseWorkerResult, WORKER_WRAPPER_TAG } from '../android/parsers/work-manager-log.js';
import type { ObservedLine } from './log-observer.js';

/** The run the observations belong to. */
export interface RunWindow {
  readonly run: number;
  /** A probe (a run forced without moving the clock) leaves no run events. */
  readonly probe: boolean;
  /** Device time when the run was forced. */
  readonly deviceTime: number;
  /** Host time when the run was forced: maps the fixture server's host times onto device time. */
  readonly hostAtStart: number;
}

export interface ObservationContext {
  readonly pkg: string;
  readonly match: NotificationMatch;
  readonly index: FeedItemIndex;
  readonly feedPath: string;
  readonly backendPath: string;
  /** The config's `notifications.channel`: a post on another channel is not an item. */
  readonly itemsChannel?: string;
  /** Maps a notification the index could not map by its id or tag (reads it from the device). */
  mapByContent(index: FeedItemIndex, id: number, tag: string | null): Promise<string>;
}

export interface LogObservation {
  readonly events: HistoryEvent[];
  /** Items posted, then updated, in the order the lines came. */
  readonly posted: string[];
  readonly updated: string[];
  /** Lines worth keeping as the run's evidence (result lines, NMS warnings about the app). */
  readonly evidence: string[];
  /**
   * The first line in which the worker's process said why a fetch failed (its pid is the one
   * that logged WorkManager's result line for the run): what a run that fetched nothing explains.
   */
  readonly fetchError: FetchError | undefined;
}

/** The run's logcat lines. */
export async function observeLogLines(lines: readonly ObservedLine[], window: RunWindow, ctx: ObservationContext): Promise<LogObservation> {
  const events: HistoryEvent[] = [];
  const posted: string[] = [];
  const updated: string[] = [];
  const evidence: string[] = [];
  const fetchErrors: { pid: number; error: FetchError }[] = [];
  const workerPids = new Set<number>();
  const emit = (event: HistoryEvent): void => {
    if (!window.probe) events.push(event);
  };
  for (const line of lines) {
    const t = line.timeMs ?? window.deviceTime;
    if (line.tag === 'notification_enqueue') {
      const e = parseNotificationEnqueue(line.message);
      if (!e) {
        // A post the parser cannot read is a post the history would miss: undecided, not lost.
        emit({ type: 'unparsed', t, tag: line.tag, line: line.raw, run: window.run });
        continue;
      }
      if (e.pkg !== ctx.pkg || e.status === 'ignored') continue;
      if (isSystemSummaryTag(e.tag)) {
        emit({ type: 'system-summary', t, run: window.run, id: e.id, tag: e.tag, status: e.status, evidence: [line.raw] });
        continue;
      }
      const reason = notAnItemReason(e, ctx.itemsChannel);
      if (reason !== null) {
        emit({ type: 'not-an-item', t, run: window.run, id: e.id, tag: e.tag, reason, channel: e.channel, status: e.status, evidence: [line.raw] });
        continue;
      }
      const mapping = ctx.index.map({ id: e.id, tag: e.tag }, ctx.match, null);
      const item = mapping.kind === 'mapped' ? mapping.item : await ctx.mapByContent(ctx.index, e.id, e.tag);
      (e.status === 'post' ? posted : updated).push(item);
      emit({ type: 'notified', t, run: window.run, item, status: e.status, alertOnce: e.alertOnce, evidence: [line.raw] });
    } else if (line.tag === 'NotificationService') {
      const w = parseNmsWarning(line.message);
      if (!w || !('pkg' in w) || w.pkg !== ctx.pkg) continue;
      evidence.push(line.raw);
      if (w.kind === 'no-channel') continue;
      // The rate-limit line names the notification key (user|pkg|id|tag|uid): map its id.
      const parts = w.kind === 'rate-limit' ? w.key.split('|') : [];
      const id = Number(parts[2]);
      const tag = parts[3] === undefined || parts[3] === 'null' ? null : parts[3];
      const mapped = parts.length >= 4 && Number.isInteger(id) ? ctx.index.map({ id, tag }, ctx.match, null) : undefined;
      emit({ type: 'shed', t, item: mapped?.kind === 'mapped' ? mapped.item : '', run: window.run, evidence: [line.raw] });
    } else if (line.tag === WORKER_WRAPPER_TAG && parseWorkerResult(line.message) !== null) {
      evidence.push(line.raw);
      workerPids.add(line.pid);
    } else {
      const cause = parseFetchError(line.message);
      if (cause !== undefined) fetchErrors.push({ pid: line.pid, error: { cause, line: line.raw } });
    }
  }
  const fetchError = fetchErrors.find((f) => workerPids.has(f.pid))?.error;
  return { events, posted, updated, evidence, fetchError };
}

export interface JournalObservation {
  readonly events: HistoryEvent[];
  /** HTTP status of each feed fetch, in order. */
  readonly fetchStatuses: number[];
}

/** The fixture server's journal entries of the run, with the server effects they caused. */
export function observeJournal(entries: readonly JournalEntry[], effects: readonly ReceiptEffect[], window: RunWindow, ctx: Pick<ObservationContext, 'feedPath' | 'backendPath'>): JournalObservation {
  const events: HistoryEvent[] = [];
  const fetchStatuses: number[] = [];
  for (const j of entries) {
    const t = window.deviceTime + (j.t - window.hostAtStart);
    const path = stripQuery(j.path);
    const route = path === ctx.feedPath ? 'feed' : path === ctx.backendPath ? 'receipts' : 'other';
    if (route === 'feed') fetchStatuses.push(j.status);
    if (window.probe) continue;
    events.push({
      type: 'request', t, run: window.run, route, method: j.method, path: j.path, status: j.status,
      ...(j.dropped ? { dropped: true } : {}),
      headers: { ...j.headers },
      ...(j.body !== '' ? { body: j.body.slice(0, 4096) } : {}),
    });
    for (const e of effects) if (e.seq === j.seq) events.push({ type: 'effect', t, key: e.key, item: e.link });
    if (route === 'feed') events.push({ type: 'fetched', t, run: window.run, items: [...(j.itemsServed ?? [])], status: j.status, evidence: [journalLine(j)] });
  }
  return { events, fetchStatuses };
}

/**
 * The rows the run stored, and its end; with what the app logged about its fetch when the run
 * fetched nothing from the fixture server (a `fetchError` then explains the `no-fetch`), and where
 * the outcome came from (the result line or the workdb).
 */
export function observeRunEnd(stored: readonly string[], t: number, window: RunWindow, outcome: RunOutcome, evidence: readonly string[], fetchError?: FetchError, outcomeFrom?: OutcomeSource): HistoryEvent[] {
  if (window.probe) return [];
  return [
    ...stored.map((item): HistoryEvent => ({ type: 'stored', t, run: window.run, item })),
    { type: 'run-finished', t, run: window.run, outcome, ...(outcomeFrom !== undefined ? { outcomeFrom } : {}), evidence: evidence.slice(-5), ...(fetchError !== undefined ? { fetchError } : {}) },
  ];
}

export function stripQuery(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? path : path.slice(0, q);
}

export function journalLine(j: JournalEntry): string {
  return `${j.method} ${j.path} → ${j.dropped ? 'dropped' : j.status}${j.fault ? ` (fault ${j.fault})` : ''}`;
}

export { isSystemSummaryTag };

/** A parsed notification_enqueue that is the app's own post (not Android's summary in its name). */
export function isAppPost(e: { readonly pkg: string; readonly tag: string | null } | null, pkg: string): boolean {
  return e !== null && e.pkg === pkg && !isSystemSummaryTag(e.tag);
}
