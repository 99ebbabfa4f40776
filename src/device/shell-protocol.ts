/**
 * adb shell protocol v2 packets (the `shell,v2,raw:CMD` service).
 * Source: aosp-mirror/platform_system_core tag platform-tools-29.0.6 `adb/shell_protocol.h`
 * (also yume-chan/ya-webadb `libraries/adb/src/service/subprocess/shell/shared.ts`):
 *
 *   u8 id | u32 length (little-endian) | length bytes of data
 *
 * Packets are a byte stream: one adb WRTE may carry several packets or part of one, so the
 * decoder buffers across chunks. The device sends stdout/stderr packets, then one exit packet
 * whose 1-byte payload is the exit status, then closes the stream.
 */

export const ShellPacketId = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  exit: 3,
  closeStdin: 4,
  windowSizeChange: 5,
} as const;
export type ShellPacketId = (typeof ShellPacketId)[keyof typeof ShellPacketId];

export interface ShellPacket {
  readonly id: number;
  readonly data: Buffer;
}

const HEADER_SIZE = 5;
/** Stdin is sent in pieces no larger than this (adbd reads at most its max payload per WRTE). */
export const MAX_STDIN_PACKET = 64 * 1024;

export function encodeShellPacket(id: ShellPacketId, data: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  header.writeUInt8(id, 0);
  header.writeUInt32LE(data.length, 1);
  return Buffer.concat([header, data]);
}

/** Stdin packets for `data` followed by the CloseStdin packet (EOF for the command). */
export function encodeStdin(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += MAX_STDIN_PACKET) {
    parts.push(encodeShellPacket(ShellPacketId.stdin, data.subarray(at, at + MAX_STDIN_PACKET)));
  }
  parts.push(encodeShellPacket(ShellPacketId.closeStdin));
  return Buffer.concat(parts);
}

/** Incremental decoder: feed chunks as they arrive, get whole packets back. */
export class ShellPacketDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): ShellPacket[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const packets: ShellPacket[] = [];
    while (this.pending.length >= HEADER_SIZE) {
      const length = this.pending.readUInt32LE(1);
      if (this.pending.length < HEADER_SIZE + length) break;
      packets.push({
        id: this.pending.readUInt8(0),
        data: Buffer.from(this.pending.subarray(HEADER_SIZE, HEADER_SIZE + length)),
      });
      this.pending = this.pending.subarray(HEADER_SIZE + length);
    }
    return packets;
  }

  /** Bytes of an incomplete packet still waiting for the rest. */
  get bufferedBytes(): number {
    return this.pending.length;
  }
}
