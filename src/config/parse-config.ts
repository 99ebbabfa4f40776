/**
 * Validation of `dedup-verify.config.json`, hand-written so each error names the JSON path, the
 * value found and the fix, on one line. Values that reach a device shell or an SQL statement
 * (package, activity, unique work name, database path, table and column, channel) are held to
 * conservative character sets here (docs/design.md §8: no injection through config).
 */
import { ConfigError } from '../errors.js';
import { CONFIG_DEFAULTS, FeedFormat, NotificationMatch, type Config } from './types.js';

interface FieldSpec {
  readonly key: string;
  readonly required: boolean;
  /** "must be <expect>" */
  readonly expect: string;
  readonly example: string;
  readonly check: (value: unknown) => boolean;
}

interface SectionSpec {
  readonly key: string;
  readonly required: boolean;
  readonly example: string;
  readonly fields: readonly FieldSpec[];
}

const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const CLASS_RE = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const QUALIFIED_CLASS_RE = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)+$/;
const SQL_IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RELATIVE_FILE_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
const URL_PATH_RE = /^\/[A-Za-z0-9._~%/?=&+-]*$/;
const HTTP_TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NAME_RE = /^[A-Za-z0-9 ._:@#/+=-]{1,200}$/;

const isString = (re: RegExp) => (v: unknown): boolean => typeof v === 'string' && re.test(v);
const isWholeAbove = (min: number, max = Number.MAX_SAFE_INTEGER) => (v: unknown): boolean =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
const isOneOf = (values: readonly string[]) => (v: unknown): boolean => typeof v === 'string' && values.includes(v);

function isLaunchActivity(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const slash = v.indexOf('/');
  const pkg = slash >= 0 ? v.slice(0, slash) : undefined;
  const cls = slash >= 0 ? v.slice(slash + 1) : v;
  if (pkg !== undefined && !PACKAGE_RE.test(pkg)) return false;
  return CLASS_RE.test(cls.startsWith('.') ? cls.slice(1) : cls);
}

const SECTIONS: readonly SectionSpec[] = [
  {
    key: 'app', required: true, example: '{"package": "com.example.app"}',
    fields: [
      { key: 'package', required: true, expect: 'an application id of two or more dot-separated parts (letters, digits, _)', example: '"com.example.app"', check: isString(PACKAGE_RE) },
      { key: 'launchActivity', required: false, expect: 'the launcher activity as a component or a class name', example: '"com.example.app/.MainActivity"', check: isLaunchActivity },
    ],
  },
  {
    key: 'work', required: true, example: '{"uniqueName": "feed-poll"}',
    fields: [
      { key: 'uniqueName', required: true, expect: 'the unique name given to enqueueUniquePeriodicWork (1-200 of letters, digits, space and ._:@#/+=-)', example: '"feed-poll"', check: isString(NAME_RE) },
      { key: 'workerClass', required: false, expect: "the worker's fully qualified class name", example: '"com.example.app.FeedPollWorker"', check: isString(QUALIFIED_CLASS_RE) },
    ],
  },
  {
    key: 'database', required: true, example: '{"file": "databases/feed.db", "table": "notifications", "keyColumn": "link"}',
    fields: [
      { key: 'file', required: true, expect: 'a path relative to the app data dir, without ".." (letters, digits, ._-)', example: '"databases/feed.db"', check: (v) => isString(RELATIVE_FILE_RE)(v) && !(v as string).split('/').includes('..') },
      { key: 'table', required: true, expect: 'an SQL table name (letters, digits, _)', example: '"notifications"', check: isString(SQL_IDENTIFIER_RE) },
      { key: 'keyColumn', required: true, expect: 'the SQL column holding the dedup key (letters, digits, _)', example: '"link"', check: isString(SQL_IDENTIFIER_RE) },
    ],
  },
  {
    key: 'feed', required: false, example: '{"devicePort": 8765, "path": "/feed.xml", "format": "rss"}',
    fields: [
      { key: 'devicePort', required: false, expect: 'the TCP port (1-65535) the app fetches the feed on, on the device', example: '8765', check: isWholeAbove(1, 65535) },
      { key: 'path', required: false, expect: 'a URL path starting with "/"', example: '"/feed.xml"', check: isString(URL_PATH_RE) },
      { key: 'format', required: false, expect: '"rss" or "atom"', example: '"rss"', check: isOneOf(Object.values(FeedFormat)) },
    ],
  },
  {
    key: 'notifications', required: false, example: '{"match": "hashcode-id", "channel": "feed_items"}',
    fields: [
      { key: 'match', required: false, expect: '"hashcode-id" (notification id = String.hashCode() of the link), "tag" (tag = link) or "title"', example: '"hashcode-id"', check: isOneOf(Object.values(NotificationMatch)) },
      { key: 'channel', required: false, expect: 'the notification channel id the app posts on (1-200 of letters, digits, space and ._:@#/+=-)', example: '"feed_items"', check: isString(NAME_RE) },
    ],
  },
  {
    key: 'backend', required: false, example: '{"path": "/receipts", "idempotencyHeader": "Idempotency-Key"}',
    fields: [
      { key: 'path', required: false, expect: 'a URL path starting with "/"', example: '"/receipts"', check: isString(URL_PATH_RE) },
      { key: 'idempotencyHeader', required: false, expect: 'an HTTP header name', example: '"Idempotency-Key"', check: isString(HTTP_TOKEN_RE) },
    ],
  },
  {
    key: 'timeouts', required: false, example: '{"runMs": 30000, "commandMs": 20000}',
    fields: [
      { key: 'runMs', required: false, expect: 'a whole number of milliseconds > 0', example: '30000', check: isWholeAbove(1) },
      { key: 'commandMs', required: false, expect: 'a whole number of milliseconds > 0', example: '20000', check: isWholeAbove(1) },
    ],
  },
];

const TOP_FIELDS: readonly FieldSpec[] = [
  { key: '$schema', required: false, expect: 'a string (the path or URL of the JSON Schema)', example: '"../schema/dedup-verify.config.schema.json"', check: (v) => typeof v === 'string' },
  {
    key: '$comment',
    required: false,
    expect: 'a string or an array of strings (notes for people; ignored)',
    example: '["CONFIRM windowMs"]',
    check: (v) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
  },
  { key: 'windowMs', required: true, expect: "the app's window in milliseconds, a whole number > 0", example: '172800000 for 48 h', check: isWholeAbove(1) },
  { key: 'allowedDuplicates', required: false, expect: 'the items each killed run may leave to be repeated, a whole number >= 0', example: '0', check: isWholeAbove(0) },
];

/** Every valid key path, e.g. "app.package" (used for suggestions, and by specs against the schema). */
export const CONFIG_KEY_PATHS: readonly string[] = [
  ...TOP_FIELDS.map((f) => f.key),
  ...SECTIONS.flatMap((s) => [s.key, ...s.fields.map((f) => `${s.key}.${f.key}`)]),
];

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Levenshtein distance, case-insensitive. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[t.length] ?? 0;
}

/** The suggestion for an unknown key at `parent` ("" for top level). */
function suggest(key: string, parent: string, siblings: readonly string[]): string {
  const at = (k: string): string => (parent === '' ? k : `${parent}.${k}`);
  // A known key in another section: the most common slip.
  const elsewhere = CONFIG_KEY_PATHS.find((p) => p !== at(key) && p.split('.').pop() === key);
  if (elsewhere !== undefined) return `did you mean "${elsewhere}"? (it belongs ${elsewhere.includes('.') ? `inside "${elsewhere.split('.')[0] ?? ''}"` : 'at the top level'})`;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const s of siblings) {
    const d = distance(key, s);
    if (d < bestDistance) {
      best = s;
      bestDistance = d;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))) return `did you mean "${at(best)}"?`;
  return `valid keys${parent === '' ? '' : ` in "${parent}"`}: ${siblings.join(', ')}`;
}

class ConfigValidator {
  constructor(private readonly source: string) {}

  fail(message: string, field: string): never {
    throw new ConfigError(`config ${this.source}: ${message}`, field);
  }

  rejectUnknownKeys(object: Record<string, unknown>, parent: string, allowed: readonly string[]): void {
    for (const key of Object.keys(object)) {
      if (!allowed.includes(key)) {
        const path = parent === '' ? key : `${parent}.${key}`;
        this.fail(`unknown key "${path}"; ${suggest(key, parent, allowed)}`, path);
      }
    }
  }

  field(object: Record<string, unknown>, parent: string, spec: FieldSpec): unknown {
    const path = parent === '' ? spec.key : `${parent}.${spec.key}`;
    const value = object[spec.key];
    if (value === undefined) {
      if (spec.required) this.fail(`"${path}" is missing; it must be ${spec.expect} (e.g. "${spec.key}": ${spec.example})`, path);
      return undefined;
    }
    if (!spec.check(value)) this.fail(`"${path}" must be ${spec.expect} (e.g. ${spec.example}), got ${show(value)}`, path);
    return value;
  }

  section(root: Record<string, unknown>, spec: SectionSpec): Record<string, unknown> {
    const value = root[spec.key];
    if (value === undefined && !spec.required) return {};
    if (!isRecord(value)) {
      const required = spec.fields.filter((f) => f.required).map((f) => `"${f.key}"`);
      const shape = required.length > 0 ? `an object with ${required.join(', ').replace(/, ([^,]*)$/, ' and $1')}` : 'an object';
      if (value === undefined) this.fail(`"${spec.key}" is missing; it must be ${shape} (e.g. "${spec.key}": ${spec.example})`, spec.key);
      this.fail(`"${spec.key}" must be ${shape} (e.g. ${spec.example}), got ${show(value)}`, spec.key);
    }
    this.rejectUnknownKeys(value, spec.key, spec.fields.map((f) => f.key));
    const out: Record<string, unknown> = {};
    for (const f of spec.fields) {
      const v = this.field(value, spec.key, f);
      if (v !== undefined) out[f.key] = v;
    }
    return out;
  }
}

/**
 * Validates a parsed config and fills in the defaults. `source` names the file in messages.
 * Throws ConfigError (with `field` = the JSON path) on the first problem.
 */
export function parseConfig(json: unknown, source: string): Config {
  const v: ConfigValidator = new ConfigValidator(source);
  if (!isRecord(json)) {
    v.fail(`the config must be a JSON object (e.g. {"app": {"package": "com.example.app"}, "work": {"uniqueName": "feed-poll"}, "windowMs": 172800000, "database": {...}}), got ${show(json)}`, '');
  }
  v.rejectUnknownKeys(json, '', [...TOP_FIELDS.map((f) => f.key), ...SECTIONS.map((s) => s.key)]);
  const sections = new Map<string, Record<string, unknown>>();
  for (const spec of SECTIONS) {
    // Checked in the order the reference config lists them: app, work, windowMs, database, ...
    sections.set(spec.key, v.section(json, spec));
    if (spec.key === 'work') for (const f of TOP_FIELDS) v.field(json, '', f);
  }
  const s = (key: string): Record<string, unknown> => sections.get(key) ?? {};
  const str = (o: Record<string, unknown>, k: string): string | undefined => o[k] as string | undefined;
  const num = (o: Record<string, unknown>, k: string): number | undefined => o[k] as number | undefined;

  const app = s('app');
  const work = s('work');
  const database = s('database');
  const feed = s('feed');
  const notifications = s('notifications');
  const backend = s('backend');
  const timeouts = s('timeouts');
  const launchActivity = str(app, 'launchActivity');
  const workerClass = str(work, 'workerClass');
  const channel = str(notifications, 'channel');

  return {
    app: { package: str(app, 'package') ?? '', ...(launchActivity !== undefined ? { launchActivity } : {}) },
    work: { uniqueName: str(work, 'uniqueName') ?? '', ...(workerClass !== undefined ? { workerClass } : {}) },
    windowMs: json['windowMs'] as number,
    allowedDuplicates: (json['allowedDuplicates'] as number | undefined) ?? CONFIG_DEFAULTS.allowedDuplicates,
    database: { file: str(database, 'file') ?? '', table: str(database, 'table') ?? '', keyColumn: str(database, 'keyColumn') ?? '' },
    feed: {
      devicePort: num(feed, 'devicePort') ?? CONFIG_DEFAULTS.feed.devicePort,
      path: str(feed, 'path') ?? CONFIG_DEFAULTS.feed.path,
      format: (str(feed, 'format') as FeedFormat | undefined) ?? CONFIG_DEFAULTS.feed.format,
    },
    notifications: {
      match: (str(notifications, 'match') as NotificationMatch | undefined) ?? CONFIG_DEFAULTS.notifications.match,
      ...(channel !== undefined ? { channel } : {}),
    },
    backend: {
      path: str(backend, 'path') ?? CONFIG_DEFAULTS.backend.path,
      idempotencyHeader: str(backend, 'idempotencyHeader') ?? CONFIG_DEFAULTS.backend.idempotencyHeader,
    },
    timeouts: {
      runMs: num(timeouts, 'runMs') ?? CONFIG_DEFAULTS.timeouts.runMs,
      commandMs: num(timeouts, 'commandMs') ?? CONFIG_DEFAULTS.timeouts.commandMs,
    },
  };
}
