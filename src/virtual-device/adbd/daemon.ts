/**
 * adbd for one virtual device: accepts TCP connections (one AdbTransport each), routes OPENs to
 * services, and simulates adbd restarts (root:, unroot:) and reboots by dropping every link.
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { AdbdDevice } from './adbd-device.js';
import { MAX_LATENCY_MS, isValidLatencyMs } from './delayed-link.js';
import { resolveService } from './services/index.js';
import { RestartKind, type ServiceContext } from './services/service-context.js';
import { AdbTransport, type StreamHandler, type TransportHost } from './transport.js';

export interface AdbDaemonOptions {
  /** Called after a restart was decided (before the links drop), e.g. to reset device state on reboot. */
  onRestart?: (kind: RestartKind) => void;
  /**
   * One-way delay, in whole milliseconds from 0 to 60000, of every packet the device sends
   * (see DelayedLink); default 0, no delay.
   */
  latencyMs?: number;
}

/** Events: 'online' (transport) after a CNXN, 'closed' (transport) when a link is gone. */
export class AdbDaemon extends EventEmitter implements TransportHost {
  readonly device: AdbdDevice;
  private readonly transports = new Set<AdbTransport>();
  private nextTransportId = 1;
  private readonly options: AdbDaemonOptions;
  private closing = false;

  constructor(device: AdbdDevice, options: AdbDaemonOptions = {}) {
    super();
    this.device = device;
    if (options.latencyMs !== undefined && !isValidLatencyMs(options.latencyMs)) {
      throw new RangeError(`latencyMs takes a whole number of milliseconds from 0 to ${MAX_LATENCY_MS} (got ${String(options.latencyMs)})`);
    }
    this.options = options;
  }

  /** The one-way delay of every packet the device sends, in milliseconds. */
  get latencyMs(): number {
    return this.options.latencyMs ?? 0;
  }

  get props(): ReadonlyMap<string, string> {
    return this.device.props;
  }

  /** Takes over one accepted TCP connection. */
  handleConnection(socket: Socket): AdbTransport | undefined {
    if (this.closing) {
      socket.destroy();
      return undefined;
    }
    const transport = new AdbTransport(socket, this, this.nextTransportId++, this.latencyMs);
    this.transports.add(transport);
    return transport;
  }

  resolveService(name: string, transport: AdbTransport): Promise<StreamHandler | undefined> {
    const ctx: ServiceContext = {
      device: this.device,
      transport,
      restart: (kind) => this.restart(kind),
    };
    return resolveService(name, ctx);
  }

  transportOnline(transport: AdbTransport): void {
    this.device.network.adoptParkedReverses(transport);
    this.emit('online', transport);
  }

  transportClosed(transport: AdbTransport): void {
    this.transports.delete(transport);
    this.device.network.releaseReverses(transport);
    this.emit('closed', transport);
  }

  /** Resolves once no link is open (at once if none is). */
  whenIdle(): Promise<void> {
    if (this.transports.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.transports.size > 0) return;
        this.off('closed', check);
        resolve();
      };
      this.on('closed', check);
    });
  }

  /** Resolves when a link comes online (the next CNXN). */
  nextOnline(): Promise<AdbTransport> {
    return new Promise((resolve) => this.once('online', resolve));
  }

  /**
   * adbd restarts (root/unroot) or the device reboots: every link drops after its queued
   * replies. Reverse rules survive a root/unroot restart for the reconnecting host (see
   * net/device-network.ts); a reboot drops them and leaves adbd unrooted.
   */
  restart(kind: RestartKind): void {
    switch (kind) {
      case RestartKind.Root:
        this.device.adbdIsRoot = true;
        for (const t of this.transports) this.device.network.parkReverses(t);
        break;
      case RestartKind.Unroot:
        this.device.adbdIsRoot = false;
        for (const t of this.transports) this.device.network.parkReverses(t);
        break;
      case RestartKind.Reboot:
        this.device.adbdIsRoot = false;
        this.device.props.delete('service.adb.root');
        this.device.network.removeAllReverses();
        break;
      default: {
        const unreachable: never = kind;
        return unreachable;
      }
    }
    this.options.onRestart?.(kind);
    for (const t of this.transports) void t.drop();
  }

  /** Open links and streams, for leak checks. */
  stats(): { transports: number; streams: number } {
    let streams = 0;
    for (const t of this.transports) streams += t.streamCount;
    return { transports: this.transports.size, streams };
  }

  /** Closes every link at once and refuses new ones. */
  async close(): Promise<void> {
    this.closing = true;
    const all = [...this.transports];
    for (const t of all) t.destroy();
    await Promise.all(all.map((t) => t.closed));
  }
}
