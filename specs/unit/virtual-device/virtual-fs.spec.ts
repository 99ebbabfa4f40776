import { expect } from 'chai';
import { readFile, stat as hostStat } from 'node:fs/promises';
import { VirtualFs } from '../../../src/virtual-device/fs/virtual-fs.js';
import { FsError } from '../../../src/virtual-device/fs/fs-error.js';
import { S_IFCHR, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from '../../../src/virtual-device/fs/file-mode.js';

const ROOT = 0;
const SHELL = 2000;
const APP = 10190;

async function errnoOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof FsError) return `${e.code}/${e.errno}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('VirtualFs', () => {
  let fs: VirtualFs;

  beforeEach(async () => {
    fs = await VirtualFs.create();
    await fs.mkdir('/data/data/com.example.feednotifier', ROOT, { mode: 0o700, owner: { uid: APP, gid: APP } });
    await fs.writeFile('/data/data/com.example.feednotifier/secret.txt', APP, 'app data', { mode: 0o600 });
  });
  afterEach(async () => {
    await fs.dispose();
  });

  it('lays out Android\'s directories with their owners and modes', async () => {
    const tmp = await fs.stat('/data/local/tmp', SHELL);
    expect(tmp.mode & S_IFMT).to.equal(S_IFDIR);
    expect(tmp.mode & 0o7777).to.equal(0o771);
    expect([tmp.uid, tmp.gid]).to.deep.equal([SHELL, SHELL]);
    const data = await fs.stat('/data', SHELL);
    expect([data.uid, data.mode & 0o7777]).to.deep.equal([1000, 0o771]);
    const bin = await fs.stat('/system/bin', SHELL);
    expect([bin.uid, bin.gid, bin.mode & 0o7777]).to.deep.equal([0, SHELL, 0o751]);
    const devNull = await fs.stat('/dev/null', SHELL);
    expect(devNull.mode & S_IFMT).to.equal(S_IFCHR);
    expect(devNull.rdev).to.equal((1 << 8) | 3);
  });

  it('resolves /sdcard and /data/user/0 through their symlinks', async () => {
    const link = await fs.lstat('/sdcard', SHELL);
    expect(link.mode & S_IFMT).to.equal(S_IFLNK);
    expect(await fs.readlink('/sdcard', SHELL)).to.equal('/storage/self/primary');
    expect(await fs.realpath('/sdcard/Download', SHELL)).to.equal('/storage/emulated/0/Download');
    await fs.writeFile('/sdcard/note.txt', SHELL, 'hi');
    expect((await fs.readFile('/storage/emulated/0/note.txt', SHELL)).toString()).to.equal('hi');
    expect(await fs.realpath('/data/user/0/com.example.feednotifier', ROOT)).to.equal('/data/data/com.example.feednotifier');
    expect((await fs.lstat('/sdcard/', SHELL)).mode & S_IFMT).to.equal(S_IFDIR);
    expect(await errnoOf(fs.stat('/system/bin/sh/', SHELL))).to.equal('ENOTDIR/20: Not a directory');
  });

  it('maps Android paths to real files under the device directory', async () => {
    const host = fs.hostPath('/sdcard/x.bin');
    expect(host.startsWith(fs.root)).to.equal(true);
    expect(host.endsWith('/storage/emulated/0/x.bin')).to.equal(true);
    await fs.writeFile('/sdcard/x.bin', SHELL, Buffer.from([1, 2, 3]));
    expect([...(await readFile(host))]).to.deep.equal([1, 2, 3]);
  });

  it('keeps shell out of an app\'s data directory and lets root and the app in', async () => {
    expect(await errnoOf(fs.readdir('/data/data/com.example.feednotifier', SHELL))).to.equal('EACCES/13: Permission denied');
    expect(await errnoOf(fs.readFile('/data/data/com.example.feednotifier/secret.txt', SHELL))).to.equal('EACCES/13: Permission denied');
    expect(await errnoOf(fs.stat('/data/data/com.example.feednotifier/secret.txt', SHELL))).to.equal('EACCES/13: Permission denied');
    expect((await fs.readFile('/data/data/com.example.feednotifier/secret.txt', ROOT)).toString()).to.equal('app data');
    expect((await fs.readFile('/data/data/com.example.feednotifier/secret.txt', APP)).toString()).to.equal('app data');
    const st = await fs.stat('/data/data/com.example.feednotifier/secret.txt', ROOT);
    expect([st.uid, st.gid, st.mode & 0o777]).to.deep.equal([APP, APP, 0o600]);
  });

  it('gives files an app model writes on the host the app\'s owner and private modes', async () => {
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(fs.hostPath('/data/data/com.example.feednotifier/databases'));
    await writeFile(fs.hostPath('/data/data/com.example.feednotifier/databases/feed.db'), 'sqlite');
    const db = await fs.stat('/data/data/com.example.feednotifier/databases/feed.db', APP);
    expect([db.uid, db.gid, db.mode & 0o777]).to.deep.equal([APP, APP, 0o660]);
    expect((await fs.stat('/data/data/com.example.feednotifier/databases', APP)).mode & 0o777).to.equal(0o771);
  });

  it('lets shell search /data but not list it', async () => {
    expect((await fs.stat('/data/local/tmp', SHELL)).uid).to.equal(SHELL);
    expect(await errnoOf(fs.readdir('/data', SHELL))).to.equal('EACCES/13: Permission denied');
    expect((await fs.readdir('/data', ROOT)).map((e) => e.name)).to.include.members(['data', 'local', 'system']);
  });

  it('creates files owned by the writer with the given mode and applies the clock', async () => {
    fs.useClock({ now: () => 1800000000000 });
    const w = await fs.openWrite('/data/local/tmp/new.txt', SHELL, { mode: 0o644 });
    await w.write(Buffer.from('abc'));
    await w.close();
    const st = await fs.stat('/data/local/tmp/new.txt', SHELL);
    expect([st.uid, st.gid, st.mode & 0o777, st.size, st.mode & S_IFMT]).to.deep.equal([SHELL, SHELL, 0o644, 3, S_IFREG]);
    expect(st.mtimeSec).to.equal(1800000000);
  });

  it('sets the modification time a push carries and removes an aborted upload', async () => {
    const w = await fs.openWrite('/data/local/tmp/pushed', SHELL, { mode: 0o640 });
    await w.write(Buffer.from('x'));
    await w.close(1600000000);
    expect((await fs.stat('/data/local/tmp/pushed', SHELL)).mtimeSec).to.equal(1600000000);
    const aborted = await fs.openWrite('/data/local/tmp/partial', SHELL, {});
    await aborted.write(Buffer.from('half'));
    await aborted.abort();
    expect(await fs.exists('/data/local/tmp/partial')).to.equal(false);
  });

  it('creates missing parents for a push when asked', async () => {
    expect(await errnoOf(fs.openWrite('/data/local/tmp/a/b/c.txt', SHELL))).to.equal('ENOENT/2: No such file or directory');
    const w = await fs.openWrite('/data/local/tmp/a/b/c.txt', SHELL, { createParents: true });
    await w.close();
    expect((await fs.stat('/data/local/tmp/a/b', SHELL)).uid).to.equal(SHELL);
  });

  it('refuses writes where Linux would', async () => {
    expect(await errnoOf(fs.writeFile('/system/bin/evil', SHELL, 'x'))).to.equal('EACCES/13: Permission denied');
    expect(await errnoOf(fs.openWrite('/data/local/tmp', SHELL))).to.equal('EISDIR/21: Is a directory');
    expect(await errnoOf(fs.mkdir('/data/local/tmp', SHELL))).to.equal('EEXIST/17: File exists');
    expect(await errnoOf(fs.readFile('/nope', SHELL))).to.equal('ENOENT/2: No such file or directory');
    expect(await errnoOf(fs.readdir('/system/bin/sh', SHELL))).to.equal('ENOTDIR/20: Not a directory');
    expect(await errnoOf(fs.writeFile('/system/bin/sh/x', ROOT, 'x'))).to.equal('ENOTDIR/20: Not a directory');
  });

  it('makes nested directories with parents and removes trees recursively', async () => {
    await fs.mkdir('/data/local/tmp/x/y/z', SHELL, { parents: true });
    await fs.writeFile('/data/local/tmp/x/y/z/f', SHELL, 'f');
    expect(await errnoOf(fs.rm('/data/local/tmp/x', SHELL))).to.equal('EISDIR/21: Is a directory');
    expect(await errnoOf(fs.rmdir('/data/local/tmp/x', SHELL))).to.match(/^ENOTEMPTY\/39/);
    await fs.rm('/data/local/tmp/x', SHELL, { recursive: true });
    expect(await fs.exists('/data/local/tmp/x')).to.equal(false);
    await fs.rm('/data/local/tmp/missing', SHELL, { force: true });
    expect(await errnoOf(fs.rm('/data/local/tmp/missing', SHELL))).to.equal('ENOENT/2: No such file or directory');
  });

  it('renames and copies, keeping metadata with the file', async () => {
    await fs.writeFile('/data/local/tmp/a', SHELL, 'A', { mode: 0o600 });
    await fs.rename('/data/local/tmp/a', '/data/local/tmp/b', SHELL);
    expect(await fs.exists('/data/local/tmp/a')).to.equal(false);
    expect((await fs.stat('/data/local/tmp/b', SHELL)).mode & 0o777).to.equal(0o600);
    await fs.copy('/data/local/tmp/b', '/sdcard/b', SHELL);
    expect((await fs.readFile('/sdcard/b', SHELL)).toString()).to.equal('A');
    expect(await errnoOf(fs.rename('/data/local/tmp/b', '/data/system/b', SHELL))).to.equal('EACCES/13: Permission denied');
  });

  it('lets only the owner chmod and only root chown', async () => {
    await fs.writeFile('/data/local/tmp/m', SHELL, '');
    await fs.chmod('/data/local/tmp/m', SHELL, 0o755);
    expect((await fs.stat('/data/local/tmp/m', SHELL)).mode & 0o7777).to.equal(0o755);
    expect(await errnoOf(fs.chmod('/system/bin/sh', SHELL, 0o777))).to.equal('EPERM/1: Operation not permitted');
    expect(await errnoOf(fs.chown('/data/local/tmp/m', SHELL, { uid: 0 }))).to.equal('EPERM/1: Operation not permitted');
    await fs.chown('/data/local/tmp/m', ROOT, { uid: APP, gid: APP });
    expect((await fs.stat('/data/local/tmp/m', ROOT)).uid).to.equal(APP);
  });

  it('reads /dev/null as empty and discards writes to it', async () => {
    expect((await fs.readFile('/dev/null', SHELL)).length).to.equal(0);
    await fs.writeFile('/dev/null', SHELL, 'gone');
    expect((await fs.stat('/dev/null', SHELL)).size).to.equal(0);
  });

  it('serves dynamic files and lists directories without . and ..', async () => {
    let n = 0;
    await fs.addDynamicFile('/proc/uptime', () => `${++n}.00 0.00\n`);
    expect((await fs.readFile('/proc/uptime', SHELL)).toString()).to.equal('1.00 0.00\n');
    expect((await fs.readFile('/proc/uptime', SHELL)).toString()).to.equal('2.00 0.00\n');
    const names = (await fs.readdir('/storage/emulated/0', SHELL)).map((e) => e.name);
    expect(names).to.deep.equal(['Android', 'Download']);
  });

  it('removes its directory when disposed', async () => {
    const root = fs.root;
    await fs.dispose();
    let gone = false;
    try {
      await hostStat(root);
    } catch {
      gone = true;
    }
    expect(gone).to.equal(true);
    fs = await VirtualFs.create();
  });
});
