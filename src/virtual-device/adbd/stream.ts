/**
 * One adb stream (an "asocket pair") on a transport, seen from the device.
 *
 * Flow control [SC29 adb/protocol.txt; adb/adb.cpp L387-447; adb/sockets.cpp L116-242]:
 * - output: a per-stream queue with exactly one WRTE in flight; the next WRTE goes only after
 *   the peer's OKAY; each WRTE carries at most the negotiated max payload (small writes are
 *   coalesced, as the host's local socket does);
 * - input: every WRTE from the peer is answered with OKAY once the service has taken it, so a
 *   service that does not read holds the peer back (the backpressure adbd gets from its fds);
 * - close: CLSE once the output queue has drained. When the service ended before the last WRTE
 *   went out, the CLSE follows that WRTE at once, without waiting for its OKAY: adbd reads its
 *   fd until EAGAIN or EOF, enqueues what it read as one WRTE and, when the same read loop met
 *   EOF, closes the socket right away, which sends CLSE (aosp-mirror/platform_system_core
 *   `adb/sockets.cpp` local_socket_flush_outgoing: `if ((s->fde->force_eof && !r) || is_eof)
 *   s->close(s)` after `s->peer->enqueue`; local_socket_close → remote_socket_shutdown sends
 *   A_CLSE). An end that comes while a WRTE waits for its OKAY is read after that OKAY
 *   (FDE_READ is off until local_socket_ready), so its CLSE goes then, alone. A CLSE from the
 *   peer closes both directions at once (there is no half-close at the message level); bytes it
 *   wrote before the CLSE are still delivered to the service.
 */
import { AdbCommand } from './packet.js';

/** What a stream needs from its transport. */
export interface StreamTransport {
  /** Largest WRTE payload the peer accepts (negotiated in CNXN). */
  readonly maxPayload: number;
  sendPacket(command: AdbCommand, arg0: number, arg1: number, data?: Uint8Array): void;
  /** The stream is finished: forget its id. */
  releaseStream(localId: number): void;
}

/** Bytes queued for output above which write() waits. */
const OUTPUT_HIGH_WATER = 2 * 1024 * 1024;

/** Rejected writes after the stream closed, like a write to a socket whose peer is gone. */
export function brokenPipe(): Error {
  return Object.assign(new Error('Broken pipe'), { code: 'EPIPE', errno: 32 });
}

interface Waiter {
  resolve(): void;
  reject(e: Error): void;
}

export class AdbStream {
  readonly localId: number;
  /** The peer's id; 0 while a device-opened stream waits for the host's OKAY. */
  private remote: number;
  /** The service string of the OPEN ("shell,v2,raw:id", or "tcp:8080" for a device-opened one). */
  readonly service: string;

  private readonly transport: StreamTransport;
  private readonly abort = new AbortController();

  private readonly outQueue: Buffer[] = [];
  private outBytes = 0;
  private inFlight = false;
  private readonly writeWaiters: Waiter[] = [];

  private readonly inbox: Buffer[] = [];
  private readonly readWaiters: ((chunk: Buffer | null) => void)[] = [];

  private closing = false;
  private closedFlag = false;
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;

  private openWaiter: { resolve(): void; reject(e: Error): void } | undefined;

  constructor(transport: StreamTransport, localId: number, remoteId: number, service: string) {
    this.transport = transport;
    this.localId = localId;
    this.remote = remoteId;
    this.service = service;
    this.closedPromise = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  get remoteId(): number {
    return this.remote;
  }

  /** Aborted when the stream closes, from either side. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  /** Resolves once the stream is closed (from either side, or with its transport). */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** Output bytes not yet sent (for leak checks and tests). */
  get queuedOutputBytes(): number {
    return this.outBytes;
  }

  /**
   * Queues bytes for the peer. Resolves when the queue is below its high-water mark; rejects
   * with EPIPE once the stream is closed (or closing).
   */
  write(...chunks: Uint8Array[]): Promise<void> {
    if (this.closing || this.closedFlag) return Promise.reject(brokenPipe());
    for (const c of chunks) {
      if (c.length === 0) continue;
      const b = Buffer.isBuffer(c) ? c : Buffer.from(c);
      this.outQueue.push(b);
      this.outBytes += b.length;
    }
    this.pump();
    if (this.outBytes <= OUTPUT_HIGH_WATER) return Promise.resolve();
    return new Promise((resolve, reject) => this.writeWaiters.push({ resolve, reject }));
  }

  /** The next chunk the peer wrote, or null at the end (the stream closed). */
  read(): Promise<Buffer | null> {
    const chunk = this.inbox.shift();
    if (chunk !== undefined) {
      this.acknowledge();
      return Promise.resolve(chunk);
    }
    if (this.closedFlag) return Promise.resolve(null);
    return new Promise((resolve) => this.readWaiters.push(resolve));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer, void, undefined> {
    for (;;) {
      const chunk = await this.read();
      if (chunk === null) return;
      yield chunk;
    }
  }

  /** Flushes the output queue, then sends CLSE. Resolves when the stream is closed. */
  close(): Promise<void> {
    if (!this.closedFlag && !this.closing) {
      this.closing = true;
      if (this.remote === 0) {
        // Never opened on the host side: nothing to flush and nobody to tell.
        this.finish();
      } else {
        this.pump();
      }
    }
    return this.closedPromise;
  }

  /** For a device-opened stream: resolves on the host's OKAY, rejects on its CLSE. */
  waitOpened(): Promise<void> {
    if (this.remote !== 0) return Promise.resolve();
    if (this.closedFlag) return Promise.reject(new Error('stream closed before it was opened'));
    return new Promise((resolve, reject) => {
      this.openWaiter = { resolve, reject };
    });
  }

  // ---- called by the transport ----

  /** OKAY from the peer: the answer to our OPEN, or the acknowledgement of our WRTE. */
  handleOkay(remoteId: number): void {
    if (this.closedFlag) return;
    if (this.remote === 0) {
      this.remote = remoteId;
      const w = this.openWaiter;
      this.openWaiter = undefined;
      w?.resolve();
      this.pump();
      return;
    }
    this.inFlight = false;
    this.pump();
  }

  /** WRTE from the peer. */
  handleWrite(data: Buffer): void {
    if (this.closedFlag || this.closing) return;
    const reader = this.readWaiters.shift();
    if (reader !== undefined) {
      this.acknowledge();
      reader(data);
      return;
    }
    this.inbox.push(data);
  }

  /**
   * CLSE from the peer: both directions end now; queued output is dropped, but what the peer
   * wrote before its CLSE is still handed to the service (read() returns it, then null), as
   * adbd's local socket writes its pending packets to the fd before closing it
   * ([SC29 adb/sockets.cpp local_socket_close]).
   */
  handlePeerClose(): void {
    if (this.closedFlag) return;
    const w = this.openWaiter;
    this.openWaiter = undefined;
    w?.reject(Object.assign(new Error('Connection refused'), { code: 'ECONNREFUSED', errno: 111 }));
    this.finish(true);
  }

  /** The transport went away. */
  destroy(): void {
    this.handlePeerClose();
  }

  private acknowledge(): void {
    if (!this.closedFlag && this.remote !== 0) this.transport.sendPacket(AdbCommand.Okay, this.localId, this.remote);
  }

  private pump(): void {
    if (this.closedFlag || this.inFlight || this.remote === 0) return;
    if (this.outBytes === 0) {
      if (this.closing) {
        this.transport.sendPacket(AdbCommand.Clse, this.localId, this.remote);
        this.finish();
      }
      return;
    }
    const max = this.transport.maxPayload;
    let payload: Buffer;
    const head = this.outQueue[0]!;
    if (head.length >= max) {
      payload = head.subarray(0, max);
      if (head.length === max) this.outQueue.shift();
      else this.outQueue[0] = head.subarray(max);
    } else {
      const parts: Buffer[] = [];
      let size = 0;
      while (this.outQueue.length > 0 && size < max) {
        const c = this.outQueue[0]!;
        const room = max - size;
        if (c.length <= room) {
          parts.push(c);
          size += c.length;
          this.outQueue.shift();
        } else {
          parts.push(c.subarray(0, room));
          this.outQueue[0] = c.subarray(room);
          size += room;
        }
      }
      payload = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    }
    this.outBytes -= payload.length;
    this.inFlight = true;
    this.transport.sendPacket(AdbCommand.Wrte, this.localId, this.remote, payload);
    while (this.writeWaiters.length > 0 && this.outBytes <= OUTPUT_HIGH_WATER) this.writeWaiters.shift()!.resolve();
    if (this.closing && this.outBytes === 0) {
      // The service had ended when this WRTE was formed: the same read met EOF (see above).
      this.transport.sendPacket(AdbCommand.Clse, this.localId, this.remote);
      this.finish();
    }
  }

  private finish(keepInbox = false): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.closing = true;
    this.outQueue.length = 0;
    this.outBytes = 0;
    if (!keepInbox) this.inbox.length = 0;
    for (const w of this.writeWaiters.splice(0)) w.reject(brokenPipe());
    for (const r of this.readWaiters.splice(0)) r(null);
    this.abort.abort();
    this.transport.releaseStream(this.localId);
    this.resolveClosed();
  }
}
