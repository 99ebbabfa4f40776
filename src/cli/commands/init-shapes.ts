/**
 * What `dedup-verify init` finds about an app's shape beyond "WorkManager, one key table, a feed
 * URL in the build" (docs/real-apps.md): a JobService job scheduled without WorkManager, a
 * notified flag beside the key (and then row ids as notification ids), a subscription table, a
 * high-water mark in shared_prefs. Everything comes through adb: `dumpsys jobscheduler PKG`,
 * pulled database copies, `run-as PKG ls|cat shared_prefs`.
 */
import Database from 'better-sqlite3';
import type { AndroidDevice } from '../../device/android-device.js';
import { listJobs, WORKMANAGER_JOB_SERVICE } from '../../android/job-scheduler.js';
import { jobPeriod, type JobEntry } from '../../android/parsers/job-scheduler.js';
import { readSharedPrefs } from '../../android/app-data.js';

/** A periodic job of the app's own JobService (not WorkManager's SystemJobService). */
export interface FoundJob {
  readonly jobId: number;
  readonly service: string;
  readonly intervalMs: number;
}

/** The first periodic job among `jobs` whose service is the app's own (`pkg/…`), not WorkManager's. */
export function findOwnPeriodicJob(jobs: readonly JobEntry[], pkg: string): FoundJob | null {
  for (const job of jobs) {
    if (job.servicePackage !== pkg || job.serviceClass === null) continue;
    const cls = job.serviceClass.startsWith('.') ? `${pkg}${job.serviceClass}` : job.serviceClass;
    if (cls === WORKMANAGER_JOB_SERVICE) continue;
    const intervalMs = jobPeriod(job)?.intervalMs;
    if (intervalMs === undefined || intervalMs <= 0) continue;
    return { jobId: job.jobId, service: cls, intervalMs };
  }
  return null;
}

export async function findJobSchedulerWork(device: AndroidDevice, pkg: string): Promise<FoundJob | null> {
  return findOwnPeriodicJob(await listJobs(device, pkg), pkg);
}

/** Column names of a "notified" flag (Feeder's feed_items.notified). */
const FLAG_NAMES = /^(is_?)?notified$|^notification_?(shown|sent|posted)$|^has_?notified$/i;
/** Table names of subscriptions (Feeder's and Capy Reader's `feeds`). */
const SUBSCRIPTION_TABLES = /^(feeds?|subscriptions?|sources?)$/i;
const URL_COLUMNS = /^(url|feed_?url|link|href|xml_?url)$/i;

/** What a database copy says about the shape: per table, flag and row-id columns, and a subscription table. */
export interface TableShape {
  readonly table: string;
  /** An INTEGER column named like a notified flag. */
  readonly flagColumn: string | null;
  /** The INTEGER PRIMARY KEY column (the rowid alias), when there is one. */
  readonly rowIdColumn: string | null;
  /** TEXT columns that are part of a UNIQUE index of several columns (Feeder's (guid, feed_id)). */
  readonly compositeUnique: readonly string[];
}

export interface DatabaseShape {
  readonly tables: readonly TableShape[];
  /** A subscriptions table with its URL column. */
  readonly subscription: { readonly table: string; readonly urlColumn: string } | null;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

export function readDatabaseShape(dbPath: string): DatabaseShape {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('android_metadata', 'room_master_table')`).all() as { name: string }[]).map((t) => t.name);
    const tables: TableShape[] = [];
    let subscription: DatabaseShape['subscription'] = null;
    for (const table of names) {
      const columns = db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string; type: string; pk: number }[];
      const ints = columns.filter((c) => /INT/i.test(c.type));
      const flag = ints.find((c) => FLAG_NAMES.test(c.name));
      const pks = columns.filter((c) => c.pk > 0);
      const rowId = pks.length === 1 && pks[0] !== undefined && /^INTEGER$/i.test(pks[0].type) ? pks[0].name : null;
      const composite = new Set<string>();
      for (const ix of db.prepare(`PRAGMA index_list(${quote(table)})`).all() as { name: string; unique: number }[]) {
        if (!ix.unique) continue;
        const cols = (db.prepare(`PRAGMA index_info(${quote(ix.name)})`).all() as { name: string }[]).map((c) => c.name);
        if (cols.length > 1) for (const c of cols) if (columns.some((col) => col.name === c && /TEXT|CHAR|CLOB/i.test(col.type))) composite.add(c);
      }
      tables.push({ table, flagColumn: flag?.name ?? null, rowIdColumn: rowId, compositeUnique: [...composite] });
      const url = columns.find((c) => URL_COLUMNS.test(c.name) && /TEXT|CHAR|CLOB/i.test(c.type));
      if (subscription === null && SUBSCRIPTION_TABLES.test(table) && url !== undefined) subscription = { table, urlColumn: url.name };
    }
    return { tables, subscription };
  } finally {
    db.close();
  }
}

/** A long preference that looks like a high-water mark (the time or id of the newest item handled). */
export interface FoundWatermark {
  readonly prefs: string;
  readonly key: string;
}

const MARK_NAMES = /(last|newest|latest|high|marker|watermark|seen|notified)/i;
const MARK_UNITS = /(time|date|published|_at$|at$|ms$|millis|stamp)/i;

/** The first `long` entry named like a publication-time mark, in the app's shared_prefs files. */
export async function findWatermark(device: AndroidDevice, pkg: string): Promise<FoundWatermark | null> {
  const listing = await device.shell(['run-as', pkg, 'ls', 'shared_prefs']);
  if (listing.exitCode !== 0) return null;
  const files = listing.stdout
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.endsWith('.xml'))
    .sort();
  for (const file of files) {
    const prefs = await readSharedPrefs(device, pkg, file).catch(() => null);
    if (prefs === null) continue;
    for (const [key, value] of Object.entries(prefs)) {
      if (value.type === 'long' && MARK_NAMES.test(key) && MARK_UNITS.test(key)) return { prefs: `shared_prefs/${file}`, key };
    }
  }
  return null;
}
