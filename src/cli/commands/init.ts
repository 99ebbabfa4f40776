/**
 * `dedup-verify init [--device SERIAL] [--package PKG]`: inspects an app on a connected device
 * and writes a starting dedup-verify.config.json. It reads only what adb shows: the package
 * (debuggable?), its launcher activity, WorkManager's database (unique periodic work names and
 * intervals) and the app's databases (a table with a UNIQUE text column that looks like a dedup
 * key). Every value it had to guess is listed in the file's "$comment" and on the console.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DedupVerifyError, ErrorCode, UsageError } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import { createAdbClient, findAdbBinary, isLocalHost, listDevices } from '../../device/adb-server.js';
import { assertRunAs, pullDatabase } from '../../android/app-data.js';
import { isPackageInstalled } from '../../android/packages.js';
import { assertPackageName } from '../../android/names.js';
import { findUniqueWork, readDeviceWorkDatabase } from '../../android/work-db.js';
import { isPeriodic, WorkState } from '../../android/work-spec.js';
import { parseConfig } from '../../config/parse-config.js';
import { CONFIG_DEFAULTS } from '../../config/types.js';
import { defaultAdbPort } from './run-devices.js';
import { packageRoot } from './run.js';
import type { CliIo } from '../main.js';

/** Column names that usually hold a feed item's stable identity, best first. */
const KEY_NAMES = ['link', 'url', 'guid', 'notification_key', 'notificationkey', 'item_key', 'key', 'uri', 'external_id'];

export interface KeyCandidate {
  readonly db: string;
  readonly table: string;
  readonly column: string;
  readonly unique: boolean;
  readonly score: number;
}

/** Scores the TEXT columns of every table in a database copy as dedup-key candidates. */
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
        const score = (unique ? 10 : 0) + (nameRank >= 0 ? 10 - nameRank : 0) + (/notif/i.test(table) ? 3 : 0);
        if (score > 0) out.push({ db: dbName, table, column: c.name, unique, score });
      }
    }
    return out;
  } finally {
    db.close();
  }
}

export async function runInit(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : '127.0.0.1';
  const endpoint = { host, port: typeof opts['adbPort'] === 'number' ? opts['adbPort'] : defaultAdbPort() };
  const outPath = resolve(typeof opts['out'] === 'string' ? opts['out'] : 'dedup-verify.config.json');
  const pkgOpt = typeof opts['package'] === 'string' ? opts['package'] : undefined;
  if (pkgOpt === undefined) throw new UsageError('init needs the app: --package com.example.app (see `adb shell pm list packages -3`).');
  const pkg = assertPackageName(pkgOpt);
  if (existsSync(outPath)) throw new UsageError(`${outPath} exists; move it away or pass --out FILE to write elsewhere.`);
  const adbPath = isLocalHost(host) ? findAdbBinary() : undefined;
  const online = (await listDevices(createAdbClient(endpoint), endpoint)).filter((d) => d.state === 'device').map((d) => d.serial);
  const serial = typeof opts['device'] === 'string' ? opts['device'] : online.length === 1 ? online[0] : undefined;
  if (serial === undefined || !online.includes(serial)) {
    throw new UsageError(`Pick a device with --device SERIAL (online: ${online.join(', ') || 'none'}).`);
  }
  const device = await AdbDevice.open({ serial, host: endpoint.host, port: endpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) });
  const say: string[] = [];
  try {
    if (!(await isPackageInstalled(device, pkg))) {
      throw new DedupVerifyError(ErrorCode.DeviceCommand, `${pkg} is not installed on ${serial}. Install a debug build first (./gradlew installDebug).`);
    }
    await assertRunAs(device, pkg);
    say.push(`${pkg} is installed and debuggable on ${serial}.`);

    const resolved = await device.shell(['cmd', 'package', 'resolve-activity', '--brief', '-c', 'android.intent.category.LAUNCHER', pkg]);
    const component = resolved.stdout
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith(`${pkg}/`));
    const launchActivity = component ?? `${pkg}/.MainActivity`;
    say.push(component ? `Launcher activity: ${component} (from cmd package resolve-activity).` : `CONFIRM app.launchActivity: no launcher activity found, guessed ${launchActivity}.`);

    const work = await readDeviceWorkDatabase(device, pkg).catch(() => null);
    if (work === null) {
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `${pkg} has no WorkManager database (no_backup/androidx.work.workdb) on ${serial}. Launch the app once (adb shell am start …) so it schedules its work, then run init again.`,
      );
    }
    const names = [...new Set(work.names.map((n) => n.name))];
    const periodic = names
      .flatMap((name) => findUniqueWork(work, name).map((u) => ({ name, spec: u.spec })))
      .filter((u) => isPeriodic(u.spec) && u.spec.state !== WorkState.CANCELLED);
    const chosen = periodic[0];
    if (!chosen) {
      throw new DedupVerifyError(ErrorCode.DeviceCommand, `${pkg} has no unique periodic work (WorkName rows: ${names.join(', ') || 'none'}). dedup-verify drives work enqueued with enqueueUniquePeriodicWork.`);
    }
    say.push(
      `Unique periodic work: ${periodic.map((u) => `"${u.name}" every ${u.spec.intervalDuration / 3_600_000} h (${u.spec.workerClassName})`).join(', ')}.` +
        (periodic.length > 1 ? ` CONFIRM work.uniqueName: picked "${chosen.name}".` : ''),
    );
    const windowMs = 2 * chosen.spec.intervalDuration;
    say.push(`CONFIRM windowMs: set to 2 × interval = ${windowMs} ms; use the worker's own window constant (dedup-verify lint finds it in the sources).`);

    const listing = await device.shell(['run-as', pkg, 'ls', 'databases']);
    const dbs = listing.stdout
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
      throw new DedupVerifyError(ErrorCode.DeviceCommand, `No database of ${pkg} has a text column that looks like a dedup key (databases: ${dbs.join(', ') || 'none'}). Let the worker run once, or write the config by hand (see the README).`);
    }
    say.push(
      `Dedup table: ${key.db} ${key.table}.${key.column}${key.unique ? ' (UNIQUE index)' : ' (no UNIQUE index: durable-identity will flag it)'}.` +
        (candidates.length > 1 ? ` CONFIRM database.*: other candidates ${candidates.slice(1, 4).map((c) => `${c.table}.${c.column}`).join(', ')}.` : ''),
    );
    say.push(`CONFIRM feed.*: point the app's feed URL at http://127.0.0.1:${CONFIG_DEFAULTS.feed.devicePort}${CONFIG_DEFAULTS.feed.path} in the debug build (the fixture server is reached through adb reverse).`);
    say.push(`CONFIRM notifications.match: "hashcode-id" assumes notify(link.hashCode(), …); use "tag" or "title" otherwise.`);

    const config = {
      $schema: relative(dirname(outPath), join(packageRoot(), 'schema', 'dedup-verify.config.schema.json')),
      $comment: [`Written by dedup-verify init from ${serial} on ${new Date().toISOString()}.`, ...say],
      app: { package: pkg, launchActivity },
      work: { uniqueName: chosen.name, workerClass: chosen.spec.workerClassName },
      windowMs,
      allowedDuplicates: 0,
      database: { file: key.db, table: key.table, keyColumn: key.column },
      feed: { ...CONFIG_DEFAULTS.feed },
      notifications: { ...CONFIG_DEFAULTS.notifications },
      backend: { ...CONFIG_DEFAULTS.backend },
      timeouts: { ...CONFIG_DEFAULTS.timeouts },
    };
    parseConfig(JSON.parse(JSON.stringify(config)), outPath);
    await writeFile(outPath, `${JSON.stringify(config, null, 2)}\n`);
    if (opts['json'] === true) io.stdout(`${JSON.stringify({ path: outPath, config, notes: say }, null, 2)}\n`);
    else io.stdout(`${say.map((s) => `- ${s}`).join('\n')}\nWrote ${outPath}. Check every CONFIRM line, then: dedup-verify run --device ${serial} --config ${outPath}\n`);
    return 0;
  } finally {
    await device.close();
  }
}
