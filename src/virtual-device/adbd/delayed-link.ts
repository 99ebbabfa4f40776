/**
 * The device→host direction of one transport, optionally slowed down like a slow one-way link
 * (`--latency MS`): every packet the device sends is written to the socket MS milliseconds after
 * it was sent, in the order it was sent. Each packet gets its own due time (send time + MS) in a
 * FIFO; one timer is armed for the packet at the head and, when it fires, writes every packet
 * that is due by then, then re-arms for the next one. As every packet waits the same MS, due
 * times never decrease along the queue: nothing overtakes anything, and a packet queued behind a
 * delayed one waits its own MS, not more.
 *
 * Only this direction is delayed: the host's packets reach adbd at once. A request/response
 * exchange (OPEN → OKAY, WRTE → OKAY, a sync request → its reply) therefore costs about MS more
 * than on the plain loopback, and a stream that waits for the host's OKAY before its next WRTE
 * pays about MS per WRTE. The end of the link (FIN after a restart) is delayed like a packet.
 *
 * With MS 0 a write is a plain socket write: no queue, no timer.
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** The largest delay accepted: a minute one way is already far slower than any real link. */
export const MAX_LATENCY_MS = 60_000;

/** A latency adbd accepts: a whole number of milliseconds from 0 to MAX_LATENCY_MS. */
export function isValidLatencyMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_LATENCY_MS;
}

interface Pending {
  /** performance.now() at or after which the packet is written. */
  readonly due: number;
  /** The encoded packet, or null for the end of the link (FIN). */
  readonly bytes: Buffer | null;
}

export class DelayedLink {
  private readonly socket: Socket;
  readonly latencyMs: number;
  private readonly queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(socket: Socket, latencyMs: number) {
    if (!isValidLatencyMs(latencyMs)) throw new RangeError(`latency takes a whole number of milliseconds from 0 to ${MAX_LATENCY_MS} (got ${String(latencyMs)})`);
    this.socket = socket;
    this.latencyMs = latencyMs;
  }

  /** Packets sent but not yet written to the socket. */
  get queuedPackets(): number {
    return this.queue.length;
  }

  /** True once end() was called: nothing more is accepted. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Sends one encoded packet: written now (latency 0) or once its due time has come. */
  write(bytes: Buffer): void {
    if (this.ended) return;
    if (this.latencyMs === 0) {
      this.socket.write(bytes);
      return;
    }
    this.enqueue({ due: performance.now() + this.latencyMs, bytes });
  }

  /** Ends the link (FIN) after every packet sent before this call. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.latencyMs === 0) {
      this.socket.end();
      return;
    }
    this.enqueue({ due: performance.now() + this.latencyMs, bytes: null });
  }

  /** The socket is gone: drops what was not written yet. */
  discard(): void {
    this.ended = true;
    this.queue.length = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private enqueue(p: Pending): void {
    this.queue.push(p);
    if (this.timer === undefined) this.arm();
  }

  private arm(): void {
    const head = this.queue[0];
    if (head === undefined) return;
    this.timer = setTimeout(() => this.flush(), Math.max(0, Math.ceil(head.due - performance.now())));
  }

  private flush(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.queue.length > 0 && this.queue[0]!.due <= now) {
      const p = this.queue.shift()!;
      if (this.socket.destroyed || this.socket.writableEnded) {
        this.queue.length = 0;
        return;
      }
      if (p.bytes === null) this.socket.end();
      else this.socket.write(p.bytes);
    }
    this.arm();
  }
}
