/**
 * Pumps bytes between an adb stream and a device-side socket (a `tcp:PORT` forward, or the
 * adbd end of a connection carried over an `adb reverse` rule), with backpressure both ways.
 *
 * Like adbd's local sockets [SC29 adb/sockets.cpp local_socket_event_func / local_socket_close]:
 * EOF from the device socket flushes what it wrote and then closes the whole adb stream (CLSE);
 * a CLSE from the host ends the device socket after the bytes already received are written.
 */
import type { Duplex } from 'node:stream';
import type { AdbStream } from './stream.js';

function waitDrain(socket: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/** Resolves when both the stream and the socket are closed. */
export function bridgeStreamAndSocket(stream: AdbStream, socket: Duplex): Promise<void> {
  const socketClosed = new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
  socket.on('error', () => {
    // A reset device socket ends the adb stream below ('close' follows).
  });

  // device socket -> host
  socket.on('data', (chunk: Buffer) => {
    socket.pause();
    stream.write(chunk).then(
      () => socket.resume(),
      () => socket.destroy(),
    );
  });
  socket.once('end', () => void stream.close());
  socket.once('close', () => void stream.close());

  // host -> device socket
  const toSocket = (async (): Promise<void> => {
    for (;;) {
      const chunk = await stream.read();
      if (chunk === null) break;
      if (socket.destroyed || socket.writableEnded) continue;
      if (!socket.write(chunk)) await waitDrain(socket);
    }
    if (!socket.destroyed) {
      if (socket.writableEnded) socket.destroy();
      else socket.end(() => socket.destroy());
    }
  })();

  return Promise.all([toSocket, stream.closed, socketClosed]).then(() => undefined);
}
