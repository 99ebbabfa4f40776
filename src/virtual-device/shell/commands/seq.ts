/** seq (toybox toys/lsb/seq.c): [FIRST [INC]] LAST, -s SEP, -w equal width. */
import type { Command } from '../../types.js';
import { errorMsg, helpExit, parseArgs } from './toybox.js';

export const seq: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'w', args: 'sf' });
  if (args === undefined) return 1;
  const nums = args.operands.map(Number);
  if (nums.length === 0 || nums.length > 3) return helpExit(ctx, nums.length === 0 ? 'Needs 1 argument' : 'Max 3 arguments');
  const bad = args.operands.find((o) => Number.isNaN(Number(o)));
  if (bad !== undefined) {
    await errorMsg(ctx, `not integer: ${bad}`);
    return 1;
  }
  const [first, inc, last] = nums.length === 1 ? [1, 1, nums[0]!] : nums.length === 2 ? [nums[0]!, 1, nums[1]!] : [nums[0]!, nums[1]!, nums[2]!];
  if (inc === 0) return 0;
  const sep = args.value('s') ?? '\n';
  const values: string[] = [];
  for (let v = first; inc > 0 ? v <= last : v >= last; v += inc) values.push(String(v));
  const width = args.has('w') ? Math.max(...values.map((v) => v.length)) : 0;
  if (values.length > 0) await ctx.stdout.write(`${values.map((v) => v.padStart(width, '0')).join(sep)}\n`);
  return 0;
};
