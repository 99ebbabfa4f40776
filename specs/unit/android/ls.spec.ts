import { expect } from 'chai';
import { parseLsRecursive, parseModeBits } from '../../../src/android/parsers/ls.js';

// `run-as PKG ls -lRA .` in toybox's layout (toys/posix/ls.c: long-iso time, `DIR:` headers,
// `total N` lines), with a symlink, a name with spaces, a device node and CRLF line ends.
const LISTING = [
  '.:',
  'total 20',
  'drwxrwx--x 2 u0_a190 u0_a190 4096 2026-11-30 17:22 cache',
  'drwxrwx--x 2 u0_a190 u0_a190 4096 2026-11-30 17:22 databases',
  'drwxrws--x 2 u0_a190 u0_a190 4096 2026-11-30 17:22 files',
  'lrwxrwxrwx 1 root    root      43 2026-11-30 17:20 lib -> /data/app/~~x==/com.example-y==/lib/arm64',
  '',
  './cache:',
  'total 0',
  '',
  './databases:',
  'total 72',
  '-rw-rw---- 1 u0_a190 u0_a190  4096 2026-11-30 17:22 feed.db',
  '-rw-rw---- 1 u0_a190 u0_a190 32992 2026-11-30 17:22 feed.db-wal',
  '',
  './files:',
  'total 8',
  '-rw------- 1 u0_a190 u0_a190    9 2026-11-30 17:23 my notes.txt\r',
  'crw-rw-rw- 1 root    root    1,   3 2026-11-30 17:23 null',
  '-rwsr-x--T 1 u0_a190 u0_a190    0 2026-11-30 17:23 odd',
].join('\n');

describe('ls -lRA parser', () => {
  it('lists every entry with its path, type, mode and size', () => {
    expect(parseLsRecursive(LISTING)).to.deep.equal([
      { path: 'cache', type: 'dir', mode: 0o771, size: 0 },
      { path: 'databases', type: 'dir', mode: 0o771, size: 0 },
      { path: 'files', type: 'dir', mode: 0o2771, size: 0 },
      { path: 'lib', type: 'link', mode: 0o777, size: 0, target: '/data/app/~~x==/com.example-y==/lib/arm64' },
      { path: 'databases/feed.db', type: 'file', mode: 0o660, size: 4096 },
      { path: 'databases/feed.db-wal', type: 'file', mode: 0o660, size: 32992 },
      { path: 'files/my notes.txt', type: 'file', mode: 0o600, size: 9 },
      { path: 'files/null', type: 'other', mode: 0o666, size: 0 },
      { path: 'files/odd', type: 'file', mode: 0o5750, size: 0 },
    ]);
  });

  it('reads permission strings with special bits', () => {
    expect(parseModeBits('rw-rw----')).to.equal(0o660);
    expect(parseModeBits('rwxr-xr-x')).to.equal(0o755);
    expect(parseModeBits('rwSr-Sr-t')).to.equal(0o7645);
  });

  it('ignores error lines and lines before the first header', () => {
    expect(parseLsRecursive('-rw-rw---- 1 a a 1 2026-11-30 17:22 stray\nls: ./x: Permission denied\n')).to.deep.equal([]);
  });
});
