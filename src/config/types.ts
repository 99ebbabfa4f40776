/**
 * `dedup-verify.config.json`: what dedup-verify must know about the app under test. The JSON
 * Schema for editors is schema/dedup-verify.config.schema.json; the reference app's config is
 * fixtures/reference-app.config.json.
 */

export const FeedFormat = { Rss: 'rss', Atom: 'atom' } as const;
export type FeedFormat = (typeof FeedFormat)[keyof typeof FeedFormat];

/** How a posted notification is mapped back to a feed item (docs/design.md §4). */
export const NotificationMatch = { HashcodeId: 'hashcode-id', Tag: 'tag', Title: 'title', RowId: 'row-id' } as const;
export type NotificationMatch = (typeof NotificationMatch)[keyof typeof NotificationMatch];

/** How the app's periodic work is scheduled (config `work.scheduler`). */
export const Scheduler = { WorkManager: 'workmanager', JobScheduler: 'jobscheduler' } as const;
export type Scheduler = (typeof Scheduler)[keyof typeof Scheduler];

/** How the app remembers what it notified (config `database.kind`). */
export const DatabaseKind = { Key: 'key', Flag: 'flag', Watermark: 'watermark' } as const;
export type DatabaseKind = (typeof DatabaseKind)[keyof typeof DatabaseKind];

/** Periodic work enqueued with androidx WorkManager (enqueueUniquePeriodicWork). */
export interface WorkManagerWork {
  readonly scheduler: 'workmanager';
  /** The unique name of the periodic work (enqueueUniquePeriodicWork). */
  readonly uniqueName: string;
  /** The worker's class name (also a WorkTag). */
  readonly workerClass?: string;
}

/** A periodic job of the app's own JobService (JobInfo.Builder.setPeriodic). */
export interface JobSchedulerWork {
  readonly scheduler: 'jobscheduler';
  /** The job id (JobInfo.Builder(jobId, …)); with jobService absent, the one way to find the job. */
  readonly jobId?: number;
  /** The JobService's class name: its periodic job is the one driven. */
  readonly jobService?: string;
  /** JobScheduler.forNamespace (API 34+); absent: whatever namespace dumpsys lists the job in. */
  readonly jobNamespace?: string;
  /** The source of a RegExp for the app's per-run log line, with a named group `outcome`. */
  readonly resultLine?: string;
}

export type WorkConfig = WorkManagerWork | JobSchedulerWork;

/** One row per notified item, keyed on the item (the seed's table; the reference app's `notifications`). */
export interface KeyDatabase {
  readonly kind: 'key';
  /** Path relative to the app data dir, e.g. databases/feed.db. */
  readonly file: string;
  /** The dedup table. */
  readonly table: string;
  /** The column holding the dedup key. */
  readonly keyColumn: string;
}

/** One row per item, written before the post; a column set once it is notified (Feeder's `feed_items.notified`). */
export interface FlagDatabase {
  readonly kind: 'flag';
  readonly file: string;
  readonly table: string;
  readonly keyColumn: string;
  /** Non-zero once the item is notified. */
  readonly flagColumn: string;
}

/** No row per item: the publication time (epoch ms) of the newest item notified, in SharedPreferences. */
export interface WatermarkDatabase {
  readonly kind: 'watermark';
  readonly watermark: {
    /** The SharedPreferences file relative to the app data dir (shared_prefs/NAME.xml). */
    readonly prefs: string;
    /** Its `<long>` entry. */
    readonly key: string;
  };
}

export type DatabaseConfig = KeyDatabase | FlagDatabase | WatermarkDatabase;

/** A database that holds a table of items (kind key or flag). */
export type TableDatabase = KeyDatabase | FlagDatabase;

export function isTableDatabase(database: DatabaseConfig | undefined): database is TableDatabase {
  return database !== undefined && database.kind !== 'watermark';
}

/** The fixture feed's URL on the device, as `{feedUrl}` stands for it in feed.attach. */
export const FEED_URL_PLACEHOLDER = '{feedUrl}';

/** One step of feed.attach (exactly one of its forms). */
export type AttachStep =
  | {
      /** am start -W -a ACTION [-d DATA] [-t MIME] [-n COMPONENT]. */
      readonly intent: { readonly action: string; readonly data?: string; readonly mimeType?: string; readonly component?: string };
    }
  /** am start -W -a android.intent.action.VIEW -d URI (to the app's package); `{feedUrl}` percent-encoded. */
  | { readonly deepLink: string }
  /** Statements on a pulled copy of the app's database, pushed back with the app stopped. */
  | { readonly sql: { readonly file?: string; readonly statements: readonly string[] } };

export interface Config {
  app: {
    /** Application id, e.g. com.example.feednotifier. */
    package: string;
    /** Launcher activity, as a component (`pkg/.MainActivity`) or class name (`.MainActivity`). */
    launchActivity?: string;
  };
  work: WorkConfig;
  /** The app's window in ms (items older than this at fetch time are not notified). */
  windowMs: number;
  /** Extra posts tolerated per item and epoch (default 0). */
  allowedDuplicates: number;
  /** Absent: the app keeps no record dedup-verify can read (the scenarios that need one are skipped). */
  database?: DatabaseConfig;
  feed: {
    /** The device-side port the app fetches the feed on (reached through adb reverse). */
    devicePort: number;
    path: string;
    format: FeedFormat;
    /** Steps that point the app at the fixture feed (a subscription), after install and every `pm clear`. */
    attach?: readonly AttachStep[];
  };
  notifications: {
    match: NotificationMatch;
    /** The channel id the app posts on. */
    channel?: string;
    /** match `row-id`: the column of database.table holding the notification id. */
    idColumn?: string;
    /** match `tag`: the column of database.table holding the tag (a server id); absent: the tag is the link. */
    tagColumn?: string;
  };
  backend: {
    path: string;
    idempotencyHeader: string;
  };
  timeouts: {
    /** Longest wait for one worker run to finish. */
    runMs: number;
    /** Longest wait for one device command. */
    commandMs: number;
  };
}

export const CONFIG_DEFAULTS = {
  allowedDuplicates: 0,
  feed: { devicePort: 8765, path: '/feed.xml', format: 'rss' },
  work: { scheduler: 'workmanager' },
  database: { kind: 'key' },
  notifications: { match: 'hashcode-id' },
  backend: { path: '/receipts', idempotencyHeader: 'Idempotency-Key' },
  timeouts: { runMs: 30_000, commandMs: 20_000 },
} as const;

/** The default file name looked up in the working directory. */
export const DEFAULT_CONFIG_FILE = 'dedup-verify.config.json';

/** config.work when it is WorkManager work; throws (naming `what` needs it) otherwise. */
export function workManagerWorkOf(config: Config, what: string): WorkManagerWork {
  if (config.work.scheduler !== 'workmanager') throw new Error(`${what} reads WorkManager's database; the config's work.scheduler is "${config.work.scheduler}"`);
  return config.work;
}

/** config.database when it holds a table (kind key or flag); throws (naming `what` needs it) otherwise. */
export function tableDatabaseOf(config: Config, what: string): TableDatabase {
  const database = config.database;
  if (!isTableDatabase(database)) throw new Error(`${what} reads the app's table; the config has ${database === undefined ? 'no database' : `database.kind "${database.kind}"`}`);
  return database;
}
