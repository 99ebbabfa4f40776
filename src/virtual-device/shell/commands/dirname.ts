/** dirname (toybox toys/posix/dirname.c). */
import type { Command } from '../../types.js';
import { dirnameOf } from '../../fs/android-path.js';
import { helpExit } from './toybox.js';

export const dirname: Command = async (ctx) => {
  const names = ctx.argv.slice(1);
  if (names.length === 0) return helpExit(ctx, 'Needs 1 argument');
  await ctx.stdout.write(names.map((n) => `${dirnameOf(n)}\n`).join(''));
  return 0;
};
