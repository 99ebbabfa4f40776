/**
 * printf (toybox toys/posix/printf.c): FORMAT is reused while arguments remain; escapes
 * \\ \a \b \f \n \r \t \v, \NNN octal, \xHH hex, \c stops; %b expands escapes in its
 * argument; numeric arguments accept 0x/0 prefixes and 'c for a character code.
 */
import type { Command } from '../../types.js';
import { errorMsg } from './toybox.js';
import { formatFloat, formatInteger, formatString, type Conversion } from './c-format.js';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '"': '"', "'": "'" };

class StopOutput extends Error {}

/** One backslash escape at s[i] (just after the backslash); returns the text and the next index. */
function escape(s: string, i: number, posix: boolean): { text: string; next: number } {
  const c = s[i];
  if (c === undefined) return { text: '\\', next: i };
  if (c === 'c') throw new StopOutput();
  if (c === 'x') {
    const m = /^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 1));
    if (m === null) return { text: '\\x', next: i + 1 };
    return { text: String.fromCharCode(parseInt(m[0], 16)), next: i + 1 + m[0].length };
  }
  let j = i;
  if (posix && c === '0') j++;
  const oct = /^[0-7]{1,3}/.exec(s.slice(j));
  if (oct !== null) return { text: String.fromCharCode(parseInt(oct[0], 8) & 0xff), next: j + oct[0].length };
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { text: simple, next: i + 1 };
  return { text: '\\', next: i };
}

function toInteger(arg: string): { value: bigint; ok: boolean } {
  if (arg.startsWith("'") || arg.startsWith('"')) return { value: BigInt(arg.codePointAt(1) ?? 0), ok: true };
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)/.exec(arg);
  if (m === null) return { value: 0n, ok: arg === '' };
  const digits = m[2]!;
  let v = digits.startsWith('0x') || digits.startsWith('0X') ? BigInt(digits) : digits.length > 1 && digits.startsWith('0') ? BigInt(`0o${digits.slice(1)}`) : BigInt(digits);
  if (m[1] === '-') v = -v;
  return { value: v, ok: m[0].length === arg.length };
}

export const printf: Command = async (ctx) => {
  const format = ctx.argv[1];
  if (format === undefined) {
    await ctx.stderr.write('printf: Needs 1 argument (see "printf --help")\n');
    return 1;
  }
  const args = ctx.argv.slice(2);
  let ai = 0;
  let out = '';
  let status = 0;
  try {
    for (;;) {
      let consumed = false;
      for (let i = 0; i < format.length; ) {
        const ch = format[i]!;
        if (ch === '\\') {
          const e = escape(format, i + 1, false);
          out += e.text;
          i = e.next;
          continue;
        }
        if (ch !== '%' || format[i + 1] === '%') {
          out += ch;
          i += ch === '%' ? 2 : 1;
          continue;
        }
        const m = /^%([-+# '0]*)(\*|\d+)?(?:\.(\*|\d*))?([a-zA-Z])/.exec(format.slice(i));
        if (m === null) {
          await errorMsg(ctx, `bad %${format.slice(i + 1, i + 2)}@${i + 1}`);
          await ctx.stdout.write(out);
          return 1;
        }
        i += m[0].length;
        const c: Conversion = { flags: m[1]!, width: undefined, precision: undefined, conv: m[4]! };
        if (m[2] === '*') c.width = Number(args[ai++] ?? 0);
        else if (m[2] !== undefined) c.width = Number(m[2]);
        if (m[3] === '*') c.precision = Number(args[ai++] ?? 0);
        else if (m[3] !== undefined) c.precision = m[3] === '' ? 0 : Number(m[3]);
        if (c.width !== undefined && c.width < 0) {
          c.flags += '-';
          c.width = -c.width;
        }
        consumed = true;
        const arg = args[ai++] ?? '';
        switch (c.conv) {
          case 'b': {
            for (let j = 0; j < arg.length; ) {
              if (arg[j] === '\\') {
                const e = escape(arg, j + 1, true);
                out += e.text;
                j = e.next;
              } else out += arg[j++];
            }
            break;
          }
          case 's':
            out += formatString(arg, c);
            break;
          case 'c':
            out += formatString(arg.slice(0, 1), c);
            break;
          case 'd':
          case 'i':
          case 'o':
          case 'u':
          case 'x':
          case 'X': {
            const n = toInteger(arg);
            if (!n.ok) {
              await errorMsg(ctx, `bad %${c.conv} ${arg}: Invalid argument`);
              status = 1;
            }
            out += formatInteger(n.value, c);
            break;
          }
          case 'f':
          case 'F':
          case 'e':
          case 'E':
          case 'g':
          case 'G': {
            const v = arg === '' ? 0 : Number(arg);
            if (Number.isNaN(v)) {
              await errorMsg(ctx, `bad %${c.conv} ${arg}: Invalid argument`);
              status = 1;
            }
            out += formatFloat(Number.isNaN(v) ? 0 : v, c);
            break;
          }
          default:
            await ctx.stdout.write(out);
            await errorMsg(ctx, `bad %${c.conv}@${i}`);
            return 1;
        }
      }
      if (!consumed || ai >= args.length) break;
    }
  } catch (e) {
    if (!(e instanceof StopOutput)) throw e;
  }
  await ctx.stdout.write(out);
  return status;
};
