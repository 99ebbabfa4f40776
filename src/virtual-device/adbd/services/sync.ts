/**
 * `sync:`: push, pull, ls and stat, one request after another on a byte stream
 * ([SC29 adb/daemon/file_sync_service.cpp file_sync_service / handle_sync_command]). Any
 * failure sends FAIL and ends the service (the stream closes), as adbd's handlers return false;
 * QUIT ends it too.
 */
import type { AdbdDevice, AdbdFileWriter, AdbdStat } from '../adbd-device.js';
import { ByteReader, TruncatedError } from '../byte-reader.js';
import { errnoOf } from '../errno.js';
import type { AdbStream } from '../stream.js';
import {
  DENT_V1_SIZE,
  DENT_V2_SIZE,
  S_IFLNK,
  S_IFMT,
  S_IFREG,
  SYNC_DATA_MAX,
  SYNC_PATH_MAX,
  SYNC_RECV_CHUNK,
  SYNC_REQUEST_SIZE,
  SyncId,
  encodeDentV1,
  encodeDentV2,
  encodeListDone,
  encodeStatV1,
  encodeStatV2,
  encodeSyncFail,
  encodeSyncHeader,
  parseStrtoul,
} from '../sync-protocol.js';
import type { StreamHandler } from '../transport.js';
import { adbdUid, type ServiceContext } from './service-context.js';

interface SyncSession {
  readonly stream: AdbStream;
  readonly reader: ByteReader;
  readonly device: AdbdDevice;
  /** adbd's uid for the lifetime of this service. */
  readonly uid: number;
}

export function syncService(ctx: ServiceContext): StreamHandler {
  return async (stream) => {
    const session: SyncSession = { stream, reader: new ByteReader(stream), device: ctx.device, uid: adbdUid(ctx.device) };
    try {
      while (await handleSyncCommand(session)) {
        // next request
      }
    } catch (e) {
      if (!(e instanceof TruncatedError)) throw e;
    }
  };
}

async function fail(s: SyncSession, reason: string): Promise<false> {
  await s.stream.write(encodeSyncFail(reason));
  return false;
}

/** One request; false ends the service. */
async function handleSyncCommand(s: SyncSession): Promise<boolean> {
  const request = await s.reader.readExactOrEnd(SYNC_REQUEST_SIZE);
  if (request === null) return false;
  const id = request.readUInt32LE(0);
  const pathLength = request.readUInt32LE(4);
  if (pathLength > SYNC_PATH_MAX) return fail(s, 'path too long');
  const name = (await s.reader.readExact(pathLength)).toString('utf8');
  switch (id) {
    case SyncId.LstatV1:
      await s.stream.write(encodeStatV1(await statOrUndefined(s, name, false)));
      return true;
    case SyncId.StatV2:
    case SyncId.LstatV2:
      await doStatV2(s, id, name);
      return true;
    case SyncId.ListV1:
      await doList(s, name, false);
      return true;
    case SyncId.ListV2:
      await doList(s, name, true);
      return true;
    case SyncId.Send:
      return doSend(s, name);
    case SyncId.Recv:
      return doRecv(s, name);
    case SyncId.Quit:
      return false;
    default:
      return fail(s, `unknown command ${id.toString(16).padStart(8, '0')}`);
  }
}

async function statOrUndefined(s: SyncSession, path: string, follow: boolean): Promise<AdbdStat | undefined> {
  try {
    return follow ? await s.device.fs.stat(path, s.uid) : await s.device.fs.lstat(path, s.uid);
  } catch {
    return undefined;
  }
}

/** STA2 follows symlinks (stat), LST2 does not (lstat) (do_stat_v2). */
async function doStatV2(s: SyncSession, id: number, path: string): Promise<void> {
  try {
    const st = id === SyncId.StatV2 ? await s.device.fs.stat(path, s.uid) : await s.device.fs.lstat(path, s.uid);
    await s.stream.write(encodeStatV2(id, st));
  } catch (e) {
    await s.stream.write(encodeStatV2(id, undefined, errnoOf(e).errno));
  }
}

function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  return i <= 0 ? '/' : trimmed.slice(0, i);
}

/**
 * do_list: every readdir entry including "." and ".." (Linux readdir returns both), each
 * lstat'ed; v1 skips entries whose lstat fails, v2 sends them with `error` set. A directory that
 * cannot be opened yields just DONE.
 */
async function doList(s: SyncSession, path: string, v2: boolean): Promise<void> {
  let entries: { name: string; stat: AdbdStat | undefined; errno: number }[] = [];
  try {
    const listed = await s.device.fs.readdir(path, s.uid);
    const dots: { name: string; stat: AdbdStat | undefined; errno: number }[] = [];
    for (const [dotName, dotPath] of [
      ['.', path],
      ['..', parentOf(path)],
    ] as const) {
      try {
        dots.push({ name: dotName, stat: await s.device.fs.lstat(dotPath, s.uid), errno: 0 });
      } catch (e) {
        dots.push({ name: dotName, stat: undefined, errno: errnoOf(e).errno });
      }
    }
    entries = [...dots, ...listed.map((e) => ({ name: e.name, stat: e.stat, errno: 0 }))];
  } catch {
    entries = [];
  }
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    if (v2) await s.stream.write(encodeDentV2(name, e.stat, e.errno));
    else if (e.stat !== undefined) await s.stream.write(encodeDentV1(name, e.stat));
  }
  await s.stream.write(encodeListDone(v2 ? DENT_V2_SIZE : DENT_V1_SIZE));
}

/**
 * RECV: {DATA, len}+bytes (≤ 65528 each, recv_uncompressed), then {DONE, 0}; an open failure is
 * FAIL "open failed: <strerror>" and ends the service.
 */
async function doRecv(s: SyncSession, path: string): Promise<boolean> {
  let source: AsyncIterable<Buffer>;
  try {
    source = await s.device.fs.openRead(path, s.uid);
  } catch (e) {
    const err = errnoOf(e);
    // open(O_RDONLY) succeeds on a directory on Linux; the read then fails with EISDIR.
    return fail(s, `${err.code === 'EISDIR' ? 'read failed' : 'open failed'}: ${err.message}`);
  }
  // Whole 65528-byte DATA records as adbd's read loop makes them, whatever chunk sizes the
  // filesystem yields; only the last record is shorter.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async (all: boolean): Promise<void> => {
    while (pendingBytes >= SYNC_RECV_CHUNK || (all && pendingBytes > 0)) {
      const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      const piece = joined.subarray(0, Math.min(SYNC_RECV_CHUNK, joined.length));
      const rest = joined.subarray(piece.length);
      pending = rest.length > 0 ? [rest] : [];
      pendingBytes = rest.length;
      await s.stream.write(encodeSyncHeader(SyncId.Data, piece.length), piece);
    }
  };
  try {
    for await (const chunk of source) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      await flush(false);
    }
    await flush(true);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'EPIPE') throw e;
    return fail(s, `read failed: ${errnoOf(e).message}`);
  }
  await s.stream.write(encodeSyncHeader(SyncId.Done, 0));
  return true;
}

/**
 * SEND "<path>,<mode>" (split at the last comma, mode parsed by strtoul base 0), then
 * {DATA, len}+bytes… and {DONE, mtime}; reply {OKAY, 0} or FAIL (do_send_v1 / send_impl /
 * handle_send_file). adbd keeps the permission bits with the user bits copied to group and
 * other, creates missing parents (fixed_push_mkdir), and sets the mtime from DONE.
 */
async function doSend(s: SyncSession, spec: string): Promise<boolean> {
  const comma = spec.lastIndexOf(',');
  if (comma < 0) return fail(s, 'missing , in ID_SEND_V1');
  const path = spec.slice(0, comma);
  const mode = parseStrtoul(spec.slice(comma + 1));
  if ((mode & S_IFMT) === S_IFLNK) return sendLink(s);

  let perms = mode & 0o777;
  perms |= (perms >> 3) & 0o070;
  perms |= (perms >> 3) & 0o007;

  // send_impl: a regular file or symlink in the way is unlinked first, so the new file gets the
  // pushed mode and adbd's ownership; errors are ignored as adb_unlink's are.
  try {
    const old = await s.device.fs.lstat(path, s.uid);
    const type = old.mode & S_IFMT;
    if (type === S_IFREG || type === S_IFLNK) await s.device.fs.rm(path, s.uid);
  } catch {
    // nothing there, or not removable: open() reports what matters
  }

  let file: AdbdFileWriter;
  try {
    file = await s.device.fs.openWrite(path, s.uid, { mode: perms, createParents: false });
  } catch (e) {
    const first = errnoOf(e);
    if (first.code !== 'ENOENT') return sendFailAndDrain(s, `couldn't create file: ${first.message}`);
    try {
      file = await s.device.fs.openWrite(path, s.uid, { mode: perms, createParents: true });
    } catch (e2) {
      return sendFailAndDrain(s, `secure_mkdirs failed: ${errnoOf(e2).message}`);
    }
  }

  for (;;) {
    const header = await readOrAbort(s, file, 8);
    const id = header.readUInt32LE(0);
    const size = header.readUInt32LE(4);
    if (id === SyncId.Done) {
      try {
        await file.close(size);
      } catch (e) {
        return fail(s, `write failed: ${errnoOf(e).message}`);
      }
      await s.stream.write(encodeSyncHeader(SyncId.Okay, 0));
      return true;
    }
    if (id !== SyncId.Data) {
      await file.abort();
      return sendFailAndDrain(s, 'invalid data message');
    }
    if (size > SYNC_DATA_MAX) {
      await file.abort();
      return sendFailAndDrain(s, 'oversize data message');
    }
    const data = await readOrAbort(s, file, size);
    try {
      await file.write(data);
    } catch (e) {
      await file.abort().catch(() => undefined);
      return sendFailAndDrain(s, `write failed: ${errnoOf(e).message}`);
    }
  }
}

async function readOrAbort(s: SyncSession, file: AdbdFileWriter, n: number): Promise<Buffer> {
  try {
    return await s.reader.readExact(n);
  } catch (e) {
    await file.abort().catch(() => undefined);
    throw e;
  }
}

/**
 * After a failure adbd keeps reading and discarding DATA until DONE (or anything unexpected),
 * so the client sees the FAIL instead of a reset (handle_send_file, label fail:).
 */
async function sendFailAndDrain(s: SyncSession, reason: string): Promise<false> {
  await s.stream.write(encodeSyncFail(reason));
  for (;;) {
    const header = await s.reader.readExactOrEnd(8);
    if (header === null) break;
    const id = header.readUInt32LE(0);
    const size = header.readUInt32LE(4);
    if (id !== SyncId.Data || size > SYNC_DATA_MAX) break;
    await s.reader.readExact(size);
  }
  return false;
}

/**
 * A symlink push (mode S_IFLNK): one DATA with the target, then DONE (handle_send_link). The
 * device filesystem has no symlink call, so this fails the way symlink(2) does without the
 * right: "symlink failed: Operation not permitted".
 */
async function sendLink(s: SyncSession): Promise<false> {
  const header = await s.reader.readExact(8);
  if (header.readUInt32LE(0) !== SyncId.Data) return fail(s, 'invalid data message: expected ID_DATA');
  const size = header.readUInt32LE(4);
  if (size > SYNC_DATA_MAX) return fail(s, 'oversize data message');
  await s.reader.readExact(size);
  return fail(s, 'symlink failed: Operation not permitted');
}
