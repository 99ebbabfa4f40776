/**
 * grep (toybox toys/posix/grep.c): basic regular expressions by default, -E extended, -F fixed
 * strings; -i -v -c -q -l -L -n -h -H -o -s -x -w -m N -e PAT -f FILE -r. Exit status 0 when
 * a line matched, 1 when none did, 2 on an error (TOYFLAG_ARGFAIL(2)).
 */
import type { Command, CommandContext } from '../../types.js';
import { joinPath } from '../../fs/android-path.js';
import { isDirMode } from '../../fs/file-mode.js';
import { errorMsg, inputs, linesOf, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

/** POSIX bracket classes to JavaScript. */
function convertClasses(re: string): string {
  const classes: Record<string, string> = {
    alpha: 'A-Za-z',
    digit: '0-9',
    alnum: 'A-Za-z0-9',
    upper: 'A-Z',
    lower: 'a-z',
    space: ' \\t\\n\\r\\f\\v',
    blank: ' \\t',
    punct: '!-\\/:-@\\[-`{-~',
    xdigit: '0-9A-Fa-f',
    print: ' -~',
    graph: '!-~',
    cntrl: '\\x00-\\x1f\\x7f',
  };
  return re.replace(/\[:([a-z]+):\]/g, (m, name: string) => classes[name] ?? m);
}

/** A basic regular expression (BRE) as a JavaScript regex source. */
export function breToJs(bre: string): string {
  let out = '';
  for (let i = 0; i < bre.length; i++) {
    const c = bre[i]!;
    if (c === '\\') {
      const n = bre[i + 1];
      i++;
      if (n === undefined) out += '\\\\';
      else if ('(){}|+?'.includes(n)) out += n;
      else if (/[1-9]/.test(n)) out += `\\${n}`;
      else out += `\\${n}`;
      continue;
    }
    if (c === '[') {
      const close = findBracketEnd(bre, i);
      out += convertClasses(bre.slice(i, close + 1));
      i = close;
      continue;
    }
    if ('(){}|+?'.includes(c)) out += `\\${c}`;
    else if (c === '*' && (out === '' || out.endsWith('^'))) out += '\\*';
    else out += c;
  }
  return out;
}

function findBracketEnd(re: string, start: number): number {
  let i = start + 1;
  if (re[i] === '^') i++;
  if (re[i] === ']') i++;
  for (; i < re.length; i++) {
    if (re[i] === '[' && re[i + 1] === ':') {
      const end = re.indexOf(':]', i + 2);
      if (end > 0) {
        i = end + 1;
        continue;
      }
    }
    if (re[i] === ']') return i;
  }
  return re.length - 1;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export const grep: Command = async (ctx) => {
  const args = await parseArgs(ctx, {
    flags: 'EFiIvcqlLnhHosxwrRzZab',
    args: 'efmABC',
    long: {
      quiet: { key: 'q', arg: false },
      silent: { key: 'q', arg: false },
      count: { key: 'c', arg: false },
      'ignore-case': { key: 'i', arg: false },
      'invert-match': { key: 'v', arg: false },
      'line-number': { key: 'n', arg: false },
      'files-with-matches': { key: 'l', arg: false },
      'no-filename': { key: 'h', arg: false },
      'only-matching': { key: 'o', arg: false },
      'line-buffered': { key: 'line-buffered', arg: false },
      color: { key: 'color', arg: false },
    },
  });
  if (args === undefined) return 2;
  const patterns: string[] = [...(args.values.get('e') ?? [])];
  const operands = [...args.operands];
  for (const f of args.values.get('f') ?? []) {
    try {
      const text = (await tb(ctx).fs.readFile(pathOf(ctx, f), ctx.uid)).toString('utf8');
      patterns.push(...text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1));
    } catch (e) {
      await perrorMsg(ctx, f, e);
      return 2;
    }
  }
  if (patterns.length === 0) {
    const p = operands.shift();
    if (p === undefined) {
      await ctx.stderr.write('grep: no REGEX (see "grep --help")\n');
      return 2;
    }
    patterns.push(...p.split('\n'));
  }
  let re: RegExp;
  try {
    const sources = patterns.map((p) => {
      let s = args.has('F') ? escapeRegex(p) : args.has('E') ? convertClasses(p) : breToJs(p);
      if (args.has('w')) s = `(?<![A-Za-z0-9_])(?:${s})(?![A-Za-z0-9_])`;
      if (args.has('x')) s = `^(?:${s})$`;
      return `(?:${s})`;
    });
    re = new RegExp(sources.join('|'), `g${args.has('i') ? 'i' : ''}`);
  } catch {
    await errorMsg(ctx, `bad REGEX '${patterns.join('\n')}'`);
    return 2;
  }
  const recursive = args.has('r') || args.has('R');
  const files = operands.length === 0 && recursive ? ['.'] : operands;
  const showNames = args.has('H') || (!args.has('h') && (files.length > 1 || recursive));
  const maxCount = args.value('m') === undefined ? Infinity : Number(args.value('m'));
  const state = { failed: false };
  let matchedAny = false;

  const list = recursive ? await expandRecursive(ctx, files, state) : files;
  for await (const input of inputs(ctx, list, state)) {
    let count = 0;
    let lineNo = 0;
    try {
      for await (const rawLine of linesOf(input.data)) {
        lineNo++;
        const line = rawLine.endsWith('\n') ? rawLine.slice(0, -1) : rawLine;
        re.lastIndex = 0;
        const hit = re.test(line);
        if (hit === args.has('v')) continue;
        count++;
        matchedAny = true;
        if (args.has('q')) return 0;
        if (args.has('l') || args.has('L')) break;
        if (!args.has('c')) {
          const prefix = `${showNames ? `${input.name === '-' ? '(standard input)' : input.name}:` : ''}${args.has('n') ? `${lineNo}:` : ''}`;
          if (args.has('o') && !args.has('v')) {
            re.lastIndex = 0;
            for (const m of line.matchAll(re)) if (m[0] !== '') await ctx.stdout.write(`${prefix}${m[0]}\n`);
          } else {
            await ctx.stdout.write(`${prefix}${line}\n`);
          }
        }
        if (count >= maxCount) break;
      }
    } catch (e) {
      if (!args.has('s')) await perrorMsg(ctx, input.name, e);
      state.failed = true;
      continue;
    }
    const name = input.name === '-' ? '(standard input)' : input.name;
    if (args.has('c')) await ctx.stdout.write(`${showNames ? `${name}:` : ''}${count}\n`);
    if (args.has('l') && count > 0) await ctx.stdout.write(`${name}\n`);
    if (args.has('L') && count === 0) await ctx.stdout.write(`${name}\n`);
  }
  if (state.failed) return 2;
  return matchedAny ? 0 : 1;
};

async function expandRecursive(ctx: CommandContext, roots: readonly string[], state: { failed: boolean }): Promise<string[]> {
  const fs = tb(ctx).fs;
  const out: string[] = [];
  const walk = async (shown: string): Promise<void> => {
    let st;
    try {
      st = await fs.stat(pathOf(ctx, shown), ctx.uid);
    } catch (e) {
      await perrorMsg(ctx, shown, e);
      state.failed = true;
      return;
    }
    if (!isDirMode(st.mode)) {
      out.push(shown);
      return;
    }
    try {
      for (const child of await fs.readdir(pathOf(ctx, shown), ctx.uid)) await walk(joinPath(shown, child.name));
    } catch (e) {
      await perrorMsg(ctx, shown, e);
      state.failed = true;
    }
  };
  for (const r of roots) await walk(r);
  return out;
}

