/**
 * Checks of what a user passes (flag values, environment, output paths) that commands run before
 * they load a config or touch adb, so that bad input is one line naming the fix, exit 2, and
 * nothing was started or changed yet.
 */
import { constants, type Stats } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { BUG_NAMES } from '../virtual-device/apps/feed-notifier/bugs.js';
import { OutputDirectory } from './out-dir.js';
import { APP_LOG_LEVELS, isAppLogLevel, type AppLogLevel } from '../virtual-device/types.js';
import { APP_PROFILES, isAppProfile, type AppProfile } from '../virtual-device/apps/feed-notifier/app-profiles.js';

/** Rejects bug names the reference app does not have (`run --virtual --bug`, `virtual-device --bug`). */
export function assertBugNames(bugs: readonly string[]): void {
  const unknown = bugs.filter((b) => !BUG_NAMES.includes(b));
  if (unknown.length > 0) throw new UsageError(`Unknown bug ${unknown.map((b) => `"${b}"`).join(', ')}. Bugs: ${BUG_NAMES.join(', ')}.`);
}

/** `--app-log-level` of `virtual-device` and `run --virtual`: one of WorkManager's log levels. */
export function appLogLevelOption(value: unknown): AppLogLevel {
  if (isAppLogLevel(value)) return value;
  throw new UsageError(`--app-log-level takes one of ${APP_LOG_LEVELS.join(', ')} (got ${JSON.stringify(value)}), e.g. --app-log-level warn.`);
}

/** `--app-profile` of `virtual-device` and `run --virtual`: one of the reference app's profiles. */
export function appProfileOption(value: unknown): AppProfile {
  if (isAppProfile(value)) return value;
  throw new UsageError(`--app-profile takes one of ${APP_PROFILES.join(', ')} (got ${JSON.stringify(value)}), e.g. --app-profile grouped.`);
}

/**
 * The adb server port from $ANDROID_ADB_SERVER_PORT (unset or empty: 5037). A value that is not a
 * port is refused, as adb itself refuses it, rather than silently replaced by 5037.
 */
export function adbPortFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env['ANDROID_ADB_SERVER_PORT'];
  if (text === undefined || text === '') return 5037;
  const port = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(
      `ANDROID_ADB_SERVER_PORT is ${JSON.stringify(text)}, not a TCP port: set it to the port of your adb server (1 to 65535), unset it for 5037, or pass --adb-port P.`,
    );
  }
  return port;
}

function fsReason(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is a file';
    case 'EROFS':
      return 'read-only file system';
    default:
      return typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
  }
}

/**
 * `run --out DIR`: a directory (created with its parents when missing) this process can write
 * to; anything else is a one-line usage error naming --out. Then the folder's own checks
 * (out-dir.ts): no symbolic link where the tool writes, no file it did not write unless
 * `force`; what an earlier run wrote there is cleared.
 */
export async function prepareOutputDirectory(dir: string, shown: string, force = false): Promise<OutputDirectory> {
  const existing = await stat(dir).catch((e: unknown) => {
    if ((e as { code?: unknown }).code === 'ENOENT') return null;
    throw new UsageError(`--out ${shown}: cannot use it (${fsReason(e)}); pass a directory you can write to.`, { cause: e });
  });
  if (existing !== null && !existing.isDirectory()) {
    throw new UsageError(`--out ${shown} is a file, not a directory: pass a directory (it is created when missing), e.g. --out ${join(dirname(shown), 'dedup-verify-out')}.`);
  }
  if (existing === null) {
    try {
      await mkdir(dir, { recursive: true });
    } catch (e) {
      throw new UsageError(`--out ${shown}: cannot create the directory (${fsReason(e)}); pass a directory you can write to.`, { cause: e });
    }
  }
  try {
    await access(dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--out ${shown}: cannot write there (${fsReason(e)}); pass a directory you can write to.`, { cause: e });
  }
  return OutputDirectory.prepare(dir, shown, force);
}

/**
 * `init --out FILE`: a file path in an existing, writable directory; an existing file only with
 * --force, never a directory.
 */
export async function checkOutputFile(file: string, shown: string, force: boolean): Promise<void> {
  const existing = await stat(file).catch(() => null);
  if (existing?.isDirectory() === true) {
    throw new UsageError(`--out ${shown} is a directory: pass a file path, e.g. --out ${join(shown, 'dedup-verify.config.json')}.`);
  }
  if (existing !== null && !force) {
    throw new UsageError(`${file} exists; pass --force to overwrite it, or --out FILE to write elsewhere.`);
  }
  const dir = dirname(file);
  let parent: Stats;
  try {
    parent = await stat(dir);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `--out ${shown}: the directory ${dir} does not exist; create it first (mkdir -p ${dir}) or pass --out FILE in an existing directory.`
        : `--out ${shown}: cannot use the directory ${dir} (${fsReason(e)}); pass --out FILE in a directory you can write to.`,
      { cause: e },
    );
  }
  if (!parent.isDirectory()) {
    throw new UsageError(`--out ${shown}: ${dir} is a file, not a directory; pass --out FILE in an existing directory.`);
  }
  try {
    await access(existing !== null ? file : dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--out ${shown}: cannot write ${existing !== null ? 'this file' : `in ${dir}`} (${fsReason(e)}); pass --out FILE somewhere you can write.`, { cause: e });
  }
}
