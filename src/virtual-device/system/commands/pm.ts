/**
 * `pm` (`cmd package`): list packages, path, clear, grant/revoke, install, dump; and the
 * `dumpsys package PKG` essentials.
 *
 * Sources: frameworks/base services/core/java/com/android/server/pm/PackageManagerShellCommand.java
 * (`package:<name>`, `-f` -> `package:<apk>=<name>`, `-3` third-party only, `-U` ` uid:<uid>`;
 * `pm clear` prints `Success`/`Failed`; `pm install` prints `Success`), PermissionManagerService
 * (an unknown permission throws IllegalArgumentException "Unknown permission: <name>", which
 * BasicShellCommandHandler prints as "Exception occurred while executing 'grant':"), and
 * Settings.dumpPackageLPr for the dump layout (userId=, flags=[ ... ], runtime permissions).
 */
import type { CommandContext } from '../../types.js';
import { Uid } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import type { PackageState } from '../package-manager.js';
import { JavaException, handleDefaultCommands, illegalArgument, runShellCommand, type CommandOutput, type ShellArgs } from './shell-command.js';
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
        if (what !== 'packages' && what !== 'package') {
          out.errPrintln(`Error: unknown list type '${what ?? ''}'`);
          return -1;
        }
        let opt: string | null;
        const opts = new Set<string>();
        while ((opt = args.getNextOption()) !== null) {
          if (opt === '--user') args.getNextArgRequired();
          else if (['-f', '-3', '-s', '-U', '-d', '-e', '-i', '-l', '-u'].includes(opt)) opts.add(opt);
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
        const name = args.getNextArgRequired();
        const ok = await system.clearData(name);
        out.println(ok ? 'Success' : 'Failed');
        return 0;
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
      case 'install': {
        let opt: string | null;
        while ((opt = args.getNextOption()) !== null) {
          if (opt === '--user' || opt === '-i' || opt === '-p' || opt === '--install-location') args.getNextArgRequired();
        }
        const path = args.getNextArg();
        if (path === null) {
          out.errPrintln('Error: must either specify a package size or an APK file');
          return 1;
        }
        const abs = resolveAndroidPath(path, ctx.cwd);
        const readable = (await system.device.fs.exists(abs)) && (await system.device.fs.access(abs, Uid.system, 4));
        if (!readable) {
          out.errPrintln(`Error: Can't open file: ${abs}`);
          out.errPrintln('Exception occurred while executing \'install\':');
          out.errPrintln(`java.lang.IllegalArgumentException: Error: Can't open file: ${abs}`);
          return 1;
        }
        pm.installedFiles.push({ path: abs, timeMs: system.device.clock.now() });
        out.println('Success');
        return 0;
      }
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

export function pmCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return (ctx) => runShellCommand(ctx, ctx.argv.slice(1), pmHandler(system, ctx));
}
