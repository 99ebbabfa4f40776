/**
 * touch (toybox toys/posix/touch.c): sets access/modification times to now (device clock), to
 * -t [[CC]YY]MMDDhhmm[.ss], -d DATE or -r FILE's; creates missing files unless -c.
 * Errors: `touch: 'NAME': strerror`.
 */
import type { Command } from '../../types.js';
import { deviceTimeZone } from '../../clock.js';
import { isFsError } from '../../fs/fs-error.js';
import { parseDate } from './date.js';
import { errorMsg, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const touch: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'acmfh', args: 'dtr' });
  if (args === undefined) return 1;
  const fs = tb(ctx).fs;
  let atime = ctx.device.clock.now() / 1000;
  let mtime = atime;
  let now = true;
  const tz = deviceTimeZone(ctx.device.props, ctx.env);
  const d = args.value('d') ?? args.value('t');
  if (d !== undefined) {
    // touch parses both -t and -d with xparsedate(..., endian 0): [[CC]YY]MMDDhhmm[.ss] first.
    const parsed = parseDate(d, ctx.device.clock.now(), tz, false);
    if (parsed === undefined) {
      await errorMsg(ctx, `bad date ${d}`);
      return 1;
    }
    atime = mtime = parsed.epochMs / 1000;
    now = false;
  }
  const ref = args.value('r');
  if (ref !== undefined) {
    try {
      const st = await fs.stat(pathOf(ctx, ref), ctx.uid);
      atime = st.atimeSec;
      mtime = st.mtimeSec;
      now = false;
    } catch (e) {
      await perrorMsg(ctx, ref, e);
      return 1;
    }
  }
  let status = 0;
  for (const op of args.operands) {
    const path = pathOf(ctx, op);
    try {
      const st = await fs.stat(path, ctx.uid);
      const a = args.has('m') && !args.has('a') ? st.atimeSec : atime;
      const m = args.has('a') && !args.has('m') ? st.mtimeSec : mtime;
      await fs.utimes(path, ctx.uid, a, m, { now });
    } catch (e) {
      if (isFsError(e, 'ENOENT')) {
        if (args.has('c')) continue;
        try {
          await fs.writeFile(path, ctx.uid, '');
          await fs.utimes(path, ctx.uid, atime, mtime, { now: true });
          continue;
        } catch (e2) {
          await perrorMsg(ctx, `'${op}'`, e2);
          status = 1;
          continue;
        }
      }
      await perrorMsg(ctx, `'${op}'`, e);
      status = 1;
    }
  }
  return status;
};
