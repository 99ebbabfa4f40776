/**
 * Leave the device as it was found (docs/design.md §8). Before a session changes anything global,
 * it records what it will change: auto_time and the clock, the adb reverse rules, whether the
 * app was stopped, and a copy of the app's data directory. The record is written to a state file first, so that
 * `dedup-verify restore` can finish the job after a crash; `restoreDevice` puts everything
 * back and is safe to run twice.
 */
import { mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AndroidDevice, ReverseRule } from '../device/android-device.js';
import { DedupVerifyError, ErrorCode, describeError } from '../errors.js';
import { forceStop, forceStopCommand, sendBroadcast } from '../android/activity.js';
import {
  appTreeFrom,
  backupAppTree,
  listAppTreeCommand,
  databasePath,
  removeAppFiles,
  restoreAppTree,
  restoreDatabase,
  writeAppFile,
  type AppTreeBackup,
  type DatabaseBackup,
  type ListAppTreeOptions,
} from '../android/app-data.js';
import { getPackageInfo, grantedRuntimePermissions, packageInfoCommand, packageInfoFrom, packageInfoRead, setRuntimePermission } from '../android/packages.js';
import type { PackageDump } from '../android/parsers/packages.js';
import {
  autoTimeCommand,
  clockSnapshotRead,
  completeClockSnapshot,
  restoreClock,
  restoredTimeMs,
  setAutoTime,
  setTimeCommand,
  setTimeTook,
  systemHostClock,
  type ClockReading,
  type ClockSnapshot,
} from '../android/clock.js';
import { runEach, runReads } from '../android/shell-reads.js';

export interface SavedDeviceState {
  readonly version: 1;
  readonly serial: string;
  readonly adb: { readonly host: string; readonly port: number };
  readonly pkg: string;
  readonly savedAt: string;
  readonly clock: ClockSnapshot;
  readonly reverses: readonly ReverseRule[];
  /** The device port of the reverse rule this session adds. */
  readonly devicePort: number;
  /** Directory holding the backups (database, shared prefs). */
  readonly backupDir: string;
  /**
   * State files written before `appTree` existed: the database backup (null: the app had no
   * database yet) and the shared_prefs file names (bytes in backupDir/shared_prefs/). Restore
   * uses them only when `appTree` is absent.
   */
  readonly database?: DatabaseBackup | null;
  /** The config's database.file, when the config names one (kind key or flag). */
  readonly databaseFile?: string;
  readonly sharedPrefs?: readonly string[];
  /**
   * Every file of the app's data directory but cache/ and code_cache/ (databases, WorkManager's
   * own database, shared_prefs, files/...), with modes; restore puts the directory back from it.
   * Absent in state files written before it existed: then only the database and shared_prefs are
   * restored.
   */
  readonly appTree?: AppTreeBackup;
  /**
   * Whether the package was in the stopped state when the session began (`dumpsys package`
   * `stopped=`). A session force-stops the app, which cancels its jobs; an app that was not
   * stopped gets its process started again after the restore so WorkManager reschedules its
   * work from the restored database. null: unknown.
   */
  readonly appWasStopped?: boolean | null;
  /**
   * The runtime permissions granted to user 0 when the session began (`dumpsys package`
   * `runtime permissions:`). `pm clear` resets them (on API 33+ POST_NOTIFICATIONS among them:
   * PermissionManagerService resets runtime permissions when an app's data is cleared), so the
   * restore grants back each one that is no longer granted. Absent in older state files.
   */
  readonly runtimeGrants?: readonly string[];
  /**
   * true while the backups are being taken: written before the first force-stop, so that a run
   * killed during the save leaves a state `restore` can act on. Nothing but the app's running
   * state has changed then; restore only starts the app again (and puts clock, auto_time and
   * reverse rules back, which are as saved).
   */
  readonly saving?: boolean;
}

/** `$XDG_STATE_HOME/dedup-verify` (default ~/.local/state/dedup-verify). */
export function stateRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_STATE_HOME'] && env['XDG_STATE_HOME'] !== '' ? env['XDG_STATE_HOME'] : join(homedir(), '.local', 'state');
  return join(base, 'dedup-verify');
}

/**
 * The folder name of a serial: every character but ASCII letters, digits, `_` and `-` as `%XX`
 * of its UTF-8 bytes (`.` too), so the name is never `.`, `..`, empty or a path, two serials
 * never share a folder, and `decodeStateName` gives the serial back. adb serials are any
 * string a transport reports (a USB serial number, `HOST:PORT`, an mDNS name), so nothing of
 * them can be assumed safe for a path.
 */
export function encodeStateName(serial: string): string {
  let out = '';
  for (const byte of Buffer.from(serial, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out === '' ? '%' : out;
}

/** The serial of a folder name made by `encodeStateName`. */
export function decodeStateName(name: string): string {
  return name === '%' ? '' : decodeURIComponent(name);
}

export function stateDirFor(serial: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateRoot(env), encodeStateName(serial));
}

const STATE_FILE = 'state.json';
const BACKUP_DIR = 'backup';

/**
 * Deletes what a save wrote in the serial's folder (state.json and backup/, which the save made
 * whole), then the folder if nothing else is left in it.
 */
async function removeSavedState(dir: string): Promise<void> {
  await rm(join(dir, BACKUP_DIR), { recursive: true, force: true });
  await rm(join(dir, STATE_FILE), { force: true });
  await rmdir(dir).catch(() => undefined);
}

/**
 * The folder an earlier version named the serial's state after (characters other than
 * letters, digits and `._-` as `_`), when that name is a folder name at all: a state left
 * there by an interrupted run is still found. Undefined for `.`, `..` and names the
 * encoding gives unchanged.
 */
function legacyStateDir(serial: string, env: NodeJS.ProcessEnv): string | undefined {
  const name = serial.replace(/[^A-Za-z0-9._-]/g, '_');
  return /^\.*$/.test(name) || name === encodeStateName(serial) ? undefined : join(stateRoot(env), name);
}

/** The state in the serial's legacy folder, when there is one and it is this serial's. */
async function readLegacyState(serial: string, env: NodeJS.ProcessEnv): Promise<{ dir: string; state: SavedDeviceState } | null> {
  const dir = legacyStateDir(serial, env);
  if (dir === undefined) return null;
  const state = await readFile(join(dir, STATE_FILE), 'utf8').then((t) => JSON.parse(t) as SavedDeviceState, () => null);
  return state !== null && state.serial === serial ? { dir, state } : null;
}

export async function readSavedState(serial: string, env: NodeJS.ProcessEnv = process.env): Promise<SavedDeviceState | null> {
  try {
    return JSON.parse(await readFile(join(stateDirFor(serial, env), STATE_FILE), 'utf8')) as SavedDeviceState;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return (await readLegacyState(serial, env))?.state ?? null;
    }
    throw new DedupVerifyError(ErrorCode.Restore, `The state file of ${serial} in ${stateDirFor(serial, env)} is unreadable: ${describeError(e)}`, { cause: e });
  }
}

/** Serials with a state file left behind by an interrupted run. */
export async function listSavedStates(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  try {
    const dirs = await readdir(stateRoot(env));
    const found: string[] = [];
    for (const d of dirs) {
      try {
        const s = JSON.parse(await readFile(join(stateRoot(env), d, STATE_FILE), 'utf8')) as SavedDeviceState;
        found.push(s.serial);
      } catch {
        // not a state directory
      }
    }
    return found;
  } catch {
    return [];
  }
}

/**
 * Records the device state and backs up the app's data. Refuses to start when an earlier run
 * left a state file: that device has not been restored yet.
 */
export async function saveDeviceState(
  device: AndroidDevice,
  options: {
    adb: { host: string; port: number };
    pkg: string;
    /** The config's database.file (absent: the app's record is not a database of its own). */
    databaseFile?: string;
    devicePort: number;
    env?: NodeJS.ProcessEnv;
    /** The device was created for this run (the embedded virtual device): an old state file for its serial is stale. */
    freshDevice?: boolean;
    /** The clock, the package's dumpsys and the reverse rules, read by the caller just before (read here when not given). */
    read?: { readonly reading: ClockReading; readonly info: PackageDump | null; readonly reverses: readonly ReverseRule[] };
    /**
     * The caller's commands sent in the backup's first invocation, after the listing of the app's
     * files (listAppTree's alsoSend): after the state file says what to put back.
     */
    alsoSend?: ListAppTreeOptions['alsoSend'];
  },
): Promise<SavedDeviceState> {
  const env = options.env ?? process.env;
  const dir = stateDirFor(device.serial, env);
  if (options.freshDevice === true) await removeSavedState(dir);
  if (await readSavedState(device.serial, env)) {
    throw new DedupVerifyError(
      ErrorCode.Restore,
      `${device.serial} was not restored after an earlier run (state in ${dir}). Run \`dedup-verify restore --device ${device.serial}\` first.`,
    );
  }
  await mkdir(dir, { recursive: true });
  const backupDir = join(dir, BACKUP_DIR);
  await rm(backupDir, { recursive: true, force: true });
  await mkdir(backupDir, { recursive: true });
  // The clock, auto_time and the package info in one shell invocation, the reverse rules (a host
  // service) at once; the package info before the backup force-stops the app.
  const { reading, info, reverses } = options.read ?? (await readState(device, options.pkg));
  const clock = await completeClockSnapshot(device, reading);
  const appWasStopped = info?.users.find((u) => u.userId === 0)?.stopped ?? null;
  const runtimeGrants = info ? grantedRuntimePermissions(info) : [];
  const base = {
    version: 1 as const,
    serial: device.serial,
    adb: options.adb,
    pkg: options.pkg,
    savedAt: new Date().toISOString(),
    clock,
    reverses,
    devicePort: options.devicePort,
    backupDir,
    ...(options.databaseFile !== undefined ? { databaseFile: databasePath(options.databaseFile) } : {}),
    appWasStopped,
    runtimeGrants,
  };
  const partial: SavedDeviceState = { ...base, saving: true };
  await writeFile(join(dir, STATE_FILE), `${JSON.stringify(partial, null, 2)}\n`);
  try {
    // Stopped, the app does not write its files while they are copied: `am force-stop`, then the
    // listing of its files in the same invocation.
    const appTree = await backupAppTree(device, options.pkg, join(backupDir, 'app'), { stopFirst: true, ...(options.alsoSend !== undefined ? { alsoSend: options.alsoSend } : {}) });
    const state: SavedDeviceState = { ...base, appTree };
    await writeFile(join(dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
    return state;
  } catch (e) {
    // The save failed (nothing of the app's data was changed): start the app again if it was
    // running, and drop the partial state.
    const report = await restoreDevice(device, partial, env);
    if (report.problems.length > 0) {
      throw new DedupVerifyError(ErrorCode.Restore, `${describeError(e)}; and putting the app back failed: ${report.problems.join('; ')}`, { cause: e });
    }
    throw e;
  }
}

/**
 * What a saved state keeps of the device: the clock, auto_time and the package's dumpsys in one
 * shell invocation, the reverse rules (a host service) at once.
 */
async function readState(device: AndroidDevice, pkg: string): Promise<{ reading: ClockReading; info: PackageDump | null; reverses: readonly ReverseRule[] }> {
  const [[reading, info], reverses] = await Promise.all([runReads(device, [clockSnapshotRead(), packageInfoRead(pkg)]), device.listReverses()]);
  return { reading, info, reverses };
}

export interface RestoreReport {
  /** What could not be put back; empty when the device is as it was. */
  readonly problems: string[];
}

/** Puts back everything `saveDeviceState` recorded; each part is tried even if another fails. */
export async function restoreDevice(device: AndroidDevice, state: SavedDeviceState, env: NodeJS.ProcessEnv = process.env): Promise<RestoreReport> {
  // Each part says what it could not put back; the parts after the stop go at once where they do
  // not depend on each other (the reverse rules and the grants on the app's files and the clock),
  // and their problems are listed in this order whichever finished first.
  const attempt = async (problems: string[], what: string, work: () => Promise<void>): Promise<void> => {
    try {
      await work();
    } catch (e) {
      problems.push(`${what}: ${describeError(e)}`);
    }
  };
  const [[stopped, data, granted], reversed] = await Promise.all([restoreOnDevice(device, state, attempt), restoreReverses(device, state, attempt)]);
  const problems = [...stopped, ...data, ...granted, ...reversed];
  if (state.appWasStopped === false && problems.length === 0) {
    // The force-stops cancelled the app's jobs. Starting its process (WorkManager's exported
    // diagnostics receiver: androidx work-runtime's AndroidManifest.xml, DiagnosticsReceiver) lets WorkManager see the force-stop and
    // reschedule its work from the restored database, as it was before the session.
    await attempt(problems, 'start the app process again so WorkManager reschedules its work', async () => {
      await sendBroadcast(device, { action: 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS', pkg: state.pkg, includeStoppedPackages: true });
    });
  }
  if (problems.length === 0) {
    await removeSavedState(stateDirFor(state.serial, env));
    const legacy = await readLegacyState(state.serial, env);
    if (legacy !== null) await removeSavedState(legacy.dir);
  }
  return { problems };
}

type Attempt = (problems: string[], what: string, work: () => Promise<void>) => Promise<void>;

/**
 * The app stopped, the clock and auto_time put back, and what the grants and the data directory
 * need read, in one shell invocation: `am force-stop`, `cmd alarm set-time`, `settings put|delete
 * global auto_time`, `dumpsys package` and `run-as ls -lRA .`. Every command runs whatever the
 * status of the one before (each part is tried even if another fails), in this order: the app
 * stopped before its files are listed, the clock set before files are written back (they carry
 * today's times, not the run's future ones). A part whose command failed is done again on its
 * own, the way it was done before the invocation held them all, so that its problem is said the
 * same way; so is everything when the invocation itself fails. The problems of the stop, the clock
 * and data, and the grants.
 */
async function restoreOnDevice(device: AndroidDevice, state: SavedDeviceState, attempt: Attempt): Promise<[string[], string[], string[]]> {
  const grants = state.runtimeGrants ?? [];
  const tree = state.saving === true ? undefined : state.appTree;
  const commands: string[][] = [forceStopCommand(state.pkg), setTimeCommand(restoredTimeMs(state.clock, systemHostClock.nowMs())), autoTimeCommand(state.clock.autoTime)];
  if (grants.length > 0) commands.push(packageInfoCommand(state.pkg));
  if (tree !== undefined) commands.push(listAppTreeCommand(state.pkg));
  const results = await runEach(device, commands, { timeoutMs: 120_000 }).catch(() => undefined);
  const [stop, setTime, autoTime, ...reads] = results ?? [];
  const packageInfo = grants.length > 0 ? reads.shift() : undefined;
  const listing = tree !== undefined ? reads.shift() : undefined;

  const stopped: string[] = [];
  if (stop === undefined || stop.exitCode !== 0) await attempt(stopped, 'stop the app', () => forceStop(device, state.pkg));
  const data: string[] = [];
  if (setTime === undefined || !setTimeTook(setTime)) {
    await attempt(data, 'restore the clock and auto_time', () => restoreClock(device, state.clock));
  } else if (autoTime === undefined || autoTime.exitCode !== 0) {
    await attempt(data, 'restore the clock and auto_time', () => setAutoTime(device, state.clock.autoTime));
  }
  const restoreData = async (): Promise<string[]> => {
    if (tree === undefined) return restoreDataOfOldStates(device, state, attempt);
    // The listing stands for the app stopped and listed only when the stop went through.
    const listed = stop?.exitCode === 0 && listing !== undefined ? await appTreeFrom(device, state.pkg, listing).catch(() => undefined) : undefined;
    const problems: string[] = [];
    await attempt(problems, "restore the app's data directory", () => restoreAppTree(device, tree, listed !== undefined ? { listed } : {}));
    return problems;
  };
  const [restored, granted] = await Promise.all([
    restoreData(),
    restoreGrants(device, state, attempt, packageInfo?.exitCode === 0 ? packageInfoFrom(packageInfo.stdout.toString('utf8'), state.pkg) : undefined),
  ]);
  return [stopped, [...data, ...restored], granted];
}

/**
 * The database and shared_prefs of a state file written before `appTree` existed (nothing of the
 * data for a state left while saving); what failed.
 */
async function restoreDataOfOldStates(device: AndroidDevice, state: SavedDeviceState, attempt: Attempt): Promise<string[]> {
  const problems: string[] = [];
  if (state.saving === true) {
    // Killed while saving: the app's data was not changed yet.
  } else {
    await attempt(problems, 'restore the database', async () => {
      if (state.database) await restoreDatabase(device, state.database);
      else if (state.databaseFile !== undefined) await removeAppFiles(device, state.pkg, ['', '-wal', '-shm', '-journal'].map((s) => `${state.databaseFile ?? ''}${s}`));
    });
    await attempt(problems, 'restore shared preferences', async () => {
      const now = await device.shell(['run-as', state.pkg, 'ls', 'shared_prefs']);
      const present = now.exitCode === 0 ? now.stdout.toString('utf8').split('\n').map((l) => l.trim()).filter((l) => l.endsWith('.xml')) : [];
      const saved = state.sharedPrefs ?? [];
      const extra = present.filter((n) => !saved.includes(n)).map((n) => `shared_prefs/${n}`);
      await removeAppFiles(device, state.pkg, extra);
      if (saved.length > 0) await device.shellText(['run-as', state.pkg, 'mkdir', '-p', 'shared_prefs']);
      for (const name of saved) {
        await writeAppFile(device, state.pkg, `shared_prefs/${name}`, await readFile(join(state.backupDir, 'shared_prefs', name)));
      }
    });
  }
  return problems;
}

/**
 * The runtime permissions granted when the session began and no longer granted; what failed.
 * `info`: the package's `dumpsys package` as read just now (read here when not given).
 */
async function restoreGrants(device: AndroidDevice, state: SavedDeviceState, attempt: Attempt, info?: PackageDump | null): Promise<string[]> {
  const problems: string[] = [];
  const grants = state.runtimeGrants ?? [];
  if (grants.length > 0) {
    await attempt(problems, 'grant back the runtime permissions', async () => {
      const read = info !== undefined ? info : await getPackageInfo(device, state.pkg);
      const now = new Set(read ? grantedRuntimePermissions(read) : []);
      for (const permission of grants) if (!now.has(permission)) await setRuntimePermission(device, state.pkg, permission, true);
    });
  }
  return problems;
}

/** The adb reverse rules as they were; what failed. */
async function restoreReverses(device: AndroidDevice, state: SavedDeviceState, attempt: Attempt): Promise<string[]> {
  const problems: string[] = [];
  await attempt(problems, 'restore adb reverse rules', async () => {
    const current = await device.listReverses();
    const ours = `tcp:${state.devicePort}`;
    const original = state.reverses.find((r) => r.remote === ours);
    let after = current;
    if (current.some((r) => r.remote === ours) && (!original || current.find((r) => r.remote === ours)?.local !== original.local)) {
      await device.removeReverse(state.devicePort);
      after = current.filter((r) => r.remote !== ours);
    }
    for (const rule of state.reverses) {
      if (!after.some((r) => r.remote === rule.remote && r.local === rule.local)) {
        const remote = /^tcp:(\d+)$/.exec(rule.remote)?.[1];
        const local = /^tcp:(\d+)$/.exec(rule.local)?.[1];
        if (remote && local) await device.reverse(Number(remote), Number(local));
        else problems.push(`reverse rule ${rule.remote} → ${rule.local} cannot be re-created through this interface`);
      }
    }
  });
  return problems;
}

/**
 * Refuses devices an interrupted run left a state file for (docs/design.md §8): saving them now
 * would record a changed device as the original. The fix leads the message.
 */
export async function refuseUnrestored(serials: readonly string[]): Promise<void> {
  const left: { serial: string; savedAt: string }[] = [];
  for (const serial of serials) {
    const state = await readSavedState(serial);
    if (state !== null) left.push({ serial, savedAt: state.savedAt });
  }
  if (left.length === 0) return;
  const commands = left.map((l) => `\`dedup-verify restore --device ${l.serial}\``).join(' and ');
  const what = left.map((l) => `${l.serial} was not restored after an earlier run (its state, saved ${l.savedAt}, is in ${stateDirFor(l.serial)})`).join('; ');
  throw new DedupVerifyError(
    ErrorCode.Restore,
    `Run ${commands} first, then this command again: ${what}, and a run does not start on a device whose clock, auto_time, reverse rules or app data may still be changed.`,
  );
}
