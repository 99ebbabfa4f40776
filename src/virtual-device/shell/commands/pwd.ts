/** pwd (toybox toys/posix/pwd.c): -L logical (default), -P physical. */
import type { Command } from '../../types.js';
import { parseArgs, tb } from './toybox.js';

export const pwd: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'LP' });
  if (args === undefined) return 1;
  let dir = ctx.cwd;
  if (args.has('P')) dir = await tb(ctx).fs.realpath(dir, ctx.uid);
  await ctx.stdout.write(`${dir}\n`);
  return 0;
};
