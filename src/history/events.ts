/**
 * The history format (DESIGN.md §5): JSON Lines, one event per line, times `t` in device epoch
 * milliseconds. This module is pure (types and field validation, no I/O): the checker imports it.
 *
 * Besides the fields of DESIGN.md §5, every timed event may carry `device` (the adb serial it
 * was observed on) and `evidence` (the raw lines it was derived from: a logcat line, a journal
 * entry, a database row), which reports show next to the anomalies. `fetched.status` 0 means the
 * request got no HTTP response (connection refused, reset or timed out). `shed` may name the
 * `run` in which the OS refused the post.
 */

export const HistoryEventType = {
  Config: 'config',
  Published: 'published',
  RunStarted: 'run-started',
  Fetched: 'fetched',
  Notified: 'notified',
  Stored: 'stored',
  RunFinished: 'run-finished',
  Forgotten: 'forgotten',
  Shed: 'shed',
} as const;
export type HistoryEventType = (typeof HistoryEventType)[keyof typeof HistoryEventType];

export const RunOutcome = {
  Success: 'success',
  Retry: 'retry',
  Failure: 'failure',
  Killed: 'killed',
  Refused: 'refused',
} as const;
export type RunOutcome = (typeof RunOutcome)[keyof typeof RunOutcome];

export const NotifyStatus = { Post: 'post', Update: 'update' } as const;
export type NotifyStatus = (typeof NotifyStatus)[keyof typeof NotifyStatus];

/**
 * Optional first line: what the history was recorded with. A later config line starts a new
 * segment (`run --out` writes one per scenario and device), checked on its own with its own
 * settings; the verdicts of the segments merge (fail beats unknown beats pass).
 */
export interface ConfigEvent {
  type: 'config';
  windowMs: number;
  intervalMs?: number;
  allowedDuplicates?: number;
  device?: string;
  /** The scenario the segment records. */
  scenario?: string;
  /** false: out-of-order posts are reported but do not fail the segment (default true). */
  checkOrder?: boolean;
}

interface TimedEventBase {
  /** Device epoch milliseconds. */
  t: number;
  device?: string;
  evidence?: string[];
}

/** The feed started serving an item (or changed it: a later `published` for the same key wins). */
export interface PublishedEvent extends TimedEventBase {
  type: 'published';
  /** The dedup key: the link, or "" when the entry has none. */
  item: string;
  /** Publication time in ms; 0 when the date did not parse. */
  publishedAt: number;
  title: string;
}

export interface RunStartedEvent extends TimedEventBase {
  type: 'run-started';
  run: number;
  /** The device wall clock when the run started: the `now` of the window test. */
  deviceTime: number;
}

export interface FetchedEvent extends TimedEventBase {
  type: 'fetched';
  run: number;
  /** Item keys served in that response. */
  items: string[];
  /** HTTP status; 0 when no response arrived. */
  status: number;
}

export interface NotifiedEvent extends TimedEventBase {
  type: 'notified';
  run: number;
  item: string;
  status: NotifyStatus;
}

export interface StoredEvent extends TimedEventBase {
  type: 'stored';
  run: number;
  item: string;
}

export interface RunFinishedEvent extends TimedEventBase {
  type: 'run-finished';
  run: number;
  outcome: RunOutcome;
}

export interface ForgottenEvent extends TimedEventBase {
  type: 'forgotten';
  /** Rows deleted: a new dedup epoch for these items ("all": every item). */
  items: 'all' | string[];
}

export interface ShedEvent extends TimedEventBase {
  type: 'shed';
  item: string;
  run?: number;
}

export type TimedHistoryEvent =
  | PublishedEvent
  | RunStartedEvent
  | FetchedEvent
  | NotifiedEvent
  | StoredEvent
  | RunFinishedEvent
  | ForgottenEvent
  | ShedEvent;

export type HistoryEvent = ConfigEvent | TimedHistoryEvent;

/** An example line per type, quoted in error messages so the fix is visible. */
export const EXAMPLE_EVENTS: { readonly [K in HistoryEventType]: string } = {
  config: '{"type":"config","windowMs":172800000,"intervalMs":86400000,"allowedDuplicates":0}',
  published: '{"type":"published","t":1717000000000,"item":"https://example.com/a","publishedAt":1716990000000,"title":"A"}',
  'run-started': '{"type":"run-started","t":1717000000000,"run":1,"deviceTime":1717000000000}',
  fetched: '{"type":"fetched","t":1717000000100,"run":1,"items":["https://example.com/a"],"status":200}',
  notified: '{"type":"notified","t":1717000000200,"run":1,"item":"https://example.com/a","status":"post"}',
  stored: '{"type":"stored","t":1717000000300,"run":1,"item":"https://example.com/a"}',
  'run-finished': '{"type":"run-finished","t":1717000000400,"run":1,"outcome":"success"}',
  forgotten: '{"type":"forgotten","t":1717000000500,"items":"all"}',
  shed: '{"type":"shed","t":1717000000600,"item":"https://example.com/a","run":1}',
};

const EVENT_TYPES: readonly string[] = Object.values(HistoryEventType);
const RUN_OUTCOMES: readonly string[] = Object.values(RunOutcome);
const NOTIFY_STATUSES: readonly string[] = Object.values(NotifyStatus);

export type ParsedHistoryEvent = { event: HistoryEvent } | { problem: string };

/** Short JSON rendering of a found value for messages. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isRunNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Checks the common optional fields; returns a problem or undefined. */
function checkCommon(o: Record<string, unknown>): string | undefined {
  if (o['device'] !== undefined && typeof o['device'] !== 'string') return `"device" must be a string (an adb serial), got ${showValue(o['device'])}`;
  if (o['evidence'] !== undefined && !isStringArray(o['evidence'])) return `"evidence" must be an array of strings, got ${showValue(o['evidence'])}`;
  return undefined;
}

function checkTimed(o: Record<string, unknown>): string | undefined {
  if (!isFiniteNumber(o['t'])) return `"t" must be a number (device epoch ms), got ${showValue(o['t'])}`;
  return checkCommon(o);
}

function checkRun(o: Record<string, unknown>): string | undefined {
  if (!isRunNumber(o['run'])) return `"run" must be a whole number >= 0, got ${showValue(o['run'])}`;
  return undefined;
}

function checkItem(o: Record<string, unknown>): string | undefined {
  if (typeof o['item'] !== 'string') return `"item" must be a string (the item key, "" when the entry has no link), got ${showValue(o['item'])}`;
  return undefined;
}

/**
 * Validates one decoded JSON value as a history event. Returns the event itself (unknown extra
 * fields are kept) or a problem sentence naming the field, the value found and what is expected.
 */
export function parseHistoryEvent(value: unknown): ParsedHistoryEvent {
  if (!isRecord(value)) return { problem: `an event must be a JSON object, got ${showValue(value)}` };
  const type = value['type'];
  if (typeof type !== 'string' || !EVENT_TYPES.includes(type)) {
    return { problem: `"type" must be one of ${EVENT_TYPES.join(', ')}, got ${showValue(type)}` };
  }
  const problem = findProblem(type as HistoryEventType, value);
  if (problem !== undefined) return { problem: `"${type}" event: ${problem}` };
  return { event: value as unknown as HistoryEvent };
}

function findProblem(type: HistoryEventType, o: Record<string, unknown>): string | undefined {
  switch (type) {
    case 'config':
      if (!isFiniteNumber(o['windowMs']) || o['windowMs'] <= 0) return `"windowMs" must be a positive number of ms, got ${showValue(o['windowMs'])}`;
      if (o['intervalMs'] !== undefined && (!isFiniteNumber(o['intervalMs']) || o['intervalMs'] <= 0)) return `"intervalMs" must be a positive number of ms, got ${showValue(o['intervalMs'])}`;
      if (o['allowedDuplicates'] !== undefined && !isRunNumber(o['allowedDuplicates'])) return `"allowedDuplicates" must be a whole number >= 0, got ${showValue(o['allowedDuplicates'])}`;
      return checkCommon(o);
    case 'published':
      return checkTimed(o) ?? checkItem(o) ??
        (!isFiniteNumber(o['publishedAt']) ? `"publishedAt" must be a number of ms (0 when the date did not parse), got ${showValue(o['publishedAt'])}` : undefined) ??
        (typeof o['title'] !== 'string' ? `"title" must be a string, got ${showValue(o['title'])}` : undefined);
    case 'run-started':
      return checkTimed(o) ?? checkRun(o) ??
        (!isFiniteNumber(o['deviceTime']) ? `"deviceTime" must be a number (device wall clock in epoch ms), got ${showValue(o['deviceTime'])}` : undefined);
    case 'fetched':
      return checkTimed(o) ?? checkRun(o) ??
        (!isStringArray(o['items']) ? `"items" must be an array of item keys, got ${showValue(o['items'])}` : undefined) ??
        (!isRunNumber(o['status']) ? `"status" must be an HTTP status code (0 when no response arrived), got ${showValue(o['status'])}` : undefined);
    case 'notified':
      return checkTimed(o) ?? checkRun(o) ?? checkItem(o) ??
        (typeof o['status'] !== 'string' || !NOTIFY_STATUSES.includes(o['status']) ? `"status" must be "post" or "update", got ${showValue(o['status'])}` : undefined);
    case 'stored':
      return checkTimed(o) ?? checkRun(o) ?? checkItem(o);
    case 'run-finished':
      return checkTimed(o) ?? checkRun(o) ??
        (typeof o['outcome'] !== 'string' || !RUN_OUTCOMES.includes(o['outcome']) ? `"outcome" must be one of ${RUN_OUTCOMES.join(', ')}, got ${showValue(o['outcome'])}` : undefined);
    case 'forgotten':
      return checkTimed(o) ??
        (o['items'] !== 'all' && !isStringArray(o['items']) ? `"items" must be "all" or an array of item keys, got ${showValue(o['items'])}` : undefined);
    case 'shed':
      return checkTimed(o) ?? checkItem(o) ??
        (o['run'] !== undefined && !isRunNumber(o['run']) ? `"run" must be a whole number >= 0 when present, got ${showValue(o['run'])}` : undefined);
    default: {
      const unreachable: never = type;
      return `unknown type ${String(unreachable)}`;
    }
  }
}
