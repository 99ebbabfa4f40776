/**
 * The history format (docs/design.md §5): JSON Lines, one event per line, times `t` in device epoch
 * milliseconds. This module is pure (types and field validation, no I/O): the checker imports it.
 *
 * Besides the fields of docs/design.md §5, every timed event may carry `device` (the adb serial it
 * was observed on) and `evidence` (the raw lines it was derived from: a logcat line, a journal
 * entry, a database row), which reports show next to the anomalies. `fetched.status` 0 means the
 * request got no HTTP response (connection refused, reset or timed out). `shed` may name the
 * `run` in which the OS refused the post.
 *
 * Besides the notification events, a history holds every other observation a check reads, so
 * that the verdict is a function of the history alone:
 * - `request`: one request the fixture server answered (feed or backend), with its headers;
 * - `effect`: one effect the backend stored (a processed receipt, with its idempotency key);
 * - `rows`: the key column of the app's dedup table as read from a pulled copy;
 * - `schedule`: the app's periodic WorkSpecs as read from WorkManager's database;
 * - `schema`: the dedup table's schema and the result of probe inserts on a pulled copy;
 * - `action`: what the harness did: every device command as sent (reads folded), and its own
 *   steps that are not one command (a fault plan, a row deletion, a probe run's result);
 * - `aborted`: the harness itself failed, so the history is incomplete (verdict unknown);
 * - `unparsed`: a line of a record kind the checks rely on (a `notification_enqueue` event) that
 *   the parsers did not understand: what it recorded is missing (verdict unknown, not lost);
 * - `system-summary`: a post Android made in the app's name (an autogroup summary, tag
 *   `ranker_group`, or an Android 16 `Aggregate_*` section group), kept apart from the items;
 *   informational, no check reads it;
 * - `not-an-item`: a post of the app that is not an item (a group summary, an ongoing or
 *   foreground-service post, a post on another channel than `notifications.channel`), with the
 *   reason; informational, no check reads it.
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
  Request: 'request',
  Effect: 'effect',
  Rows: 'rows',
  Schedule: 'schedule',
  Schema: 'schema',
  Action: 'action',
  Aborted: 'aborted',
  Unparsed: 'unparsed',
  SystemSummary: 'system-summary',
  NotAnItem: 'not-an-item',
} as const;
export type HistoryEventType = (typeof HistoryEventType)[keyof typeof HistoryEventType];

export const RunOutcome = {
  Success: 'success',
  Retry: 'retry',
  Failure: 'failure',
  Killed: 'killed',
  Refused: 'refused',
  /**
   * Success or failure, told apart only by WorkManager's INFO result line: a periodic WorkSpec's
   * row is reset the same way for both (androidx WorkerWrapper.handleResult → resetPeriodic), so
   * a run whose outcome was read from the workdb, with no result line, ends `finished`.
   */
  Finished: 'finished',
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
  /**
   * The property checks of the segment besides the notification checks (src/checker/properties):
   * what the scenario verifies, named once in the scenario and carried here so that `check`
   * decides from the history alone.
   */
  properties?: string[];
  /** The backend's idempotency header (the `request` events' header that carries the key). */
  idempotencyHeader?: string;
  /**
   * Where the harness served the feed to the device: the config's `feed.devicePort` (the port
   * `adb reverse` forwards) and `feed.path`. A run that fetched nothing is explained against it.
   */
  feed?: FeedPlace;
}

/** The feed's place as the config gives it (`feed.devicePort`, `feed.path`). */
export interface FeedPlace {
  devicePort: number;
  path: string;
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
  /** The scenario's short name for the item (a probe's role, e.g. `missed-run-edge`). */
  label?: string;
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
  /**
   * The notification's flags carry FLAG_ONLY_ALERT_ONCE (0x8): an update of it is silent.
   * Absent in older histories: false.
   */
  alertOnce?: boolean;
}

/** A record of the item appeared during the run: its row (key table), its flag set (flag table), the mark moved to or past it (watermark). */
export interface StoredEvent extends TimedEventBase {
  type: 'stored';
  run: number;
  item: string;
}

/** Where a run's outcome was read: WorkManager's result line, or its row in the workdb and JobScheduler's job state. */
/**
 * Where a run's outcome was read: WorkManager's result line or the app's own (work.resultLine),
 * WorkManager's database, or JobScheduler's job (its failure count once it let the job go).
 */
export const OutcomeSource = { ResultLine: 'result-line', WorkDb: 'workdb', JobState: 'job-state' } as const;
export type OutcomeSource = (typeof OutcomeSource)[keyof typeof OutcomeSource];

export interface RunFinishedEvent extends TimedEventBase {
  type: 'run-finished';
  run: number;
  outcome: RunOutcome;
  /**
   * Where the outcome came from (optional): `result-line` (WM-WorkerWrapper's "Worker result …"
   * line) or `workdb` (no result line came: the WorkSpec's columns after JobScheduler let the
   * job go). Absent: the harness decided it itself (killed, refused) or an older history.
   */
  outcomeFrom?: OutcomeSource;
  /**
   * A run that fetched nothing from the fixture server: what the app's logcat said about its
   * fetch (the line, and what it means), when it said anything the harness recognises.
   */
  fetchError?: FetchError;
}

export const FetchErrorCause = {
  /** Nothing listened where the app connected (OkHttp's `ConnectException`). */
  ConnectionRefused: 'connection-refused',
  /** The network security config refused cleartext HTTP (`UnknownServiceException: CLEARTEXT ...`). */
  CleartextNotPermitted: 'cleartext-not-permitted',
  /** The host did not resolve (`UnknownHostException: Unable to resolve host ...`). */
  UnknownHost: 'unknown-host',
  /** The connection or the read timed out (`SocketTimeoutException`). */
  Timeout: 'timeout',
} as const;
export type FetchErrorCause = (typeof FetchErrorCause)[keyof typeof FetchErrorCause];
export const FETCH_ERROR_CAUSES: readonly string[] = Object.values(FetchErrorCause);

export interface FetchError {
  cause: FetchErrorCause;
  /** The logcat line as the device printed it. */
  line: string;
}

export interface ForgottenEvent extends TimedEventBase {
  type: 'forgotten';
  /** Records the harness removed (rows deleted, flags cleared, items a mark moved back uncovers): a new dedup epoch for these items ("all": every item). */
  items: 'all' | string[];
}

export interface ShedEvent extends TimedEventBase {
  type: 'shed';
  item: string;
  run?: number;
}

/** A request the fixture server answered. */
export interface RequestEvent extends TimedEventBase {
  type: 'request';
  /** The run in progress when it arrived, when one was. */
  run?: number;
  /** `feed`, `receipts` (the backend) or `other`. */
  route: string;
  method: string;
  path: string;
  /** HTTP status sent; 0 when none was (connection dropped). */
  status: number;
  /** The server dropped the connection (after processing, when the fault plan says so). */
  dropped?: boolean;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The request body (cut at 4096 characters). */
  body?: string;
}

/** An effect the backend stored: one processed operation. */
export interface EffectEvent extends TimedEventBase {
  type: 'effect';
  /** The Idempotency-Key it was stored under; null when the request carried none. */
  key: string | null;
  /** The item (link) the operation was about. */
  item: string;
}

/**
 * The key column of the dedup table, read from a pulled copy (one value per row). For a watermark
 * (database.kind "watermark"), `table` is the SharedPreferences file, `keyColumn` its entry, and
 * `keys` the served items the mark covers, each once.
 */
export interface RowsEvent extends TimedEventBase {
  type: 'rows';
  table: string;
  keyColumn: string;
  keys: (string | null)[];
}

/** One WorkSpec of the app's periodic work as WorkManager's database holds it. */
export interface ScheduleSpec {
  id: string;
  /** Tagged with the unique work name. */
  named: boolean;
  workerClass: string;
  /** WorkInfo.State ordinal (0 ENQUEUED, 1 RUNNING, 2 SUCCEEDED, 3 FAILED, 4 BLOCKED, 5 CANCELLED). */
  state: number;
  intervalMs: number;
  flexMs: number;
  lastEnqueueTime: number;
  runAttemptCount: number;
  /** JobScheduler id of its current generation; null when not scheduled. */
  systemId: number | null;
}

/** The unfinished periodic WorkSpecs of the unique work and of the worker class. */
export interface ScheduleEvent extends TimedEventBase {
  type: 'schedule';
  /** Why it was read (`before-relaunch`, `after-run`, ...). */
  label?: string;
  /**
   * `jobscheduler`: the app's own JobService jobs from `dumpsys jobscheduler` (id: the job's
   * unique id `#u0a190/2`; runAttemptCount: its `Num failures`); absent: WorkManager's WorkSpecs.
   */
  scheduler?: 'jobscheduler';
  /** The unique work name; with JobScheduler, the job as the config names it. */
  uniqueName: string;
  /** The configured worker class, when there is one: `specs` holds its periodic WorkSpecs too. */
  workerClass?: string;
  specs: ScheduleSpec[];
  /** The id of the WorkSpec the harness drives; null when there is none. */
  primary: string | null;
}

export interface SchemaColumn {
  name: string;
  type: string;
  notnull: boolean;
  pk: boolean;
  /** The column's DEFAULT as SQL text (PRAGMA table_info's dflt_value), null for none; absent in histories written before it was recorded. */
  default?: string | null;
}

export interface SchemaIndex {
  name: string;
  unique: boolean;
  partial: boolean;
  columns: string[];
}

/** The dedup table's schema, and probe inserts made on a throw-away copy. */
export interface SchemaEvent extends TimedEventBase {
  type: 'schema';
  table: string;
  keyColumn: string;
  columns: SchemaColumn[];
  indexes: SchemaIndex[];
  /** Rows stored by inserting two rows with a NULL key (absent: not probed). */
  nullKeyRowsStored?: number;
  /** The key of an existing row inserted again, and the rows that insert added. */
  replay?: { key: string; rowsAdded: number };
}

/**
 * What the harness did. Two kinds share the type:
 * - a step of the harness's own that is not one device command: `fault` (fixture server),
 *   `forget-rows` (what a row deletion or a cleared flag did), `move-mark` (a watermark moved
 *   back), `probe-run` (a probe's result);
 * - a device command, exactly as sent (it has `via`): every command the harness sends during a
 *   scenario is recorded, named after what it does (`force-stop`, `start-app`, `start-process`,
 *   `broadcast`, `clear-app-data`, `grant`, `revoke`, `set-time`, `force-run`, `kill`,
 *   `write-app-file`, `push`, `setting`, `reverse`, `command` for any other that changes the
 *   device) or `read` for a command that only reads. Reads are folded: the same read (same
 *   command line, same exit code) sent again before anything else was recorded, as a poll is,
 *   is one event whose `count` says how many times it was sent (with the last one's result).
 * Histories written before commands were recorded have only the fields up to `detail`.
 */
export interface ActionEvent extends TimedEventBase {
  type: 'action';
  action: string;
  /** The device command, exactly as sent, when it was sent as words. */
  argv?: string[];
  /** A probe run: whether WorkManager ran it (`refused` when it did not). */
  outcome?: RunOutcome;
  /** A probe run: HTTP statuses of the feed fetches it made. */
  statuses?: number[];
  detail?: string;
  /**
   * How a device command reached the device: `shell`, `exec-out`, `stream` (opened),
   * `stream-end`, `pull`, `push`, `reverse`, `remove-reverse`, `list-reverses`, `getprop`.
   */
  via?: string;
  /** The command line as the device got it, when it was sent as one line; or what adb was asked (`pull PATH`, `reverse tcp:D tcp:H`). */
  command?: string;
  /** The device path of a pull or push. */
  path?: string;
  /** The file mode of a push. */
  mode?: number;
  /** The command's exit status, where the mechanism reports one. */
  exitCode?: number;
  /** How long it took, in ms of the host's monotonic clock (folded reads: all of them together). */
  durationMs?: number;
  /** Bytes of output, or of the file pulled or pushed. */
  bytes?: number;
  /** Bytes the command was given on its standard input. */
  stdinBytes?: number;
  /** The first line of its text output (of stderr after a failure). */
  result?: string;
  /** The error it failed with (a timeout, the transport, a refused exit code). */
  error?: string;
  /** Folded reads: how many times the same read was sent (absent: once). */
  count?: number;
  /** The run the command belongs to (`force-run`, `kill`). */
  run?: number;
  /** A probe run's `force-run`: forced without moving the clock, out of the run numbering. */
  probe?: boolean;
  /** A `kill` made while the fixture server held a request: the nth request to `path`. */
  heldRequest?: { path: string; nth: number };
}

/** A line of a record kind the checks rely on that could not be parsed. */
export interface UnparsedEvent extends TimedEventBase {
  type: 'unparsed';
  /** The record kind: the logcat tag (`notification_enqueue`). */
  tag: string;
  /** The line as the device printed it. */
  line: string;
  /** The run in progress, when one was. */
  run?: number;
}

/** The harness failed part-way: the history is incomplete. */
export interface AbortedEvent extends TimedEventBase {
  type: 'aborted';
  detail: string;
}

export type TimedHistoryEvent =
  | PublishedEvent
  | RunStartedEvent
  | FetchedEvent
  | NotifiedEvent
  | StoredEvent
  | RunFinishedEvent
  | ForgottenEvent
  | ShedEvent
  | RequestEvent
  | EffectEvent
  | RowsEvent
  | ScheduleEvent
  | SchemaEvent
  | ActionEvent
  | AbortedEvent
  | UnparsedEvent
  | SystemSummaryEvent
  | NotAnItemEvent;

export type HistoryEvent = ConfigEvent | TimedHistoryEvent;

/** An example line per type, quoted in error messages so the fix is visible. */
/**
 * A `notification_enqueue` of the app's package that Android itself posted: NotificationManager-
 * Service's GroupHelper autogroup summary (tag `ranker_group`) or an Android 16 aggregate section
 * group (tag `Aggregate_…`). Not an item: the checks skip it.
 */
export interface SystemSummaryEvent extends TimedEventBase {
  type: 'system-summary';
  /** The notification id and tag as logged. */
  id: number;
  tag: string;
  status: NotifyStatus;
  run?: number;
  evidence?: string[];
}

export const NotAnItemReason = {
  GroupSummary: 'group-summary',
  Ongoing: 'ongoing',
  ForegroundService: 'foreground-service',
  OtherChannel: 'other-channel',
} as const;
export type NotAnItemReason = (typeof NotAnItemReason)[keyof typeof NotAnItemReason];

/**
 * A `notification_enqueue` of the app that is not an item: a group summary (FLAG_GROUP_SUMMARY),
 * a foreground service's post (FLAG_FOREGROUND_SERVICE), an ongoing post (FLAG_ONGOING_EVENT) or
 * a post on another channel than the config's `notifications.channel`. The checks skip it.
 */
export interface NotAnItemEvent extends TimedEventBase {
  type: 'not-an-item';
  run: number;
  /** The notification id and tag as logged. */
  id: number;
  tag: string | null;
  reason: NotAnItemReason;
  /** `channel=` of the post; null when the text has none. */
  channel: string | null;
  status: NotifyStatus;
  evidence?: string[];
}

export const EXAMPLE_EVENTS: { readonly [K in HistoryEventType]: string } = {
  config: '{"type":"config","windowMs":172800000,"intervalMs":86400000,"allowedDuplicates":0}',
  published: '{"type":"published","t":1717000000000,"item":"https://example.com/a","publishedAt":1716990000000,"title":"A"}',
  'run-started': '{"type":"run-started","t":1717000000000,"run":1,"deviceTime":1717000000000}',
  fetched: '{"type":"fetched","t":1717000000100,"run":1,"items":["https://example.com/a"],"status":200}',
  notified: '{"type":"notified","t":1717000000200,"run":1,"item":"https://example.com/a","status":"post","alertOnce":false}',
  stored: '{"type":"stored","t":1717000000300,"run":1,"item":"https://example.com/a"}',
  'run-finished': '{"type":"run-finished","t":1717000000400,"run":1,"outcome":"success"}',
  forgotten: '{"type":"forgotten","t":1717000000500,"items":"all"}',
  shed: '{"type":"shed","t":1717000000600,"item":"https://example.com/a","run":1}',
  request: '{"type":"request","t":1717000000250,"run":1,"route":"receipts","method":"POST","path":"/receipts","status":200,"headers":{"idempotency-key":"6f1c"},"body":"{\\"link\\":\\"https://example.com/a\\"}"}',
  effect: '{"type":"effect","t":1717000000260,"key":"6f1c","item":"https://example.com/a"}',
  rows: '{"type":"rows","t":1717000000700,"table":"notified_items","keyColumn":"link","keys":["https://example.com/a"]}',
  schedule: '{"type":"schedule","t":1717000000800,"uniqueName":"feed-poll","specs":[],"primary":null}',
  schema: '{"type":"schema","t":1717000000900,"table":"notified_items","keyColumn":"link","columns":[],"indexes":[]}',
  action: '{"type":"action","t":1717000001000,"action":"force-stop","argv":["am","force-stop","com.example.app"],"via":"shell","exitCode":0,"durationMs":38}',
  aborted: '{"type":"aborted","t":1717000001100,"detail":"device went away"}',
  unparsed: '{"type":"unparsed","t":1717000001200,"tag":"notification_enqueue","line":"I notification_enqueue: [10190,…]","run":1}',
  'system-summary': '{"type":"system-summary","t":1717000001300,"id":2147483647,"tag":"ranker_group","status":"post","run":1}',
  'not-an-item': '{"type":"not-an-item","t":1717000001400,"run":1,"id":1,"tag":null,"reason":"group-summary","channel":"feed_items","status":"post"}',
};

const EVENT_TYPES: readonly string[] = Object.values(HistoryEventType);
const RUN_OUTCOMES: readonly string[] = Object.values(RunOutcome);
const OUTCOME_SOURCES: readonly string[] = Object.values(OutcomeSource);
const NOTIFY_STATUSES: readonly string[] = Object.values(NotifyStatus);
const NOT_AN_ITEM_REASONS: readonly string[] = Object.values(NotAnItemReason);

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

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean';
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

function isScheduleSpec(value: unknown): boolean {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['named'] === 'boolean' && typeof value['workerClass'] === 'string' &&
    isRunNumber(value['state']) && isFiniteNumber(value['intervalMs']) && isFiniteNumber(value['flexMs']) &&
    isFiniteNumber(value['lastEnqueueTime']) && isRunNumber(value['runAttemptCount']) &&
    (value['systemId'] === null || isFiniteNumber(value['systemId']));
}

function isSchemaColumn(value: unknown): boolean {
  return isRecord(value) && typeof value['name'] === 'string' && typeof value['type'] === 'string' && typeof value['notnull'] === 'boolean' && typeof value['pk'] === 'boolean' &&
    (value['default'] === undefined || value['default'] === null || typeof value['default'] === 'string');
}

function isSchemaIndex(value: unknown): boolean {
  return isRecord(value) && typeof value['name'] === 'string' && typeof value['unique'] === 'boolean' && typeof value['partial'] === 'boolean' && isStringArray(value['columns']);
}

function required(o: Record<string, unknown>, field: string, expected: string, test: (v: unknown) => boolean): string | undefined {
  return test(o[field]) ? undefined : `"${field}" must be ${expected}, got ${showValue(o[field])}`;
}

function optional(o: Record<string, unknown>, field: string, expected: string, test: (v: unknown) => boolean): string | undefined {
  return o[field] === undefined || test(o[field]) ? undefined : `"${field}" must be ${expected} when present, got ${showValue(o[field])}`;
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
      if (o['properties'] !== undefined && !isStringArray(o['properties'])) return `"properties" must be an array of property check names, got ${showValue(o['properties'])}`;
      if (o['idempotencyHeader'] !== undefined && typeof o['idempotencyHeader'] !== 'string') return `"idempotencyHeader" must be a header name, got ${showValue(o['idempotencyHeader'])}`;
      return optional(o, 'feed', 'an object {devicePort, path}', (v) => isRecord(v) && isRunNumber(v['devicePort']) && typeof v['path'] === 'string') ?? checkCommon(o);
    case 'published':
      return checkTimed(o) ?? checkItem(o) ??
        (!isFiniteNumber(o['publishedAt']) ? `"publishedAt" must be a number of ms (0 when the date did not parse), got ${showValue(o['publishedAt'])}` : undefined) ??
        (typeof o['title'] !== 'string' ? `"title" must be a string, got ${showValue(o['title'])}` : undefined) ??
        optional(o, 'label', 'a string', isString);
    case 'run-started':
      return checkTimed(o) ?? checkRun(o) ??
        (!isFiniteNumber(o['deviceTime']) ? `"deviceTime" must be a number (device wall clock in epoch ms), got ${showValue(o['deviceTime'])}` : undefined);
    case 'fetched':
      return checkTimed(o) ?? checkRun(o) ??
        (!isStringArray(o['items']) ? `"items" must be an array of item keys, got ${showValue(o['items'])}` : undefined) ??
        (!isRunNumber(o['status']) ? `"status" must be an HTTP status code (0 when no response arrived), got ${showValue(o['status'])}` : undefined);
    case 'notified':
      return checkTimed(o) ?? checkRun(o) ?? checkItem(o) ??
        (typeof o['status'] !== 'string' || !NOTIFY_STATUSES.includes(o['status']) ? `"status" must be "post" or "update", got ${showValue(o['status'])}` : undefined) ??
        optional(o, 'alertOnce', 'true or false (FLAG_ONLY_ALERT_ONCE set)', isBoolean);
    case 'stored':
      return checkTimed(o) ?? checkRun(o) ?? checkItem(o);
    case 'run-finished':
      return checkTimed(o) ?? checkRun(o) ??
        (typeof o['outcome'] !== 'string' || !RUN_OUTCOMES.includes(o['outcome']) ? `"outcome" must be one of ${RUN_OUTCOMES.join(', ')}, got ${showValue(o['outcome'])}` : undefined) ??
        optional(o, 'fetchError', `an object {cause, line} with cause one of ${FETCH_ERROR_CAUSES.join(', ')}`, (v) =>
          isRecord(v) && typeof v['cause'] === 'string' && FETCH_ERROR_CAUSES.includes(v['cause']) && typeof v['line'] === 'string') ??
        optional(o, 'outcomeFrom', `one of ${OUTCOME_SOURCES.join(', ')}`, (v) => typeof v === 'string' && OUTCOME_SOURCES.includes(v));
    case 'forgotten':
      return checkTimed(o) ??
        (o['items'] !== 'all' && !isStringArray(o['items']) ? `"items" must be "all" or an array of item keys, got ${showValue(o['items'])}` : undefined);
    case 'shed':
      return checkTimed(o) ?? checkItem(o) ??
        (o['run'] !== undefined && !isRunNumber(o['run']) ? `"run" must be a whole number >= 0 when present, got ${showValue(o['run'])}` : undefined);
    case 'request':
      return checkTimed(o) ?? optional(o, 'run', 'a whole number >= 0', isRunNumber) ??
        required(o, 'route', 'a route name (feed, receipts, other)', isString) ??
        required(o, 'method', 'an HTTP method', isString) ??
        required(o, 'path', 'a request path', isString) ??
        required(o, 'status', 'an HTTP status code (0 when none was sent)', isRunNumber) ??
        optional(o, 'dropped', 'true or false', isBoolean) ??
        required(o, 'headers', 'an object of header names (lower case) to values', isStringRecord) ??
        optional(o, 'body', 'a string', isString);
    case 'effect':
      return checkTimed(o) ??
        required(o, 'key', 'the Idempotency-Key (a string) or null', (v) => v === null || typeof v === 'string') ??
        required(o, 'item', 'the item key the operation was about', isString);
    case 'rows':
      return checkTimed(o) ?? required(o, 'table', 'a table name', isString) ?? required(o, 'keyColumn', 'a column name', isString) ??
        required(o, 'keys', 'an array of key values (strings or null)', (v) => Array.isArray(v) && v.every((k) => k === null || typeof k === 'string'));
    case 'schedule':
      return checkTimed(o) ?? optional(o, 'label', 'a string', isString) ??
        optional(o, 'scheduler', '"jobscheduler"', (v) => v === 'jobscheduler') ??
        required(o, 'uniqueName', 'the unique work name', isString) ??
        optional(o, 'workerClass', 'a class name', isString) ??
        required(o, 'specs', 'an array of WorkSpecs ({id, named, workerClass, state, intervalMs, flexMs, lastEnqueueTime, runAttemptCount, systemId})', (v) => Array.isArray(v) && v.every(isScheduleSpec)) ??
        required(o, 'primary', 'the id of the driven WorkSpec, or null', (v) => v === null || typeof v === 'string');
    case 'schema':
      return checkTimed(o) ?? required(o, 'table', 'a table name', isString) ?? required(o, 'keyColumn', 'a column name', isString) ??
        required(o, 'columns', 'an array of {name, type, notnull, pk, default?}', (v) => Array.isArray(v) && v.every(isSchemaColumn)) ??
        required(o, 'indexes', 'an array of {name, unique, partial, columns}', (v) => Array.isArray(v) && v.every(isSchemaIndex)) ??
        optional(o, 'nullKeyRowsStored', 'a whole number >= 0', isRunNumber) ??
        optional(o, 'replay', 'an object {key, rowsAdded}', (v) => isRecord(v) && typeof v['key'] === 'string' && isRunNumber(v['rowsAdded']));
    case 'action':
      return checkTimed(o) ?? required(o, 'action', 'an action name (force-stop, start-app, probe-run, ...)', isString) ??
        optional(o, 'argv', 'an array of strings (the command as sent)', isStringArray) ??
        optional(o, 'outcome', `one of ${RUN_OUTCOMES.join(', ')}`, (v) => typeof v === 'string' && RUN_OUTCOMES.includes(v)) ??
        optional(o, 'statuses', 'an array of HTTP status codes', (v) => Array.isArray(v) && v.every(isRunNumber)) ??
        optional(o, 'detail', 'a string', isString) ??
        optional(o, 'via', 'how the command was sent (shell, exec-out, stream, stream-end, pull, push, reverse, ...)', isString) ??
        optional(o, 'command', 'the command line as sent', isString) ??
        optional(o, 'path', 'a device path', isString) ??
        optional(o, 'mode', 'a file mode (a whole number)', isRunNumber) ??
        optional(o, 'exitCode', 'an exit status (a whole number)', isRunNumber) ??
        optional(o, 'durationMs', 'a number of ms >= 0', (v) => isFiniteNumber(v) && v >= 0) ??
        optional(o, 'bytes', 'a number of bytes', isRunNumber) ??
        optional(o, 'stdinBytes', 'a number of bytes', isRunNumber) ??
        optional(o, 'result', 'a string', isString) ??
        optional(o, 'error', 'a string', isString) ??
        optional(o, 'count', 'a whole number >= 1', (v) => isRunNumber(v) && v >= 1) ??
        optional(o, 'run', 'a whole number >= 0', isRunNumber) ??
        optional(o, 'probe', 'true or false', isBoolean) ??
        optional(o, 'heldRequest', 'an object {path, nth}', (v) => isRecord(v) && typeof v['path'] === 'string' && isRunNumber(v['nth']));
    case 'aborted':
      return checkTimed(o) ?? required(o, 'detail', 'a sentence saying what failed', isString);
    case 'unparsed':
      return checkTimed(o) ?? required(o, 'tag', 'the record kind (a logcat tag)', isString) ?? required(o, 'line', 'the line as printed', isString) ??
        optional(o, 'run', 'a whole number >= 0', isRunNumber);
    case 'system-summary':
      return checkTimed(o) ?? required(o, 'id', 'the notification id (a whole number)', (v) => typeof v === 'number' && Number.isInteger(v)) ?? required(o, 'tag', 'the notification tag', isString) ??
        required(o, 'status', `one of ${NOTIFY_STATUSES.join(', ')}`, (v) => typeof v === 'string' && NOTIFY_STATUSES.includes(v)) ??
        optional(o, 'run', 'a whole number >= 0', isRunNumber) ?? optional(o, 'evidence', 'a list of lines', (v) => Array.isArray(v) && v.every(isString));
    case 'not-an-item':
      return checkTimed(o) ?? required(o, 'run', 'a whole number >= 0', isRunNumber) ??
        required(o, 'id', 'the notification id (a whole number)', (v) => typeof v === 'number' && Number.isInteger(v)) ??
        required(o, 'tag', 'the notification tag or null', (v) => v === null || isString(v)) ??
        required(o, 'reason', `one of ${NOT_AN_ITEM_REASONS.join(', ')}`, (v) => typeof v === 'string' && NOT_AN_ITEM_REASONS.includes(v)) ??
        required(o, 'channel', 'the channel id or null', (v) => v === null || isString(v)) ??
        required(o, 'status', `one of ${NOTIFY_STATUSES.join(', ')}`, (v) => typeof v === 'string' && NOTIFY_STATUSES.includes(v)) ??
        optional(o, 'evidence', 'a list of lines', (v) => Array.isArray(v) && v.every(isString));
    default: {
      const unreachable: never = type;
      return `unknown type ${String(unreachable)}`;
    }
  }
}
