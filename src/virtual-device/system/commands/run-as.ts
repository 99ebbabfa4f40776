/**
 * `run-as PKG [--user N] [CMD ARGS...]`.
 * Source: system/core run-as/run-as.cpp (yaap/system_core @db04e179): only
 * shell or root may run it; errors go through error(1, ...) as `run-as: <message>` with exit 1
 * (`unknown package: %s`, `package not an application: %s`, `package not debuggable: %s`,
 * `exec failed for %s: <strerror>`); it changes to uid/gid = the app's, chdir()s to
 * `/data/user/<user>/<pkg>`, sets HOME and PATH, then execvp()s the command (`sh` without one).
 */
import type { CommandContext } from '../../types.js';
import { Uid } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';

/** Single-quotes an argument for the device shell. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

export function runAsCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const fail = async (message: string): Promise<number> => {
      await ctx.stderr.write(`run-as: ${message}\n`);
      return 1;
    };
    const argv = ctx.argv;
    if (argv.length < 2) return fail('usage: run-as <package-name> [--user <uid>] <command> [<args>]\n');
    if (ctx.uid !== Uid.shell && ctx.uid !== Uid.root) return fail("only 'shell' or 'root' users can run this program");
    const pkgName = argv[1]!;
    let offset = 2;
    let userId = 0;
    if (argv.length >= 4 && argv[2] === '--user') {
      userId = Number.parseInt(argv[3]!, 10) || 0;
      if (userId < 0) return fail(`negative user id: ${userId}`);
      offset += 2;
    }
    const pkg = system.packages.get(pkgName);
    if (pkg === undefined) return fail(`unknown package: ${pkgName}`);
    const appUid = userId * 100000 + pkg.uid;
    if (appUid < Uid.appStart) return fail(`package not an application: ${pkgName}`);
    if (!pkg.debuggable) return fail(`package not debuggable: ${pkgName}`);
    if (userId !== 0) return fail(`couldn't stat /data/user/${userId}: No such file or directory`);
    const dataDir = `/data/user/${userId}/${pkgName}`;
    const command = argv.slice(offset);
    if (command.length === 0) return ctx.runNested('sh', { uid: appUid, cwd: dataDir });
    const bin = command[0]!;
    const name = bin.slice(bin.lastIndexOf('/') + 1);
    if (!ctx.device.commands.has(name)) return fail(`exec failed for ${bin}: No such file or directory`);
    // execvp() of a bare name finds the binary on PATH, never a shell builtin of the same name:
    // `run-as PKG kill …` is toybox's kill, not mksh's.
    const path = bin.includes('/') ? bin : `/system/bin/${bin}`;
    return ctx.runNested([path, ...command.slice(1)].map(shellQuote).join(' '), { uid: appUid, cwd: dataDir });
  };
}
