/**
 * The binaries of /system/bin that this package provides: toybox's (one file each here, named
 * after toybox's source file) plus toolbox's getprop/setprop, logcat and sh. Other binaries
 * (am, pm, cmd, dumpsys, settings, run-as, sqlite3) are registered by the Android model.
 */
import type { CommandRegistry } from '../../types.js';
import { basename } from './basename.js';
import { cat } from './cat.js';
import { chmod } from './chmod.js';
import { chown } from './chown.js';
import { cp, mv } from './cp.js';
import { cut } from './cut.js';
import { date } from './date.js';
import { dirname } from './dirname.js';
import { echo } from './echo.js';
import { env } from './env.js';
import { getprop } from './getprop.js';
import { grep } from './grep.js';
import { head } from './head.js';
import { id } from './id.js';
import { kill } from './kill.js';
import { ln } from './ln.js';
import { logcat } from './logcat.js';
import { ls } from './ls.js';
import { md5sum } from './md5sum.js';
import { mkdir } from './mkdir.js';
import { nc } from './nc.js';
import { printf } from './printf.js';
import { pgrep, pidof, pkill, ps } from './ps.js';
import { pwd } from './pwd.js';
import { readlink } from './readlink.js';
import { rm } from './rm.js';
import { rmdir } from './rmdir.js';
import { seq } from './seq.js';
import { setprop } from './setprop.js';
import { sh } from './sh.js';
import { sleep } from './sleep.js';
import { sort } from './sort.js';
import { stat } from './stat.js';
import { tail } from './tail.js';
import { tee } from './tee.js';
import { test } from './test.js';
import { touch } from './touch.js';
import { tr } from './tr.js';
import { falseCommand, trueCommand } from './true.js';
import { uniq } from './uniq.js';
import { wc } from './wc.js';
import { which } from './which.js';

export function registerToyboxCommands(registry: CommandRegistry): void {
  const table: [string, Parameters<CommandRegistry['register']>[1]][] = [
    ['basename', basename],
    ['cat', cat],
    ['chgrp', chown],
    ['chmod', chmod],
    ['chown', chown],
    ['cp', cp],
    ['cut', cut],
    ['date', date],
    ['dirname', dirname],
    ['echo', echo],
    ['egrep', grep],
    ['env', env],
    ['false', falseCommand],
    ['fgrep', grep],
    ['getprop', getprop],
    ['grep', grep],
    ['groups', id],
    ['head', head],
    ['id', id],
    ['kill', kill],
    ['ln', ln],
    ['logcat', logcat],
    ['logname', id],
    ['ls', ls],
    ['md5sum', md5sum],
    ['mkdir', mkdir],
    ['mv', mv],
    ['nc', nc],
    ['netcat', nc],
    ['pgrep', pgrep],
    ['pidof', pidof],
    ['pkill', pkill],
    ['printf', printf],
    ['ps', ps],
    ['pwd', pwd],
    ['readlink', readlink],
    ['realpath', readlink],
    ['rm', rm],
    ['rmdir', rmdir],
    ['seq', seq],
    ['setprop', setprop],
    ['sh', sh],
    ['sha1sum', md5sum],
    ['sha224sum', md5sum],
    ['sha256sum', md5sum],
    ['sha384sum', md5sum],
    ['sha512sum', md5sum],
    ['sleep', sleep],
    ['sort', sort],
    ['stat', stat],
    ['tail', tail],
    ['tee', tee],
    ['test', test],
    ['[', test],
    ['touch', touch],
    ['toybox', toybox],
    ['tr', tr],
    ['true', trueCommand],
    ['uniq', uniq],
    ['wc', wc],
    ['which', which],
    ['whoami', id],
  ];
  for (const [name, command] of table) registry.register(name, command);
}

/** `toybox NAME ARGS` runs NAME; `toybox` alone lists the commands. */
const toybox: Parameters<CommandRegistry['register']>[1] = async (ctx) => {
  const name = ctx.argv[1];
  if (name === undefined) {
    await ctx.stdout.write(`${TOYBOX_NAMES.join(' ')}\n`);
    return 0;
  }
  const command = ctx.device.commands.get(name);
  if (command === undefined || !TOYBOX_NAMES.includes(name)) {
    await ctx.stderr.write(`toybox: Unknown command ${name}\n`);
    return 127;
  }
  return command({ ...ctx, argv: ctx.argv.slice(1) });
};

const TOYBOX_NAMES = ['basename', 'cat', 'chgrp', 'chmod', 'chown', 'cp', 'cut', 'date', 'dirname', 'echo', 'egrep', 'env', 'false', 'fgrep', 'grep', 'groups', 'head', 'id', 'kill', 'ln', 'logname', 'ls', 'md5sum', 'mkdir', 'mv', 'nc', 'netcat', 'pgrep', 'pidof', 'pkill', 'printf', 'ps', 'pwd', 'readlink', 'realpath', 'rm', 'rmdir', 'seq', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'sleep', 'sort', 'stat', 'tail', 'tee', 'test', 'touch', 'tr', 'true', 'uniq', 'wc', 'which', 'whoami'];
