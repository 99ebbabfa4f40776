/** basename (toybox toys/posix/basename.c): NAME [SUFFIX]. */
import type { Command } from '../../types.js';
import { basenameOf } from '../../fs/android-path.js';
import { helpExit, parseArgs } from './toybox.js';

export const basename: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'a', args: 's', stopAtOperand: true });
  if (args === undefined) return 1;
  const [name, suffix] = args.operands;
  if (name === undefined) return helpExit(ctx, 'Needs 1 argument');
  let base = basenameOf(name);
  const s = suffix ?? args.value('s');
  if (s !== undefined && base.endsWith(s) && base !== s) base = base.slice(0, -s.length);
  await ctx.stdout.write(`${base}\n`);
  return 0;
};
