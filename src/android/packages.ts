/**
 * PackageManager through the shell: `pm list packages`, `pm path`, `dumpsys package`.
 */
import { commandFailed, type AndroidDevice, type ShellResult } from '../device/android-device.js';
import { buildShellCommand } from '../device/shell-quote.js';
import { DedupVerifyError, ErrorCode } from '../errors.js';
import { assertPackageName } from './names.js';
import { parseDumpsysPackage, parsePackageList, type PackageDump } from './parsers/packages.js';
import { runReads, textRead, type ShellRead } from './shell-reads.js';

export const POST_NOTIFICATIONS = 'android.permission.POST_NOTIFICATIONS';
/** POST_NOTIFICATIONS became a runtime permission in API 33 (Android 13). */
export const POST_NOTIFICATIONS_RUNTIME_SINCE_API = 33;

export async function listPackages(device: AndroidDevice): Promise<string[]> {
  return parsePackageList(await device.shellText(['pm', 'list', 'packages']));
}

/** APK paths of an installed package; empty when it is not installed (no `package:` line). */
export async function getPackagePaths(device: AndroidDevice, pkg: string): Promise<string[]> {
  const result = await device.shell(['pm', 'path', assertPackageName(pkg)]);
  return parsePackageList(result.stdout.toString('utf8'));
}

export async function isPackageInstalled(device: AndroidDevice, pkg: string): Promise<boolean> {
  return (await runReads(device, [packageInstalledRead(pkg)]))[0];
}

/** isPackageInstalled as a read that goes out with others (one shell invocation). */
export function packageInstalledRead(pkg: string): ShellRead<boolean> {
  return {
    commands: [['pm', 'path', assertPackageName(pkg)]],
    parse: ([result]) => parsePackageList(result?.stdout.toString('utf8') ?? '').length > 0,
  };
}

/** The package's `dumpsys package` block; null when it is not installed. */
export async function getPackageInfo(device: AndroidDevice, pkg: string): Promise<PackageDump | null> {
  const text = await device.shellText(packageInfoCommand(pkg));
  return parseDumpsysPackage(text, pkg);
}

/** The words of `dumpsys package PKG` (getPackageInfo). */
export function packageInfoCommand(pkg: string): string[] {
  return ['dumpsys', 'package', assertPackageName(pkg)];
}

/** getPackageInfo as a read that goes out with others (one shell invocation). */
export function packageInfoRead(pkg: string): ShellRead<PackageDump | null> {
  const read = textRead(packageInfoCommand(pkg));
  return { commands: read.commands, parse: async (results) => parseDumpsysPackage(await read.parse(results), pkg) };
}

/** What getPackageInfo makes of `dumpsys package PKG`'s output (sent as `packageInfoCommand`). */
export function packageInfoFrom(text: string, pkg: string): PackageDump | null {
  return parseDumpsysPackage(text, pkg);
}

/** The runtime permissions granted to `userId` (empty when the user has none or is not listed). */
export function grantedRuntimePermissions(info: PackageDump, userId = 0): string[] {
  const user = info.users.find((u) => u.userId === userId);
  return Object.entries(user?.runtimePermissions ?? {}).filter(([, granted]) => granted).map(([name]) => name).sort();
}

/** `pm grant|revoke PKG PERMISSION`: changes one runtime permission of user 0. */
export async function setRuntimePermission(device: AndroidDevice, pkg: string, permission: string, granted: boolean): Promise<string[]> {
  const argv = runtimePermissionCommand(pkg, permission, granted);
  await device.shellText(argv);
  return argv;
}

/** The words of setRuntimePermission's `pm grant|revoke PKG PERMISSION`. */
export function runtimePermissionCommand(pkg: string, permission: string, granted: boolean): string[] {
  if (!/^[A-Za-z0-9_.]+$/.test(permission)) throw new Error(`"${permission}" is not a permission name`);
  return ['pm', granted ? 'grant' : 'revoke', assertPackageName(pkg), permission];
}

/** Throws what setRuntimePermission throws when its command (sent as `argv` in a sequence) did not exit 0 or did not run. */
export function checkRuntimePermission(serial: string, argv: readonly string[], result: ShellResult | undefined): void {
  if (result === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run on ${serial}`);
  if (result.exitCode !== 0) throw commandFailed(buildShellCommand(argv), result);
}

/**
 * Whether the app may post notifications as far as the permission goes: on API 33+ the
 * runtime grant for `userId`; before 33 there is no runtime permission (always true).
 */
export function hasNotificationPermission(info: PackageDump, sdkLevel: number, userId = 0): boolean {
  if (sdkLevel < POST_NOTIFICATIONS_RUNTIME_SINCE_API) return true;
  const user = info.users.find((u) => u.userId === userId);
  return user?.runtimePermissions[POST_NOTIFICATIONS] === true;
}
