/**
 * `ls -lRA .` as toybox prints it to a pipe (toybox toys/posix/ls.c, the `ls` of every Android
 * since 6.0): a `DIR:` header before each directory's entries (the first one `.:`, then
 * `./sub:`), a `total N` line, and one `-l` line per entry:
 *
 *   MODE NLINK USER GROUP SIZE YYYY-MM-DD hh:mm NAME      (a symlink ends `NAME -> TARGET`)
 *
 * with the time in long-iso style and columns padded with spaces. Device nodes print
 * `MAJOR, MINOR` instead of a size; they do not occur in an app's data directory but parse.
 */

export interface TreeEntry {
  /** Path relative to the listed directory, without `./` (`databases/feed.db`). */
  readonly path: string;
  readonly type: 'file' | 'dir' | 'link' | 'other';
  /** Permission bits (and setuid/setgid/sticky) as a number, e.g. 0o660. */
  readonly mode: number;
  /** Bytes, for regular files; 0 for others. */
  readonly size: number;
  /** Where a symlink points (the text after ` -> `). */
  readonly target?: string;
}

const ENTRY = /^([-dlcbps])([-rwxsStT]{9})\s+\d+\s+\S+\s+\S+\s+(\d+|\d+,\s*\d+)\s+\d{4}-\d\d-\d\d \d\d:\d\d (.+)$/;

/** rwxr-x--- → 0o750; s/S/t/T set setuid, setgid, sticky (lowercase also means x). */
export function parseModeBits(rwx: string): number {
  let mode = 0;
  for (let i = 0; i < 9; i++) {
    const c = rwx[i]!;
    const bit = 1 << (8 - i);
    if (c === 'r' || c === 'w' || c === 'x' || c === 's' || c === 't') mode |= bit;
    if (c === 'S' || c === 's') mode |= i === 2 ? 0o4000 : i === 5 ? 0o2000 : 0;
    if (c === 'T' || c === 't') mode |= i === 8 ? 0o1000 : 0;
  }
  return mode;
}

const TYPES: Record<string, TreeEntry['type']> = { '-': 'file', d: 'dir', l: 'link' };

export function parseLsRecursive(text: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let dir: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '' || line.startsWith('total ')) continue;
    const m = ENTRY.exec(line);
    if (m === null) {
      if (line.endsWith(':')) {
        const header = line.slice(0, -1);
        dir = header === '.' ? '' : header.startsWith('./') ? header.slice(2) : header;
      }
      continue;
    }
    if (dir === undefined) continue;
    const type = TYPES[m[1]!] ?? 'other';
    let name = m[4]!;
    let target: string | undefined;
    if (type === 'link') {
      const arrow = name.indexOf(' -> ');
      if (arrow >= 0) {
        target = name.slice(arrow + 4);
        name = name.slice(0, arrow);
      }
    }
    entries.push({
      path: dir === '' ? name : `${dir}/${name}`,
      type,
      mode: parseModeBits(m[2]!),
      size: type === 'file' ? Number(m[3]) : 0,
      ...(target !== undefined ? { target } : {}),
    });
  }
  return entries;
}
