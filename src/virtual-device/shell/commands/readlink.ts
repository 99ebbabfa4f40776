/** readlink and realpath (toybox toys/other/readlink.c): link target, or -f/-e canonical path. */
import type { Command } from '../../types.js';
import { commandName, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const readlink: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'fenqvsz' });
  if (args === undefined) return 1;
  const fs = tb(ctx).fs;
  const canonical = commandName(ctx) === 'realpath' || args.has('f') || args.has('e');
  let status = 0;
  for (const op of args.operands) {
    try {
      const out = canonical ? await fs.realpath(pathOf(ctx, op), ctx.uid) : await fs.readlink(pathOf(ctx, op), ctx.uid);
      await ctx.stdout.write(out + (args.has('n') ? '' : '\n'));
    } catch (e) {
      if (commandName(ctx) === 'realpath') await perrorMsg(ctx, op, e);
      status = 1;
    }
  }
  return status;
};
