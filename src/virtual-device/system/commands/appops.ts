/**
 * `appops` (`cmd appops`): `set [--user N] [--uid] PACKAGE OP MODE` and `get PACKAGE [OP]`.
 * Source: frameworks/base services/core/java/com/android/server/appop/AppOpsService.java
 * (Shell.onCommand / parseUserPackageOp): `set` prints nothing on success; an unknown package
 * prints `Error: No UID for PACKAGE in user N` and returns -1; a bad mode prints
 * `Error: Mode MODE is not valid` (AppOpsManager.strModeToMode) and returns -1. `get` prints
 * `OP: MODE` lines for the ops that were set, or `No operations.`.
 * The modes live in the system model (AndroidSystem.appOps).
 */
import type { CommandContext } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { handleDefaultCommands, runShellCommand, type CommandOutput, type ShellArgs } from './shell-command.js';

const MODES = ['allow', 'ignore', 'deny', 'default', 'foreground'] as const;

function printHelp(out: CommandOutput): void {
  out.println('AppOps service (appops) commands:');
  out.println('  help');
  out.println('    Print this help text.');
  out.println('  set [--user <USER_ID>] [--uid] <PACKAGE | UID> <OP> <MODE>');
  out.println('    Set the mode for a particular application and operation.');
  out.println('  get [--user <USER_ID>] [--attribution <ATTRIBUTION_TAG>] <PACKAGE | UID> [<OP>]');
  out.println('    Return the mode for a particular application and optional operation.');
}

export function appopsHandler(system: AndroidSystem): (cmd: string | null, args: ShellArgs, out: CommandOutput) => number {
  return (cmd, args, out) => {
    if (cmd !== 'set' && cmd !== 'get') return handleDefaultCommands(cmd, out, printHelp);
    let user = '0';
    let opt: string | null;
    while ((opt = args.getNextOption()) !== null) {
      if (opt === '--user') user = args.getNextArgRequired();
      else if (opt === '--attribution') args.getNextArgRequired();
      else if (opt !== '--uid') {
        out.errPrintln(`Error: Unknown option: ${opt}`);
        return -1;
      }
    }
    const pkg = args.getNextArgRequired();
    if (system.packages.get(pkg) === undefined) {
      out.errPrintln(`Error: No UID for ${pkg} in user ${user}`);
      return -1;
    }
    if (cmd === 'get') {
      const op = args.getNextArg();
      const entries = [...system.appOps.modesOf(pkg).entries()].filter(([k]) => op === null || k === op);
      if (entries.length === 0) out.println('No operations.');
      for (const [k, v] of entries) out.println(`${k}: ${v}`);
      return 0;
    }
    const op = args.getNextArgRequired();
    const mode = args.getNextArgRequired();
    if (!(MODES as readonly string[]).includes(mode) && !/^\d+$/.test(mode)) {
      out.errPrintln(`Error: Mode ${mode} is not valid`);
      return -1;
    }
    system.appOps.setMode(pkg, op, mode);
    return 0;
  };
}

export function appopsCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return (ctx) => runShellCommand(ctx, ctx.argv.slice(1), appopsHandler(system));
}
