/** tr (toybox toys/pending/tr.c): translate SET1 to SET2, -d delete, -s squeeze, -c complement. */
import type { Command } from '../../types.js';
import { helpExit, parseArgs } from './toybox.js';

const CLASSES: Readonly<Record<string, string>> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \t\n\r\f\v',
  blank: ' \t',
  punct: '!-/:-@[-`{-~',
  xdigit: '0-9A-Fa-f',
};

/** Expands a SET (ranges, classes, escapes) into its characters. */
export function expandSet(set: string): string[] {
  let s = set.replace(/\[:([a-z]+):\]/g, (m, name: string) => CLASSES[name] ?? m);
  s = s.replace(/\\(n|t|r|\\|f|v|[0-7]{1,3})/g, (_m, e: string) => {
    const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\uE000', f: '\f', v: '\v' };
    return map[e] ?? String.fromCharCode(parseInt(e, 8));
  });
  const chars: string[] = [];
  const arr = [...s].map((c) => (c === '\uE000' ? '\\' : c));
  for (let i = 0; i < arr.length; i++) {
    const c = arr[i]!;
    if (arr[i + 1] === '-' && arr[i + 2] !== undefined) {
      const from = c.codePointAt(0)!;
      const to = arr[i + 2]!.codePointAt(0)!;
      for (let x = from; x <= to; x++) chars.push(String.fromCodePoint(x));
      i += 2;
      continue;
    }
    chars.push(c);
  }
  return chars;
}

export const tr: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'cCsdt' });
  if (args === undefined) return 1;
  const [s1, s2] = args.operands;
  if (s1 === undefined || (s2 === undefined && !args.has('d') && !args.has('s'))) return helpExit(ctx, 'Needs 1 argument');
  const set1 = new Set(expandSet(s1));
  const complement = args.has('c') || args.has('C');
  const inSet1 = (c: string): boolean => set1.has(c) !== complement;
  const list1 = expandSet(s1);
  const list2 = s2 === undefined ? [] : expandSet(s2);
  const squeezeSet = new Set(args.has('d') ? list2 : s2 === undefined ? list1 : list2);
  const map = new Map<string, string>();
  if (!args.has('d') && s2 !== undefined && !complement) {
    list1.forEach((c, i) => map.set(c, list2[Math.min(i, list2.length - 1)] ?? c));
  }
  let last: string | undefined;
  const decoder = new TextDecoder();
  for await (const chunk of ctx.stdin) {
    let out = '';
    for (const c of decoder.decode(chunk, { stream: true })) {
      let ch: string | undefined = c;
      if (args.has('d')) {
        if (inSet1(c)) ch = undefined;
      } else if (s2 !== undefined) {
        if (complement) {
          if (inSet1(c)) ch = list2.at(-1) ?? c;
        } else ch = map.get(c) ?? c;
      }
      if (ch === undefined) continue;
      if (args.has('s') && squeezeSet.has(ch) && ch === last) continue;
      last = ch;
      out += ch;
    }
    if (out !== '') await ctx.stdout.write(out);
  }
  return 0;
};
