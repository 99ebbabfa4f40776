/**
 * /system/bin/kill (toybox toys/posix/kill.c): kill [-s SIG | -SIG] PID..., kill -l.
 * (The shell's kill builtin usually answers.) Errors: `kill: PID: No such process`.
 */
import type { Command } from '../../types.js';
import { signalNumber, SIGNALS } from '../process-table.js';
import { errorMsg, helpExit, tb } from './toybox.js';

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
      await errorMsg(ctx, `${a}: ${r === 'ESRCH' ? 'No such process' : 'Operation not permitted'}`);
      status = 1;
    }
  }
  return status;
};
