/**
 * md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum (toybox toys/lsb/md5sum.c):
 * `HASH  NAME` per file (`-` for stdin), -b hash only, -c check a list.
 */
import { createHash } from 'node:crypto';
import type { Command } from '../../types.js';
import { commandName, inputs, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

const ALGORITHMS: Readonly<Record<string, string>> = {
  md5sum: 'md5',
  sha1sum: 'sha1',
  sha224sum: 'sha224',
  sha256sum: 'sha256',
  sha384sum: 'sha384',
  sha512sum: 'sha512',
};

export const md5sum: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'bcs' });
  if (args === undefined) return 1;
  const algorithm = ALGORITHMS[commandName(ctx)] ?? 'md5';
  const state = { failed: false };
  if (args.has('c')) return check(ctx, algorithm, args.operands);
  for await (const input of inputs(ctx, args.operands, state)) {
    const hash = createHash(algorithm);
    try {
      for await (const chunk of input.data) hash.update(chunk);
    } catch (e) {
      await perrorMsg(ctx, input.name, e);
      state.failed = true;
      continue;
    }
    const digest = hash.digest('hex');
    await ctx.stdout.write(args.has('b') ? `${digest}\n` : `${digest}  ${input.name}\n`);
  }
  return state.failed ? 1 : 0;
};

async function check(ctx: Parameters<Command>[0], algorithm: string, lists: readonly string[]): Promise<number> {
  const fs = tb(ctx).fs;
  let status = 0;
  const state = { failed: false };
  for await (const list of inputs(ctx, lists, state)) {
    const chunks: Buffer[] = [];
    for await (const c of list.data) chunks.push(c);
    for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
      const m = /^([0-9a-fA-F]+) [ *](.+)$/.exec(line);
      if (m === null) continue;
      let ok = false;
      try {
        const hash = createHash(algorithm).update(await fs.readFile(pathOf(ctx, m[2]!), ctx.uid)).digest('hex');
        ok = hash === m[1]!.toLowerCase();
      } catch (e) {
        await perrorMsg(ctx, m[2]!, e);
      }
      await ctx.stdout.write(`${m[2]!}: ${ok ? 'OK' : 'FAILED'}\n`);
      if (!ok) status = 1;
    }
  }
  return state.failed ? 1 : status;
}
