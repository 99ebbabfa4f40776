/** Lexical helpers for Android (POSIX) paths. They never touch the filesystem. */

/** Resolves `path` against `cwd` and removes `.`, `..` and duplicate slashes lexically. */
export function resolveAndroidPath(path: string, cwd = '/'): string {
  const input = path.startsWith('/') ? path : `${cwd}/${path}`;
  const out: string[] = [];
  for (const part of input.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** Splits a path into its non-empty components (keeps `.` and `..` for the resolver). */
export function splitPath(path: string): string[] {
  return path.split('/').filter((p) => p !== '');
}

export function dirnameOf(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const i = trimmed.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return '/';
  return trimmed.slice(0, i);
}

export function basenameOf(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (trimmed === '/') return '/';
  const i = trimmed.lastIndexOf('/');
  return i < 0 ? trimmed : trimmed.slice(i + 1);
}

export function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}
