/**
 * The adb message framing: a 24-byte little-endian header (command, arg0, arg1, data_length,
 * data_check, magic) followed by data_length payload bytes.
 * Source: [SC29] aosp-mirror/platform_system_core tag platform-tools-29.0.6, adb/protocol.txt and
 * adb/types.h `struct amessage`; constants from adb/adb.h L34-53.
 */

/** Each command is its four ASCII letters read as a little-endian u32 [SC29 adb/adb.h L39-45]. */
export const AdbCommand = {
  /** Obsolete, never on the wire. */
  Sync: 0x434e5953,
  Cnxn: 0x4e584e43,
  Auth: 0x48545541,
  Open: 0x4e45504f,
  Okay: 0x59414b4f,
  Clse: 0x45534c43,
  Wrte: 0x45545257,
  /** TLS upgrade; newer than adb 29 (packages/modules/adb adb.h). A device for adb 29 never sends it. */
  Stls: 0x534c5453,
} as const;
export type AdbCommand = (typeof AdbCommand)[keyof typeof AdbCommand];

const KNOWN_COMMANDS: ReadonlySet<number> = new Set(Object.values(AdbCommand));

export function isAdbCommand(value: number): value is AdbCommand {
  return KNOWN_COMMANDS.has(value);
}

/** The four letters of a command value, for logs ("OPEN"); unknown values as hex. */
export function commandName(value: number): string {
  if (!isAdbCommand(value)) return `0x${value.toString(16).padStart(8, '0')}`;
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b.toString('latin1');
}

export const HEADER_SIZE = 24;
/** Original protocol version [SC29 adb/adb.h L47-53]. */
export const A_VERSION_MIN = 0x01000000;
/** From this version on, senders put 0 in data_check [SC29 adb/transport.cpp L433-440]. */
export const A_VERSION_SKIP_CHECKSUM = 0x01000001;
export const A_VERSION = 0x01000001;
/** Payload limit before CNXN negotiation (CNXN and AUTH must fit) [SC29 adb/adb.h L34-36]. */
export const MAX_PAYLOAD_V1 = 4 * 1024;
/** adbd's own payload limit; it drops a connection that sends more [SC29 adb/transport.cpp L397-400]. */
export const MAX_PAYLOAD = 1024 * 1024;

export interface AdbPacket {
  readonly command: number;
  readonly arg0: number;
  readonly arg1: number;
  readonly data: Buffer;
}

/**
 * The "data_crc32" field is not a CRC: it is the u32 sum of the payload bytes
 * (calculate_apacket_checksum, [SC29 adb/adb.cpp L76-82]).
 */
export function checksumOf(data: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum = (sum + data[i]!) >>> 0;
  return sum;
}

/** Encodes one message; `checksum` false writes data_check = 0 (protocol ≥ 0x01000001). */
export function encodePacket(command: number, arg0: number, arg1: number, data: Uint8Array = EMPTY, checksum = false): Buffer {
  const out = Buffer.allocUnsafe(HEADER_SIZE + data.length);
  out.writeUInt32LE(command >>> 0, 0);
  out.writeUInt32LE(arg0 >>> 0, 4);
  out.writeUInt32LE(arg1 >>> 0, 8);
  out.writeUInt32LE(data.length, 12);
  out.writeUInt32LE(checksum ? checksumOf(data) : 0, 16);
  // magic = command ^ 0xffffffff [SC29 adb/protocol.txt]
  out.writeUInt32LE((command ^ 0xffffffff) >>> 0, 20);
  out.set(data, HEADER_SIZE);
  return out;
}

const EMPTY = Buffer.alloc(0);

export const PacketErrorReason = { BadMagic: 'bad-magic', Oversize: 'oversize' } as const;
export type PacketErrorReason = (typeof PacketErrorReason)[keyof typeof PacketErrorReason];

/** A header that adbd's check_header rejects; the connection that sent it must be dropped. */
export class PacketError extends Error {
  readonly reason: PacketErrorReason;
  constructor(reason: PacketErrorReason, message: string) {
    super(message);
    this.name = 'PacketError';
    this.reason = reason;
  }
}

/**
 * Turns TCP chunks into packets, buffering partial headers and payloads across chunks.
 * Like check_header [SC29 adb/transport.cpp L1346-1360] it validates magic and
 * data_length <= the current limit, and never checks data_check.
 */
export class PacketReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private header: { command: number; arg0: number; arg1: number; length: number } | undefined;

  constructor(private maxDataLength: number = MAX_PAYLOAD) {}

  setMaxDataLength(max: number): void {
    this.maxDataLength = max;
  }

  get bufferedBytes(): number {
    return this.buffered;
  }

  /** Feeds one chunk; returns the packets it completed. Throws PacketError on a bad header. */
  push(chunk: Buffer): AdbPacket[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const packets: AdbPacket[] = [];
    for (;;) {
      if (this.header === undefined) {
        if (this.buffered < HEADER_SIZE) break;
        const h = this.take(HEADER_SIZE);
        const command = h.readUInt32LE(0);
        const length = h.readUInt32LE(12);
        const magic = h.readUInt32LE(20);
        if (magic !== (command ^ 0xffffffff) >>> 0) {
          throw new PacketError(PacketErrorReason.BadMagic, `bad magic 0x${magic.toString(16)} for command 0x${command.toString(16)}`);
        }
        if (length > this.maxDataLength) {
          throw new PacketError(PacketErrorReason.Oversize, `data_length ${length} exceeds the limit ${this.maxDataLength}`);
        }
        this.header = { command, arg0: h.readUInt32LE(4), arg1: h.readUInt32LE(8), length };
      }
      if (this.buffered < this.header.length) break;
      const data = this.header.length === 0 ? EMPTY : this.take(this.header.length);
      packets.push({ command: this.header.command, arg0: this.header.arg0, arg1: this.header.arg1, data });
      this.header = undefined;
    }
    return packets;
  }

  /** Removes n buffered bytes (n <= buffered), copying only when they span chunks. */
  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    this.buffered -= n;
    if (first.length === n) {
      this.chunks.shift();
      return first;
    }
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const need = n - filled;
      if (c.length <= need) {
        c.copy(out, filled);
        filled += c.length;
        this.chunks.shift();
      } else {
        c.copy(out, filled, 0, need);
        this.chunks[0] = c.subarray(need);
        filled += need;
      }
    }
    return out;
  }
}
