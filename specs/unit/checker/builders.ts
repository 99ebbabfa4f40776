/**
 * Tiny builders for history events (Jepsen/Elle style): each case reads as the history it is.
 * Times are epoch ms on the device clock; T is a readable origin.
 */
import type {
  ActionEvent, ConfigEvent, EffectEvent, FetchedEvent, ForgottenEvent, HistoryEvent, NotifiedEvent, PublishedEvent,
  RequestEvent, RowsEvent, RunFinishedEvent, RunOutcome, RunStartedEvent, ScheduleEvent, ScheduleSpec, SchemaEvent,
  ShedEvent, StoredEvent,
} from '../../../src/history/events.js';

export const MIN = 60_000;
export const H = 3_600_000;
export const WINDOW = 48 * H;
/** 2024-06-01T12:00:00.000Z */
export const T = Date.UTC(2024, 5, 1, 12);

export const A = 'https://feed.example/a';
export const B = 'https://feed.example/b';
export const C = 'https://feed.example/c';
export const D = 'https://feed.example/d';

export const config = (windowMs = WINDOW, allowedDuplicates?: number): ConfigEvent =>
  ({ type: 'config', windowMs, ...(allowedDuplicates !== undefined ? { allowedDuplicates } : {}) });
export const published = (t: number, item: string, publishedAt: number, title = item.slice(item.lastIndexOf('/') + 1).toUpperCase()): PublishedEvent =>
  ({ type: 'published', t, item, publishedAt, title });
export const runStarted = (t: number, run: number, deviceTime = t): RunStartedEvent => ({ type: 'run-started', t, run, deviceTime });
export const fetched = (t: number, run: number, items: string[], status = 200): FetchedEvent => ({ type: 'fetched', t, run, items, status });
export const notified = (t: number, run: number, item: string): NotifiedEvent => ({ type: 'notified', t, run, item, status: 'post' });
export const updated = (t: number, run: number, item: string): NotifiedEvent => ({ type: 'notified', t, run, item, status: 'update' });
/** An update whose notification carries FLAG_ONLY_ALERT_ONCE: silent. */
export const silentUpdate = (t: number, run: number, item: string): NotifiedEvent => ({ type: 'notified', t, run, item, status: 'update', alertOnce: true });
export const stored = (t: number, run: number, item: string): StoredEvent => ({ type: 'stored', t, run, item });
export const runFinished = (t: number, run: number, outcome: RunOutcome = 'success'): RunFinishedEvent => ({ type: 'run-finished', t, run, outcome });
export const forgotten = (t: number, items: 'all' | string[] = 'all'): ForgottenEvent => ({ type: 'forgotten', t, items });
export const shed = (t: number, item: string, run?: number): ShedEvent => ({ type: 'shed', t, item, ...(run !== undefined ? { run } : {}) });

/**
 * A run that fetches `feed` and, in this order, notifies then stores each of `posts`
 * (notify-then-record, as the reference app does), then finishes with `outcome`.
 */
export function run(n: number, t: number, feed: string[], posts: string[], outcome: RunOutcome = 'success'): HistoryEvent[] {
  return [
    runStarted(t, n),
    fetched(t + 1, n, feed),
    ...posts.flatMap((item, i) => [notified(t + 2 + 2 * i, n, item), stored(t + 3 + 2 * i, n, item)]),
    runFinished(t + 2 + 2 * posts.length, n, outcome),
  ];
}

export const ZERO = {
  lostCount: 0, duplicatedCount: 0, unexpectedCount: 0, outOfOrderCount: 0,
  notifiedCount: 0, recoveredCount: 0, shedCount: 0, eligibleCount: 0,
} as const;

/** Zero counts overridden by `c`. */
export const counts = (c: Partial<Record<keyof typeof ZERO, number>>) => ({ ...ZERO, ...c });

// ------------------------------------------------------------ observations of the property checks

/** A POST to the backend about `item`, with `key` in the Idempotency-Key header ('' for none). */
export const receipt = (t: number, run: number, item: string, key: string, outcome: number | 'dropped' = 200): RequestEvent => ({
  type: 'request', t, run, route: 'receipts', method: 'POST', path: '/receipts',
  status: outcome === 'dropped' ? 0 : outcome,
  ...(outcome === 'dropped' ? { dropped: true } : {}),
  headers: key === '' ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'idempotency-key': key },
  body: JSON.stringify({ link: item, title: 'x' }),
});
export const effect = (t: number, item: string, key: string | null): EffectEvent => ({ type: 'effect', t, key, item });
export const rows = (t: number, keys: (string | null)[]): RowsEvent => ({ type: 'rows', t, table: 'notified_items', keyColumn: 'link', keys });

/** A periodic WorkSpec as WorkManager's database holds it. */
export const spec = (id: string, over: Partial<ScheduleSpec> = {}): ScheduleSpec => ({
  id, named: true, workerClass: 'com.example.FeedWorker', state: 0, intervalMs: 24 * H, flexMs: 24 * H,
  lastEnqueueTime: T - H, runAttemptCount: 0, systemId: 7, ...over,
});
export const schedule = (t: number, specs: ScheduleSpec[], label?: string, primary: string | null = specs[0]?.id ?? null): ScheduleEvent => ({
  type: 'schedule', t, ...(label !== undefined ? { label } : {}), uniqueName: 'feed-poll', workerClass: 'com.example.FeedWorker', specs, primary,
});
export const probeRun = (t: number, outcome: RunOutcome, statuses: number[] = []): ActionEvent => ({ type: 'action', t, action: 'probe-run', outcome, statuses });

/** The reference app's dedup table: `link` nullable with a UNIQUE index. */
export const goodSchema = (over: Partial<SchemaEvent> = {}): SchemaEvent => ({
  type: 'schema', t: T, table: 'notified_items', keyColumn: 'link',
  columns: [
    { name: 'id', type: 'INTEGER', notnull: false, pk: true },
    { name: 'link', type: 'TEXT', notnull: false, pk: false },
    { name: 'title', type: 'TEXT', notnull: true, pk: false },
  ],
  indexes: [{ name: 'index_notified_items_link', unique: true, partial: false, columns: ['link'] }],
  nullKeyRowsStored: 2,
  replay: { key: A, rowsAdded: 0 },
  ...over,
});
