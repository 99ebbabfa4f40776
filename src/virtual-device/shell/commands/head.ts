/** head (toybox toys/posix/head.c): -n LINES (10), -c BYTES, -NUM, headers with -v or several files. */
import type { Command } from '../../types.js';
import { errorMsg, inputs, parseArgs, perrorMsg } from './toybox.js';

export const head: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'qv', args: 'nc', numberOption: 'n', long: { lines: { key: 'n', arg: true }, bytes: { key: 'c', arg: true } } });
  if (args === undefined) return 1;
  const lines = Number(args.value('n') ?? 10);
  const bytesOpt = args.value('c');
  if (!Number.isInteger(lines) || lines < 0 || (bytesOpt !== undefined && !/^\d+$/.test(bytesOpt))) {
    await errorMsg(ctx, `bad number '${args.value('n') ?? bytesOpt ?? ''}'`);
    return 1;
  }
  const state = { failed: false };
  let fileNo = 0;
  for await (const input of inputs(ctx, args.operands, state)) {
    if ((args.operands.length > 1 && !args.has('q')) || args.has('v')) {
      await ctx.stdout.write(`${fileNo > 0 ? '\n' : ''}==> ${input.name} <==\n`);
    }
    fileNo++;
    let leftLines = lines;
    let leftBytes = bytesOpt === undefined ? undefined : Number(bytesOpt);
    try {
      for await (const chunk of input.data) {
        if (leftBytes !== undefined) {
          if (leftBytes === 0) break;
          const part = chunk.subarray(0, leftBytes);
          leftBytes -= part.length;
          await ctx.stdout.write(part);
          if (leftBytes === 0) break;
          continue;
        }
        if (leftLines === 0) break;
        let end = 0;
        while (end < chunk.length && leftLines > 0) {
          if (chunk[end++] === 0x0a) leftLines--;
        }
        await ctx.stdout.write(chunk.subarray(0, end));
        if (leftLines === 0) break;
      }
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
    }
  }
  return state.failed ? 1 : 0;
};
