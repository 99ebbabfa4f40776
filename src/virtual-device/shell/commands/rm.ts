/**
 * rm (toybox toys/posix/rm.c): -f ignores missing files and never fails for them, -r/-R
 * removes directories recursively; a directory without -r fails with "Is a directory"
 * (unlinkat without AT_REMOVEDIR). Errors: `rm: NAME: strerror`.
 */
import type { Command } from '../../types.js';
import { basenameOf } from '../../fs/android-path.js';
import { isFsError } from '../../fs/fs-error.js';
import { errorMsg, helpExit, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const rm: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'fiRrv', long: { force: { key: 'f', arg: false } } });
  if (args === undefined) return 1;
  const force = args.has('f');
  const recursive = args.has('r') || args.has('R');
  if (args.operands.length === 0 && !force) return helpExit(ctx, 'Needs 1 argument');
  const fs = tb(ctx).fs;
  let status = 0;
  for (const op of args.operands) {
    if (op === '/') {
      await errorMsg(ctx, 'rm /. if you mean it');
      status = 1;
      continue;
    }
    if (basenameOf(op) === '..') {
      await errorMsg(ctx, `bad path ${op}`);
      status = 1;
      continue;
    }
    try {
      await fs.rm(pathOf(ctx, op), ctx.uid, { recursive, force });
      if (args.has('v')) await ctx.stdout.write(`rm '${op}'\n`);
    } catch (e) {
      if (force && isFsError(e, 'ENOENT')) continue;
      await perrorMsg(ctx, op, e);
      status = 1;
    }
  }
  return status;
};
