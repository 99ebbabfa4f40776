/**
 * The sync: protocol's ids and records, all little-endian.
 * Sources: [SC29 adb/file_sync_protocol.h, adb/SYNC.TXT, adb/daemon/file_sync_service.cpp];
 * what adbkit sends: adbkit 3.3.9 src/adb/sync.ts (DATA_MAX_LENGTH).
 */
import type { AdbdStat } from './adbd-device.js';

function mkid(s: string): number {
  return Buffer.from(s, 'latin1').readUInt32LE(0);
}

/** MKID(a,b,c,d): four ASCII letters read as a little-endian u32 [SC29 adb/file_sync_protocol.h]. */
export const SyncId = {
  LstatV1: mkid('STAT'),
  StatV2: mkid('STA2'),
  LstatV2: mkid('LST2'),
  ListV1: mkid('LIST'),
  ListV2: mkid('LIS2'),
  DentV1: mkid('DENT'),
  DentV2: mkid('DNT2'),
  Send: mkid('SEND'),
  Recv: mkid('RECV'),
  Done: mkid('DONE'),
  Data: mkid('DATA'),
  Okay: mkid('OKAY'),
  Fail: mkid('FAIL'),
  Quit: mkid('QUIT'),
} as const;
export type SyncId = (typeof SyncId)[keyof typeof SyncId];

/** SyncRequest {u32 id; u32 path_length} followed by the path. */
export const SYNC_REQUEST_SIZE = 8;
/** Longest request path adbd reads ([SC29 file_sync_service.cpp handle_sync_command]). */
export const SYNC_PATH_MAX = 1024;
/** SYNC_DATA_MAX = 64 KiB: the largest DATA adbd accepts; adbkit sends exactly 65536. */
export const SYNC_DATA_MAX = 64 * 1024;
/** adbd reads files in SYNC_DATA_MAX buffers minus the 8-byte DATA header (recv_uncompressed). */
export const SYNC_RECV_CHUNK = SYNC_DATA_MAX - 8;

/** stat_v1 {id, mode, size, mtime}: 16 bytes; all zeros but the id on failure (do_lstat_v1). */
export const STAT_V1_SIZE = 16;
/** stat_v2: 72 bytes (do_stat_v2). */
export const STAT_V2_SIZE = 72;
/** dent_v1 {id, mode, size, mtime, namelen}: 20 bytes + name. */
export const DENT_V1_SIZE = 20;
/** dent_v2: the stat_v2 layout + namelen@72 = 76 bytes + name. */
export const DENT_V2_SIZE = 76;

/** S_IFMT / S_IFLNK / S_IFREG (Linux uapi stat.h). */
export const S_IFMT = 0o170000;
export const S_IFLNK = 0o120000;
export const S_IFREG = 0o100000;

const u32 = (n: number): number => (n < 0 ? 0 : n % 0x100000000);

export function encodeStatV1(stat: AdbdStat | undefined): Buffer {
  const b = Buffer.alloc(STAT_V1_SIZE);
  b.writeUInt32LE(SyncId.LstatV1, 0);
  if (stat !== undefined) {
    b.writeUInt32LE(u32(stat.mode), 4);
    b.writeUInt32LE(u32(stat.size), 8);
    b.writeUInt32LE(u32(stat.mtimeSec), 12);
  }
  return b;
}

/**
 * id@0, u32 error@4, u64 dev@8, u64 ino@16, u32 mode@24, u32 nlink@28, u32 uid@32, u32 gid@36,
 * u64 size@40, i64 atime@48, i64 mtime@56, i64 ctime@64; `size` bytes (72 or 76 for dent_v2).
 */
function writeStatV2(b: Buffer, id: number, error: number, stat: AdbdStat | undefined): void {
  b.writeUInt32LE(id, 0);
  b.writeUInt32LE(error, 4);
  if (stat === undefined) return;
  b.writeBigUInt64LE(BigInt(Math.max(0, Math.trunc(stat.dev))), 8);
  b.writeBigUInt64LE(BigInt(Math.max(0, Math.trunc(stat.ino))), 16);
  b.writeUInt32LE(u32(stat.mode), 24);
  b.writeUInt32LE(u32(stat.nlink), 28);
  b.writeUInt32LE(u32(stat.uid), 32);
  b.writeUInt32LE(u32(stat.gid), 36);
  b.writeBigUInt64LE(BigInt(Math.max(0, Math.trunc(stat.size))), 40);
  b.writeBigInt64LE(BigInt(Math.trunc(stat.atimeSec)), 48);
  b.writeBigInt64LE(BigInt(Math.trunc(stat.mtimeSec)), 56);
  b.writeBigInt64LE(BigInt(Math.trunc(stat.ctimeSec)), 64);
}

/** STA2/LST2 reply: the request id echoed; on failure `error` = Linux errno and the rest 0. */
export function encodeStatV2(id: number, stat: AdbdStat | undefined, errno = 0): Buffer {
  const b = Buffer.alloc(STAT_V2_SIZE);
  writeStatV2(b, id, errno, errno === 0 ? stat : undefined);
  return b;
}

export function encodeDentV1(name: Buffer, stat: AdbdStat): Buffer {
  const b = Buffer.alloc(DENT_V1_SIZE);
  b.writeUInt32LE(SyncId.DentV1, 0);
  b.writeUInt32LE(u32(stat.mode), 4);
  b.writeUInt32LE(u32(stat.size), 8);
  b.writeUInt32LE(u32(stat.mtimeSec), 12);
  b.writeUInt32LE(name.length, 16);
  return Buffer.concat([b, name]);
}

export function encodeDentV2(name: Buffer, stat: AdbdStat | undefined, errno = 0): Buffer {
  const b = Buffer.alloc(DENT_V2_SIZE);
  writeStatV2(b, SyncId.DentV2, errno, errno === 0 ? stat : undefined);
  b.writeUInt32LE(name.length, 72);
  return Buffer.concat([b, name]);
}

/** The end of a listing: a whole zeroed dent record with id DONE (20 bytes v1, 76 bytes v2). */
export function encodeListDone(size: typeof DENT_V1_SIZE | typeof DENT_V2_SIZE): Buffer {
  const b = Buffer.alloc(size);
  b.writeUInt32LE(SyncId.Done, 0);
  return b;
}

/** {id, u32} — DATA/DONE/OKAY/FAIL headers (syncmsg.data / syncmsg.status). */
export function encodeSyncHeader(id: SyncId, value: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32LE(id, 0);
  b.writeUInt32LE(value >>> 0, 4);
  return b;
}

/** SendSyncFail: {FAIL, len} + reason. */
export function encodeSyncFail(reason: string): Buffer {
  const text = Buffer.from(reason, 'utf8');
  return Buffer.concat([encodeSyncHeader(SyncId.Fail, text.length), text]);
}

/** strtoul(s, nullptr, 0): optional 0x (hex) or leading 0 (octal), else decimal; stops at the first bad digit. */
export function parseStrtoul(s: string): number {
  const t = s.trimStart();
  let m: RegExpMatchArray | null;
  if ((m = /^\+?0[xX]([0-9a-fA-F]+)/.exec(t)) !== null) return parseInt(m[1]!, 16) >>> 0;
  if ((m = /^\+?(0[0-7]*)/.exec(t)) !== null) return parseInt(m[1]!, 8) >>> 0;
  if ((m = /^\+?(\d+)/.exec(t)) !== null) return Number(m[1]) >>> 0;
  return 0;
}
