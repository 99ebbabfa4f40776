/**
 * `dedup-verify init [--device SERIAL] [--package PKG]`: inspects an app on a connected device
 * and writes a starting dedup-verify.config.json. It reads only what adb shows: the package
 * (installed? debuggable, i.e. does run-as work?), its launcher activity, WorkManager's database
 * (unique periodic work names and their intervals) and the app's databases (a table with a
 * UNIQUE text column that looks like a dedup key). What it found and every value it had to
 * guess are listed in the file's "$comment" ("FOUND …" / "CONFIRM …") and on the console.
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

interface InitFindings {
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

function describeWork(w: FoundWork): string {
  return `"${w.name}" every ${formatDuration(w.intervalMs)}${w.flexMs > 0 && w.flexMs !== w.intervalMs ? ` (flex ${formatDuration(w.flexMs)})` : ''}, worker ${w.workerClass}`;
}

async function findDedupColumn(device: AndroidDevice, pkg: string, notes: InitFindings): Promise<KeyCandidate> {
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
  for (const db of dbs) {
    const pulled = await pullDatabase(device, { pkg, db: `databases/${db}` }).catch(() => null);
    if (!pulled) continue;
    try {
      candidates.push(...findKeyCandidates(pulled.dbPath, `databases/${db}`));
    } catch {
      // not a SQLite database
    } finally {
      await pulled.cleanup();
    }
  }
  candidates.sort((a, b) => b.score - a.score);
  const key = candidates[0];
  if (!key) {
    throw new DedupVerifyError(
      ErrorCode.DeviceCommand,
      `No database of ${pkg} has a text column that looks like a dedup key (databases/: ${dbs.join(', ') || 'none'}). Launch the app and let its worker run once, or write "database" in the config by hand (file, table, keyColumn).`,
    );
  }
  const values = key.sampled === undefined || key.sampled === 0 ? 'no rows yet' : `${key.linkLike ?? 0} of ${key.sampled} sampled values are links`;
  const others = candidates.slice(1, 4).map((c) => `${c.db} ${c.table}.${c.column}`);
  const line = `database: ${key.db}, table ${key.table}, key column ${key.column} (${key.unique ? 'UNIQUE index' : 'no UNIQUE index: the durable-identity scenario will flag it'}; ${values}).`;
  if (key.unique && key.score >= 20 && others.length === 0) notes.found.push(`Dedup table ${line.slice('database: '.length)}`);
  else notes.confirm.push(`${line}${others.length > 0 ? ` Other candidates: ${others.join(', ')}.` : ''}`);
  return key;
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
  const notes: InitFindings = { found: [], confirm: [] };
  try {
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
    const work = await readWork(device, pkg, launchActivity);
    notes.found.push(`WorkManager database ${WORK_DATABASE_PATH} (${work.workSpecs.length} WorkSpec row(s)).`);
    const periodic = findPeriodicUniqueWork(work);
    const chosen = periodic[0];
    if (!chosen) {
      const anyPeriodic = work.workSpecs.filter((s: WorkSpecRow) => isPeriodic(s) && s.state !== WorkState.CANCELLED);
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `${pkg} has no unique periodic work (unique names: ${[...new Set(work.names.map((n) => n.name))].join(', ') || 'none'}; periodic WorkSpecs without a unique name: ${anyPeriodic.length}). dedup-verify drives work enqueued with enqueueUniquePeriodicWork(name, KEEP, request): enqueue it that way, launch the app, then run init again.`,
      );
    }
    if (periodic.length === 1) notes.found.push(`Unique periodic work ${describeWork(chosen)}.`);
    else notes.confirm.push(`work.uniqueName: several unique periodic works (${periodic.map(describeWork).join('; ')}); picked "${chosen.name}".`);
    const windowMs = 2 * chosen.intervalMs;
    notes.confirm.push(
      `windowMs: set to 2 × the interval = ${windowMs} ms (${formatDuration(windowMs)}); put the worker's own window constant here (\`dedup-verify lint app/src\` finds it). A window shorter than 2 × the interval loses items when one run is missed.`,
    );

    const key = await findDedupColumn(device, pkg, notes);
    notes.confirm.push(
      `feed: the app's debug build must fetch http://127.0.0.1:${CONFIG_DEFAULTS.feed.devicePort}${CONFIG_DEFAULTS.feed.path} (a BuildConfig field), with cleartext to 127.0.0.1 allowed in its network security config; set feed.devicePort, feed.path and feed.format (rss or atom) to match.`,
    );
    notes.confirm.push(
      'notifications.match: "hashcode-id" means notify(link.hashCode(), …); use "tag" if the app posts with tag = link, or "title" if neither; set notifications.channel to the channel id the app posts on.',
    );

    const config = {
      $schema: relative(dirname(outPath), join(packageRoot(), 'schema', 'dedup-verify.config.schema.json')),
      $comment: [
        `Written by dedup-verify init from ${serial} on ${new Date().toISOString()}. Lines starting with CONFIRM are guesses: check each, then delete this comment if you like.`,
        ...notes.found.map((f) => `FOUND ${f}`),
        ...notes.confirm.map((c) => `CONFIRM ${c}`),
      ],
      app: { package: pkg, launchActivity },
      work: { uniqueName: chosen.name, workerClass: chosen.workerClass },
      windowMs,
      allowedDuplicates: 0,
      database: { file: key.db, table: key.table, keyColumn: key.column },
      feed: { ...CONFIG_DEFAULTS.feed },
      notifications: { ...CONFIG_DEFAULTS.notifications },
      backend: { ...CONFIG_DEFAULTS.backend },
      timeouts: { ...CONFIG_DEFAULTS.timeouts },
    };
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
