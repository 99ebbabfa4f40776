/**
 * Linux errno numbers and bionic's strerror texts for what the filesystem can fail with.
 * Numbers: Linux asm-generic/errno-base.h / errno.h (the wire values adbd sends,
 * [SC29 adb/sysdeps/errno.cpp errno_to_wire]); texts: bionic libc/private/bionic_errdefs.h.
 * The filesystem's own errors (FsError) already carry both; this table covers anything else.
 */
const BY_CODE: Readonly<Record<string, readonly [number, string]>> = {
  EPERM: [1, 'Operation not permitted'],
  ENOENT: [2, 'No such file or directory'],
  EIO: [5, 'I/O error'],
  EACCES: [13, 'Permission denied'],
  EEXIST: [17, 'File exists'],
  ENOTDIR: [20, 'Not a directory'],
  EISDIR: [21, 'Is a directory'],
  EINVAL: [22, 'Invalid argument'],
  ENOSPC: [28, 'No space left on device'],
  EROFS: [30, 'Read-only file system'],
  ENAMETOOLONG: [36, 'File name too long'],
  ENOTEMPTY: [39, 'Directory not empty'],
  ELOOP: [40, 'Too many symbolic links encountered'],
};

export interface Errno {
  readonly errno: number;
  readonly code: string;
  /** strerror text, e.g. "No such file or directory". */
  readonly message: string;
}

/** Reads errno/code/message from a thrown filesystem error; anything unknown is EIO. */
export function errnoOf(error: unknown): Errno {
  const e = error as { errno?: unknown; code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const known = code !== undefined ? BY_CODE[code] : undefined;
  if (typeof e?.errno === 'number' && e.errno > 0 && typeof e.message === 'string' && code !== undefined && !e.message.includes(':')) {
    // A filesystem error in the device's own shape: errno + strerror text.
    return { errno: e.errno, code, message: e.message };
  }
  if (known !== undefined && code !== undefined) return { errno: known[0], code, message: known[1] };
  return { errno: 5, code: 'EIO', message: 'I/O error' };
}
