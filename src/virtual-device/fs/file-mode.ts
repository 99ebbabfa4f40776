/** st_mode type bits and permission helpers (Linux include/uapi/linux/stat.h). */
export const S_IFMT = 0o170000;
export const S_IFSOCK = 0o140000;
export const S_IFLNK = 0o120000;
export const S_IFREG = 0o100000;
export const S_IFBLK = 0o060000;
export const S_IFDIR = 0o040000;
export const S_IFCHR = 0o020000;
export const S_IFIFO = 0o010000;
export const S_ISUID = 0o4000;
export const S_ISGID = 0o2000;
export const S_ISVTX = 0o1000;

export function isDirMode(mode: number): boolean {
  return (mode & S_IFMT) === S_IFDIR;
}
export function isRegMode(mode: number): boolean {
  return (mode & S_IFMT) === S_IFREG;
}
export function isLinkMode(mode: number): boolean {
  return (mode & S_IFMT) === S_IFLNK;
}
export function isCharMode(mode: number): boolean {
  return (mode & S_IFMT) === S_IFCHR;
}

/**
 * `drwxr-x--x`-style string as toybox's mode_to_string() prints it (lib/lib.c): type char, then
 * rwx triplets with s/S for setuid/setgid and t/T for sticky.
 */
export function modeToString(mode: number): string {
  const type = mode & S_IFMT;
  const typeChar =
    type === S_IFDIR ? 'd' : type === S_IFLNK ? 'l' : type === S_IFCHR ? 'c' : type === S_IFBLK ? 'b' : type === S_IFIFO ? 'p' : type === S_IFSOCK ? 's' : '-';
  const bit = (mask: number, c: string): string => ((mode & mask) !== 0 ? c : '-');
  const special = (execMask: number, specialMask: number, on: string): string => {
    const x = (mode & execMask) !== 0;
    if ((mode & specialMask) === 0) return x ? 'x' : '-';
    return x ? on : on.toUpperCase();
  };
  return (
    typeChar +
    bit(0o400, 'r') +
    bit(0o200, 'w') +
    special(0o100, S_ISUID, 's') +
    bit(0o040, 'r') +
    bit(0o020, 'w') +
    special(0o010, S_ISGID, 's') +
    bit(0o004, 'r') +
    bit(0o002, 'w') +
    special(0o001, S_ISVTX, 't')
  );
}
