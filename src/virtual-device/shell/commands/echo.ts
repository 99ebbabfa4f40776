/**
 * /system/bin/echo (toybox toys/posix/echo.c). The shell's own echo builtin (mksh) is what
 * `echo` runs; this binary runs for `/system/bin/echo`, `env echo`, `xargs echo`.
 * toybox: -n no newline, -e process escapes, -E literal (default); options only before text.
 */
import type { Command } from '../../types.js';
import { expandEchoEscapes } from '../builtins.js';

export const echo: Command = async (ctx) => {
  let escapes = false;
  let newline = true;
  let i = 1;
  while (i < ctx.argv.length && /^-[neE]+$/.test(ctx.argv[i]!)) {
    for (const f of ctx.argv[i]!.slice(1)) {
      if (f === 'n') newline = false;
      else if (f === 'e') escapes = true;
      else escapes = false;
    }
    i++;
  }
  const joined = ctx.argv.slice(i).join(' ');
  const { text, stop } = escapes ? expandEchoEscapes(joined) : { text: joined, stop: false };
  await ctx.stdout.write(text + (newline && !stop ? '\n' : ''));
  return 0;
};
