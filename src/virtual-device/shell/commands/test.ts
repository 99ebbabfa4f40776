/**
 * /system/bin/test and /system/bin/[ (toybox toys/posix/test.c). The shell's test builtin is
 * what scripts usually run; this binary answers for `env test ...` and absolute paths.
 */
import type { Command } from '../../types.js';
import { evaluateTest, TestError } from '../test-expr.js';
import { commandName, errorMsg, tb } from './toybox.js';

export const test: Command = async (ctx) => {
  let args = ctx.argv.slice(1);
  if (commandName(ctx) === '[') {
    if (args.at(-1) !== ']') {
      await errorMsg(ctx, "missing ']'");
      return 2;
    }
    args = args.slice(0, -1);
  }
  try {
    return (await evaluateTest(args, { fs: tb(ctx).fs, uid: ctx.uid, cwd: ctx.cwd, getVar: (n) => ctx.env.get(n) })) ? 0 : 1;
  } catch (e) {
    if (e instanceof TestError) {
      await errorMsg(ctx, e.message);
      return 2;
    }
    throw e;
  }
};
