/**
 * chown and chgrp (toybox toys/posix/chgrp.c): OWNER[:GROUP] by name or number, -R.
 * Only root may change ownership: others get `chown: 'NAME' to 'OWNER': Operation not permitted`
 * (perror_msg("'%s' to '%s'") in do_chgrp).
 */
import type { Command, CommandContext } from '../../types.js';
import { idFromName } from '../../fs/android-ids.js';
import { joinPath } from '../../fs/android-path.js';
import { isDirMode } from '../../fs/file-mode.js';
import { commandName, errorMsg, helpExit, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const chown: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'RHLPfhv' });
  if (args === undefined) return 1;
  if (args.operands.length < 2) return helpExit(ctx, 'Needs 2 arguments');
  const spec = args.operands[0]!;
  const isChgrp = commandName(ctx) === 'chgrp';
  let uid: number | undefined;
  let gid: number | undefined;
  if (isChgrp) gid = idFromName(spec);
  else {
    const [u, g] = spec.split(/[:.]/, 2);
    if (u !== undefined && u !== '') {
      uid = idFromName(u);
      if (uid === undefined) {
        await errorMsg(ctx, `bad user '${u}'`);
        return 1;
      }
    }
    if (g !== undefined && g !== '') {
      gid = idFromName(g);
      if (gid === undefined) {
        await errorMsg(ctx, `bad group '${g}'`);
        return 1;
      }
    }
  }
  if (isChgrp && gid === undefined) {
    await errorMsg(ctx, `bad group '${spec}'`);
    return 1;
  }
  let status = 0;
  for (const op of args.operands.slice(1)) status |= await chownOne(ctx, op, pathOf(ctx, op), spec, { ...(uid === undefined ? {} : { uid }), ...(gid === undefined ? {} : { gid }) }, args.has('R'));
  return status;
};

async function chownOne(ctx: CommandContext, shown: string, path: string, spec: string, owner: { uid?: number; gid?: number }, recursive: boolean): Promise<number> {
  const fs = tb(ctx).fs;
  let status = 0;
  try {
    await fs.chown(path, ctx.uid, owner);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') await perrorMsg(ctx, shown, e);
    else await perrorMsg(ctx, `'${shown}' to '${spec}'`, e);
    return 1;
  }
  if (recursive) {
    const st = await fs.stat(path, ctx.uid);
    if (isDirMode(st.mode)) {
      for (const child of await fs.readdir(path, ctx.uid)) {
        status |= await chownOne(ctx, joinPath(shown, child.name), joinPath(path, child.name), spec, owner, recursive);
      }
    }
  }
  return status;
}
