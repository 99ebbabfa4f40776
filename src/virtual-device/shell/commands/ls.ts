/**
 * ls, as toybox 0.8.9 prints it to a pipe (toys/posix/ls.c): one name per line (-1 is implied
 * when stdout is not a tty, which is always the case through adb), `-l` lines
 * `MODE NLINK USER GROUP SIZE YYYY-MM-DD hh:mm NAME` with columns padded to the widest entry
 * (`%*ld` nlink, left-aligned user/group, `%*s` size, time always in long-iso style), a
 * `total N` line (1 KiB blocks) before a directory's entries, `NAME:` headers when several
 * directories are listed, and `ls: NAME: strerror` for paths that cannot be read.
 */
import type { Command, CommandContext } from '../../types.js';
import type { FsStat } from '../../fs/virtual-fs.js';
import { parseArgs, pathOf, perrorMsg, tb, type ParsedArgs } from './toybox.js';
import { idName } from '../../fs/android-ids.js';
import { S_IFMT, S_IFDIR, S_IFLNK, S_IFCHR, S_IFBLK, S_IFREG, S_IFIFO, S_IFSOCK, modeToString } from '../../fs/file-mode.js';
import { deviceTimeZone, localTime } from '../../clock.js';
import { joinPath } from '../../fs/android-path.js';

interface Entry {
  name: string;
  /** Android path used to read it. */
  path: string;
  stat: FsStat;
  link?: string;
}

/** human_readable(): at most 3 digits, one decimal below 10, units K M G ... (lib/lib.c). */
export function humanReadable(value: number): string {
  let num = value;
  let snap = 0;
  let unit = 0;
  while (String(num).length > 3) {
    snap = num;
    num = Math.floor((num + 512) / 1024);
    unit++;
  }
  let out = String(num);
  if (unit > 0 && out.length === 1) {
    const whole = Math.floor(snap / 1024);
    const frac = Math.floor((Math.floor(((snap - whole * 1024) * 100 + 50) / 1024)) / 10);
    out = `${whole}.${frac}`;
  }
  return unit > 0 ? out + ' KMGTPEZY'[unit]! : out;
}

export const ls: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'aAdlnogtSrRFphisLHZ1Cxmcuf', long: { 'full-time': { key: 'full-time', arg: false }, color: { key: 'color', arg: false } } });
  if (args === undefined) return 1;
  const t = tb(ctx);
  const long = args.has('l') || args.has('n') || args.has('o') || args.has('g');
  let status = 0;
  const operands = args.operands.length === 0 ? ['.'] : args.operands;
  const follow = !(long || args.has('d') || args.has('F')) || args.has('L') || args.has('H');
  const top: Entry[] = [];
  for (const op of operands) {
    const path = pathOf(ctx, op);
    try {
      // "NAME/" follows a symlink to a directory (path resolution with a trailing slash).
      const stat = follow || (op.length > 1 && op.endsWith('/')) ? await t.fs.stat(path, ctx.uid) : await t.fs.lstat(path, ctx.uid);
      const entry: Entry = { name: op, path, stat };
      if ((stat.mode & S_IFMT) === S_IFLNK) entry.link = await t.fs.readlink(path, ctx.uid);
      top.push(entry);
    } catch (e) {
      await perrorMsg(ctx, op, e);
      status = 1;
    }
  }
  const printer = new Printer(ctx, args, long);
  // A single directory operand is listed without a header (unless -R or -d).
  const only = top[0];
  if (top.length === 1 && only !== undefined && isDir(only.stat) && !args.has('d') && !args.has('R')) {
    status |= await printer.listDirectory(only, false);
    return status;
  }
  const sorted = printer.sort(top);
  const files = sorted.filter((e) => args.has('d') || !isDir(e.stat));
  if (files.length > 0) await printer.printEntries(files, false);
  for (const dir of sorted) {
    if (args.has('d') || !isDir(dir.stat)) continue;
    status |= await printer.listDirectory(dir, true);
  }
  return status;
};

function isDir(st: FsStat): boolean {
  return (st.mode & S_IFMT) === S_IFDIR;
}

class Printer {
  private printedSomething = false;
  private readonly timeZone: string;

  constructor(
    private readonly ctx: CommandContext,
    private readonly args: ParsedArgs,
    private readonly long: boolean,
  ) {
    this.timeZone = deviceTimeZone(ctx.device.props, ctx.env);
  }

  sort(entries: Entry[]): Entry[] {
    if (this.args.has('f')) return entries;
    const reverse = this.args.has('r') ? -1 : 1;
    const time = (e: Entry): number => (this.args.has('u') ? e.stat.atimeSec : this.args.has('c') ? e.stat.ctimeSec : e.stat.mtimeSec);
    return [...entries].sort((a, b) => {
      let r = 0;
      if (this.args.has('S')) r = b.stat.size - a.stat.size;
      if (r === 0 && this.args.has('t')) r = time(b) - time(a) || b.stat.mtimeNsec - a.stat.mtimeNsec;
      if (r === 0) r = a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
      return Math.sign(r) * reverse;
    });
  }

  async listDirectory(dir: Entry, header: boolean): Promise<number> {
    const t = tb(this.ctx);
    let children: Entry[];
    try {
      const listing = await t.fs.readdir(dir.path, this.ctx.uid);
      children = [];
      for (const { name, stat } of listing) {
        if (!this.args.has('a') && !this.args.has('A') && !this.args.has('f') && name.startsWith('.')) continue;
        let st = stat;
        const childPath = joinPath(dir.path, name);
        if (this.args.has('L') && (stat.mode & S_IFMT) === S_IFLNK) {
          try {
            st = await t.fs.stat(childPath, this.ctx.uid);
          } catch {
            // a dangling link stays a link
          }
        }
        const entry: Entry = { name, path: childPath, stat: st };
        if ((st.mode & S_IFMT) === S_IFLNK) entry.link = await t.fs.readlink(childPath, this.ctx.uid);
        children.push(entry);
      }
      if (this.args.has('a') || this.args.has('f')) {
        children.push({ name: '.', path: dir.path, stat: dir.stat });
        try {
          const parentPath = joinPath(dir.path, '..');
          children.push({ name: '..', path: parentPath, stat: await t.fs.stat(parentPath, this.ctx.uid) });
        } catch {
          // no parent entry
        }
      }
    } catch (e) {
      await perrorMsg(this.ctx, dir.name, e);
      return 1;
    }
    if (header || this.args.has('R')) {
      if (this.printedSomething) await this.ctx.stdout.write('\n');
      await this.ctx.stdout.write(`${dir.name}:\n`);
    }
    this.printedSomething = true;
    const sorted = this.sort(children);
    await this.printEntries(sorted, true);
    let status = 0;
    if (this.args.has('R')) {
      for (const child of sorted) {
        if (!isDir(child.stat) || child.name === '.' || child.name === '..') continue;
        status |= await this.listDirectory({ ...child, name: joinPath(dir.name, child.name) }, true);
      }
    }
    return status;
  }

  async printEntries(entries: Entry[], withTotal: boolean): Promise<void> {
    this.printedSomething = true;
    const a = this.args;
    const numeric = a.has('n');
    const user = (e: Entry): string => (numeric ? String(e.stat.uid) : idName(e.stat.uid));
    const group = (e: Entry): string => (numeric ? String(e.stat.gid) : idName(e.stat.gid));
    const isDev = (e: Entry): boolean => [S_IFCHR, S_IFBLK].includes(e.stat.mode & S_IFMT);
    const sizeText = (e: Entry): string => (a.has('h') ? humanReadable(e.stat.size) : String(e.stat.size));
    const blocksText = (e: Entry): string => {
      const k = Math.floor(e.stat.blocks / 2);
      return a.has('h') ? humanReadable(k * 1024) : String(k);
    };
    const w = { ino: 0, nlink: 0, user: 0, group: 0, size: 0, blocks: 0 };
    for (const e of entries) {
      w.ino = Math.max(w.ino, String(e.stat.ino).length);
      w.nlink = Math.max(w.nlink, String(e.stat.nlink).length);
      w.user = Math.max(w.user, user(e).length);
      w.group = Math.max(w.group, group(e).length);
      w.size = Math.max(w.size, isDev(e) ? String(e.stat.rdev >> 8).length + 5 : sizeText(e).length);
      w.blocks = Math.max(w.blocks, blocksText(e).length);
    }
    const lines: string[] = [];
    if (withTotal && (this.long || a.has('s') || a.has('h'))) {
      const total = entries.reduce((sum, e) => sum + Math.floor(e.stat.blocks / 2), 0);
      lines.push(`total ${a.has('h') ? humanReadable(total * 1024) : total}\n`);
    }
    for (const e of entries) {
      let line = '';
      if (a.has('i')) line += `${String(e.stat.ino).padStart(w.ino)} `;
      if (a.has('s')) line += `${blocksText(e).padStart(w.blocks)} `;
      if (this.long) {
        line += modeToString(e.stat.mode);
        line += String(e.stat.nlink).padStart(w.nlink + 1);
        if (!a.has('g')) line += ` ${user(e).padEnd(w.user)}`;
        if (!a.has('o')) line += ` ${group(e).padEnd(w.group)}`;
        if (isDev(e)) line += `${String(e.stat.rdev >> 8).padStart(w.size - 4)},${String(e.stat.rdev & 0xff).padStart(4)}`;
        else line += sizeText(e).padStart(w.size + 1);
        const secs = a.has('u') ? e.stat.atimeSec : a.has('c') ? e.stat.ctimeSec : e.stat.mtimeSec;
        const lt = localTime(secs * 1000, this.timeZone);
        const p2 = (n: number): string => String(n).padStart(2, '0');
        line += ` ${lt.year}-${p2(lt.month)}-${p2(lt.day)} ${p2(lt.hour)}:${p2(lt.minute)} `;
      }
      line += e.name;
      if (this.long && e.link !== undefined) line += ` -> ${e.link}`;
      line += endType(e.stat, a);
      lines.push(`${line}\n`);
    }
    if (lines.length > 0) await this.ctx.stdout.write(lines.join(''));
  }
}

function endType(st: FsStat, a: ParsedArgs): string {
  const type = st.mode & S_IFMT;
  if ((a.has('F') || a.has('p')) && type === S_IFDIR) return '/';
  if (!a.has('F')) return '';
  if (type === S_IFLNK) return '@';
  if (type === S_IFREG && (st.mode & 0o111) !== 0) return '*';
  if (type === S_IFIFO) return '|';
  if (type === S_IFSOCK) return '=';
  return '';
}
