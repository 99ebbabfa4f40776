/** which (toybox toys/other/which.c): the path of each command on the device's PATH; -a all. */
import type { Command } from '../../types.js';
import { DEFAULT_PATH } from '../shell.js';
import { parseArgs, tb } from './toybox.js';

export const which: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'a' });
  if (args === undefined) return 1;
  const t = tb(ctx);
  const path = ctx.env.get('PATH') ?? DEFAULT_PATH;
  let status = 0;
  for (const name of args.operands) {
    const found: string[] = [];
    if (name.includes('/')) {
      if (await t.fs.access(name, ctx.uid, 1)) found.push(name);
    } else {
      for (const dir of path.split(':')) {
        if (dir === '') continue;
        const candidate = `${dir}/${name}`;
        const registered = dir === '/system/bin' && ctx.device.commands.has(name);
        if (registered || (await isExecutable(t, candidate, ctx.uid))) found.push(candidate);
        if (found.length > 0 && !args.has('a')) break;
      }
    }
    if (found.length === 0) status = 1;
    else await ctx.stdout.write(found.map((f) => `${f}\n`).join(''));
  }
  return status;
};

async function isExecutable(t: ReturnType<typeof tb>, path: string, uid: number): Promise<boolean> {
  try {
    const st = await t.fs.stat(path, uid);
    return (st.mode & 0o170000) === 0o100000 && (await t.fs.access(path, uid, 1));
  } catch {
    return false;
  }
}
