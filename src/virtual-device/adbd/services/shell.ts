/**
 * `shell[,arg,…]:[command]`: the legacy raw shell and the shell protocol v2.
 *
 * Arguments ([SC29 adb/daemon/services.cpp ShellService L85-120]): `v2` = shell protocol, `raw`
 * = no PTY, `pty` = PTY, `TERM=…`, anything else ignored. Defaults: PTY when the command is
 * empty, raw otherwise; no protocol.
 * - Without v2 (`shell:cmd`, what adbkit always sends): stdout and stderr both go to the stream,
 *   stdin comes from it, no exit status travels back; CLSE when the command ends.
 * - With v2: stdout = packet 1, stderr = packet 2, then one exit packet (3) and only then CLSE;
 *   stdin = packet 0, closeStdin = 4, window size = 5 (ignored) ([SC29 adb/shell_protocol.h]).
 * - In PTY mode the terminal merges stderr into stdout and turns "\n" into "\r\n" (onlcr).
 */
import type { OutputSink, ShellIo } from '../../types.js';
import { ByteQueue } from '../async-queue.js';
import { ByteReader, TruncatedError } from '../byte-reader.js';
import { SHELL_HEADER_SIZE, ShellPacketId, encodeExitPacket, encodeShellHeader } from '../shell-protocol.js';
import type { AdbStream } from '../stream.js';
import type { StreamHandler } from '../transport.js';
import type { ServiceContext } from './service-context.js';
import { adbdUid } from './service-context.js';

export interface ShellOptions {
  readonly protocol: boolean;
  readonly pty: boolean;
  readonly term: string;
}

/** Parses what follows "shell" in the service name; undefined when there is no ':'. */
export function parseShellService(args: string): { command: string; options: ShellOptions } | undefined {
  const colon = args.indexOf(':');
  if (colon < 0) return undefined;
  const command = args.slice(colon + 1);
  let pty = command === '';
  let protocol = false;
  let term = 'dumb';
  for (const arg of args.slice(0, colon).split(',')) {
    if (arg === 'raw') pty = false;
    else if (arg === 'pty') pty = true;
    else if (arg === 'v2') protocol = true;
    else if (arg.startsWith('TERM=')) term = arg.slice('TERM='.length);
  }
  return { command, options: { protocol, pty, term } };
}

/** Largest data length per shell packet: adbd reads into a MAX_PAYLOAD buffer ([SC29 adb/shell_protocol.h]). */
const MAX_SHELL_PACKET_DATA = 1024 * 1024 - SHELL_HEADER_SIZE;

function toBuffer(data: string | Uint8Array): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** onlcr: every "\n" leaves the terminal as "\r\n". */
function translateNewlines(data: Buffer): Buffer {
  if (!data.includes(0x0a)) return data;
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = data.indexOf(0x0a); i >= 0; i = data.indexOf(0x0a, i + 1)) {
    parts.push(data.subarray(start, i), CRLF);
    start = i + 1;
  }
  parts.push(data.subarray(start));
  return Buffer.concat(parts);
}
const CRLF = Buffer.from('\r\n');

function rawSink(stream: AdbStream, pty: boolean): OutputSink {
  return {
    write: (data) => {
      const b = toBuffer(data);
      return stream.write(pty ? translateNewlines(b) : b);
    },
  };
}

function packetSink(stream: AdbStream, id: ShellPacketId, pty: boolean): OutputSink {
  return {
    write: async (data) => {
      let b = toBuffer(data);
      if (pty) b = translateNewlines(b);
      for (let off = 0; off < b.length; off += MAX_SHELL_PACKET_DATA) {
        const piece = b.subarray(off, off + MAX_SHELL_PACKET_DATA);
        await stream.write(encodeShellHeader(id, piece.length), piece);
      }
    },
  };
}

/** Reads shell-v2 packets from the host until EOF: stdin data into `stdin`, closeStdin ends it. */
async function pumpShellInput(stream: AdbStream, stdin: ByteQueue): Promise<void> {
  const reader = new ByteReader(stream);
  try {
    for (;;) {
      const header = await reader.readExactOrEnd(SHELL_HEADER_SIZE);
      if (header === null) break;
      const id = header.readUInt8(0);
      let left = header.readUInt32LE(1);
      if (id === ShellPacketId.CloseStdin) stdin.end();
      while (left > 0) {
        const piece = await reader.readSome(left);
        if (piece === null) throw new TruncatedError(left, 0);
        left -= piece.length;
        if (id === ShellPacketId.Stdin) await stdin.push(piece);
        // WindowSizeChange and unknown ids: no terminal to resize; the payload is skipped.
      }
    }
  } catch (e) {
    if (!(e instanceof TruncatedError)) throw e;
  } finally {
    stdin.end();
  }
}

async function runCommand(ctx: ServiceContext, line: string, io: ShellIo, term: string | undefined): Promise<number> {
  try {
    return await ctx.device.runShell(line, io, { uid: adbdUid(ctx.device), ...(term === undefined ? {} : { env: { TERM: term } }) });
  } catch (e) {
    if ((e as { code?: unknown }).code === 'EPIPE' || io.signal.aborted) return 141; // 128 + SIGPIPE
    await io.stderr.write(`/system/bin/sh: ${(e as Error).message}\n`).catch(() => undefined);
    return 1;
  }
}

export function shellService(args: string, ctx: ServiceContext): StreamHandler | undefined {
  const parsed = parseShellService(args);
  if (parsed === undefined) return undefined;
  const { command, options } = parsed;
  // adbd sets TERM for shell: children (default "dumb"), not for exec: (StartSubprocess's terminal_type).
  if (!options.protocol) return (stream) => runRawShell(ctx, stream, command, options.pty, options.term);
  return async (stream) => {
    const stdin = new ByteQueue();
    const pump = pumpShellInput(stream, stdin).catch(() => stdin.end());
    const stdout = packetSink(stream, ShellPacketId.Stdout, options.pty);
    const stderr = options.pty ? stdout : packetSink(stream, ShellPacketId.Stderr, false);
    const status = await runCommand(ctx, command, { stdin, stdout, stderr, signal: stream.signal }, options.term);
    stdin.end();
    // The exit packet goes before CLSE, else the client exits 0 ([SC29 adb/client/commandline.cpp L259-306]).
    if (!stream.isClosed) await stream.write(encodeExitPacket(status));
    await stream.close();
    await pump;
  };
}

/**
 * Raw (no protocol) command on a stream: `shell:cmd` and `exec:cmd`. An empty line is an
 * interactive shell reading its commands from the stream.
 */
export async function runRawShell(ctx: ServiceContext, stream: AdbStream, line: string, pty: boolean, term?: string): Promise<void> {
  const sink = rawSink(stream, pty);
  const stdin: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() };
  await runCommand(ctx, line, { stdin, stdout: sink, stderr: sink, signal: stream.signal }, term);
}
