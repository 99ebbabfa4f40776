/**
 * stat (toybox toys/other/stat.c): the default multi-line report, -c FORMAT, -t terse, -L.
 * Errors: `stat: 'NAME': strerror`.
 */
import type { Command, CommandContext } from '../../types.js';
import type { FsStat } from '../../fs/virtual-fs.js';
import { idName } from '../../fs/android-ids.js';
import { S_IFMT, S_IFREG, modeToString } from '../../fs/file-mode.js';
import { deviceTimeZone, localTime } from '../../clock.js';
import { formatInteger, formatString, type Conversion } from './c-format.js';
import { errorMsg, parseArgs, pathOf, perrorMsg, tb } from './toybox.js';

const DEFAULT_FORMAT =
  '  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t %F\n' +
  'Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n' +
  'Access: (%04a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n' +
  'Access: %x\nModify: %y\nChange: %z';
const TERSE_FORMAT = '%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %o';

const FILE_TYPES: Readonly<Record<number, string>> = {
  0o020000: 'character device',
  0o040000: 'directory',
  0o060000: 'block device',
  0o100000: 'regular file',
  0o120000: 'symbolic link',
  0o140000: 'socket',
  0o010000: 'FIFO (named pipe)',
};

export const stat: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'fLt', args: 'c', long: { format: { key: 'c', arg: true } } });
  if (args === undefined) return 1;
  if (args.operands.length === 0) {
    await ctx.stderr.write('stat: Needs 1 argument (see "stat --help")\n');
    return 1;
  }
  const format = args.value('c') ?? (args.has('t') ? TERSE_FORMAT : DEFAULT_FORMAT);
  const fs = tb(ctx).fs;
  let status = 0;
  for (const op of args.operands) {
    let st: FsStat;
    let link: string | undefined;
    try {
      st = args.has('L') ? await fs.stat(pathOf(ctx, op), ctx.uid) : await fs.lstat(pathOf(ctx, op), ctx.uid);
      if ((st.mode & S_IFMT) === 0o120000) link = await fs.readlink(pathOf(ctx, op), ctx.uid);
    } catch (e) {
      await perrorMsg(ctx, `'${op}'`, e);
      status = 1;
      continue;
    }
    const rendered = render(ctx, format, op, st, link);
    if (rendered === undefined) {
      await errorMsg(ctx, `bad ${format}`);
      return 1;
    }
    await ctx.stdout.write(`${rendered}\n`);
  }
  return status;
};

function render(ctx: CommandContext, format: string, name: string, st: FsStat, link: string | undefined): string | undefined {
  const tz = deviceTimeZone(ctx.device.props, ctx.env);
  const isoTime = (sec: number, nsec: number): string => {
    const t = localTime(sec * 1000, tz);
    const p = (n: number, w = 2): string => String(n).padStart(w, '0');
    const sign = t.offsetMinutes < 0 ? '-' : '+';
    const off = Math.abs(t.offsetMinutes);
    return `${t.year}-${p(t.month)}-${p(t.day)} ${p(t.hour)}:${p(t.minute)}:${p(t.second)}.${p(nsec, 9)} ${sign}${p(Math.floor(off / 60))}${p(off % 60)}`;
  };
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch === '\\' && i + 1 < format.length) {
      const n = format[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === '\\' ? '\\' : `\\${n}`;
      continue;
    }
    if (ch !== '%' || i + 1 >= format.length) {
      out += ch;
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    const m = /^%([-+# 0]*)(\d*)(?:\.(\d+))?([a-zA-Z])/.exec(format.slice(i));
    if (m === null) return undefined;
    i += m[0].length - 1;
    const c: Conversion = { flags: m[1]!, width: m[2] === '' ? undefined : Number(m[2]), precision: m[3] === undefined ? undefined : Number(m[3]), conv: 'u' };
    const num = (v: number, conv = 'u'): string => formatInteger(BigInt(v), { ...c, conv: conv === 'u' ? 'd' : conv });
    const str = (v: string): string => formatString(v, { ...c, conv: 's' });
    switch (m[4] ?? '') {
      case 'a':
        out += num(st.mode & 0o7777, 'o');
        break;
      case 'A':
        out += str(modeToString(st.mode));
        break;
      case 'b':
        out += num(st.blocks);
        break;
      case 'B':
        out += num(512);
        break;
      case 'C':
        out += str('?');
        break;
      case 'd':
        out += num(st.dev);
        break;
      case 'D':
        out += num(st.dev, 'x');
        break;
      case 'f':
        out += num(st.mode, 'x');
        break;
      case 'F': {
        const type = st.mode & S_IFMT;
        out += str(type === S_IFREG && st.size === 0 ? 'regular empty file' : (FILE_TYPES[type] ?? 'unknown'));
        break;
      }
      case 'g':
        out += num(st.gid);
        break;
      case 'G':
        out += str(idName(st.gid));
        break;
      case 'h':
        out += num(st.nlink);
        break;
      case 'i':
        out += num(st.ino);
        break;
      case 'n':
        out += str(name);
        break;
      case 'N':
        out += link === undefined ? name : `${name} -> '${link}'`;
        break;
      case 'o':
        out += num(4096);
        break;
      case 's':
        out += num(st.size);
        break;
      case 't':
        out += num(st.rdev >> 8, 'x');
        break;
      case 'T':
        out += num(st.rdev & 0xff, 'x');
        break;
      case 'u':
        out += num(st.uid);
        break;
      case 'U':
        out += str(idName(st.uid));
        break;
      case 'x':
        out += isoTime(st.atimeSec, 0);
        break;
      case 'X':
        out += num(st.atimeSec);
        break;
      case 'y':
        out += isoTime(st.mtimeSec, st.mtimeNsec);
        break;
      case 'Y':
        out += num(st.mtimeSec);
        break;
      case 'z':
        out += isoTime(st.ctimeSec, 0);
        break;
      case 'Z':
        out += num(st.ctimeSec);
        break;
      default:
        out += '?';
    }
  }
  return out;
}
