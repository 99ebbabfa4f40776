/**
 * `pm` (`cmd package`): list packages, path, clear, grant/revoke, install, dump; and the
 * `dumpsys package PKG` essentials.
 *
 * Sources: frameworks/base services/core/java/com/android/server/pm/PackageManagerShellCommand.java
 * (`package:<name>`, `-f` -> `package:<apk>=<name>`, `-3` third-party only, `-U` ` uid:<uid>`;
 * `pm clear`: runClear (aosp-mirror @6257ba4c; no PACKAGE: `Error: no package specified` on
 * stderr, 1) prints `Success` (0), or `Failed` on stderr and
 * returns 1 when ActivityManagerService.clearApplicationUserData reports failure, which it does
 * for an unknown package (aosp-mirror services/core/java/com/android/server/am/
 * ActivityManagerService.java @f3054ea8: `pkgUid == -1` -> observer.onRemoveCompleted(pkg, false);
 * `pm install` prints `Success`), PermissionManagerService
 * (an unknown permission throws IllegalArgumentException "Unknown permission: <name>", which
 * BasicShellCommandHandler prints as "Exception occurred while executing 'grant':"), and
 * Settings.dumpPackageLPr for the dump layout (userId=, flags=[ ... ], runtime permissions).
 * Install/uninstall (PackageManagerShellCommand runInstall/doRunInstall, doWriteSplit,
 * doCommitSession, runUninstall): the APK comes from PATH or, for `-` / no path with `-S SIZE`,
 * exactly SIZE bytes of stdin (how `adb install` streams it: `exec:cmd package install -S N`);
 * success prints `Success`; a refusal prints `Failure [CODE: message]` on stdout and returns 1
 * (a streamed APK that does not parse: `INSTALL_PARSE_FAILED_NOT_APK`), while a file that does
 * not parse fails earlier, in setParamsSize, with IllegalArgumentException `Error: Failed to
 * parse APK file: PATH: …` (A14);
 * `-r` is ignored (replace is the default), `-g` grants runtime permissions, `-d` allows a
 * downgrade of a debuggable package; `uninstall` prints `Success`, or
 * `Failure [DELETE_FAILED_INTERNAL_ERROR]` for an unknown package (`Failure [not installed for
 * N]` when a user was named). `list packages --show-versioncode` appends ` versionCode:N`;
 * `list instrumentation [-f] [TARGET]` prints `instrumentation:<cn short> (target=<pkg>)` sorted
 * by target package.
 */
import { readFile } from 'node:fs/promises';
import type { CommandContext } from '../../types.js';
import { Uid } from '../../types.js';
import { InstallFailure, type AndroidSystem } from '../android-system.js';
import type { PackageState } from '../package-manager.js';
import { JavaException, handleDefaultCommands, illegalArgument, runShellCommand, type CommandOutput, type ShellArgs } from './shell-command.js';
import { readApkManifest } from '../apk-parser.js';
import { resolveAndroidPath } from '../../fs/android-path.js';

function printHelp(out: CommandOutput): void {
  out.println('Package manager (package) commands:');
  out.println('  help');
  out.println('    Print this help text.');
  out.println('  path [--user USER_ID] PACKAGE');
  out.println('    Print the path to the .apk of the given PACKAGE.');
  out.println('  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U]');
  out.println('      [--show-versioncode] [--apex-only] [--uid UID] [--user USER_ID] [FILTER]');
  out.println('    Prints all packages; optionally only those whose name contains');
  out.println('    the text in FILTER.');
  out.println('  clear [--user USER_ID] [--cache-only] PACKAGE');
  out.println('    Deletes data associated with a package. Options are:');
  out.println('  grant [--user USER_ID] PACKAGE PERMISSION');
  out.println('  revoke [--user USER_ID] PACKAGE PERMISSION');
  out.println('    These commands either grant or revoke permissions to apps.  The permissions');
  out.println('    must be declared as used in the app\'s manifest, be runtime permissions');
  out.println('    (protection level dangerous), and the app targeting SDK greater than Lollipop MR1.');
  out.println('  install [-rtfdg] [-i PACKAGE] [--user USER_ID|all|current]');
  out.println('       [-p INHERIT_PACKAGE] [--install-location 0/1/2] [PATH|-]');
  out.println('    Install an application.  Must provide the apk data to install, either as');
  out.println('    file path(s) or \'-\' to read from stdin.');
}

function formatTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** The `dumpsys package PKG` block for one package (Settings.dumpPackageLPr, abridged). */
export function dumpPackage(system: AndroidSystem, p: PackageState): string {
  const lines: string[] = [];
  const def = p.definition;
  const hash = (): string => system.hashes.next().toString(16);
  if (def !== undefined) {
    const launcher = def.manifest.activities.find((a) => a.launcher === true);
    if (launcher !== undefined) {
      lines.push('Activity Resolver Table:');
      lines.push('  Non-Data Actions:');
      lines.push('      android.intent.action.MAIN:');
      lines.push(`        ${hash()} ${p.packageName}/${launcher.name.replace(p.packageName, '')} filter ${hash()}`);
      lines.push('');
    }
  }
  lines.push('Packages:');
  lines.push(`  Package [${p.packageName}] (${hash()}):`);
  lines.push(`    userId=${p.uid}`);
  lines.push(`    pkg=Package{${hash()} ${p.packageName}}`);
  lines.push(`    codePath=${p.codePath}`);
  lines.push(`    resourcePath=${p.codePath}`);
  lines.push(`    versionCode=${p.versionCode} minSdk=${p.minSdk} targetSdk=${p.targetSdk}`);
  lines.push(`    versionName=${p.versionName}`);
  const flags = [p.debuggable ? 'DEBUGGABLE' : undefined, p.system ? 'SYSTEM' : undefined, 'HAS_CODE', 'ALLOW_CLEAR_USER_DATA', 'ALLOW_BACKUP'].filter((f) => f !== undefined);
  lines.push(`    flags=[ ${flags.join(' ')} ]`);
  lines.push(`    dataDir=/data/user/0/${p.packageName}`);
  lines.push(`    timeStamp=${formatTime(p.lastUpdateTime)}`);
  lines.push(`    firstInstallTime=${formatTime(p.firstInstallTime)}`);
  lines.push(`    lastUpdateTime=${formatTime(p.lastUpdateTime)}`);
  lines.push('    installerPackageName=null');
  lines.push(`    pkgFlags=[ ${flags.join(' ')} ]`);
  if (p.requestedPermissions.length > 0) {
    lines.push('    requested permissions:');
    for (const perm of p.requestedPermissions) lines.push(`      ${perm}`);
    const install = p.requestedPermissions.filter((perm) => !p.runtimePermissions.has(perm) && system.packages.permissionExists(perm));
    if (install.length > 0) {
      lines.push('    install permissions:');
      for (const perm of install) lines.push(`      ${perm}: granted=true`);
    }
  }
  lines.push(
    `    User 0: ceDataInode=${100000 + (p.uid % 1000)} installed=true hidden=false suspended=false distractionFlags=0 stopped=${String(p.stopped)} notLaunched=${String(p.notLaunched)} enabled=0 instant=false virtual=false`,
  );
  if (p.runtimePermissions.size > 0) {
    lines.push('      runtime permissions:');
    for (const [perm, granted] of p.runtimePermissions) {
      lines.push(`        ${perm}: granted=${String(granted)}, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`);
    }
  }
  return lines.map((l) => `${l}\n`).join('');
}

function skipUser(args: ShellArgs, known: readonly string[] = []): Set<string> {
  const seen = new Set<string>();
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    if (opt === '--user') args.getNextArgRequired();
    else if (known.includes(opt)) seen.add(opt);
    else throw illegalArgument(`Unknown option: ${opt}`);
  }
  return seen;
}

export function pmHandler(system: AndroidSystem, ctx: CommandContext): (cmd: string | null, args: ShellArgs, out: CommandOutput) => Promise<number> {
  const pm = system.packages;
  return async (cmd, args, out) => {
    switch (cmd ?? '') {
      case 'list': {
        const what = args.getNextArg();
        if (what !== 'packages' && what !== 'package' && what !== 'instrumentation') {
          out.errPrintln(`Error: unknown list type '${what ?? ''}'`);
          return -1;
        }
        if (what === 'instrumentation') return listInstrumentation(system, args, out);
        let opt: string | null;
        const opts = new Set<string>();
        while ((opt = args.getNextOption()) !== null) {
          if (opt === '--user' || opt === '--uid') args.getNextArgRequired();
          else if (['-f', '-3', '-s', '-U', '-d', '-e', '-i', '-l', '-u', '-a', '--show-versioncode', '--apex-only'].includes(opt)) opts.add(opt);
          else {
            out.errPrintln(`Error: Unknown option: ${opt}`);
            return -1;
          }
        }
        const filter = args.getNextArg();
        const list = pm
          .all()
          .filter((p) => (opts.has('-3') ? !p.system : true))
          .filter((p) => (opts.has('-s') ? p.system : true))
          .filter((p) => filter === null || p.packageName.includes(filter))
          .sort((a, b) => (a.packageName < b.packageName ? -1 : 1));
        for (const p of list) {
          let line = 'package:';
          if (opts.has('-f')) line += `${pm.apkPath(p)}=`;
          line += p.packageName;
          if (opts.has('--show-versioncode')) line += ` versionCode:${p.versionCode}`;
          if (opts.has('-U')) line += ` uid:${p.uid}`;
          out.println(line);
        }
        return 0;
      }
      case 'path': {
        skipUser(args);
        const name = args.getNextArgRequired();
        const p = pm.get(name);
        if (p === undefined) return 1;
        out.println(`package:${pm.apkPath(p)}`);
        return 0;
      }
      case 'clear': {
        skipUser(args, ['--cache-only']);
        const name = args.getNextArg();
        if (name === null) {
          out.errPrintln('Error: no package specified');
          return 1;
        }
        if (await system.clearData(name)) {
          out.println('Success');
          return 0;
        }
        out.errPrintln('Failed');
        return 1;
      }
      case 'grant':
      case 'revoke': {
        skipUser(args, ['-g']);
        const name = args.getNextArgRequired();
        const perm = args.getNextArgRequired();
        const p = pm.get(name);
        if (p === undefined) throw illegalArgument(`Unknown package: ${name}`);
        if (!pm.permissionExists(perm)) {
          throw new JavaException('java.lang.IllegalArgumentException', `Unknown permission: ${perm}`, [
            '\tat com.android.server.pm.permission.PermissionManagerService.grantRuntimePermissionInternal(PermissionManagerService.java:1487)',
            '\tat com.android.server.pm.permission.PermissionManagerService.grantRuntimePermission(PermissionManagerService.java:1434)',
            '\tat com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission(PackageManagerShellCommand.java:2271)',
          ]);
        }
        if (!pm.isRuntimePermission(perm) || !p.requestedPermissions.includes(perm)) {
          throw new JavaException('java.lang.SecurityException', `Permission ${perm} requested by ${name} is not a changeable permission type`);
        }
        p.runtimePermissions.set(perm, cmd === 'grant');
        return 0;
      }
      case 'install':
        return runInstall(system, ctx, args, out);
      case 'uninstall':
        return runUninstall(system, args, out);
      case 'dump': {
        const name = args.getNextArgRequired();
        const p = pm.get(name);
        if (p === undefined) return 0;
        out.print(dumpPackage(system, p));
        return 0;
      }
      default:
        return handleDefaultCommands(cmd, out, printHelp);
    }
  };
}

/** runListInstrumentation: `instrumentation:<pkg>/<cls> (target=<pkg>)`, sorted by target. */
function listInstrumentation(system: AndroidSystem, args: ShellArgs, out: CommandOutput): number {
  let showSourceDir = false;
  let target: string | null = null;
  let opt: string | null;
  while ((opt = args.getNextArg()) !== null) {
    if (opt === '-f') showSourceDir = true;
    else if (!opt.startsWith('-')) target = opt;
    else {
      out.println(`Error: Unknown option: ${opt}`);
      return -1;
    }
  }
  const list = system.packages
    .instrumentations()
    .filter(({ info }) => target === null || info.targetPackage === target)
    .sort((a, b) => (a.info.targetPackage < b.info.targetPackage ? -1 : a.info.targetPackage > b.info.targetPackage ? 1 : 0));
  for (const { pkg, info } of list) {
    const short = info.name.startsWith(`${pkg.packageName}.`) ? info.name.slice(pkg.packageName.length) : info.name;
    out.println(`instrumentation:${showSourceDir ? `${system.packages.apkPath(pkg)}=` : ''}${pkg.packageName}/${short} (target=${info.targetPackage})`);
  }
  return 0;
}

/** Options `pm install` takes a value for (PackageManagerShellCommand.makeInstallParams). */
const INSTALL_OPTIONS_WITH_VALUE = new Set(['-i', '--user', '-p', '--pkg', '-S', '--abi', '--install-location', '--install-reason', '--originating-uri', '--referrer', '--update-ownership', '--apex', '--staged-ready-timeout', '--enable-rollback']);
const INSTALL_FLAGS = new Set(['-l', '-r', '-R', '-t', '-f', '-d', '-g', '--restrict-permissions', '--dont-kill', '--full', '--instant', '--ephemeral', '--preload', '--force-uuid', '--force-sdk', '--staged', '--force-queryable', '--skip-verification', '--bypass-low-target-sdk-block', '--streaming', '--incremental', '--no-incremental']);

async function readStdin(ctx: CommandContext, size: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.stdin) {
    parts.push(Buffer.from(chunk));
    total += chunk.length;
    if (size >= 0 && total >= size) break;
  }
  const all = Buffer.concat(parts);
  return size >= 0 ? all.subarray(0, size) : all;
}

async function runInstall(system: AndroidSystem, ctx: CommandContext, args: ShellArgs, out: CommandOutput): Promise<number> {
  let size = -1;
  let grant = false;
  let downgrade = false;
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    if (INSTALL_OPTIONS_WITH_VALUE.has(opt)) {
      const value = args.getNextArgRequired();
      if (opt === '-S') {
        size = Number(value);
        if (!Number.isInteger(size) || size <= 0) throw illegalArgument('Size must be positive');
      }
    } else if (INSTALL_FLAGS.has(opt)) {
      if (opt === '-g') grant = true;
      if (opt === '-d') downgrade = true;
    } else {
      throw illegalArgument(`Unknown option ${opt}`);
    }
  }
  const path = args.getNextArg();
  let apk: Buffer;
  let apkPath: string;
  if (path === null || path === '-') {
    if (size < 0) {
      out.println('Error: must either specify a package size or an APK file');
      return 1;
    }
    apk = await readStdin(ctx, size);
    apkPath = `/data/app/vmdl${100_000_000 + Math.floor(Math.random() * 900_000_000)}.tmp/base.apk`;
    if (apk.length < size) {
      out.println(`Failure [INSTALL_FAILED_INVALID_APK: Failed to write: expected ${size} bytes, got ${apk.length}]`);
      return 1;
    }
  } else {
    const abs = resolveAndroidPath(path, ctx.cwd);
    const readable = (await system.device.fs.exists(abs)) && (await system.device.fs.access(abs, Uid.system, 4));
    if (!readable) {
      out.errPrintln(`Error: Can't open file: ${abs}`);
      out.errPrintln('Exception occurred while executing \'install\':');
      out.errPrintln(`java.lang.IllegalArgumentException: Error: Can't open file: ${abs}`);
      return 1;
    }
    apk = await readFile(system.device.hostPath(abs));
    apkPath = abs;
    // setParamsSize parses a file's ApkLite before any session exists: a file that is not an APK
    // is an IllegalArgumentException (exit 255), not a `Failure [...]` line.
    try {
      readApkManifest(apk);
    } catch (e) {
      throw new JavaException('java.lang.IllegalArgumentException', `Error: Failed to parse APK file: ${abs}: Failed to parse ${abs}: ${e instanceof Error ? e.message : String(e)}`, [
        '\tat com.android.server.pm.PackageManagerShellCommand.setParamsSize(PackageManagerShellCommand.java:562)',
        '\tat com.android.server.pm.PackageManagerShellCommand.doRunInstall(PackageManagerShellCommand.java:1469)',
        '\tat com.android.server.pm.PackageManagerShellCommand.runInstall(PackageManagerShellCommand.java:1435)',
      ]);
    }
    system.packages.installedFiles.push({ path: abs, timeMs: system.device.clock.now() });
  }
  try {
    await system.installApk(apk, { grantRuntimePermissions: grant, allowDowngrade: downgrade, apkPath });
  } catch (e) {
    if (!(e instanceof InstallFailure)) throw e;
    out.println(`Failure [${e.code}: ${e.message}]`);
    return 1;
  }
  out.println('Success');
  return 0;
}

async function runUninstall(system: AndroidSystem, args: ShellArgs, out: CommandOutput): Promise<number> {
  let user: string | undefined;
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    if (opt === '--user') user = args.getNextArgRequired();
    else if (opt === '--versionCode') args.getNextArgRequired();
    else if (opt !== '-k') throw illegalArgument(`Unknown option ${opt}`);
  }
  const name = args.getNextArgRequired();
  if (await system.uninstall(name)) {
    out.println('Success');
    return 0;
  }
  out.println(user !== undefined && user !== 'all' ? `Failure [not installed for ${user === 'current' ? 0 : user}]` : 'Failure [DELETE_FAILED_INTERNAL_ERROR]');
  return 1;
}

export function pmCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return (ctx) => runShellCommand(ctx, ctx.argv.slice(1), pmHandler(system, ctx));
}
