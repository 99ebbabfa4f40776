/**
 * The per-device filesystem: a real temporary directory laid out like Android's, with Android
 * ownership and permission bits kept in a metadata map (the real files all belong to the host
 * user). Every operation takes the caller's uid and checks access the way Linux does for that
 * uid (root 0 bypasses read/write/search checks; shell 2000 and app uids use owner/group/other
 * bits with the supplementary groups of fs/android-ids.ts). Symbolic links are stored as host
 * symlinks whose text is an Android path and are resolved here, never by the host.
 */
import { readlinkSync, type BigIntStats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Uid } from '../types.js';
import { FsError, fromHostError, isFsError } from './fs-error.js';
import { isAppUid, primaryGid, supplementaryGroups } from './android-ids.js';
import { dirnameOf, resolveAndroidPath, splitPath, joinPath } from './android-path.js';
import { S_IFMT, S_IFCHR, S_IFDIR, S_IFLNK, S_IFREG, S_IFIFO, S_IFSOCK, S_ISGID, S_ISVTX } from './file-mode.js';
import { ANDROID_LAYOUT, type LayoutEntry } from './layout.js';

export interface FsStat {
  dev: number;
  ino: number;
  /** Type bits (S_IF*) | permission bits. */
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
  atimeSec: number;
  mtimeSec: number;
  ctimeSec: number;
  /** Nanoseconds part of the modification time. */
  mtimeNsec: number;
  /** 512-byte blocks allocated. */
  blocks: number;
  /** Device number for character devices (major << 8 | minor), else 0. */
  rdev: number;
}

export interface FsDirEntry {
  name: string;
  stat: FsStat;
}

export interface FsWriter {
  write(chunk: Buffer): Promise<void>;
  /** Closes the file; sets its modification time when given (adb sync DONE carries it). */
  close(mtimeSec?: number): Promise<void>;
  /** Closes and removes a file this writer created (a failed push). */
  abort(): Promise<void>;
}

export interface OpenWriteOptions {
  /** Permission bits for a file that does not exist yet (default 0o666: adbd runs with umask 0). */
  mode?: number;
  /** Create missing parent directories (adb push with fixed_push_mkdir). */
  createParents?: boolean;
  /** Append instead of truncating (`>>`). */
  append?: boolean;
}

interface Meta {
  uid: number;
  gid: number;
  /** Permission bits incl. setuid/setgid/sticky (0o7777). */
  perm: number;
  /** Character device numbers, for /dev/null & co. */
  chr?: { major: number; minor: number };
}

type DeviceKind = 'null' | 'zero' | 'random';
type DynamicContent = () => string | Uint8Array;

interface Resolved {
  /** Canonical Android path (symlinks resolved except a final one when not following). */
  path: string;
  host: string;
  /** Host lstat of the final component, or null when it does not exist. */
  st: BigIntStats | null;
  /** Canonical path of the parent directory. */
  parent: string;
  name: string;
}

const MAX_SYMLINKS = 40;
const DEVICE_KINDS: Readonly<Record<string, DeviceKind>> = {
  '/dev/null': 'null',
  '/dev/zero': 'zero',
  '/dev/random': 'random',
  '/dev/urandom': 'random',
};

export class VirtualFs {
  readonly root: string;
  private readonly meta = new Map<string, Meta>();
  private readonly dynamic = new Map<string, DynamicContent>();
  private timeSource: (() => number) | undefined;
  private disposed = false;

  private constructor(root: string) {
    this.root = root;
  }

  /** Creates the temp directory and Android's top-level layout (fs/layout.ts). */
  static async create(options: { tmpDir?: string } = {}): Promise<VirtualFs> {
    const root = await fsp.mkdtemp(join(options.tmpDir ?? tmpdir(), 'dv-device-'));
    const vfs = new VirtualFs(root);
    for (const entry of ANDROID_LAYOUT) await vfs.applyLayout(entry);
    return vfs;
  }

  /** Stamps file times with the device clock instead of host time (a moved clock shows in `ls -l`). */
  useClock(clock: { now(): number }): void {
    this.timeSource = () => clock.now();
  }

  /** Registers a procfs-like file whose content is produced on every read. */
  async addDynamicFile(path: string, content: DynamicContent, owner: { uid?: number; gid?: number; perm?: number } = {}): Promise<void> {
    const p = resolveAndroidPath(path);
    const r = await this.resolve(p, null, true);
    if (r.st === null) await fsp.writeFile(r.host, '');
    this.meta.set(r.path, { uid: owner.uid ?? 0, gid: owner.gid ?? 0, perm: owner.perm ?? 0o444 });
    this.dynamic.set(r.path, content);
  }

  /** The real host path behind an Android path (symlinks resolved; no permission checks). */
  hostPath(androidPath: string): string {
    const parts: string[] = [];
    let pending = splitPath(resolveAndroidPath(androidPath));
    let links = 0;
    while (pending.length > 0) {
      const name = pending[0]!;
      pending = pending.slice(1);
      if (name === '.') continue;
      if (name === '..') {
        parts.pop();
        continue;
      }
      const host = join(this.root, ...parts, name);
      let target: string | null;
      try {
        // Synchronous on purpose: DeviceModel.hostPath() is synchronous.
        target = readlinkSync(host);
      } catch {
        target = null;
      }
      if (target !== null && links++ < MAX_SYMLINKS) {
        if (target.startsWith('/')) parts.length = 0;
        pending = [...splitPath(target), ...pending];
        continue;
      }
      parts.push(name);
    }
    return join(this.root, ...parts);
  }

  async stat(path: string, uid: number): Promise<FsStat> {
    const r = await this.resolveExisting(path, uid, true);
    return this.toStat(r.path, r.st);
  }

  async lstat(path: string, uid: number): Promise<FsStat> {
    const r = await this.resolveExisting(path, uid, false);
    return this.toStat(r.path, r.st);
  }

  /** Canonical path with every symlink resolved (realpath(3)). */
  async realpath(path: string, uid: number): Promise<string> {
    return (await this.resolveExisting(path, uid, true)).path;
  }

  async readlink(path: string, uid: number): Promise<string> {
    const r = await this.resolveExisting(path, uid, false);
    if (!r.st.isSymbolicLink()) throw new FsError('EINVAL', path);
    return fsp.readlink(r.host);
  }

  /** Lists a directory (without `.` and `..`), sorted by name. */
  async readdir(path: string, uid: number): Promise<FsDirEntry[]> {
    const r = await this.resolveExisting(path, uid, true);
    if (!r.st.isDirectory()) throw new FsError('ENOTDIR', path);
    this.requireAccess(r.path, r.st, uid, 4 | 1, path);
    let names: string[];
    try {
      names = await fsp.readdir(r.host);
    } catch (e) {
      throw fromHostError(e, path);
    }
    names.sort();
    const out: FsDirEntry[] = [];
    for (const name of names) {
      const childPath = joinPath(r.path, name);
      try {
        const st = await fsp.lstat(join(r.host, name), { bigint: true });
        out.push({ name, stat: this.toStat(childPath, st) });
      } catch (e) {
        if (!isHostCode(e, 'ENOENT')) throw e;
      }
    }
    return out;
  }

  async openRead(path: string, uid: number): Promise<AsyncIterable<Buffer>> {
    const r = await this.resolveExisting(path, uid, true);
    if (r.st.isDirectory()) throw new FsError('EISDIR', path);
    this.requireAccess(r.path, r.st, uid, 4, path);
    const device = DEVICE_KINDS[r.path];
    if (device !== undefined) return readDevice(device);
    const dynamic = this.dynamic.get(r.path);
    if (dynamic !== undefined) {
      return chunksOf([Buffer.from(dynamic())]);
    }
    // Opened on first read so an input that is never read holds no file descriptor.
    const host = r.host;
    return (async function* () {
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(host, 'r');
      } catch (e) {
        throw fromHostError(e, path);
      }
      try {
        for (;;) {
          const buf = Buffer.allocUnsafe(64 * 1024);
          const { bytesRead } = await handle.read(buf, 0, buf.length, null);
          if (bytesRead === 0) break;
          yield buf.subarray(0, bytesRead);
        }
      } finally {
        await handle.close();
      }
    })();
  }

  async readFile(path: string, uid: number): Promise<Buffer> {
    const r = await this.resolveExisting(path, uid, true);
    const device = DEVICE_KINDS[r.path];
    // An endless device cannot be read whole.
    if (device !== undefined && device !== 'null') throw new FsError('EINVAL', path);
    const chunks: Buffer[] = [];
    for await (const chunk of await this.openRead(path, uid)) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async openWrite(path: string, uid: number, options: OpenWriteOptions = {}): Promise<FsWriter> {
    if (options.createParents === true) {
      // adbd's secure_mkdirs() makes missing parents with mode 0775
      // (packages/modules/adb daemon/file_sync_service.cpp).
      const parent = dirnameOf(resolveAndroidPath(path));
      if (!(await this.exists(parent))) await this.mkdir(parent, uid, { parents: true, mode: 0o775 });
    }
    const r = await this.resolve(path, uid, true);
    if (r.st !== null) {
      if (r.st.isDirectory()) throw new FsError('EISDIR', path);
      this.requireAccess(r.path, r.st, uid, 2, path);
      if (DEVICE_KINDS[r.path] !== undefined || this.dynamic.has(r.path)) return discardWriter();
      return this.openHostWriter(r.host, path, options.append === true ? 'a' : 'w', false);
    }
    const parent = await this.resolveExisting(r.parent, uid, true);
    if (!parent.st.isDirectory()) throw new FsError('ENOTDIR', path);
    this.requireAccess(parent.path, parent.st, uid, 2 | 1, path);
    const writer = await this.openHostWriter(r.host, path, 'wx', true);
    this.meta.set(r.path, this.newMeta(parent.path, parent.st, uid, (options.mode ?? 0o666) & 0o7777));
    return writer;
  }

  async writeFile(path: string, uid: number, data: string | Uint8Array, options: { mode?: number; append?: boolean } = {}): Promise<void> {
    const writer = await this.openWrite(path, uid, options);
    try {
      await writer.write(Buffer.from(data));
    } catch (e) {
      await writer.close();
      throw e;
    }
    await writer.close();
  }

  async mkdir(
    path: string,
    uid: number,
    options: { mode?: number; parents?: boolean; owner?: { uid: number; gid: number } } = {},
  ): Promise<void> {
    if (options.owner !== undefined && uid !== Uid.root && uid !== Uid.system) throw new FsError('EPERM', path);
    const abs = resolveAndroidPath(path);
    if (options.parents === true) {
      const parts = splitPath(abs);
      for (let i = 1; i <= parts.length; i++) {
        const prefix = `/${parts.slice(0, i).join('/')}`;
        const r = await this.resolve(prefix, uid, true);
        if (r.st !== null) {
          if (!r.st.isDirectory()) throw new FsError(i === parts.length ? 'EEXIST' : 'ENOTDIR', path);
          continue;
        }
        await this.mkdirOne(prefix, uid, options.mode ?? 0o777, i === parts.length ? options.owner : undefined);
      }
      return;
    }
    await this.mkdirOne(abs, uid, options.mode ?? 0o777, options.owner);
  }

  async rm(path: string, uid: number, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    let r: Resolved;
    try {
      r = await this.resolve(path, uid, false);
    } catch (e) {
      if (options.force === true && isFsError(e, 'ENOENT')) return;
      throw e;
    }
    if (r.st === null) {
      if (options.force === true) return;
      throw new FsError('ENOENT', path);
    }
    if (r.path === '/') throw new FsError('EBUSY', path);
    const parent = await this.resolveExisting(r.parent, uid, true);
    this.requireDelete(parent.path, parent.st, r.path, r.st, uid, path);
    if (r.st.isDirectory()) {
      if (options.recursive !== true) throw new FsError('EISDIR', path);
      await this.rmTree(r.path, r.st, uid, path);
    }
    try {
      if (r.st.isDirectory()) await fsp.rmdir(r.host);
      else await fsp.unlink(r.host);
    } catch (e) {
      throw fromHostError(e, path);
    }
    this.forget(r.path);
  }

  /** rmdir(2): removes an empty directory. */
  async rmdir(path: string, uid: number): Promise<void> {
    const r = await this.resolveExisting(path, uid, false);
    if (!r.st.isDirectory()) throw new FsError('ENOTDIR', path);
    const parent = await this.resolveExisting(r.parent, uid, true);
    this.requireDelete(parent.path, parent.st, r.path, r.st, uid, path);
    try {
      await fsp.rmdir(r.host);
    } catch (e) {
      throw fromHostError(e, path);
    }
    this.forget(r.path);
  }

  async rename(from: string, to: string, uid: number): Promise<void> {
    const src = await this.resolveExisting(from, uid, false);
    const dst = await this.resolve(to, uid, false);
    const srcParent = await this.resolveExisting(src.parent, uid, true);
    const dstParent = await this.resolveExisting(dst.parent, uid, true);
    this.requireDelete(srcParent.path, srcParent.st, src.path, src.st, uid, from);
    this.requireAccess(dstParent.path, dstParent.st, uid, 2 | 1, to);
    if (src.path === dst.path) return;
    if (dst.path.startsWith(`${src.path}/`)) throw new FsError('EINVAL', to);
    if (dst.st !== null) {
      if (dst.st.isDirectory() && !src.st.isDirectory()) throw new FsError('EISDIR', to);
      if (!dst.st.isDirectory() && src.st.isDirectory()) throw new FsError('ENOTDIR', to);
      this.requireDelete(dstParent.path, dstParent.st, dst.path, dst.st, uid, to);
    }
    try {
      await fsp.rename(src.host, dst.host);
    } catch (e) {
      throw fromHostError(e, to);
    }
    if (dst.st !== null) this.forget(dst.path);
    this.moveMeta(src.path, dst.path);
  }

  /** Copies one regular file's bytes (cp without -p: a new file gets the source's mode). */
  async copy(from: string, to: string, uid: number): Promise<void> {
    const src = await this.stat(from, uid);
    if ((src.mode & S_IFMT) === S_IFDIR) throw new FsError('EISDIR', from);
    const source = await this.openRead(from, uid);
    const writer = await this.openWrite(to, uid, { mode: src.mode & 0o777 });
    try {
      for await (const chunk of source) await writer.write(chunk);
    } catch (e) {
      await writer.close();
      throw e;
    }
    await writer.close();
  }

  async chmod(path: string, uid: number, mode: number): Promise<void> {
    const r = await this.resolveExisting(path, uid, true);
    const m = this.metaOf(r.path, r.st);
    if (uid !== Uid.root && uid !== m.uid) throw new FsError('EPERM', path);
    this.meta.set(r.path, { ...m, perm: mode & 0o7777 });
  }

  /** chown(2): only root may change ownership (CAP_CHOWN). */
  async chown(path: string, uid: number, owner: { uid?: number; gid?: number }): Promise<void> {
    const r = await this.resolveExisting(path, uid, true);
    if (uid !== Uid.root) throw new FsError('EPERM', path);
    const m = this.metaOf(r.path, r.st);
    this.meta.set(r.path, { ...m, uid: owner.uid ?? m.uid, gid: owner.gid ?? m.gid });
  }

  /** utimensat(2): the owner, root, or (for "now") anyone who may write. */
  async utimes(path: string, uid: number, atimeSec: number, mtimeSec: number, options: { now?: boolean } = {}): Promise<void> {
    const r = await this.resolveExisting(path, uid, true);
    const m = this.metaOf(r.path, r.st);
    if (uid !== Uid.root && uid !== m.uid) {
      if (options.now !== true) throw new FsError('EPERM', path);
      this.requireAccess(r.path, r.st, uid, 2, path);
    }
    await fsp.utimes(r.host, atimeSec, mtimeSec);
  }

  async symlink(target: string, path: string, uid: number): Promise<void> {
    const r = await this.resolve(path, uid, false);
    if (r.st !== null) throw new FsError('EEXIST', path);
    const parent = await this.resolveExisting(r.parent, uid, true);
    this.requireAccess(parent.path, parent.st, uid, 2 | 1, path);
    await fsp.symlink(target, r.host);
    this.meta.set(r.path, { uid, gid: primaryGid(uid), perm: 0o777 });
  }

  /** True when `path` exists (symlinks followed; no permission checks). */
  async exists(path: string): Promise<boolean> {
    try {
      const r = await this.resolve(path, null, true);
      return r.st !== null;
    } catch (e) {
      if (isFsError(e)) return false;
      throw e;
    }
  }

  /** access(2) for `uid`: R_OK 4, W_OK 2, X_OK 1. */
  async access(path: string, uid: number, want: number): Promise<boolean> {
    try {
      const r = await this.resolveExisting(path, uid, true);
      return this.allowed(r.path, r.st, uid, want);
    } catch (e) {
      if (isFsError(e)) return false;
      throw e;
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await fsp.rm(this.root, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------------------------------

  private async applyLayout(entry: LayoutEntry): Promise<void> {
    const host = join(this.root, ...splitPath(entry.path));
    switch (entry.kind) {
      case 'dir':
        await fsp.mkdir(host, { recursive: true });
        break;
      case 'file':
        await fsp.writeFile(host, entry.content ?? '');
        break;
      case 'link':
        await fsp.symlink(entry.target, host);
        break;
      case 'chr':
        await fsp.writeFile(host, '');
        break;
      default: {
        const unreachable: never = entry;
        throw new Error(`unknown layout entry ${String(unreachable)}`);
      }
    }
    const meta: Meta = { uid: entry.uid, gid: entry.gid, perm: entry.kind === 'link' ? 0o777 : entry.perm };
    if (entry.kind === 'chr') meta.chr = { major: entry.major, minor: entry.minor };
    this.meta.set(entry.path, meta);
  }

  private async mkdirOne(path: string, uid: number, mode: number, owner: { uid: number; gid: number } | undefined): Promise<void> {
    const r = await this.resolve(path, uid, false);
    if (r.st !== null) throw new FsError('EEXIST', path);
    const parent = await this.resolveExisting(r.parent, uid, true);
    if (!parent.st.isDirectory()) throw new FsError('ENOTDIR', path);
    this.requireAccess(parent.path, parent.st, uid, 2 | 1, path);
    try {
      await fsp.mkdir(r.host);
    } catch (e) {
      throw fromHostError(e, path);
    }
    const meta = this.newMeta(parent.path, parent.st, uid, mode & 0o7777);
    if (owner !== undefined) {
      meta.uid = owner.uid;
      meta.gid = owner.gid;
    }
    this.meta.set(r.path, meta);
    await this.stampNow(r.host);
  }

  private async rmTree(dirPath: string, dirSt: BigIntStats, uid: number, shownPath: string): Promise<void> {
    this.requireAccess(dirPath, dirSt, uid, 4 | 2 | 1, shownPath);
    const host = join(this.root, ...splitPath(dirPath));
    for (const name of await fsp.readdir(host)) {
      const childPath = joinPath(dirPath, name);
      const childHost = join(host, name);
      const st = await fsp.lstat(childHost, { bigint: true });
      this.requireDelete(dirPath, dirSt, childPath, st, uid, shownPath);
      if (st.isDirectory()) {
        await this.rmTree(childPath, st, uid, shownPath);
        await fsp.rmdir(childHost);
      } else {
        await fsp.unlink(childHost);
      }
      this.forget(childPath);
    }
  }

  private async openHostWriter(host: string, shownPath: string, flags: 'w' | 'a' | 'wx', created: boolean): Promise<FsWriter> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(host, flags);
    } catch (e) {
      throw fromHostError(e, shownPath);
    }
    let closed = false;
    const closeOnce = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await handle.close();
    };
    return {
      write: async (chunk) => {
        if (closed) throw new FsError('EBADF', shownPath);
        await handle.write(chunk);
      },
      close: async (mtimeSec) => {
        await closeOnce();
        if (mtimeSec !== undefined) await fsp.utimes(host, mtimeSec, mtimeSec);
        else await this.stampNow(host);
      },
      abort: async () => {
        await closeOnce();
        if (created) await fsp.rm(host, { force: true });
      },
    };
  }

  private async stampNow(host: string): Promise<void> {
    if (this.timeSource === undefined) return;
    const sec = this.timeSource() / 1000;
    await fsp.utimes(host, sec, sec);
  }

  private newMeta(parentPath: string, parentSt: BigIntStats, uid: number, perm: number): Meta {
    const parentMeta = this.metaOf(parentPath, parentSt);
    const setgid = (parentMeta.perm & S_ISGID) !== 0;
    return { uid, gid: setgid ? parentMeta.gid : primaryGid(uid), perm };
  }

  /** Effective metadata: recorded, else inherited owner from the parent and host mode bits. */
  private metaOf(path: string, st: BigIntStats): Meta {
    const known = this.meta.get(path);
    if (known !== undefined) return known;
    const hostPerm = Number(st.mode) & 0o7777;
    if (path === '/') return { uid: 0, gid: 0, perm: 0o755 };
    const parent = path.slice(0, path.lastIndexOf('/')) || '/';
    const parentMeta = this.meta.get(parent) ?? this.inheritedMeta(parent);
    if (st.isSymbolicLink()) return { uid: parentMeta.uid, gid: parentMeta.gid, perm: 0o777 };
    // Files an app model wrote straight to the host: the app's own files are 0660 and its
    // directories 0771 (ContextImpl.setFilePermissionsFromMode(MODE_PRIVATE), getDir()).
    if (isAppUid(parentMeta.uid)) return { uid: parentMeta.uid, gid: parentMeta.gid, perm: st.isDirectory() ? 0o771 : 0o660 };
    return { uid: parentMeta.uid, gid: parentMeta.gid, perm: hostPerm };
  }

  private inheritedMeta(path: string): Meta {
    let p = path;
    while (p !== '/') {
      const m = this.meta.get(p);
      if (m !== undefined) return m;
      p = p.slice(0, p.lastIndexOf('/')) || '/';
    }
    return this.meta.get('/') ?? { uid: 0, gid: 0, perm: 0o755 };
  }

  private forget(path: string): void {
    for (const key of [...this.meta.keys()]) if (key === path || key.startsWith(`${path}/`)) this.meta.delete(key);
    for (const key of [...this.dynamic.keys()]) if (key === path || key.startsWith(`${path}/`)) this.dynamic.delete(key);
  }

  private moveMeta(from: string, to: string): void {
    const moved: [string, Meta][] = [];
    for (const [key, value] of this.meta) {
      if (key === from) moved.push([to, value]);
      else if (key.startsWith(`${from}/`)) moved.push([to + key.slice(from.length), value]);
    }
    this.forget(from);
    for (const [key, value] of moved) this.meta.set(key, value);
  }

  private allowed(path: string, st: BigIntStats, uid: number, want: number): boolean {
    const m = this.metaOf(path, st);
    if (uid === Uid.root) {
      // Root needs at least one execute bit to execute a non-directory.
      if ((want & 1) !== 0 && !st.isDirectory() && (m.perm & 0o111) === 0) return false;
      return true;
    }
    let bits: number;
    if (m.uid === uid) bits = (m.perm >> 6) & 7;
    else if (m.gid === primaryGid(uid) || supplementaryGroups(uid).includes(m.gid)) bits = (m.perm >> 3) & 7;
    else bits = m.perm & 7;
    return (bits & want) === want;
  }

  private requireAccess(path: string, st: BigIntStats, uid: number | null, want: number, shownPath: string): void {
    if (uid === null) return;
    if (!this.allowed(path, st, uid, want)) throw new FsError('EACCES', shownPath);
  }

  /** Unlinking needs w+x on the directory, and in a sticky directory ownership of dir or file. */
  private requireDelete(dirPath: string, dirSt: BigIntStats, path: string, st: BigIntStats, uid: number, shownPath: string): void {
    this.requireAccess(dirPath, dirSt, uid, 2 | 1, shownPath);
    const dirMeta = this.metaOf(dirPath, dirSt);
    if (uid !== Uid.root && (dirMeta.perm & S_ISVTX) !== 0) {
      const m = this.metaOf(path, st);
      if (m.uid !== uid && dirMeta.uid !== uid) throw new FsError('EPERM', shownPath);
    }
  }

  private async resolveExisting(path: string, uid: number | null, followLast: boolean): Promise<Resolved & { st: BigIntStats }> {
    const r = await this.resolve(path, uid, followLast);
    if (r.st === null) throw new FsError('ENOENT', path);
    return r as Resolved & { st: BigIntStats };
  }

  /**
   * Walks `path` component by component from `/`, checking search permission on every
   * directory for `uid` (null: no checks) and resolving symlinks in the Android namespace.
   */
  private async resolve(path: string, uid: number | null, followLastOption: boolean): Promise<Resolved> {
    const shown = path;
    // A trailing slash makes the last component a directory: a symlink to one is followed.
    const trailingSlash = path.length > 1 && path.endsWith('/');
    const followLast = followLastOption || trailingSlash;
    let pending = splitPath(path.startsWith('/') ? path : `/${path}`);
    const stack: string[] = [];
    let links = 0;
    let currentSt = await fsp.lstat(this.root, { bigint: true });
    while (pending.length > 0) {
      const name = pending[0]!;
      pending = pending.slice(1);
      if (name === '.') continue;
      if (name === '..') {
        stack.pop();
        currentSt = await fsp.lstat(join(this.root, ...stack), { bigint: true });
        continue;
      }
      const dirPath = `/${stack.join('/')}`;
      if (!currentSt.isDirectory()) throw new FsError('ENOTDIR', shown);
      this.requireAccess(dirPath, currentSt, uid, 1, shown);
      const host = join(this.root, ...stack, name);
      let st: BigIntStats | null;
      try {
        st = await fsp.lstat(host, { bigint: true });
      } catch (e) {
        if (!isHostCode(e, 'ENOENT') && !isHostCode(e, 'ENOTDIR')) throw e;
        st = null;
      }
      const isLast = pending.length === 0;
      if (st === null) {
        if (!isLast) throw new FsError('ENOENT', shown);
        return { path: joinPath(dirPath, name), host, st: null, parent: dirPath, name };
      }
      if (st.isSymbolicLink() && (!isLast || followLast)) {
        if (++links > MAX_SYMLINKS) throw new FsError('ELOOP', shown);
        const target = await fsp.readlink(host);
        if (target.startsWith('/')) {
          stack.length = 0;
          currentSt = await fsp.lstat(this.root, { bigint: true });
        }
        pending = [...splitPath(target), ...pending];
        continue;
      }
      if (isLast) {
        if (trailingSlash && !st.isDirectory()) throw new FsError('ENOTDIR', shown);
        return { path: joinPath(dirPath, name), host, st, parent: dirPath, name };
      }
      stack.push(name);
      currentSt = st;
    }
    return { path: `/${stack.join('/')}`, host: join(this.root, ...stack), st: currentSt, parent: stack.length > 1 ? `/${stack.slice(0, -1).join('/')}` : '/', name: stack.at(-1) ?? '/' };
  }

  private toStat(path: string, st: BigIntStats): FsStat {
    const m = this.metaOf(path, st);
    let type: number;
    if (m.chr !== undefined) type = S_IFCHR;
    else if (st.isDirectory()) type = S_IFDIR;
    else if (st.isSymbolicLink()) type = S_IFLNK;
    else if (st.isFIFO()) type = S_IFIFO;
    else if (st.isSocket()) type = S_IFSOCK;
    else type = S_IFREG;
    const dynamicOrDevice = m.chr !== undefined || this.dynamic.has(path);
    // Directories report one ext4 block (as on the emulator's /data), whatever the host uses.
    const isDir = type === S_IFDIR;
    return {
      dev: Number(st.dev),
      ino: Number(st.ino),
      mode: type | (m.perm & 0o7777),
      nlink: Number(st.nlink),
      uid: m.uid,
      gid: m.gid,
      size: dynamicOrDevice ? 0 : isDir ? 4096 : Number(st.size),
      atimeSec: Number(st.atimeNs / 1_000_000_000n),
      mtimeSec: Number(st.mtimeNs / 1_000_000_000n),
      ctimeSec: Number(st.ctimeNs / 1_000_000_000n),
      mtimeNsec: Number(st.mtimeNs % 1_000_000_000n),
      blocks: dynamicOrDevice ? 0 : isDir ? 8 : Number(st.blocks),
      rdev: m.chr !== undefined ? (m.chr.major << 8) | m.chr.minor : 0,
    };
  }
}

function isHostCode(e: unknown, code: string): boolean {
  return (e as { code?: unknown }).code === code;
}

function discardWriter(): FsWriter {
  return { write: () => Promise.resolve(), close: () => Promise.resolve(), abort: () => Promise.resolve() };
}

/** Reads of /dev/null end at once; /dev/zero and /dev/urandom never end (the reader stops). */
function readDevice(kind: DeviceKind): AsyncIterable<Buffer> {
  switch (kind) {
    case 'null':
      return chunksOf([]);
    case 'zero':
      return endless(() => Buffer.alloc(4096));
    case 'random':
      return endless(() => randomBytes(4096));
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown device ${String(unreachable)}`);
    }
  }
}

function chunksOf(chunks: Buffer[]): AsyncIterable<Buffer> {
  return {
    [Symbol.asyncIterator]: () => {
      let i = 0;
      return {
        next: (): Promise<IteratorResult<Buffer>> => {
          const value = chunks[i++];
          return Promise.resolve(value === undefined ? { done: true, value: undefined } : { done: false, value });
        },
      };
    },
  };
}

function endless(make: () => Buffer): AsyncIterable<Buffer> {
  return { [Symbol.asyncIterator]: () => ({ next: (): Promise<IteratorResult<Buffer>> => Promise.resolve({ done: false, value: make() }) }) };
}
