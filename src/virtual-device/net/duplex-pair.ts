/**
 * Two connected in-memory sockets: what one side writes the other reads, with backpressure (a
 * write completes once the other side has room), end() as a half-close (the other side reads
 * EOF), and destroy() as a reset (the other side reads EOF; its writes fail with EPIPE).
 * Node 20 has no stream.duplexPair (added in Node 22.6).
 */
import { Duplex } from 'node:stream';

function brokenPipe(): Error {
  return Object.assign(new Error('Broken pipe'), { code: 'EPIPE', errno: 32 });
}

class PairSocket extends Duplex {
  peer: PairSocket | undefined;
  /** A write of ours the peer's readable had no room for; completed when the peer reads. */
  private held: ((error?: Error | null) => void) | undefined;
  private readonly onDestroyed: () => void;

  constructor(onDestroyed: () => void) {
    super({ allowHalfOpen: true });
    this.onDestroyed = onDestroyed;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (peer === undefined || peer.destroyed || peer.readableEnded || peer.pushedEof) {
      callback(brokenPipe());
      return;
    }
    if (peer.push(chunk)) callback();
    else this.held = callback;
  }

  override _read(): void {
    // Our reader wants more: let the peer's held write complete.
    const peer = this.peer;
    const held = peer?.held;
    if (peer !== undefined && held !== undefined) {
      peer.held = undefined;
      held();
    }
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer?.endReadable();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const held = this.held;
    this.held = undefined;
    held?.(brokenPipe());
    const peer = this.peer;
    if (peer !== undefined) {
      peer.endReadable();
      const peerHeld = peer.held;
      peer.held = undefined;
      peerHeld?.(brokenPipe());
    }
    this.onDestroyed();
    callback(error);
  }

  pushedEof = false;

  endReadable(): void {
    if (this.pushedEof || this.destroyed) return;
    this.pushedEof = true;
    this.push(null);
  }
}

/** Returns [a, b]; `onClosed` runs once per side when it is destroyed (for handle counting). */
export function createDuplexPair(onClosed: () => void = () => {}): [Duplex, Duplex] {
  const a = new PairSocket(onClosed);
  const b = new PairSocket(onClosed);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
