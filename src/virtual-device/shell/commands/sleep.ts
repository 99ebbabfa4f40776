/**
 * /system/bin/sleep (toybox toys/posix/sleep.c): DURATION with optional fraction and s/m/h/d
 * suffix. (The shell's sleep builtin usually wins.) Stops early when the session ends.
 */
import type { Command } from '../../types.js';
import { errorMsg, parseArgs } from './toybox.js';

const UNIT: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

export const sleep: Command = async (ctx) => {
  const args = await parseArgs(ctx, { stopAtOperand: true });
  if (args === undefined) return 1;
  let total = 0;
  for (const op of args.operands) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(op);
    if (m === null) {
      await errorMsg(ctx, `bad duration '${op}'`);
      return 1;
    }
    total += Number(m[1]) * UNIT[m[2]!]!;
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      ctx.signal.removeEventListener('abort', onAbort);
      resolve();
    }, total * 1000);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  return 0;
};
