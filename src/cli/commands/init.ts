/**
 * `dedup-verify init [--device SERIAL] [--package PKG]`: inspects an app on a connected device
 * and writes a starting dedup-verify.config.json. It reads only what adb shows: the package
 * (installed? debuggable, i.e. does run-as work?), its launcher activity, WorkManager's database
 * (unique periodic work names and their intervals) and the app's databases (a table with a
 * UNIQUE text column that looks like a dedup key). Apps of another shape (docs/real-apps.md,
 * init-shapes.ts): a periodic job of the app's own JobService and no WorkManager work gives
 * `work.scheduler: "jobscheduler"`; a notified flag in the key's table gives `database.kind:
 * "flag"` and row ids as notification ids; a subscription table (`feeds` with a URL column)
 * gives `feed.attach`; no key-like UNIQUE column but a high-water mark in shared_prefs gives
 * `database.kind: "watermark"`. What it found and every value it had to guess are listed in the
 * file's "$comment" ("FOUND …" / "CONFIRM …") and on the console.
 *
 * Errors are one line with the fix (exit 2): no device, package missing or not debuggable, no
 * WorkManager database yet (launch the app once), no unique periodic work, no key-like column.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DedupVerifyError, ErrorCode, UsageError, describeError, hasErrorCode } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import type { AndroidDevice } from '../../device/android-device.js';
import { findAdbBinary, isLocalHost } from '../../device/adb-server.js';
import { assertRunAs, checkRunAs, pullDatabase } from '../../android/app-data.js';
import { getPackageInfo, hasNotificationPermission, isPackageInstalled } from '../../android/packages.js';
import { parsePackageList } from '../../android/parsers/packages.js';
import { assertPackageName } from '../../android/names.js';
import { getSdkLevel } from '../../android/properties.js';
import { findUniqueWork, readDeviceWorkDatabase, WORK_DATABASE_PATH, type WorkDbSnapshot } from '../../android/work-db.js';
import { isPeriodic, WorkState, type WorkSpecRow } from '../../android/work-spec.js';
import { formatDuration } from '../../checker/describe.js';
import { parseConfig } from '../../config/parse-config.js';
import { CONFIG_DEFAULTS, DEFAULT_CONFIG_FILE } from '../../config/types.js';
import { defaultAdbPort } from './run-devices.js';
import { chooseDevice } from '../choose-device.js';
import { packageRoot } from '../package-root.js';
import { checkOutputFile } from '../inputs.js';
import { findJobSchedulerWork, findWatermark, readDatabaseShape, type DatabaseShape } from './init-shapes.js';
import type { CliIo } from '../io.js';

/** Column names that usually hold a feed item's stable identity, best first. */
const KEY_NAMES = ['link', 'url', 'guid', 'notification_key', 'notificationkey', 'item_key', 'key', 'uri', 'external_id'];

/** Rows sampled per column to see whether its values look like links. */
const SAMPLE_ROWS = 50;

export interface KeyCandidate {
  readonly db: string;
  readonly table: string;
  readonly column: string;
  readonly unique: boolean;
  /** Part of a UNIQUE index of several columns (set by init, not by findKeyCandidates). */
  readonly compositeUnique?: boolean;
  readonly score: number;
  /** Of the sampled non-NULL values, how many look like http(s) links. */
  readonly linkLike?: number;
  /** Non-NULL values sampled. */
  readonly sampled?: number;
}

/**
 * Scores the TEXT columns of every table in a database copy as dedup-key candidates: a single-
 * column UNIQUE index (+10), a usual key name (+10 for `link` down to +2), a table named like
 * notifications (+3), and sampled values that are mostly http(s) links (+5).
 */
export function findKeyCandidates(dbPath: string, dbName: string): KeyCandidate[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('android_metadata', 'room_master_table')`).all() as { name: string }[]).map((t) => t.name);
    const out: KeyCandidate[] = [];
    for (const table of tables) {
      const q = `"${table.replaceAll('"', '""')}"`;
      const columns = db.prepare(`PRAGMA table_info(${q})`).all() as { name: string; type: string }[];
      const uniqueCols = new Set<string>();
      for (const ix of db.prepare(`PRAGMA index_list(${q})`).all() as { name: string; unique: number }[]) {
        if (!ix.unique) continue;
        const cols = db.prepare(`PRAGMA index_info("${ix.name.replaceAll('"', '""')}")`).all() as { name: string }[];
        if (cols.length === 1 && cols[0]) uniqueCols.add(cols[0].name);
      }
      for (const c of columns) {
        if (!/TEXT|CHAR|CLOB/i.test(c.type)) continue;
        const nameRank = KEY_NAMES.indexOf(c.name.toLowerCase());
        const unique = uniqueCols.has(c.name);
        const column = `"${c.name.replaceAll('"', '""')}"`;
        const values = (db.prepare(`SELECT ${column} AS v FROM ${q} WHERE ${column} IS NOT NULL LIMIT ${SAMPLE_ROWS}`).all() as { v: unknown }[]).map((r) => r.v);
        const linkLike = values.filter((v) => typeof v === 'string' && /^https?:\/\/\S+$/i.test(v)).length;
        const mostlyLinks = values.length > 0 && linkLike * 2 > values.length;
        const score = (unique ? 10 : 0) + (nameRank >= 0 ? 10 - nameRank : 0) + (/notif/i.test(table) ? 3 : 0) + (mostlyLinks ? 5 : 0);
        if (score > 0) out.push({ db: dbName, table, column: c.name, unique, score, linkLike, sampled: values.length });
      }
    }
    return out;
  } finally {
    db.close();
  }
}

/** One unique periodic work as init reports it. */
export interface FoundWork {
  readonly name: string;
  readonly workerClass: string;
  readonly intervalMs: number;
  readonly flexMs: number;
}

/** Unique names whose current WorkSpec is periodic and not cancelled, in WorkName order. */
export function findPeriodicUniqueWork(work: WorkDbSnapshot): FoundWork[] {
  const names = [...new Set(work.names.map((n) => n.name))];
  return names
    .flatMap((name) => findUniqueWork(work, name).map((u) => ({ name, spec: u.spec })))
    .filter((u) => isPeriodic(u.spec) && u.spec.state !== WorkState.CANCELLED)
    .map((u) => ({ name: u.name, workerClass: u.spec.workerClassName, intervalMs: u.spec.intervalDuration, flexMs: u.spec.flexDuration }));
}

/**
 * The launcher activity from `cmd package resolve-activity --brief` (PackageManagerShellCommand
 * printResolveInfo, aosp-mirror platform_frameworks_base: with --brief it prints a
 * `priority=… preferredOrder=…` line, then `ComponentName.flattenToShortString()`, e.g.
 * `com.example.app/.MainActivity`; "No activity found" when nothing resolves). Null when the
 * command is not there or resolves nothing.
 */
export function parseResolvedActivity(text: string, pkg: string): string | null {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith(`${pkg}/`));
  return line ?? null;
}

/**
 * The activities of `pkg` with an `android.intent.action.MAIN` filter in `dumpsys package PKG`'s
 * "Activity Resolver Table" (ActivityIntentResolver.dumpFilter: `<hash> <flattenToShortString>
 * filter <hash>`). MAIN alone does not prove the LAUNCHER category, so this is only a guess.
 */
export function parseMainActivities(text: string, pkg: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const found: string[] = [];
  let inMain = false;
  let mainIndent = 0;
  for (const line of lines) {
    const indent = line.length - line.trimStart().length;
    if (line.trim() === 'android.intent.action.MAIN:') {
      inMain = true;
      mainIndent = indent;
      continue;
    }
    if (!inMain) continue;
    if (line.trim() === '' || indent <= mainIndent) {
      inMain = false;
      continue;
    }
    const m = /^[0-9a-f]+ (\S+\/\S+) filter [0-9a-f]+$/.exec(line.trim());
    if (m?.[1]?.startsWith(`${pkg}/`) && !found.includes(m[1])) found.push(m[1]);
  }
  return found;
}

export interface InitFindings {
  /** Facts read from the device. */
  readonly found: string[];
  /** Guesses the user must confirm (each names the config key). */
  readonly confirm: string[];
}

/** `pm list packages -3`: the installed packages that are not part of the system image. */
async function listThirdPartyPackages(device: AndroidDevice): Promise<string[]> {
  return parsePackageList(await device.shellText(['pm', 'list', 'packages', '-3'])).sort();
}

/** Whether the app has a WorkManager database (run-as works for it). */
async function hasWorkDatabase(device: AndroidDevice, pkg: string): Promise<boolean> {
  const r = await device.shell(['run-as', pkg, 'ls', WORK_DATABASE_PATH]);
  return r.exitCode === 0;
}

/** Without --package: the only third-party app that run-as accepts and that has a workdb. */
async function discoverPackage(device: AndroidDevice, notes: InitFindings): Promise<string> {
  const thirdParty = await listThirdPartyPackages(device);
  const debuggable: string[] = [];
  const withWork: string[] = [];
  for (const pkg of thirdParty) {
    if (!(await checkRunAs(device, pkg)).ok) continue;
    debuggable.push(pkg);
    if (await hasWorkDatabase(device, pkg)) withWork.push(pkg);
  }
  const only = withWork.length === 1 ? withWork[0] : undefined;
  if (only !== undefined) {
    notes.confirm.push(`app.package: no --package given; picked ${only}, the only debuggable third-party app with a WorkManager database on ${device.serial}.`);
    return only;
  }
  if (withWork.length > 1) throw new UsageError(`Several debuggable apps on ${device.serial} use WorkManager (${withWork.join(', ')}): pick one with --package PKG.`);
  throw new UsageError(
    debuggable.length > 0
      ? `No debuggable app on ${device.serial} has a WorkManager database yet (debuggable: ${debuggable.join(', ')}). Launch yours once (adb shell am start -n PKG/.MainActivity), then run init --package PKG.`
      : `No debuggable third-party app on ${device.serial}. Install a debug build of your app (./gradlew installDebug), launch it once, then run init --package PKG.`,
  );
}

async function findLaunchActivity(device: AndroidDevice, pkg: string, notes: InitFindings): Promise<string> {
  const resolved = await device.shell(['cmd', 'package', 'resolve-activity', '--brief', '-a', 'android.intent.action.MAIN', '-c', 'android.intent.category.LAUNCHER', pkg]);
  const component = resolved.exitCode === 0 ? parseResolvedActivity(resolved.stdout.toString('utf8'), pkg) : null;
  if (component !== null) {
    notes.found.push(`Launcher activity ${component} (cmd package resolve-activity).`);
    return component;
  }
  const dump = await device.shell(['dumpsys', 'package', pkg]);
  const mains = parseMainActivities(dump.stdout.toString('utf8'), pkg);
  const first = mains[0];
  if (first !== undefined) {
    notes.confirm.push(`app.launchActivity: ${first} has the MAIN action in dumpsys package${mains.length > 1 ? ` (also: ${mains.slice(1).join(', ')})` : ''}; make sure it is the launcher activity.`);
    return first;
  }
  const guess = `${pkg}/.MainActivity`;
  notes.confirm.push(`app.launchActivity: no launcher activity found; guessed ${guess}.`);
  return guess;
}

async function readWork(device: AndroidDevice, pkg: string, launchActivity: string): Promise<WorkDbSnapshot> {
  try {
    return await readDeviceWorkDatabase(device, pkg);
  } catch (e) {
    if (hasErrorCode(e, ErrorCode.DeviceCommand) && /has no database/.test(e.message)) {
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `${pkg} has no WorkManager database (${WORK_DATABASE_PATH}) on ${device.serial}: launch the app once so it schedules its work (\`adb -s ${device.serial} shell am start -n ${launchActivity}\`), then run init again.`,
        { cause: e },
      );
    }
    throw e;
  }
}

/** The `work` section and the interval: WorkManager's unique periodic work, else the app's own periodic JobScheduler job. */
async function findScheduling(device: AndroidDevice, pkg: string, launchActivity: string, notes: InitFindings): Promise<{ work: Record<string, unknown>; intervalMs: number }> {
  let work: WorkDbSnapshot | undefined;
  let noWork: unknown;
  try {
    work = await readWork(device, pkg, launchActivity);
  } catch (e) {
    if (!hasErrorCode(e, ErrorCode.DeviceCommand)) throw e;
    noWork = e;
  }
  const periodic = work === undefined ? [] : findPeriodicUniqueWork(work);
  const chosen = periodic[0];
  if (work !== undefined && chosen !== undefined) {
    notes.found.push(`WorkManager database ${WORK_DATABASE_PATH} (${work.workSpecs.length} WorkSpec row(s)).`);
    if (periodic.length === 1) notes.found.push(`Unique periodic work ${describeWork(chosen)}.`);
    else notes.confirm.push(`work.uniqueName: several unique periodic works (${periodic.map(describeWork).join('; ')}); picked "${chosen.name}".`);
    return { work: { uniqueName: chosen.name, workerClass: chosen.workerClass }, intervalMs: chosen.intervalMs };
  }
  const job = await findJobSchedulerWork(device, pkg);
  if (job !== null) {
    notes.found.push(`JobScheduler job ${job.jobId} of ${job.service}, periodic every ${formatDuration(job.intervalMs)} (dumpsys jobscheduler), ${work === undefined ? 'and no WorkManager database' : 'and no unique periodic WorkManager work'}.`);
    notes.confirm.push(
      'work.resultLine: name the line the app logs at the end of each run as a regex with a named group "outcome" (success, retry or failure), e.g. "Sync finished: (?<outcome>success|retry|failure)"; without it a run\'s outcome comes from the job\'s state alone.',
    );
    return { work: { scheduler: 'jobscheduler', jobId: job.jobId }, intervalMs: job.intervalMs };
  }
  if (work === undefined) throw noWork;
  const anyPeriodic = work.workSpecs.filter((s: WorkSpecRow) => isPeriodic(s) && s.state !== WorkState.CANCELLED);
  throw new DedupVerifyError(
    ErrorCode.DeviceCommand,
    `${pkg} has no unique periodic work (unique names: ${[...new Set(work.names.map((n) => n.name))].join(', ') || 'none'}; periodic WorkSpecs without a unique name: ${anyPeriodic.length}) and no periodic job of its own in dumpsys jobscheduler. dedup-verify drives work enqueued with enqueueUniquePeriodicWork(name, KEEP, request) or a JobService scheduled with setPeriodic: schedule it that way, launch the app, then run init again.`,
  );
}

function describeWork(w: FoundWork): string {
  return `"${w.name}" every ${formatDuration(w.intervalMs)}${w.flexMs > 0 && w.flexMs !== w.intervalMs ? ` (flex ${formatDuration(w.flexMs)})` : ''}, worker ${w.workerClass}`;
}

/** The app's databases as init reads them: key candidates (best first) and each database's shape. */
interface DatabaseFindings {
  readonly dbs: readonly string[];
  readonly candidates: readonly KeyCandidate[];
  readonly shapes: readonly { readonly db: string; readonly shape: DatabaseShape }[];
}

async function inspectDatabases(device: AndroidDevice, pkg: string): Promise<DatabaseFindings> {
  const listing = await device.shell(['run-as', pkg, 'ls', 'databases']);
  const dbs =
    listing.exitCode !== 0
      ? []
      : listing.stdout
          .toString('utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !/-(wal|shm|journal)$/.test(l));
  const candidates: KeyCandidate[] = [];
  const shapes: { db: string; shape: DatabaseShape }[] = [];
  for (const db of dbs) {
    const pulled = await pullDatabase(device, { pkg, db: `databases/${db}` }).catch(() => null);
    if (!pulled) continue;
    try {
      const shape = readDatabaseShape(pulled.dbPath);
      shapes.push({ db: `databases/${db}`, shape });
      for (const c of findKeyCandidates(pulled.dbPath, `databases/${db}`)) {
        // A subscription table's URL is the feed, not an item's key.
        if (c.table === shape.subscription?.table) continue;
        // A column of a UNIQUE index of several columns (Feeder's (guid, feed_id)) is a key too.
        const composite = shape.tables.find((t) => t.table === c.table)?.compositeUnique.includes(c.column) === true;
        candidates.push(composite && !c.unique ? { ...c, compositeUnique: true, score: c.score + 8 } : c);
      }
    } catch {
      // not a SQLite database
    } finally {
      await pulled.cleanup();
    }
  }
  candidates.sort((a, b) => b.score - a.score);
  return { dbs, candidates, shapes };
}

function noKeyColumn(pkg: string, dbs: readonly string[]): DedupVerifyError {
  return new DedupVerifyError(
    ErrorCode.DeviceCommand,
    `No database of ${pkg} has a text column that looks like a dedup key (databases/: ${dbs.join(', ') || 'none'}), and no shared_prefs entry looks like a high-water mark. Launch the app and let its worker run once, or write "database" in the config by hand (file, table, keyColumn).`,
  );
}

function noteKeyColumn(key: KeyCandidate, others: readonly KeyCandidate[], notes: InitFindings): void {
  const values = key.sampled === undefined || key.sampled === 0 ? 'no rows yet' : `${key.linkLike ?? 0} of ${key.sampled} sampled values are links`;
  const index = key.unique ? 'UNIQUE index' : key.compositeUnique === true ? 'in a UNIQUE index of several columns' : 'no UNIQUE index: the durable-identity scenario will flag it';
  const line = `database: ${key.db}, table ${key.table}, key column ${key.column} (${index}; ${values}).`;
  const rest = others.slice(0, 3).map((c) => `${c.db} ${c.table}.${c.column}`);
  if (key.unique && key.score >= 20 && rest.length === 0) notes.found.push(`Dedup table ${line.slice('database: '.length)}`);
  else notes.confirm.push(`${line}${rest.length > 0 ? ` Other candidates: ${rest.join(', ')}.` : ''}`);
}

/** The proposed `database` and what it implies for `notifications.match`. */
interface DedupProposal {
  readonly database: Record<string, unknown>;
  readonly rowIdColumn: string | null;
}

/**
 * How the app remembers (docs/real-apps.md): a key table (the reference shape); a notified flag
 * in the key's table (kind "flag", Feeder), whose integer primary key is then proposed as the
 * notification id; or, when no column is held by a UNIQUE index and a shared_prefs long looks like
 * a high-water mark, that mark (kind "watermark").
 */
async function proposeDedup(device: AndroidDevice, pkg: string, found: DatabaseFindings, notes: InitFindings): Promise<DedupProposal> {
  const key = found.candidates[0];
  // A UNIQUE column named like a key or holding links; a unique id of something else (an outbox's
  // operation id) does not make the app a key-table app.
  const keyLike = key !== undefined && (KEY_NAMES.includes(key.column.toLowerCase()) || ((key.sampled ?? 0) > 0 && (key.linkLike ?? 0) * 2 > (key.sampled ?? 0)));
  const keyed = keyLike && (key.unique || key.compositeUnique === true);
  if (!keyed) {
    const mark = await findWatermark(device, pkg);
    if (mark !== null) {
      notes.confirm.push(
        `database: no column is held by a UNIQUE index; ${mark.prefs} has "${mark.key}", which looks like a high-water mark (the publication time, in ms, of the newest item notified): kind "watermark". If it holds an id or seconds instead, the watermark kind does not fit.`,
      );
      return { database: { kind: 'watermark', watermark: { prefs: mark.prefs, key: mark.key } }, rowIdColumn: null };
    }
  }
  if (key === undefined) throw noKeyColumn(pkg, found.dbs);
  noteKeyColumn(key, found.candidates.slice(1), notes);
  const table = found.shapes.find((s) => s.db === key.db)?.shape.tables.find((t) => t.table === key.table);
  if (table?.flagColumn != null) {
    notes.confirm.push(
      `database.kind: ${key.table}.${table.flagColumn} looks like a "notified" flag set once an item is posted (kind "flag"): the rows exist before the post, so db-is-truth clears the flag instead of deleting rows.`,
    );
    return { database: { kind: 'flag', file: key.db, table: key.table, keyColumn: key.column, flagColumn: table.flagColumn }, rowIdColumn: table.rowIdColumn };
  }
  return { database: { file: key.db, table: key.table, keyColumn: key.column }, rowIdColumn: null };
}

/** The config init proposes for `pkg` (or the one app it can find) on `device`, with what it found and what to confirm. */
export async function inspectApp(device: AndroidDevice, pkgOpt: string | undefined, outPath: string): Promise<{ pkg: string; config: Record<string, unknown>; notes: InitFindings }> {
  const serial = device.serial;
  const notes: InitFindings = { found: [], confirm: [] };
  const pkg = pkgOpt ?? (await discoverPackage(device, notes));
  if (!(await isPackageInstalled(device, pkg))) {
    const thirdParty = await listThirdPartyPackages(device).catch(() => [] as string[]);
    const listed = thirdParty.length === 0 ? 'none' : thirdParty.length <= 8 ? thirdParty.join(', ') : `${thirdParty.slice(0, 8).join(', ')}, …`;
    throw new DedupVerifyError(
      ErrorCode.DeviceCommand,
      `${pkg} is not installed on ${serial} (third-party packages there: ${listed}). Install a debug build (./gradlew installDebug) or fix --package.`,
    );
  }
  await assertRunAs(device, pkg);
  notes.found.push(`${pkg} is installed and debuggable on ${serial} (run-as works).`);

  const api = await getSdkLevel(device);
  const info = await getPackageInfo(device, pkg);
  if (info !== null && !hasNotificationPermission(info, api)) {
    notes.confirm.push(`POST_NOTIFICATIONS is not granted (API ${api}): grant it before a run: adb -s ${serial} shell pm grant ${pkg} android.permission.POST_NOTIFICATIONS`);
  }

  const launchActivity = await findLaunchActivity(device, pkg, notes);
  const scheduling = await findScheduling(device, pkg, launchActivity, notes);
  const windowMs = 2 * scheduling.intervalMs;
  notes.confirm.push(
    `windowMs: set to 2 × the interval = ${windowMs} ms (${formatDuration(windowMs)}); put the worker's own window constant here (\`dedup-verify lint app/src\` finds it). A window shorter than 2 × the interval loses items when one run is missed.`,
  );

  const databases = await inspectDatabases(device, pkg);
  const dedup = await proposeDedup(device, pkg, databases, notes);
  const subscription = databases.shapes.map((d) => ({ db: d.db, sub: d.shape.subscription })).find((d) => d.sub !== null);
  const feed: Record<string, unknown> = { ...CONFIG_DEFAULTS.feed };
  if (subscription?.sub != null) {
    // The fixture feed goes in as a subscription: a VIEW intent with its URL, after install and every pm clear.
    feed['attach'] = [{ intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}', component: launchActivity } }];
    notes.found.push(`Subscription table ${subscription.db} ${subscription.sub.table} (URL column ${subscription.sub.urlColumn}): the feed is something the user adds, not a build field.`);
    notes.confirm.push(
      `feed.attach: a VIEW intent with the fixture feed's URL to ${launchActivity}; name the activity whose intent filter takes http(s) feed URLs (or use an "sql" step that inserts the row into ${subscription.sub.table}, or a "deepLink").`,
    );
  } else {
    notes.confirm.push(
      `feed: the app's debug build must fetch http://127.0.0.1:${CONFIG_DEFAULTS.feed.devicePort}${CONFIG_DEFAULTS.feed.path} (a BuildConfig field), with cleartext to 127.0.0.1 allowed in its network security config; set feed.devicePort, feed.path and feed.format (rss or atom) to match.`,
    );
  }
  const notifications: Record<string, unknown> =
    dedup.rowIdColumn !== null ? { match: 'row-id', idColumn: dedup.rowIdColumn } : { ...CONFIG_DEFAULTS.notifications };
  notes.confirm.push(
    dedup.rowIdColumn !== null
      ? `notifications.match: "row-id" (the notification id is the row's ${dedup.rowIdColumn}, as Feeder posts notify(item.id.toInt(), …)); if the app posts link.hashCode() use "hashcode-id"; set notifications.channel to the channel id the app posts items on.`
      : 'notifications.match: "hashcode-id" means notify(link.hashCode(), …); use "tag" if the app posts with tag = link, "row-id" if the id is a row id of the dedup table, or "title" if none; set notifications.channel to the channel id the app posts on.',
  );

  const config = {
    $schema: relative(dirname(outPath), join(packageRoot(), 'schema', 'dedup-verify.config.schema.json')),
    $comment: [
      `Written by dedup-verify init from ${serial} on ${new Date().toISOString()}. Lines starting with CONFIRM are guesses: check each, then delete this comment if you like.`,
      ...notes.found.map((f) => `FOUND ${f}`),
      ...notes.confirm.map((c) => `CONFIRM ${c}`),
    ],
    app: { package: pkg, launchActivity },
    work: scheduling.work,
    windowMs,
    allowedDuplicates: 0,
    database: dedup.database,
    feed,
    notifications,
    backend: { ...CONFIG_DEFAULTS.backend },
    timeouts: { ...CONFIG_DEFAULTS.timeouts },
  };
  return { pkg, config, notes };
}

export async function runInit(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : '127.0.0.1';
  const endpoint = { host, port: typeof opts['adbPort'] === 'number' ? opts['adbPort'] : defaultAdbPort() };
  const outOption = typeof opts['out'] === 'string' ? opts['out'] : DEFAULT_CONFIG_FILE;
  const outPath = resolve(outOption);
  const pkgOpt = typeof opts['package'] === 'string' ? assertPackageName(opts['package']) : undefined;
  // Where the config goes is checked before the device is inspected, not after.
  await checkOutputFile(outPath, outOption, opts['force'] === true);
  const adbPath = isLocalHost(host) ? findAdbBinary() : undefined;
  const serial = await chooseDevice(opts, endpoint);
  const device = await AdbDevice.open({ serial, host: endpoint.host, port: endpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) });
  try {
    const { pkg, config, notes } = await inspectApp(device, pkgOpt, outPath);
    parseConfig(JSON.parse(JSON.stringify(config)), outPath);
    try {
      await writeFile(outPath, `${JSON.stringify(config, null, 2)}\n`);
    } catch (e) {
      throw new UsageError(`Could not write ${outPath} (${describeError(e)}); pass --out FILE somewhere you can write.`, { cause: e });
    }
    if (opts['json'] === true) {
      io.stdout(`${JSON.stringify({ path: outPath, device: serial, package: pkg, found: notes.found, confirm: notes.confirm, config }, null, 2)}\n`);
    } else {
      const shown = relative(process.cwd(), outPath) || outPath;
      io.stdout(
        [
          `Inspected ${pkg} on ${serial}:`,
          ...notes.found.map((f) => `  found    ${f}`),
          ...notes.confirm.map((c) => `  CONFIRM  ${c}`),
          `Wrote ${shown} (the same notes are in its "$comment"). Check every CONFIRM line, then:`,
          `  dedup-verify doctor --device ${serial} --config ${shown}`,
          `  dedup-verify run --device ${serial} --config ${shown} --scenario back-to-back`,
          '',
        ].join('\n'),
      );
    }
    return 0;
  } finally {
    await device.close();
  }
}
