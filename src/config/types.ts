/**
 * `dedup-verify.config.json`: what dedup-verify must know about the app under test. The JSON
 * Schema for editors is schema/dedup-verify.config.schema.json; the reference app's config is
 * fixtures/reference-app.config.json.
 */

export const FeedFormat = { Rss: 'rss', Atom: 'atom' } as const;
export type FeedFormat = (typeof FeedFormat)[keyof typeof FeedFormat];

/** How a posted notification is mapped back to a feed item (docs/design.md §4). */
export const NotificationMatch = { HashcodeId: 'hashcode-id', Tag: 'tag', Title: 'title' } as const;
export type NotificationMatch = (typeof NotificationMatch)[keyof typeof NotificationMatch];

export interface Config {
  app: {
    /** Application id, e.g. com.example.feednotifier. */
    package: string;
    /** Launcher activity, as a component (`pkg/.MainActivity`) or class name (`.MainActivity`). */
    launchActivity?: string;
  };
  work: {
    /** The unique name of the periodic work (enqueueUniquePeriodicWork). */
    uniqueName: string;
    /** The worker's class name (also a WorkTag). */
    workerClass?: string;
  };
  /** The app's window in ms (items older than this at fetch time are not notified). */
  windowMs: number;
  /** Extra posts tolerated per item and epoch (default 0). */
  allowedDuplicates: number;
  database: {
    /** Path relative to the app data dir, e.g. databases/feed.db. */
    file: string;
    /** The dedup table. */
    table: string;
    /** The column holding the dedup key. */
    keyColumn: string;
  };
  feed: {
    /** The device-side port the app fetches the feed on (reached through adb reverse). */
    devicePort: number;
    path: string;
    format: FeedFormat;
  };
  notifications: {
    match: NotificationMatch;
    /** The channel id the app posts on. */
    channel?: string;
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
  notifications: { match: 'hashcode-id' },
  backend: { path: '/receipts', idempotencyHeader: 'Idempotency-Key' },
  timeouts: { runMs: 30_000, commandMs: 20_000 },
} as const;

/** The default file name looked up in the working directory. */
export const DEFAULT_CONFIG_FILE = 'dedup-verify.config.json';
