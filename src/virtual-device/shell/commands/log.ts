/**
 * /system/bin/log (toybox toys/android/log.c): `log [-p PRI] [-t TAG] MESSAGE...` writes one
 * entry to the main buffer; priority letters v d i w e f (default i), tag default "log".
 * Usage errors print toybox's "log: Need 1 argument" style text and exit 1.
 */
import { LogPriority, type Command, type LogPriority as Priority } from '../../types.js';

const PRIORITIES: Readonly<Record<string, Priority>> = {
  v: LogPriority.V,
  d: LogPriority.D,
  i: LogPriority.I,
  w: LogPriority.W,
  e: LogPriority.E,
  f: LogPriority.F,
};

export const log: Command = async (ctx) => {
  let priority: Priority = LogPriority.I;
  let tag = 'log';
  let i = 1;
  for (; i < ctx.argv.length; i++) {
    const arg = ctx.argv[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-p' || arg === '-t') {
      const value = ctx.argv[i + 1];
      if (value === undefined) {
        await ctx.stderr.write(`log: Missing argument to ${arg}\n`);
        return 1;
      }
      if (arg === '-p') {
        const p = PRIORITIES[value.toLowerCase().charAt(0)];
        if (p === undefined) {
          await ctx.stderr.write(`log: -p ${value} not one of v d i w e f\n`);
          return 1;
        }
        priority = p;
      } else {
        tag = value;
      }
      i++;
      continue;
    }
    break;
  }
  const message = ctx.argv.slice(i).join(' ');
  if (message === '') {
    await ctx.stderr.write('log: Need 1 argument\n');
    return 1;
  }
  const pid = 'pid' in ctx && typeof ctx.pid === 'number' ? ctx.pid : 0;
  ctx.device.logs.write({ buffer: 'main', pid, tid: pid, uid: ctx.uid, priority, tag, message });
  return 0;
};
