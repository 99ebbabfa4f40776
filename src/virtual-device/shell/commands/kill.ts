/**
 * /system/bin/kill (toybox toys/posix/kill.c): kill [-s SIG | -SIG] PID..., kill -l.
 * (The shell's kill builtin usually answers; `run-as PKG kill …` exec()s this one.)
 * A pid kill(2) refuses is reported as toybox's version reports it, with exit status 1
 * (verror_msg sets toys.exitval to 1, lib/lib.c):
 * - up to toybox 0.8.7 (Android 10–13: 0.8.0, 0.8.3, 0.8.4, 0.8.6), whatever the errno:
 *   `error_msg("unknown pid '%s'", arg)` → `kill: unknown pid '123'` (landley/toybox
 *   toys/posix/kill.c at tag 0.8.6);
 * - from landley/toybox 25fdca73 (2022-07-31, "Tweak error handling so "kill 1" doesn't say
 *   unknown pid 1: not permitted", first in 0.8.8; Android 14 ships 0.8.9):
 *   `perror_msg("bad pid '%s'", arg)` → `kill: bad pid '123': Permission denied`.
 */
import type { Command } from '../../types.js';
import { signalNumber, SIGNALS } from '../process-table.js';
import { errorMsg, helpExit, tb } from './toybox.js';

/** First API level whose toybox has the `bad pid '%s': <strerror>` message (toybox 0.8.9). */
const TOYBOX_BAD_PID_SINCE_API = 34;

const STRERROR = { ESRCH: 'No such process', EPERM: 'Operation not permitted', EACCES: 'Permission denied' } as const;

export const kill: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  if (args[0] === '-l') {
    await ctx.stdout.write(`${Object.entries(SIGNALS).map(([name, n]) => `${String(n).padStart(2)}) SIG${name}`).join('\n')}\n`);
    return 0;
  }
  let sig: number = SIGNALS.TERM;
  if (args[0] === '-s') {
    const n = args[1] === undefined ? undefined : signalNumber(args[1]);
    if (n === undefined) {
      await errorMsg(ctx, `unknown signal '${args[1] ?? ''}'`);
      return 1;
    }
    sig = n;
    args.splice(0, 2);
  } else if (args[0] !== undefined && args[0].startsWith('-') && args[0] !== '--') {
    const n = signalNumber(args[0].slice(1));
    if (n === undefined) {
      await errorMsg(ctx, `unknown signal '${args[0].slice(1)}'`);
      return 1;
    }
    sig = n;
    args.shift();
  }
  if (args[0] === '--') args.shift();
  if (args.length === 0) return helpExit(ctx, 'Needs 1 argument');
  const table = tb(ctx).host.processes;
  let status = 0;
  for (const a of args) {
    if (!/^\d+$/.test(a)) {
      await errorMsg(ctx, `invalid pid '${a}'`);
      status = 1;
      continue;
    }
    const r = table.signal(Number(a), sig, ctx.uid);
    if (r !== 'ok') {
      await errorMsg(ctx, ctx.device.apiLevel < TOYBOX_BAD_PID_SINCE_API ? `unknown pid '${a}'` : `bad pid '${a}': ${STRERROR[r]}`);
      status = 1;
    }
  }
  return status;
};
