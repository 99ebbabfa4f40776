/** cat (toybox toys/posix/cat.c): copies each FILE (`-` or none: stdin) to stdout. */
import type { Command } from '../../types.js';
import { inputs, parseArgs, perrorMsg } from './toybox.js';

export const cat: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'uvte' });
  if (args === undefined) return 1;
  const state = { failed: false };
  for await (const input of inputs(ctx, args.operands, state)) {
    try {
      for await (const chunk of input.data) await ctx.stdout.write(chunk);
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
    }
  }
  return state.failed ? 1 : 0;
};
