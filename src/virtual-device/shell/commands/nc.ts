/**
 * nc / netcat client (toybox toys/net/netcat.c 0.8.9): `nc HOST PORT` connects, copies stdin
 * to the socket and the socket to stdout; at EOF on stdin it half-closes the socket
 * (shutdown SHUT_WR) and keeps reading until the peer closes (lib/net.c pollinate()).
 * Connections go through the device's network (127.0.0.1/localhost: device-local listeners,
 * then `adb reverse` rules). A refused connection prints `nc: connect: Connection refused`
 * (xconnbind() perror_exit_raw("connect")) and exits 1; an unresolvable host prints
 * `nc: HOST:PORT: <gai_strerror>` (xgetaddrinfo()).
 */
import type { Duplex } from 'node:stream';
import type { Command } from '../../types.js';
import { errorMsg, helpExit, parseArgs } from './toybox.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', 'ip6-localhost', '0.0.0.0']);

export const nc: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: '46ElLtUunz', args: 'wWpqsf', stopAtOperand: false });
  if (args === undefined) return 1;
  if (args.has('l') || args.has('L')) {
    await errorMsg(ctx, 'listen mode is not supported on this device model');
    return 1;
  }
  if (args.operands.length !== 2) return helpExit(ctx, 'bad argument count');
  const [host, portText] = args.operands as [string, string];
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    await errorMsg(ctx, `${host}:${portText}: Servname not supported for ai_socktype`);
    return 1;
  }
  if (!LOOPBACK.has(host)) {
    if (/^[\d.]+$/.test(host) || host.includes(':')) await errorMsg(ctx, 'connect: Network is unreachable');
    else await errorMsg(ctx, `${host}:${portText}: No address associated with hostname`);
    return 1;
  }
  let socket: Duplex;
  try {
    socket = await ctx.device.network.connect(port);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    await errorMsg(ctx, `connect: ${code === 'ECONNREFUSED' || code === undefined ? 'Connection refused' : String((e as Error).message)}`);
    return 1;
  }
  return pump(ctx, socket, args.has('z'));
};

async function pump(ctx: Parameters<Command>[0], socket: Duplex, zeroIo: boolean): Promise<number> {
  // A reset or abort ends the session like the peer closing it.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('end', () => resolve());
    socket.once('error', () => resolve());
  });
  const onAbort = (): void => void socket.destroy();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // Socket → stdout.
  const reading = (async (): Promise<void> => {
    try {
      for await (const chunk of socket) await ctx.stdout.write(chunk as Buffer);
    } catch {
      // reset by peer: treated as the end
    }
  })();
  if (zeroIo) {
    socket.end();
  } else {
    // Stdin → socket, then half-close; stop when the socket closes first.
    const stdinIterator = ctx.stdin[Symbol.asyncIterator]();
    let socketDone = false;
    void closed.then(() => {
      socketDone = true;
    });
    try {
      for (;;) {
        const next = await Promise.race([stdinIterator.next(), closed.then(() => null)]);
        if (next === null || socketDone) break;
        if (next.done === true) {
          socket.end();
          break;
        }
        if (!socket.write(next.value)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
      }
    } finally {
      await stdinIterator.return?.();
    }
  }
  await Promise.race([reading, closed]);
  await reading;
  ctx.signal.removeEventListener('abort', onAbort);
  socket.destroy();
  return 0;
}
