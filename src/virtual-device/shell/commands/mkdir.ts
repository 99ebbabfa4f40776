/**
 * mkdir (toybox toys/posix/mkdir.c): -p makes parents and accepts existing directories, -m
 * sets the mode (default 0777 & ~umask; adbd's shell runs with umask 0). Errors:
 * `mkdir: 'NAME': strerror`.
 */
import type { Command } from '../../types.js';
import { errorMsg, parseArgs, parseMode, pathOf, perrorMsg, tb } from './toybox.js';

export const mkdir: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'vp', args: 'mZ', long: { parents: { key: 'p', arg: false }, parent: { key: 'p', arg: false }, mode: { key: 'm', arg: true } } });
  if (args === undefined) return 1;
  const t = tb(ctx);
  let mode = 0o777;
  const m = args.value('m');
  if (m !== undefined) {
    const parsed = parseMode(m, 0o777, true);
    if (parsed === undefined) {
      await errorMsg(ctx, `bad mode '${m}'`);
      return 1;
    }
    mode = parsed;
  }
  if (args.operands.length === 0) {
    await ctx.stderr.write(`mkdir: Needs 1 argument (see "mkdir --help")\n`);
    return 1;
  }
  let status = 0;
  for (const op of args.operands) {
    try {
      await t.fs.mkdir(pathOf(ctx, op), ctx.uid, { mode, parents: args.has('p') });
      if (args.has('v')) await ctx.stdout.write(`mkdir: created directory '${op}'\n`);
    } catch (e) {
      await perrorMsg(ctx, `'${op}'`, e);
      status = 1;
    }
  }
  return status;
};
