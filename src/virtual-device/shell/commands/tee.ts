/** tee (toybox toys/posix/tee.c): copies stdin to stdout and each FILE; -a appends. */
import type { Command } from '../../types.js';
import type { FsWriter } from '../../fs/virtual-fs.js';
import { parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

export const tee: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'ai' });
  if (args === undefined) return 1;
  const fs = tb(ctx).fs;
  const writers: FsWriter[] = [];
  let status = 0;
  for (const op of args.operands) {
    try {
      writers.push(await fs.openWrite(pathOf(ctx, op), ctx.uid, { append: args.has('a') }));
    } catch (e) {
      await perrorMsg(ctx, op, e);
      status = 1;
    }
  }
  try {
    for await (const chunk of ctx.stdin) {
      const buf = Buffer.from(chunk);
      for (const w of writers) await w.write(buf);
      await ctx.stdout.write(buf);
    }
  } finally {
    for (const w of writers) await w.close();
  }
  return status;
};
