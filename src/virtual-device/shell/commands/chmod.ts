/**
 * chmod (toybox toys/posix/chmod.c): octal or symbolic MODE, -R recursive. Errors:
 * `chmod: chmod 'NAME' to 0MODE: strerror` (lib wfchmodat), `chmod: NAME: strerror` when
 * NAME cannot be found, `chmod: bad mode 'X'`.
 */
import type { Command, CommandContext } from '../../types.js';
import { joinPath } from '../../fs/android-path.js';
import { isDirMode, isLinkMode } from '../../fs/file-mode.js';
import { errorMsg, helpExit, parseMode, pathOf, perrorMsg, tb } from './toybox.js';

export const chmod: Command = async (ctx) => {
  // A leading "-w"-style symbolic mode must not be taken for an option.
  const raw = ctx.argv.slice(1);
  const flags = new Set<string>();
  while (raw.length > 0 && /^-[Rvf]+$/.test(raw[0]!)) for (const f of raw.shift()!.slice(1)) flags.add(f);
  if (raw[0] === '--') raw.shift();
  if (raw.length < 2) return helpExit(ctx, 'Needs 2 arguments');
  const modeSpec = raw[0]!;
  if (parseMode(modeSpec, 0, false) === undefined) {
    await errorMsg(ctx, `bad mode '${modeSpec}'`);
    return 1;
  }
  let status = 0;
  for (const op of raw.slice(1)) status |= await chmodOne(ctx, op, pathOf(ctx, op), modeSpec, flags.has('R'), flags.has('v'), true);
  return status;
};

async function chmodOne(ctx: CommandContext, shown: string, path: string, modeSpec: string, recursive: boolean, verbose: boolean, top: boolean): Promise<number> {
  const fs = tb(ctx).fs;
  let st;
  try {
    st = top ? await fs.stat(path, ctx.uid) : await fs.lstat(path, ctx.uid);
  } catch (e) {
    await perrorMsg(ctx, shown, e);
    return 1;
  }
  if (!top && isLinkMode(st.mode)) return 0;
  const mode = parseMode(modeSpec, st.mode, isDirMode(st.mode))!;
  let status = 0;
  if (verbose) await ctx.stdout.write(`chmod '${shown}' to ${modeSpec}\n`);
  try {
    await fs.chmod(path, ctx.uid, mode);
  } catch (e) {
    await perrorMsg(ctx, `chmod '${shown}' to ${mode.toString(8).padStart(4, '0')}`, e);
    status = 1;
  }
  if (recursive && isDirMode(st.mode)) {
    try {
      for (const child of await fs.readdir(path, ctx.uid)) {
        status |= await chmodOne(ctx, joinPath(shown, child.name), joinPath(path, child.name), modeSpec, recursive, verbose, false);
      }
    } catch (e) {
      await perrorMsg(ctx, shown, e);
      status = 1;
    }
  }
  return status;
}
