/**
 * An app's private files through `run-as` (docs/design.md §4, §8; aosp-mirror/platform_system_core
 * run-as/run-as.cpp @145ac70b).
 *
 * Reading: `run-as PKG cat PATH` over the shell (binary-safe: shell v2 raw mode, or the legacy
 * marker mode, never a PTY). A SQLite database in WAL mode keeps committed pages in `-wal`
 * until a checkpoint ("Readers read data from both the original database file and the
 * '<database>-wal' file", sqlite.org wal docs), so a database is always copied with its `-wal`
 * and `-shm` into one host directory and opened there; a missing `-wal` is fine.
 *
 * Deleting rows is done on a copy (docs/design.md §8): force-stop the app (writing under a running
 * app bypasses Room's invalidation tracker), back up the three files on the host, delete in a
 * host copy and checkpoint it into the main file, write the main file back, remove the stale
 * `-wal`/`-shm`/`-journal` (SQLite would replay an old WAL onto the new file), and read it back
 * to verify. The backup restores the database exactly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DedupVerifyError, DeviceCommandError, ErrorCode } from '../errors.js';
import { commandFailed, type AndroidDevice } from '../device/android-device.js';
import { buildShellCommand, quoteShellArg } from '../device/shell-quote.js';
import { parseReads, ReadAgain, runReads, type ShellRead } from './shell-reads.js';
import type { ShellResult } from '../device/android-device.js';
import { forceStop, forceStopCommand } from './activity.js';
import { shellBatch, type BatchCommand } from '../device/shell-batch.js';
import { assertAppRelativePath, assertPackageName, quoteSqlIdentifier } from './names.js';
import { classifyRunAsError, isNoSuchFile, type RunAsFailure } from './parsers/run-as.js';
import { parseLsRecursive, type TreeEntry } from './parsers/ls.js';
import { parseSharedPrefs, type PrefValue } from './parsers/shared-prefs.js';

export type RunAsCheck = { readonly ok: true; readonly uid: number } | { readonly ok: false; readonly reason: RunAsFailure | 'other'; readonly message: string };

/** Whether `run-as PKG` works (the app is installed and debuggable); never throws for a refusal. */
export async function checkRunAs(device: AndroidDevice, pkg: string): Promise<RunAsCheck> {
  return (await runReads(device, [runAsCheckRead(pkg)]))[0];
}

/**
 * checkRunAs as a read that goes out with others (one shell invocation). run-as prints its
 * refusal on stderr and exits 1 (system/core run-as/run-as.cpp, classifyRunAsError); `id -u`
 * under it prints the app's uid.
 */
export function runAsCheckRead(pkg: string): ShellRead<RunAsCheck> {
  return {
    commands: [['run-as', assertPackageName(pkg), 'id', '-u']],
    parse: ([result]) => {
      if (result === undefined) return { ok: false, reason: 'other', message: 'not run' };
      const uid = result.stdout.toString('utf8').trim();
      if (result.exitCode === 0 && /^\d+$/.test(uid)) return { ok: true, uid: Number(uid) };
      return { ok: false, reason: classifyRunAsError(result.stderr) ?? 'other', message: (result.stderr || result.stdout.toString('utf8')).trim() };
    },
  };
}

export async function hasRunAs(device: AndroidDevice, pkg: string): Promise<boolean> {
  return (await checkRunAs(device, pkg)).ok;
}

/** Throws DV_NOT_DEBUGGABLE (with the fix) when run-as refuses the package. */
export async function assertRunAs(device: AndroidDevice, pkg: string): Promise<void> {
  throwUnlessRunAs(await checkRunAs(device, pkg), device.serial, pkg);
}

/** What assertRunAs throws for a check that failed. */
export function throwUnlessRunAs(check: RunAsCheck, serial: string, pkg: string): void {
  if (check.ok) return;
  if (check.reason === 'not-debuggable') {
    throw new DedupVerifyError(
      ErrorCode.NotDebuggable,
      `run-as refused ${pkg} on ${serial}: "${check.message}". Install a debuggable build (android:debuggable="true", e.g. the debug variant) and run again.`,
    );
  }
  throw new DeviceCommandError(`run-as ${pkg} failed on ${serial}: ${check.message || check.reason}`, {
    command: `run-as ${pkg} id -u`,
    stderr: check.message,
  });
}

/** A relative path as a command operand that no command takes for an option (`-x` → `./-x`). */
export function appOperand(relativePath: string): string {
  const path = assertAppRelativePath(relativePath);
  return path.startsWith('-') ? `./${path}` : path;
}

/** A file under the app's data directory; null when it does not exist. */
export async function readAppFile(device: AndroidDevice, pkg: string, relativePath: string): Promise<Buffer | null> {
  const argv = ['run-as', assertPackageName(pkg), 'cat', appOperand(relativePath)];
  const result = await device.shell(argv, { timeoutMs: 120_000 });
  if (result.exitCode === 0) return result.stdout;
  const refusal = classifyRunAsError(result.stderr);
  if (refusal === 'not-debuggable') await assertRunAs(device, pkg);
  if (refusal === null && isNoSuchFile(result.stderr)) return null;
  throw new DeviceCommandError(`Could not read ${relativePath} of ${pkg} on ${device.serial}: ${result.stderr.trim() || `exit ${result.exitCode}`}`, {
    command: buildShellCommand(argv),
    exitCode: result.exitCode,
    stderr: result.stderr,
  });
}

/**
 * `run-as PKG cat PATH` of each path as one read (src/device/shell-batch.ts: several go out in one
 * shell invocation): each file's bytes, null for a file that does not exist. A refusal of run-as
 * throws as `assertRunAs` does, any other failure as `readAppFile` does. run-as prints its own
 * refusals ("run-as: package not debuggable: PKG", exit 1: system/core run-as/run-as.cpp
 * @145ac70b, every API level since 24) and otherwise execs the command as the app's uid, so a
 * missing file is toybox cat's "No such file or directory" on stderr (toybox lib/lib.c perror_msg).
 */
export function appFilesRead(serial: string, pkg: string, relativePaths: readonly string[]): ShellRead<(Buffer | null)[]> {
  const commands = relativePaths.map((p) => ['run-as', assertPackageName(pkg), 'cat', appOperand(p)]);
  return {
    commands,
    parse: (results) => results.map((r, i) => appFileOf(serial, pkg, relativePaths[i]!, commands[i]!, r)),
  };
}

/** The bytes of one `run-as PKG cat PATH`, as readAppFile judges its result. */
function appFileOf(serial: string, pkg: string, relativePath: string, argv: readonly string[], result: ShellResult): Buffer | null {
  if (result.exitCode === 0) return result.stdout;
  const refusal = classifyRunAsError(result.stderr);
  if (refusal === 'not-debuggable') {
    throw new DedupVerifyError(
      ErrorCode.NotDebuggable,
      `run-as refused ${pkg} on ${serial}: "${result.stderr.trim()}". Install a debuggable build (android:debuggable="true", e.g. the debug variant) and run again.`,
    );
  }
  if (refusal === null && isNoSuchFile(result.stderr)) return null;
  throw new DeviceCommandError(`Could not read ${relativePath} of ${pkg} on ${serial}: ${result.stderr.trim() || `exit ${result.exitCode}`}`, {
    command: buildShellCommand(argv),
    exitCode: result.exitCode,
    stderr: result.stderr,
  });
}

/**
 * Writes `data` to a file under the app's data directory, atomically (temp file + mv), and
 * verifies it by reading it back (unless `readBack` is false: the caller reads it back itself, as
 * editDatabase does with its copy of the database). First through stdin (`run-as PKG sh -c 'cat > TMP && mv …'`);
 * if that is refused, through a pushed copy in /data/local/tmp and `run-as PKG cp`.
 * `alsoRemove` lists files deleted in the same step (stale -wal/-shm).
 */
export async function writeAppFile(
  device: AndroidDevice,
  pkg: string,
  relativePath: string,
  data: Buffer,
  alsoRemove: readonly string[] = [],
  options: { readonly mode?: number; readonly readBack?: boolean } = {},
): Promise<void> {
  assertPackageName(pkg);
  const target = appOperand(relativePath);
  const temp = `${target}.dv-${randomBytes(6).toString('hex')}`;
  const removal = alsoRemove.map((p) => quoteShellArg(appOperand(p))).join(' ');
  // The temp file gets the shell's umask; before the rename it takes the mode asked for, else the
  // mode of the file it replaces (toybox `stat -c %a`: a database stays -rw-rw----), else 0600.
  const mode = options.mode !== undefined ? (options.mode & 0o7777).toString(8) : `"$(stat -c %a ${quoteShellArg(target)} 2>/dev/null || echo 600)"`;
  const finish = `chmod ${mode} ${quoteShellArg(temp)} && mv -f ${quoteShellArg(temp)} ${quoteShellArg(target)}${removal ? ` && rm -f ${removal}` : ''}`;
  const viaStdin = await device.shell(['run-as', pkg, 'sh', '-c', `cat > ${quoteShellArg(temp)} && ${finish}`], { stdin: data, timeoutMs: 120_000 });
  if (viaStdin.exitCode !== 0) {
    const staged = `/data/local/tmp/dv-${randomBytes(8).toString('hex')}`;
    await device.push(data, staged, 0o644);
    try {
      const viaCopy = await device.shell(['run-as', pkg, 'sh', '-c', `cp ${quoteShellArg(staged)} ${quoteShellArg(temp)} && ${finish}`], { timeoutMs: 120_000 });
      if (viaCopy.exitCode !== 0) {
        await device.shell(['run-as', pkg, 'rm', '-f', temp]);
        throw new DeviceCommandError(
          `Could not write ${relativePath} of ${pkg} on ${device.serial}: through stdin "${viaStdin.stderr.trim()}", through ${staged} "${viaCopy.stderr.trim()}".`,
          { command: `run-as ${pkg} cp ${staged} ${temp}`, exitCode: viaCopy.exitCode, stderr: viaCopy.stderr },
        );
      }
    } finally {
      await device.shell(['rm', '-f', staged]);
    }
  }
  if (options.readBack === false) return;
  const back = await readAppFile(device, pkg, target);
  if (back === null || sha256(back) !== sha256(data)) {
    throw new DedupVerifyError(
      ErrorCode.DeviceCommand,
      `Wrote ${relativePath} of ${pkg} on ${device.serial} but reading it back gave ${back === null ? 'no file' : `${back.length} different bytes`}; the backup is kept.`,
    );
  }
}

/** Removes files under the app's data directory (missing ones are fine). */
export async function removeAppFiles(device: AndroidDevice, pkg: string, relativePaths: readonly string[]): Promise<void> {
  if (relativePaths.length === 0) return;
  await runSequence(device, runAsOnPathsCommands(pkg, ['rm', '-f'], relativePaths));
}

/** `feed.db` → `databases/feed.db`; a path with a directory is kept. */
export function databasePath(db: string): string {
  return assertAppRelativePath(db.includes('/') ? db : `databases/${db}`);
}

export const SQLITE_SIDE_FILES = ['-wal', '-shm'] as const;

export interface PulledDatabase {
  /** Host directory holding the copies. */
  readonly dir: string;
  /** Host path of the main file (open this one). */
  readonly dbPath: string;
  readonly hasWal: boolean;
  /** Deletes the host copies. */
  cleanup(): Promise<void>;
}

/**
 * A database with its -wal as one snapshot: one shell invocation (with other reads when given to
 * runReads) reads the -wal, the main file and the -wal again, and the copy is taken only when the
 * two -wal reads are the same bytes. The commands of one invocation still run one after another
 * while the app writes, and SQLite changes the main file only by a checkpoint, which copies
 * frames that are in the -wal into it ("the checkpoint operation … transfers the content of the
 * WAL back into the original database", sqlite.org/wal.html; walformat.html). A -wal unchanged
 * around the main file's read means no commit and no WAL reset came meanwhile, so every page the
 * main file may have gained is in the -wal copy too, and SQLite replaying that copy on the host
 * gives the database as of that -wal. When the two differ (a commit, or a checkpoint that reset
 * the WAL: the salts in its header change), the invocation is sent again (ReadAgain).
 * Reading main and -wal by two separate commands can tear (specs/unit/android/work-db-snapshot.spec.ts).
 * Not -shm: see pullDatabase.
 */
export function databaseRead(serial: string, request: { readonly pkg: string; readonly db: string; readonly hostDir?: string }): ShellRead<PulledDatabase> {
  const relative = databasePath(request.db);
  const files = appFilesRead(serial, request.pkg, [`${relative}-wal`, relative, `${relative}-wal`]);
  return {
    commands: files.commands,
    parse: async (results) => {
      const [walBefore, main, walAfter] = await files.parse(results);
      if (!sameBytes(walBefore ?? null, walAfter ?? null)) throw new ReadAgain(`${relative}-wal of ${request.pkg} changed while ${relative} was read`);
      return writeDatabaseCopy(serial, request, relative, main ?? null, walAfter ?? null);
    },
  };
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

async function writeDatabaseCopy(
  serial: string,
  request: { readonly pkg: string; readonly hostDir?: string },
  relative: string,
  main: Buffer | null,
  wal: Buffer | null,
): Promise<PulledDatabase> {
  if (main === null) {
    throw new DeviceCommandError(`${request.pkg} has no database ${relative} on ${serial} (has the app run yet?).`, {
      command: `run-as ${request.pkg} cat ${relative}`,
      stderr: 'No such file or directory',
    });
  }
  const dir = request.hostDir ?? (await mkdtemp(join(tmpdir(), 'dv-db-')));
  await mkdir(dir, { recursive: true });
  const name = relative.split('/').pop() ?? 'db';
  const dbPath = join(dir, name);
  await writeFile(dbPath, main);
  if (wal !== null) await writeFile(`${dbPath}-wal`, wal);
  return { dir, dbPath, hasWal: wal !== null, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Copies a database with its -wal into a fresh host directory, as one snapshot: the -wal, the
 * main file and the -wal again in one shell invocation, sent again when the -wal changed in
 * between (databaseRead). Two separate reads could straddle a checkpoint, which moves pages from
 * the -wal into the main file and restarts the -wal (sqlite.org/wal.html, "Checkpointing"): the
 * copy would then lack the pages the checkpoint moved, or hold them twice.
 */
export async function pullDatabase(
  device: AndroidDevice,
  request: { readonly pkg: string; readonly db: string; readonly hostDir?: string },
): Promise<PulledDatabase> {
  const [pulled] = await runReads(device, [databaseRead(device.serial, request)]);
  return pulled;
}

export interface TableQuery {
  readonly pkg: string;
  readonly db: string;
  readonly table: string;
  /** SQL condition run on the host copy (not in a device shell), with `?` parameters. */
  readonly where?: string;
  readonly params?: readonly unknown[];
}

export type Row = Record<string, unknown>;

/** Rows of a table of the app's database, read from a fresh host copy. */
export async function readTableRows(device: AndroidDevice, query: TableQuery): Promise<Row[]> {
  const [rows] = await runReads(device, [tableRowsRead(device.serial, query)]);
  return rows;
}

/** readTableRows as one read (main and -wal in one shell invocation, with other reads when given to runReads). */
export function tableRowsRead(serial: string, query: TableQuery): ShellRead<Row[]> {
  const copy = databaseRead(serial, query);
  return {
    commands: copy.commands,
    parse: async (results) => {
      const pulled = await copy.parse(results);
      try {
        return withDatabase(pulled.dbPath, true, (db) =>
          db.prepare(`SELECT * FROM ${quoteSqlIdentifier(query.table)}${query.where ? ` WHERE ${query.where}` : ''}`).all(...(query.params ?? [])) as Row[],
        );
      } finally {
        await pulled.cleanup();
      }
    },
  };
}

export interface DatabaseBackup {
  readonly pkg: string;
  /** Path relative to the app's data directory (`databases/feed.db`). */
  readonly db: string;
  /** Host directory with `main`, and `wal` when it existed (`-shm`, the WAL's index, is rebuilt by SQLite). */
  readonly dir: string;
  readonly hasWal: boolean;
  readonly sha256: { readonly main: string; readonly wal: string | null };
  readonly createdAtMs: number;
}

/** Force-stops the app and copies the database files to `backupDir` (kept until deleted). */
export async function backupDatabase(
  device: AndroidDevice,
  request: {
    readonly pkg: string;
    readonly db: string;
    readonly backupDir: string;
    /** The host clock the backup's `createdAtMs` is read from (the wall clock when not given). */
    readonly now?: () => number;
  },
): Promise<DatabaseBackup> {
  const relative = databasePath(request.db);
  const pulled = await stopAndPullDatabase(device, { pkg: request.pkg, db: relative, hostDir: join(request.backupDir, 'files') });
  const main = await readFile(pulled.dbPath);
  const wal = pulled.hasWal ? await readFile(`${pulled.dbPath}-wal`) : null;
  const backup: DatabaseBackup = {
    pkg: request.pkg,
    db: relative,
    dir: request.backupDir,
    hasWal: pulled.hasWal,
    sha256: { main: sha256(main), wal: wal === null ? null : sha256(wal) },
    createdAtMs: (request.now ?? Date.now)(),
  };
  await writeFile(join(request.backupDir, 'backup.json'), `${JSON.stringify(backup, null, 2)}\n`);
  return backup;
}

/**
 * `am force-stop`, then the database copied as pullDatabase copies it, in one shell invocation
 * (the app's processes are gone when force-stop returns: ActivityManagerService.forceStopPackage).
 * The copy counts only when the stop exited 0 (a run-as refusal fails the copy as readAppFile
 * does); a -wal that changed while it was read (it cannot once the app is stopped) is read again.
 */
async function stopAndPullDatabase(device: AndroidDevice, request: { readonly pkg: string; readonly db: string; readonly hostDir: string }): Promise<PulledDatabase> {
  const stop = forceStopCommand(request.pkg);
  const read = databaseRead(device.serial, request);
  const [stopped, ...results] = await shellBatch(device, [stop, ...read.commands], { timeoutMs: 120_000 });
  if (stopped === undefined || stopped.exitCode !== 0) throw commandFailed(stop.join(' '), stopped ?? { stdout: Buffer.alloc(0), stderr: 'not run', exitCode: 255 });
  try {
    return (await parseReads([read], results))[0];
  } catch (e) {
    if (e instanceof ReadAgain) return pullDatabase(device, request);
    throw e;
  }
}

export interface DeleteRowsRequest extends TableQuery {
  /** Host directory for the backup (kept for restoreDatabase). */
  readonly backupDir: string;
  /** The host clock the backup is timed with (the wall clock when not given). */
  readonly now?: () => number;
}

export interface DeleteRowsResult {
  readonly backup: DatabaseBackup;
  readonly deletedRows: number;
  readonly remainingRows: number;
  /** Every row of the table after the edit, read from the device's copy (editDatabase). */
  readonly rows: Row[];
}

/**
 * One change of the app's database, made on a copy (see the file comment): `apply` runs on a
 * host copy of the backup, the copy goes back with the app stopped, and `verify` runs on a
 * fresh copy pulled from the device afterwards (it throws when the change is not there), whose
 * main file must be the bytes written (no separate read-back of the write). The app is left
 * stopped. `rows`: every row of `request.table` on that copy (what the table now holds), when a table is named.
 */
export async function editDatabase<A, V>(
  device: AndroidDevice,
  request: { readonly pkg: string; readonly db: string; readonly table?: string; readonly backupDir: string; readonly now?: () => number },
  edit: { readonly apply: (db: Database.Database) => A; readonly verify: (db: Database.Database, backup: DatabaseBackup) => V },
): Promise<{ readonly backup: DatabaseBackup; readonly applied: A; readonly verified: V; readonly rows: Row[] | undefined }> {
  const backup = await backupDatabase(device, request);
  const work = await mkdtemp(join(tmpdir(), 'dv-edit-'));
  try {
    const name = backup.db.split('/').pop() ?? 'db';
    const dbPath = join(work, name);
    await copyBackupFiles(backup, dbPath);
    const applied = withDatabase(dbPath, false, (db) => {
      const result = edit.apply(db);
      db.pragma('wal_checkpoint(TRUNCATE)');
      return result;
    });
    const edited = await readFile(dbPath);
    const side = [...SQLITE_SIDE_FILES, '-journal'].map((suffix) => `${backup.db}${suffix}`);
    await writeAppFile(device, request.pkg, backup.db, edited, side, { readBack: false });
    // Verify on a fresh copy from the device: the bytes written, no WAL left behind, and the change is there.
    const check = await pullDatabase(device, { pkg: request.pkg, db: backup.db });
    try {
      const back = await readFile(check.dbPath);
      if (sha256(back) !== sha256(edited)) {
        throw new DedupVerifyError(
          ErrorCode.DeviceCommand,
          `Wrote ${backup.db} of ${request.pkg} on ${device.serial} but reading it back gave ${back.length} different bytes; the backup is in ${backup.dir}.`,
        );
      }
      if (check.hasWal) {
        throw new DedupVerifyError(ErrorCode.DeviceCommand, `${backup.db}-wal of ${request.pkg} reappeared after the edit; is the app still running? The backup is in ${backup.dir}.`);
      }
      const table = request.table;
      const { verified, rows } = withDatabase(check.dbPath, true, (db) => ({
        verified: edit.verify(db, backup),
        rows: table === undefined ? undefined : (db.prepare(`SELECT * FROM ${quoteSqlIdentifier(table)}`).all() as Row[]),
      }));
      return { backup, applied, verified, rows };
    } finally {
      await check.cleanup();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Deletes rows safely (see the file comment). The app is left stopped. */
export async function deleteRows(device: AndroidDevice, request: DeleteRowsRequest): Promise<DeleteRowsResult> {
  const table = quoteSqlIdentifier(request.table);
  const condition = request.where ? ` WHERE ${request.where}` : '';
  const params = request.params ?? [];
  const { backup, applied, verified, rows } = await editDatabase(device, request, {
    apply: (db) => db.prepare(`DELETE FROM ${table}${condition}`).run(...params).changes,
    verify: (db, saved) => {
      const left = (db.prepare(`SELECT count(*) AS n FROM ${table}${condition}`).get(...params) as { n: number }).n;
      if (left !== 0) {
        throw new DedupVerifyError(ErrorCode.DeviceCommand, `${left} matching rows are still in ${request.table} of ${request.pkg} after the edit; the backup is in ${saved.dir}.`);
      }
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    },
  });
  return { backup, deletedRows: applied, remainingRows: verified, rows: rows ?? [] };
}

export interface UpdateRowsRequest extends DeleteRowsRequest {
  /** The column set on every matching row, and its new value. */
  readonly set: { readonly column: string; readonly value: string | number | null };
}

export interface UpdateRowsResult {
  readonly backup: DatabaseBackup;
  /** Rows the condition matched (SQLite counts a row set to the value it had as changed). */
  readonly updatedRows: number;
  /** Every row of the table after the edit, read from the device's copy (editDatabase). */
  readonly rows: Row[];
}

/** Sets one column of the matching rows safely (see the file comment). The app is left stopped. */
export async function updateRows(device: AndroidDevice, request: UpdateRowsRequest): Promise<UpdateRowsResult> {
  const table = quoteSqlIdentifier(request.table);
  const column = quoteSqlIdentifier(request.set.column);
  const condition = request.where ? ` WHERE ${request.where}` : '';
  const params = request.params ?? [];
  const { backup, applied, rows } = await editDatabase(device, request, {
    apply: (db) => db.prepare(`UPDATE ${table} SET ${column} = ?${condition}`).run(request.set.value, ...params).changes,
    verify: (db, saved) => {
      const left = (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE (${request.where ?? '1'}) AND ${column} IS NOT ?`).get(...params, request.set.value) as { n: number }).n;
      if (left !== 0) {
        throw new DedupVerifyError(ErrorCode.DeviceCommand, `${left} matching rows of ${request.table} of ${request.pkg} do not have ${request.set.column} = ${String(request.set.value)} after the edit; the backup is in ${saved.dir}.`);
      }
    },
  });
  return { backup, updatedRows: applied, rows: rows ?? [] };
}

/** Puts a backed-up database back exactly (main and -wal; -shm is rebuilt by SQLite). */
export async function restoreDatabase(device: AndroidDevice, backup: DatabaseBackup): Promise<void> {
  await forceStop(device, backup.pkg);
  const files = join(backup.dir, 'files');
  const name = backup.db.split('/').pop() ?? 'db';
  const main = await readFile(join(files, name));
  if (sha256(main) !== backup.sha256.main) {
    throw new DedupVerifyError(ErrorCode.Restore, `The backup of ${backup.db} in ${backup.dir} does not match its checksum; it was not restored.`);
  }
  const stale = [`${backup.db}-shm`, `${backup.db}-journal`, ...(backup.hasWal ? [] : [`${backup.db}-wal`])];
  await writeAppFile(device, backup.pkg, backup.db, main, stale);
  if (backup.hasWal) {
    const wal = await readFile(join(files, `${name}-wal`));
    await writeAppFile(device, backup.pkg, `${backup.db}-wal`, wal, [`${backup.db}-shm`]);
  }
}

/** Reads a backup description written by backupDatabase. */
export async function loadDatabaseBackup(backupDir: string): Promise<DatabaseBackup> {
  return JSON.parse(await readFile(join(backupDir, 'backup.json'), 'utf8')) as DatabaseBackup;
}

/** `shared_prefs/<name>.xml`; null when the file does not exist. */
export async function readSharedPrefs(device: AndroidDevice, pkg: string, name: string): Promise<Record<string, PrefValue> | null> {
  const file = await readAppFile(device, pkg, `shared_prefs/${name.endsWith('.xml') ? name : `${name}.xml`}`);
  return file === null ? null : parseSharedPrefs(file.toString('utf8'));
}

export interface AppFilesBackup {
  readonly pkg: string;
  /** Host directory: `files/<path>` for each file that existed, and `backup.json`. */
  readonly dir: string;
  /** Each path backed up, with its checksum (null: the file did not exist). */
  readonly files: readonly { readonly path: string; readonly sha256: string | null }[];
  readonly createdAtMs: number;
}

/**
 * Changes a SharedPreferences file with the app stopped (docs/design.md §8): force-stop, back the
 * file and its `.bak` up on the host, write the edited text back (atomically, verified by
 * writeAppFile) and remove the `.bak`. SharedPreferencesImpl.loadFromDisk replaces the file with
 * its `.bak` when one exists (`if (mBackupFile.exists()) { mFile.delete();
 * mBackupFile.renameTo(mFile); }`, makeBackupFile: the path + ".bak"; frameworks/base
 * core/java/android/app/SharedPreferencesImpl.java @01a70b2e), so a `.bak` left by an
 * interrupted write is what the app would read: the edit starts from it, and it goes, or the
 * next start would undo the edit. The app is left stopped.
 */
export async function editSharedPrefs(
  device: AndroidDevice,
  request: { readonly pkg: string; readonly path: string; readonly backupDir: string; readonly now?: () => number },
  edit: (xml: string) => string,
): Promise<AppFilesBackup> {
  const { pkg, path } = request;
  await assertRunAs(device, pkg);
  await forceStop(device, pkg);
  const bak = `${path}.bak`;
  const [[main, stale]] = await runReads(device, [appFilesRead(device.serial, pkg, [path, bak])]);
  const files: { path: string; sha256: string | null }[] = [];
  for (const [file, data] of [[path, main ?? null], [bak, stale ?? null]] as const) {
    if (data !== null) {
      const host = join(request.backupDir, 'files', ...file.split('/'));
      await mkdir(join(host, '..'), { recursive: true });
      await writeFile(host, data);
    }
    files.push({ path: file, sha256: data === null ? null : sha256(data) });
  }
  const backup: AppFilesBackup = { pkg, dir: request.backupDir, files, createdAtMs: (request.now ?? Date.now)() };
  await mkdir(request.backupDir, { recursive: true });
  await writeFile(join(request.backupDir, 'backup.json'), `${JSON.stringify(backup, null, 2)}\n`);
  const current = stale ?? main ?? null;
  if (current === null) {
    throw new DeviceCommandError(`${pkg} has no ${path} on ${device.serial} (has the app run yet?).`, { command: `run-as ${pkg} cat ${path}`, stderr: 'No such file or directory' });
  }
  await writeAppFile(device, pkg, path, Buffer.from(edit(current.toString('utf8')), 'utf8'), stale === null || stale === undefined ? [] : [bak]);
  return backup;
}

/** `run-as PKG CMD... PATH...` in chunks (one shell command line stays far below ARG_MAX). */
function runAsOnPathsCommands(pkg: string, command: readonly string[], paths: readonly string[]): string[][] {
  const operands = paths.map(appOperand);
  const commands: string[][] = [];
  for (let i = 0; i < operands.length; i += 100) commands.push(['run-as', assertPackageName(pkg), ...command, ...operands.slice(i, i + 100)]);
  return commands;
}

/**
 * Commands that change the app's files, in one shell invocation: each runs only when the one
 * before it exited 0, and the first that did not fails as `shellText` fails (commandFailed).
 */
async function runSequence(device: AndroidDevice, commands: readonly (readonly string[])[]): Promise<void> {
  if (commands.length === 0) return;
  const results = await shellBatch(device, commands, { timeoutMs: 120_000, stopAfterFailure: true });
  commands.forEach((argv, i) => {
    const r = results[i];
    if (r === undefined || r.exitCode !== 0) throw commandFailed(argv.join(' '), r ?? { stdout: Buffer.alloc(0), stderr: 'not run', exitCode: 255 });
  });
}

/**
 * Directories of the app's data directory that are not backed up or restored: Android may clear
 * them at any time (Context.getCacheDir / getCodeCacheDir), and `pm clear` re-creates them.
 */
const DISPOSABLE_APP_DIRS = ['cache', 'code_cache'] as const;

function isDisposable(path: string): boolean {
  return DISPOSABLE_APP_DIRS.some((d) => path === d || path.startsWith(`${d}/`));
}

/** Every entry under the app's data directory (`run-as PKG ls -lRA .`), disposable dirs excluded. */
export async function listAppTree(device: AndroidDevice, pkg: string, options: ListAppTreeOptions = {}): Promise<TreeEntry[]> {
  const argv = listAppTreeCommand(pkg);
  let result: ShellResult;
  if (options.stopFirst === true) {
    // `am force-stop` then the listing, in one shell invocation; the listing runs only when the
    // stop exited 0 (as two commands sent one after the other by a caller that stops at a failure).
    // force-stop kills the app's processes before it returns (frameworks/base services/core/java/
    // com/android/server/am/ActivityManagerService.java forceStopPackage → forceStopPackageLocked),
    // so nothing of the app writes its files while they are listed and copied. The caller's
    // `alsoSend` follow, whatever the listing's status.
    const stop = forceStopCommand(pkg);
    const also = options.alsoSend?.commands ?? [];
    const [stopped, listed, ...rest] = await shellBatch(device, [stop, argv, ...also], { timeoutMs: 120_000, stopAfterFailure: [true, ...[argv, ...also].map(() => false)] });
    options.alsoSend?.took(also.map((_, i) => rest[i]));
    if (stopped === undefined || stopped.exitCode !== 0 || listed === undefined) throw commandFailed(stop.join(' '), stopped ?? { stdout: Buffer.alloc(0), stderr: 'not run', exitCode: 255 });
    result = listed;
  } else {
    result = await device.shell(argv, { timeoutMs: 120_000 });
  }
  return appTreeFrom(device, pkg, result);
}

export interface ListAppTreeOptions {
  /** `am force-stop` first, in the listing's invocation. */
  readonly stopFirst?: boolean;
  /**
   * With stopFirst: commands of the caller's sent after the listing in the same invocation, each
   * whatever the status of the one before; `took` gets their results (undefined: not run).
   */
  readonly alsoSend?: { readonly commands: readonly BatchCommand[]; took(results: readonly (ShellResult | undefined)[]): void };
}

/** The words of `run-as PKG ls -lRA .` (listAppTree). */
export function listAppTreeCommand(pkg: string): string[] {
  return ['run-as', assertPackageName(pkg), 'ls', '-lRA', '.'];
}

/** What listAppTree makes of the result of `listAppTreeCommand` (sent with other commands). */
export async function appTreeFrom(device: AndroidDevice, pkg: string, result: ShellResult): Promise<TreeEntry[]> {
  if (result.exitCode !== 0) {
    const refusal = classifyRunAsError(result.stderr);
    if (refusal !== null) await assertRunAs(device, pkg);
    throw new DeviceCommandError(`Could not list the data directory of ${pkg} on ${device.serial}: ${result.stderr.trim() || `exit ${result.exitCode}`}`, {
      command: buildShellCommand(listAppTreeCommand(pkg)),
      exitCode: result.exitCode,
      stderr: result.stderr,
    });
  }
  return parseLsRecursive(result.stdout.toString('utf8')).filter((e) => !isDisposable(e.path));
}

export interface AppTreeBackup {
  readonly pkg: string;
  /** Host directory: `files/<path>` for each file, and `tree.json`. */
  readonly dir: string;
  /** Directories, files and symlinks (with their target), parents before children. */
  readonly entries: readonly (TreeEntry & { readonly sha256?: string })[];
}

/** Files read per shell invocation by backupAppTree (each file's bytes are kept in memory until written). */
const BACKUP_FILES_PER_READ = 16;

/**
 * Copies every file of the app's data directory (but cache and code_cache) to `dir`, with its
 * mode, so that `restoreAppTree` can put the whole directory back after `pm clear` or edits.
 * The app should be stopped (its files then do not change while they are copied).
 */
export async function backupAppTree(device: AndroidDevice, pkg: string, dir: string, options: ListAppTreeOptions = {}): Promise<AppTreeBackup> {
  // Symlinks are kept as their target (restore makes a missing one again and never removes one);
  // special files are left alone.
  const tree = (await listAppTree(device, pkg, options)).filter((e) => e.type === 'file' || e.type === 'dir' || (e.type === 'link' && e.target !== undefined));
  const entries: (TreeEntry & { sha256?: string })[] = [];
  // The files' bytes, several per shell invocation (src/device/shell-batch.ts).
  const files = tree.filter((e) => e.type === 'file').map((e) => e.path);
  const contents = new Map<string, Buffer | null>();
  for (let i = 0; i < files.length; i += BACKUP_FILES_PER_READ) {
    const chunk = files.slice(i, i + BACKUP_FILES_PER_READ);
    const [read] = await runReads(device, [appFilesRead(device.serial, pkg, chunk)], { timeoutMs: 120_000 });
    chunk.forEach((path, k) => contents.set(path, read[k] ?? null));
  }
  for (const entry of tree) {
    if (entry.type !== 'file') {
      entries.push(entry);
      continue;
    }
    const data = contents.get(entry.path) ?? null;
    if (data === null) {
      // The listing named a file `cat` cannot find: its name holds a newline or a carriage
      // return (ls prints names raw to a pipe), or it went away. Nothing may be lost silently.
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `Could not back up ${JSON.stringify(entry.path)} of ${pkg} on ${device.serial}: it was listed but cannot be read by that name (a file name with a newline or a carriage return cannot be listed). Rename or remove that file, then run again; nothing was changed.`,
      );
    }
    const host = join(dir, 'files', ...entry.path.split('/'));
    await mkdir(join(host, '..'), { recursive: true });
    await writeFile(host, data);
    entries.push({ ...entry, size: data.length, sha256: sha256(data) });
  }
  const backup: AppTreeBackup = { pkg, dir, entries };
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'tree.json'), `${JSON.stringify(backup, null, 2)}\n`);
  return backup;
}

/**
 * Puts the app's data directory back as `backupAppTree` found it: the app is force-stopped,
 * files and directories that were not there are removed (cache and code_cache aside), missing
 * directories are made, and every file is written back with its mode and verified.
 */
export async function restoreAppTree(device: AndroidDevice, backup: AppTreeBackup, options: { readonly listed?: readonly TreeEntry[] } = {}): Promise<void> {
  const pkg = assertPackageName(backup.pkg);
  // `listed`: the caller force-stopped the app and listed its files (listAppTreeCommand) itself.
  const now = options.listed ?? (await listAppTree(device, pkg, { stopFirst: true }));
  const wanted = new Map(backup.entries.map((e) => [e.path, e]));
  // Extra entries: the topmost ones are enough (rm -rf takes their contents); a read-only
  // directory the app made is made writable first, or rm could not empty it.
  const extra = now.filter((e) => {
    if (e.type === 'link' || e.type === 'other') return false;
    const before = wanted.get(e.path);
    return before === undefined || (before.type === 'dir') !== (e.type === 'dir');
  });
  const topmost = extra.filter((e) => !extra.some((o) => o !== e && e.path.startsWith(`${o.path}/`)));
  const extraDirs = topmost.filter((e) => e.type === 'dir').map((e) => e.path);
  // Directories: made, and writable by the app while the files go in (a saved mode such as 0555
  // is applied at the end, deepest first). The removals and the directories in one invocation.
  const dirs = backup.entries.filter((e) => e.type === 'dir');
  await runSequence(device, [
    ...(extraDirs.length > 0 ? runAsOnPathsCommands(pkg, ['chmod', '-R', 'u+rwx'], extraDirs) : []),
    ...(topmost.length > 0 ? runAsOnPathsCommands(pkg, ['rm', '-rf'], topmost.map((e) => e.path)) : []),
    ...(dirs.length > 0 ? [...runAsOnPathsCommands(pkg, ['mkdir', '-p'], dirs.map((d) => d.path)), ...runAsOnPathsCommands(pkg, ['chmod', 'u+rwx'], dirs.map((d) => d.path))] : []),
  ]);
  const present = new Set(now.map((e) => e.path));
  await runSequence(
    device,
    backup.entries.filter((link) => link.type === 'link' && link.target !== undefined && !present.has(link.path)).map((link) => ['run-as', pkg, 'ln', '-s', link.target!, appOperand(link.path)]),
  );
  // Every file is tried: one that cannot be written must not keep the others from coming back.
  const failed: string[] = [];
  for (const file of backup.entries) {
    if (file.type !== 'file') continue;
    try {
      const data = await readFile(join(backup.dir, 'files', ...file.path.split('/')));
      if (file.sha256 !== undefined && sha256(data) !== file.sha256) {
        throw new DedupVerifyError(ErrorCode.Restore, `its backup in ${backup.dir} does not match its checksum`);
      }
      await writeAppFile(device, pkg, file.path, data, [], { mode: file.mode });
    } catch (e) {
      failed.push(`${file.path} (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const byDepth = [...dirs].sort((a, b) => b.path.split('/').length - a.path.split('/').length);
  await runSequence(device, byDepth.map((d) => ['run-as', pkg, 'chmod', (d.mode & 0o7777).toString(8), appOperand(d.path)]));
  if (failed.length > 0) {
    throw new DedupVerifyError(ErrorCode.Restore, `${failed.length} file(s) of ${pkg} could not be put back: ${failed.join('; ')}. The backup is kept; run \`dedup-verify restore\` again once that is fixed.`);
  }
}

async function copyBackupFiles(backup: DatabaseBackup, dbPath: string): Promise<void> {
  const files = join(backup.dir, 'files');
  const name = backup.db.split('/').pop() ?? 'db';
  await copyFile(join(files, name), dbPath);
  if (backup.hasWal) await copyFile(join(files, `${name}-wal`), `${dbPath}-wal`);
}

/** Opens a host copy, runs `work`, always closes. */
export function withDatabase<T>(path: string, readonly: boolean, work: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly, fileMustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
