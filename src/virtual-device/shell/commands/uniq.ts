/** uniq (toybox toys/posix/uniq.c): -c (`%7lu ` counts), -d, -u, -i, -f N, -s N. */
import type { Command } from '../../types.js';
import { inputs, linesOf, parseArgs, perrorMsg } from './toybox.js';

export const uniq: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'zicdu', args: 'fsw' });
  if (args === undefined) return 1;
  const skipFields = Number(args.value('f') ?? 0);
  const skipChars = Number(args.value('s') ?? 0);
  const keyOf = (line: string): string => {
    let k = line;
    for (let i = 0; i < skipFields; i++) k = k.replace(/^\s*\S+/, '');
    k = k.slice(skipChars);
    return args.has('i') ? k.toLowerCase() : k;
  };
  const state = { failed: false };
  let prev: string | undefined;
  let count = 0;
  const flush = async (): Promise<void> => {
    if (prev === undefined) return;
    if (args.has('d') && count < 2) return;
    if (args.has('u') && count > 1) return;
    await ctx.stdout.write(`${args.has('c') ? `${String(count).padStart(7)} ` : ''}${prev}\n`);
  };
  for await (const input of inputs(ctx, args.operands.slice(0, 1), state)) {
    try {
      for await (const raw of linesOf(input.data)) {
        const line = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
        if (prev !== undefined && keyOf(prev) === keyOf(line)) {
          count++;
          continue;
        }
        await flush();
        prev = line;
        count = 1;
      }
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
    }
  }
  await flush();
  return state.failed ? 1 : 0;
};
