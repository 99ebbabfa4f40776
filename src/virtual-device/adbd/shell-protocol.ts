/**
 * Shell protocol v2 packets: u8 id, u32 little-endian length, data. The same framing both ways;
 * packets are a byte stream over WRTE payloads.
 * Source: [SC29 adb/shell_protocol.h]; Debian adb 29.0.6 was seen sending stdin and closeStdin in
 * one 16-byte WRTE.
 */
export const ShellPacketId = {
  Stdin: 0,
  Stdout: 1,
  Stderr: 2,
  Exit: 3,
  /** Close the subprocess's stdin (length 0). */
  CloseStdin: 4,
  /** ASCII "rowsxcols,xpixelsxypixels\0". */
  WindowSizeChange: 5,
} as const;
export type ShellPacketId = (typeof ShellPacketId)[keyof typeof ShellPacketId];

export const SHELL_HEADER_SIZE = 5;

export function encodeShellHeader(id: ShellPacketId, length: number): Buffer {
  const h = Buffer.allocUnsafe(SHELL_HEADER_SIZE);
  h.writeUInt8(id, 0);
  h.writeUInt32LE(length, 1);
  return h;
}

/** The exit packet: one byte, the status (0x80|signal for a signalled child, [SC29 adb/daemon/shell_service.cpp L753-786]). */
export function encodeExitPacket(status: number): Buffer {
  return Buffer.concat([encodeShellHeader(ShellPacketId.Exit, 1), Buffer.from([status & 0xff])]);
}
