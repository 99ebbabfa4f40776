/**
 * cp and mv (toybox toys/posix/cp.c). cp: -r/-R/-a copy directories (else
 * `cp: Skipped dir 'X'`), -p/-a keep mode and times, -n no clobber, -f remove a destination
 * that cannot be opened. mv renames (same device). Several sources need a directory
 * destination (`'DEST' not directory`); a missing source is `bad 'SRC': strerror`.
 */
import type { Command, CommandContext } from '../../types.js';
import type { FsStat } from '../../fs/virtual-fs.js';
import { basenameOf, joinPath } from '../../fs/android-path.js';
import { isFsError } from '../../fs/fs-error.js';
import { S_IFMT, S_IFDIR, S_IFLNK } from '../../fs/file-mode.js';
import { commandName, errorMsg, parseArgs, pathOf, perrorMsg, tb, type ParsedArgs } from './toybox.js';

export const cp: Command = async (ctx) => run(ctx, false);
export const mv: Command = async (ctx) => run(ctx, true);

async function run(ctx: CommandContext, move: boolean): Promise<number> {
  const args = await parseArgs(ctx, move ? { flags: 'vnFfiT' } : { flags: 'RrpadfinuvlsHLPFDT', long: { preserve: { key: 'preserve', arg: false } } });
  if (args === undefined) return 1;
  const ops = [...args.operands];
  if (ops.length < 2) {
    await errorMsg(ctx, 'Needs 2 arguments');
    return 1;
  }
  const fs = tb(ctx).fs;
  const destName = ops.pop()!;
  const destPath = pathOf(ctx, destName);
  let destIsDir = false;
  try {
    destIsDir = (await fs.stat(destPath, ctx.uid)).mode >> 12 === S_IFDIR >> 12;
  } catch {
    destIsDir = false;
  }
  if (!destIsDir && ops.length > 1) {
    await errorMsg(ctx, `'${destName}' not directory`);
    return 1;
  }
  let status = 0;
  for (const src of ops) {
    const srcPath = pathOf(ctx, src.replace(/(.)\/+$/, '$1'));
    const target = destIsDir ? joinPath(destPath, basenameOf(srcPath)) : destPath;
    const shownTarget = destIsDir ? joinPath(destName, basenameOf(srcPath)) : destName;
    if (move) {
      if (args.has('n') && (await fs.exists(target))) continue;
      try {
        await fs.rename(srcPath, target, ctx.uid);
        if (args.has('v')) await ctx.stdout.write(`mv '${src}' '${shownTarget}'\n`);
      } catch (e) {
        await perrorMsg(ctx, `bad '${src}'`, e);
        status = 1;
      }
      continue;
    }
    let st: FsStat;
    try {
      const follow = !(args.has('P') || args.has('d') || args.has('a')) || args.has('L');
      st = follow ? await fs.stat(srcPath, ctx.uid) : await fs.lstat(srcPath, ctx.uid);
    } catch (e) {
      await perrorMsg(ctx, `bad '${src}'`, e);
      status = 1;
      continue;
    }
    try {
      if ((await fs.exists(target)) && (await fs.realpath(target, ctx.uid)) === (await fs.realpath(srcPath, ctx.uid))) {
        await errorMsg(ctx, `'${shownTarget}' is '${src}'`);
        status = 1;
        continue;
      }
    } catch {
      // cannot compare: carry on and let the copy report
    }
    status |= await copyNode(ctx, args, srcPath, src, st, target, shownTarget);
  }
  return status;
}

async function copyNode(ctx: CommandContext, args: ParsedArgs, src: string, shownSrc: string, st: FsStat, dest: string, shownDest: string): Promise<number> {
  const fs = tb(ctx).fs;
  const recursive = args.has('r') || args.has('R') || args.has('a');
  const preserve = args.has('p') || args.has('a') || args.has('preserve');
  const type = st.mode & S_IFMT;
  if (args.has('v')) await ctx.stdout.write(`${commandName(ctx)} '${shownSrc}'\n`);
  if (type === S_IFDIR) {
    if (!recursive) {
      await errorMsg(ctx, `Skipped dir '${shownSrc}'`);
      return 1;
    }
    try {
      if (!(await fs.exists(dest))) await fs.mkdir(dest, ctx.uid, { mode: (st.mode & 0o7777) | 0o700 });
    } catch (e) {
      await perrorMsg(ctx, shownDest, e);
      return 1;
    }
    let status = 0;
    try {
      for (const child of await fs.readdir(src, ctx.uid)) {
        const childSrc = joinPath(src, child.name);
        const follow = args.has('L');
        const childSt = follow ? await fs.stat(childSrc, ctx.uid) : child.stat;
        status |= await copyNode(ctx, args, childSrc, joinPath(shownSrc, child.name), childSt, joinPath(dest, child.name), joinPath(shownDest, child.name));
      }
      await fs.chmod(dest, ctx.uid, st.mode & 0o7777);
    } catch (e) {
      await perrorMsg(ctx, shownSrc, e);
      return 1;
    }
    return status;
  }
  if (args.has('n') && (await fs.exists(dest))) return 0;
  try {
    if (type === S_IFLNK) {
      await fs.rm(dest, ctx.uid, { force: true });
      await fs.symlink(await fs.readlink(src, ctx.uid), dest, ctx.uid);
      return 0;
    }
    try {
      await fs.copy(src, dest, ctx.uid);
    } catch (e) {
      if (!(args.has('f') && isFsError(e, 'EACCES'))) throw e;
      await fs.rm(dest, ctx.uid, { force: true });
      await fs.copy(src, dest, ctx.uid);
    }
    if (preserve) {
      await fs.chmod(dest, ctx.uid, st.mode & 0o7777);
      await fs.utimes(dest, ctx.uid, st.atimeSec, st.mtimeSec);
    }
    return 0;
  } catch (e) {
    await perrorMsg(ctx, shownDest, e);
    return 1;
  }
}
