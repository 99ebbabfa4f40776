/** cut (toybox toys/posix/cut.c): -b/-c LIST, -f LIST with -d DELIM (tab), -s. */
import type { Command } from '../../types.js';
import { errorMsg, inputs, linesOf, parseArgs, perrorMsg } from './toybox.js';

type Range = [number, number];

function parseList(list: string): Range[] | undefined {
  const out: Range[] = [];
  for (const part of list.split(',')) {
    const m = /^(\d*)(-?)(\d*)$/.exec(part);
    if (m === null || (m[1] === '' && m[3] === '')) return undefined;
    const a = m[1] === '' ? 1 : Number(m[1]);
    const b = m[2] === '' ? a : m[3] === '' ? Infinity : Number(m[3]);
    out.push([a, b]);
  }
  return out;
}

export const cut: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'sDn', args: 'bcfd', long: { 'output-delimiter': { key: 'O', arg: true } } });
  if (args === undefined) return 1;
  const listSpec = args.value('f') ?? args.value('c') ?? args.value('b');
  if (listSpec === undefined) {
    await errorMsg(ctx, 'no selections');
    return 1;
  }
  const ranges = parseList(listSpec);
  if (ranges === undefined) {
    await errorMsg(ctx, `bad list '${listSpec}'`);
    return 1;
  }
  const pick = (n: number): boolean => ranges.some(([a, b]) => n >= a && n <= b);
  const fields = args.value('f') !== undefined;
  const delim = args.value('d') ?? '\t';
  const outDelim = args.value('O') ?? delim;
  const state = { failed: false };
  for await (const input of inputs(ctx, args.operands, state)) {
    try {
      for await (const raw of linesOf(input.data)) {
        const line = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
        if (fields) {
          if (!line.includes(delim)) {
            if (!args.has('s')) await ctx.stdout.write(`${line}\n`);
            continue;
          }
          const parts = line.split(delim).filter((_p, i) => pick(i + 1));
          await ctx.stdout.write(`${parts.join(outDelim)}\n`);
        } else {
          const chars = [...line].filter((_c, i) => pick(i + 1));
          await ctx.stdout.write(`${chars.join('')}\n`);
        }
      }
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
    }
  }
  return state.failed ? 1 : 0;
};
