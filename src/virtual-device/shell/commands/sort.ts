/** sort (toybox toys/posix/sort.c): -n -r -u -f -b, -k FIELD[,FIELD] with -t SEP, -o FILE. */
import type { Command } from '../../types.js';
import { inputs, linesOf, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const sort: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'nrufbdsgMVCcizx', args: 'ktoST' });
  if (args === undefined) return 2;
  const lines: string[] = [];
  const state = { failed: false };
  for await (const input of inputs(ctx, args.operands, state)) {
    try {
      for await (const raw of linesOf(input.data)) lines.push(raw.endsWith('\n') ? raw.slice(0, -1) : raw);
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
    }
  }
  const sep = args.value('t');
  const key = args.value('k');
  const keyOf = (line: string): string => {
    let k = line;
    if (key !== undefined) {
      const m = /^(\d+)(?:\.\d+)?[a-z]*(?:,(\d+))?/.exec(key);
      if (m !== null) {
        const from = Number(m[1]) - 1;
        const to = m[2] === undefined ? undefined : Number(m[2]);
        const fields = sep === undefined ? line.trim().split(/\s+/) : line.split(sep);
        k = fields.slice(from, to).join(sep ?? ' ');
      }
    }
    if (args.has('b')) k = k.trimStart();
    if (args.has('f')) k = k.toUpperCase();
    return k;
  };
  const numeric = args.has('n') || args.has('g');
  const cmp = (a: string, b: string): number => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    let r: number;
    if (numeric) {
      const na = parseFloat(ka) || 0;
      const nb = parseFloat(kb) || 0;
      r = na - nb;
    } else r = ka < kb ? -1 : ka > kb ? 1 : 0;
    if (r === 0 && !args.has('u') && !args.has('s')) r = a < b ? -1 : a > b ? 1 : 0;
    return args.has('r') ? -r : r;
  };
  lines.sort(cmp);
  const out: string[] = [];
  for (const l of lines) {
    if (args.has('u') && out.length > 0 && cmp(out.at(-1)!, l) === 0) continue;
    out.push(l);
  }
  const text = out.map((l) => `${l}\n`).join('');
  const o = args.value('o');
  if (o !== undefined) {
    try {
      await tb(ctx).fs.writeFile(pathOf(ctx, o), ctx.uid, text);
    } catch (e) {
      await perrorMsg(ctx, o, e);
      return 2;
    }
  } else await ctx.stdout.write(text);
  return state.failed ? 2 : 0;
};
