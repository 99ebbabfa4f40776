/** rmdir (toybox toys/posix/rmdir.c): removes empty directories; -p also their parents. */
import type { Command } from '../../types.js';
import { dirnameOf } from '../../fs/android-path.js';
import { parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const rmdir: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'p', long: { 'ignore-fail-on-non-empty': { key: 'ignore', arg: false } } });
  if (args === undefined) return 1;
  const fs = tb(ctx).fs;
  let status = 0;
  for (const op of args.operands) {
    let path = op;
    for (;;) {
      try {
        await fs.rmdir(pathOf(ctx, path), ctx.uid);
      } catch (e) {
        if (!(args.has('ignore') && (e as { code?: string }).code === 'ENOTEMPTY')) {
          await perrorMsg(ctx, `'${path}'`, e);
          status = 1;
        }
        break;
      }
      if (!args.has('p')) break;
      const parent = dirnameOf(path);
      if (parent === path || parent === '.' || parent === '/') break;
      path = parent;
    }
  }
  return status;
};
