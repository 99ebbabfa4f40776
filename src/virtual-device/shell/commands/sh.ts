/**
 * sh (/system/bin/sh, mksh): `sh -c COMMAND [ARG0 [ARGS...]]`, `sh FILE [ARGS...]`, or commands
 * read from stdin (`echo cmd | sh`, an interactive `sh -i`). Error messages of the child shell
 * carry its own name (argv[0], or ARG0 after -c), e.g. `sh: foo: inaccessible or not found`.
 */
import type { Command } from '../../types.js';
import { pathOf, tb } from './toybox.js';

export const sh: Command = async (ctx) => {
  const t = tb(ctx);
  const argv = ctx.argv;
  let name = argv[0] ?? 'sh';
  let i = 1;
  let command: string | undefined;
  let interactive = false;
  let readStdin = false;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (!/^[-+][a-zA-Z]+$/.test(a)) break;
    for (const f of a.slice(1)) {
      if (f === 'c') command = '';
      else if (f === 'i') interactive = true;
      else if (f === 's') readStdin = true;
    }
  }
  if (command !== undefined) {
    const script = argv[i];
    if (script === undefined) {
      await ctx.stderr.write(`${name}: -c: option requires an argument\n`);
      return 1;
    }
    i++;
    if (argv[i] !== undefined) name = argv[i++]!;
    return t.runShell({ script, arg0: name, args: argv.slice(i) });
  }
  const file = readStdin ? undefined : argv[i];
  if (file === undefined) {
    return t.runShell({ script: '', arg0: name, args: argv.slice(i), fromStdin: true, interactive });
  }
  let text: string;
  try {
    text = (await t.fs.readFile(pathOf(ctx, file), ctx.uid)).toString('utf8');
  } catch (e) {
    await ctx.stderr.write(`${name}: ${file}: ${(e as Error).message}\n`);
    return 127;
  }
  return t.runShell({ script: text, arg0: file, args: argv.slice(i + 1) });
};
