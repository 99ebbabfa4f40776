/**
 * env (toybox toys/posix/env.c): prints the environment as NAME=VALUE lines, or runs COMMAND
 * with -i (empty), -u NAME (unset) and NAME=VALUE changes. A missing command:
 * `env: 'NAME': No such file or directory`, status 127.
 */
import type { Command } from '../../types.js';
import { errorMsg, parseArgs, tb } from './toybox.js';

export const env: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'i0', args: 'u', stopAtOperand: true, long: { 'ignore-environment': { key: 'i', arg: false }, unset: { key: 'u', arg: true } } });
  if (args === undefined) return 125;
  const vars = args.has('i') ? new Map<string, string>() : new Map(ctx.env);
  for (const name of args.values.get('u') ?? []) vars.delete(name);
  const ops = [...args.operands];
  if (ops[0] === '-') {
    vars.clear();
    ops.shift();
  }
  while (ops.length > 0 && /^[^=]+=/.test(ops[0]!)) {
    const a = ops.shift()!;
    const eq = a.indexOf('=');
    vars.set(a.slice(0, eq), a.slice(eq + 1));
  }
  if (ops.length === 0) {
    const term = args.has('0') ? '\0' : '\n';
    await ctx.stdout.write([...vars].map(([k, v]) => `${k}=${v}${term}`).join(''));
    return 0;
  }
  const status = await tb(ctx).runCommand(ops, { env: vars });
  if (status === undefined) {
    await errorMsg(ctx, `'${ops[0]!}': No such file or directory`);
    return 127;
  }
  return status;
};
