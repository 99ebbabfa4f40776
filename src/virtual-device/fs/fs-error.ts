/**
 * Filesystem errors as the Linux kernel reports them: errno numbers from
 * asm-generic/errno-base.h / errno.h and the strerror() texts of bionic
 * (libc/private/bionic_errdefs.h), which is what toybox and mksh print.
 */
export const Errno = {
  EPERM: 1,
  ENOENT: 2,
  EIO: 5,
  EBADF: 9,
  EACCES: 13,
  EBUSY: 16,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENOSPC: 28,
  EROFS: 30,
  ENAMETOOLONG: 36,
  ENOTEMPTY: 39,
  ELOOP: 40,
} as const;
export type ErrnoCode = keyof typeof Errno;

/** bionic strerror() texts (libc/private/bionic_errdefs.h). */
const STRERROR: Record<ErrnoCode, string> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  EIO: 'I/O error',
  EBADF: 'Bad file descriptor',
  EACCES: 'Permission denied',
  EBUSY: 'Device or resource busy',
  EEXIST: 'File exists',
  EXDEV: 'Cross-device link',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  ENAMETOOLONG: 'File name too long',
  ENOTEMPTY: 'Directory not empty',
  ELOOP: 'Too many symbolic links encountered',
};

export function strerror(code: ErrnoCode): string {
  return STRERROR[code];
}

export class FsError extends Error {
  readonly code: ErrnoCode;
  readonly errno: number;
  /** The Android path the operation failed on. */
  readonly path: string;

  constructor(code: ErrnoCode, path: string) {
    super(STRERROR[code]);
    this.name = 'FsError';
    this.code = code;
    this.errno = Errno[code];
    this.path = path;
  }
}

export function isFsError(e: unknown, code?: ErrnoCode): e is FsError {
  return e instanceof FsError && (code === undefined || e.code === code);
}

/** Maps a Node.js host error (ENOENT, EACCES, ...) on `path` to an FsError; rethrows others. */
export function fromHostError(e: unknown, path: string): FsError {
  if (e instanceof FsError) return e;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && code in Errno) return new FsError(code as ErrnoCode, path);
  throw e;
}
