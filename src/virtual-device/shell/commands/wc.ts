/**
 * wc (toybox toys/posix/wc.c): -l -w -c -m; default -lwc. Numbers are `%*ld` with width 7,
 * except 0 for a single file or a single count of stdin; a `total` line for several files.
 */
import type { Command } from '../../types.js';
import { inputs, parseArgs, perrorMsg } from './toybox.js';

export const wc: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'lwcm' });
  if (args === undefined) return 1;
  let which = ['l', 'w', 'c', 'm'].filter((f) => args.has(f));
  if (which.length === 0) which = ['l', 'w', 'c'];
  const fileCount = args.operands.length;
  const space = !(fileCount === 0 && which.length === 1) && fileCount !== 1 ? 7 : 0;
  type Counts = Record<'l' | 'w' | 'c' | 'm', number>;
  const totals: Counts = { l: 0, w: 0, c: 0, m: 0 };
  const show = async (counts: Counts, name: string | undefined): Promise<void> => {
    const cols = (['l', 'w', 'c', 'm'] as const).filter((f) => which.includes(f)).map((f, i) => (i === 0 ? '' : ' ') + String(counts[f]).padStart(space));
    await ctx.stdout.write(`${cols.join('')}${name !== undefined ? ` ${name}` : ''}\n`);
  };
  const state = { failed: false };
  for await (const input of inputs(ctx, args.operands, state)) {
    const counts: Counts = { l: 0, w: 0, c: 0, m: 0 };
    let inWord = false;
    try {
      for await (const chunk of input.data) {
        counts.c += chunk.length;
        for (const byte of chunk) {
          if (byte === 0x0a) counts.l++;
          const space2 = byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);
          if (space2) inWord = false;
          else if (!inWord) {
            counts.w++;
            inWord = true;
          }
        }
        counts.m += [...chunk.toString('utf8')].length;
      }
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
    }
    for (const k of ['l', 'w', 'c', 'm'] as const) totals[k] += counts[k];
    await show(counts, fileCount > 0 ? input.name : undefined);
  }
  if (fileCount > 1) await show(totals, 'total');
  return state.failed ? 1 : 0;
};
