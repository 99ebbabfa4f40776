/**
 * base64 (toybox toys/other/base64.c, in Android's toybox since Android 7): `base64 [-di]
 * [-w COLUMNS] [FILE...]` encodes (or with -d decodes) FILE or stdin; output lines wrap at 76
 * columns (-w 0: no wrap) and end with a newline; -i ignores non-alphabet characters when
 * decoding (otherwise decoding stops at the first one and the status is 1).
 *
 * A toybox binary, registered with the Android model because the Appium path moves binary
 * output through `mobile: shell` (which returns text) as base64.
 */
import type { Command } from '../../types.js';
import { errorMsg, inputs, parseArgs } from '../../shell/commands/toybox.js';

const ALPHABET = /[A-Za-z0-9+/=]/;

export const base64: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'di', args: 'w' });
  if (args === undefined) return 1;
  const wrapText = args.value('w');
  const wrap = wrapText === undefined ? 76 : Number(wrapText);
  if (!Number.isInteger(wrap) || wrap < 0) {
    await errorMsg(ctx, `bad -w '${wrapText ?? ''}'`);
    return 1;
  }
  const state = { failed: false };
  for await (const input of inputs(ctx, args.operands, state)) {
    const chunks: Buffer[] = [];
    for await (const c of input.data) chunks.push(Buffer.from(c));
    const data = Buffer.concat(chunks);
    if (args.has('d')) {
      const text = data.toString('latin1');
      let clean = '';
      for (const ch of text) {
        if (ALPHABET.test(ch)) clean += ch;
        else if (ch !== '\n' && ch !== '\r' && !args.has('i')) {
          await ctx.stdout.write(Buffer.from(clean.slice(0, clean.length - (clean.length % 4)), 'base64'));
          await errorMsg(ctx, 'bad input');
          return 1;
        }
      }
      await ctx.stdout.write(Buffer.from(clean, 'base64'));
      continue;
    }
    const encoded = data.toString('base64');
    if (encoded === '') continue;
    if (wrap === 0) {
      await ctx.stdout.write(`${encoded}\n`);
      continue;
    }
    const lines: string[] = [];
    for (let at = 0; at < encoded.length; at += wrap) lines.push(encoded.slice(at, at + wrap));
    await ctx.stdout.write(`${lines.join('\n')}\n`);
  }
  return state.failed ? 1 : 0;
};
