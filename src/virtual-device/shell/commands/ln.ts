/** ln (toybox toys/posix/ln.c): only symbolic links (-s) are modelled; -f replaces the target. */
import type { Command } from '../../types.js';
import { basenameOf, joinPath } from '../../fs/android-path.js';
import { isDirMode } from '../../fs/file-mode.js';
import { errorMsg, helpExit, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const ln: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'sfnvT' });
  if (args === undefined) return 1;
  if (args.operands.length === 0) return helpExit(ctx, 'Needs 1 argument');
  if (!args.has('s')) {
    await errorMsg(ctx, 'hard links are not supported on this device model; use -s');
    return 1;
  }
  const fs = tb(ctx).fs;
  const ops = [...args.operands];
  const dest = ops.length === 1 ? '.' : ops.pop()!;
  let destIsDir = false;
  try {
    destIsDir = !args.has('n') && isDirMode((await fs.stat(pathOf(ctx, dest), ctx.uid)).mode);
  } catch {
    destIsDir = false;
  }
  let status = 0;
  for (const target of ops) {
    const linkPath = destIsDir ? joinPath(pathOf(ctx, dest), basenameOf(target)) : pathOf(ctx, dest);
    try {
      if (args.has('f')) await fs.rm(linkPath, ctx.uid, { force: true });
      await fs.symlink(target, linkPath, ctx.uid);
    } catch (e) {
      await perrorMsg(ctx, `cannot create symlink '${linkPath}'`, e);
      status = 1;
    }
  }
  return status;
};
