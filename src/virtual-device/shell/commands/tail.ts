/**
 * tail (toybox toys/posix/tail.c): -n N (last N lines; +N from line N), -c N, -NUM, -f to
 * keep following a file (until the session ends).
 */
import type { Command } from '../../types.js';
import { collect, errorMsg, inputs, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const tail: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'fFqv', args: 'ncs', numberOption: 'n', long: { lines: { key: 'n', arg: true }, bytes: { key: 'c', arg: true } } });
  if (args === undefined) return 1;
  const nSpec = args.value('n') ?? '10';
  const cSpec = args.value('c');
  const spec = cSpec ?? nSpec;
  const m = /^([+-]?)(\d+)$/.exec(spec);
  if (m === null) {
    await errorMsg(ctx, `bad number '${spec}'`);
    return 1;
  }
  const fromStart = m[1] === '+';
  const count = Number(m[2]);
  const state = { failed: false };
  let fileNo = 0;
  for await (const input of inputs(ctx, args.operands, state)) {
    if (args.operands.length > 1 && !args.has('q')) await ctx.stdout.write(`${fileNo > 0 ? '\n' : ''}==> ${input.name} <==\n`);
    fileNo++;
    let data: Buffer;
    try {
      data = await collect(input.data);
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
      continue;
    }
    await ctx.stdout.write(cSpec !== undefined ? sliceBytes(data, count, fromStart) : sliceLines(data, count, fromStart));
    if ((args.has('f') || args.has('F')) && input.name !== '-') await follow(ctx, input.name, data.length);
  }
  return state.failed ? 1 : 0;
};

function sliceBytes(data: Buffer, count: number, fromStart: boolean): Buffer {
  if (fromStart) return data.subarray(Math.max(0, count - 1));
  return data.subarray(Math.max(0, data.length - count));
}

function sliceLines(data: Buffer, count: number, fromStart: boolean): Buffer {
  if (fromStart) {
    let line = 1;
    let i = 0;
    while (line < count && i < data.length) if (data[i++] === 0x0a) line++;
    return data.subarray(i);
  }
  if (count === 0) return Buffer.alloc(0);
  let end = data.length;
  if (end > 0 && data[end - 1] === 0x0a) end--;
  let seen = 0;
  for (let i = end - 1; i >= 0; i--) {
    if (data[i] === 0x0a && ++seen === count) return data.subarray(i + 1);
  }
  return data;
}

/** -f: polls the file for growth until the session ends. */
async function follow(ctx: Parameters<Command>[0], name: string, offset: number): Promise<void> {
  const fs = tb(ctx).fs;
  let pos = offset;
  while (!ctx.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 250);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    if (ctx.signal.aborted) break;
    try {
      const data = await fs.readFile(pathOf(ctx, name), ctx.uid);
      if (data.length > pos) await ctx.stdout.write(data.subarray(pos));
      pos = data.length;
    } catch {
      // file gone for now
    }
  }
}
