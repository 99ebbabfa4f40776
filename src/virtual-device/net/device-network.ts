/**
 * The device's loopback network: ports that processes on the device listen on, and the
 * listeners adbd installs for `adb reverse`.
 *
 * Reverse rules follow adbd's listener list ([SC29 adb/adb_listeners.cpp; adb/daemon/services.cpp
 * reverse_service L66-80]): one list per device, each rule owned by the transport that installed
 * it; a device-side connection to the rule's port is carried to the host as a device-opened
 * stream to the rule's `<local>` spec on that transport; `killforward`/`killforward-all` act
 * on the whole list; a rule disappears when its transport disconnects.
 *
 * One deliberate difference: real adbd loses every rule when it restarts for `adb root`/`adb
 * unroot`. Here the rules of a transport dropped by such a restart are parked and adopted by
 * the next transport that comes online (the host reconnecting ~250 ms later), so a harness that
 * set up `adb reverse` before `adb root` keeps working. While parked, connections are refused,
 * as they would be while adbd restarts. A reboot drops the rules, as on a device.
 */
import type { Duplex } from 'node:stream';
import type { DeviceNetwork } from '../types.js';
import { createDuplexPair } from './duplex-pair.js';

/** A transport that can carry device-side connections to the host (AdbTransport). */
export interface ReverseTunnelOwner {
  /** The transport serial shown by `reverse:list-forward`. */
  readonly serial: string;
  /** Opens a device-initiated stream to `remote` and pumps `socket` through it. */
  openTunnel(remote: string, socket: Duplex): void;
}

export interface ReverseRule {
  /** Device side, e.g. "tcp:7000" (resolved if it was tcp:0). */
  readonly local: string;
  /** Host side as the user gave it, e.g. "tcp:16000"; sent verbatim in the OPEN. */
  readonly remote: string;
  /** The owning transport's serial, or "(reverse)" while parked. */
  readonly serial: string;
}

/** A failure with an errno-style code, as Node's net module reports them. */
export class NetError extends Error {
  readonly code: string;
  readonly errno: number;
  constructor(code: string, errno: number, message: string) {
    super(message);
    this.name = 'NetError';
    this.code = code;
    this.errno = errno;
  }
}

export function connectionRefused(): NetError {
  return new NetError('ECONNREFUSED', 111, 'Connection refused');
}

function addressInUse(): NetError {
  return new NetError('EADDRINUSE', 98, 'Address already in use');
}

/** A reverse request adbd answers with FAIL + this message (adb.cpp handle_forward_request). */
export class ReverseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReverseError';
  }
}

interface MutableRule {
  local: string;
  port: number | undefined;
  remote: string;
  owner: ReverseTunnelOwner | undefined;
}

/** First port handed out for tcp:0 (Linux's default ip_local_port_range starts at 32768). */
const EPHEMERAL_FIRST = 32768;
const EPHEMERAL_LAST = 60999;

/**
 * Parses "tcp:PORT" or "tcp:HOST:PORT" like parse_tcp_spec ([SC29 adb/socket_spec.cpp]).
 * Returns the port, or throws ReverseError with adbd's message.
 */
export function parseTcpSpec(spec: string): { host: string; port: number } {
  const fragments = spec.split(':');
  if (fragments.length === 1 || fragments.length > 3) throw new ReverseError(`invalid tcp specification: '${spec}'`);
  if (fragments[0] !== 'tcp') throw new ReverseError(`specification is not tcp: '${spec}'`);
  const portStr = fragments[fragments.length - 1]!;
  if (portStr === '' || portStr[0]! < '0' || portStr[0]! > '9') throw new ReverseError(`invalid port '${portStr}'`);
  if (!/^\d+$/.test(portStr)) throw new ReverseError(`trailing chars in port: '${portStr}'`);
  const port = Number(portStr);
  if (port > 65535) throw new ReverseError(`invalid port ${port}`);
  if (fragments.length === 3 && fragments[1] === '') throw new ReverseError(`empty host in '${spec}'`);
  return { host: fragments.length === 3 ? fragments[1]! : '', port };
}

const LOCAL_SOCKET_PREFIXES = ['local:', 'localreserved:', 'localabstract:', 'localfilesystem:'] as const;

export class VirtualNetwork implements DeviceNetwork {
  private readonly listeners = new Map<number, (socket: Duplex) => void>();
  private readonly rules: MutableRule[] = [];
  private openSockets = 0;

  /** Listens on the device's 127.0.0.1:port; port 0 picks a free one (returned as `port`). */
  listen(port: number, onConnection: (socket: Duplex) => void): { close(): void; port: number } {
    const bound = port === 0 ? this.freePort() : port;
    if (this.isPortTaken(bound)) throw addressInUse();
    this.listeners.set(bound, onConnection);
    let closed = false;
    return {
      port: bound,
      close: () => {
        if (closed) return;
        closed = true;
        if (this.listeners.get(bound) === onConnection) this.listeners.delete(bound);
      },
    };
  }

  /**
   * Connects from the device to 127.0.0.1:port: a device-local listener, else a reverse rule
   * (the connection is accepted by adbd's listener, then carried to the host; if the host cannot
   * connect its end, the connection is closed), else ECONNREFUSED.
   */
  connect(port: number): Promise<Duplex> {
    const listener = this.listeners.get(port);
    if (listener !== undefined) {
      const [client, server] = this.newPair();
      queueMicrotask(() => {
        try {
          listener(server);
        } catch {
          // A listener that throws resets the connection, as a crashing server process would.
          server.destroy();
        }
      });
      return Promise.resolve(client);
    }
    const rule = this.rules.find((r) => r.port === port);
    if (rule?.owner !== undefined) {
      const owner = rule.owner;
      const [app, adbdSide] = this.newPair();
      queueMicrotask(() => {
        try {
          owner.openTunnel(rule.remote, adbdSide);
        } catch {
          adbdSide.destroy();
        }
      });
      return Promise.resolve(app);
    }
    return Promise.reject(connectionRefused());
  }

  // ---- adb reverse (used by adbd's reverse: service) ----

  /**
   * install_listener ([SC29 adb/adb_listeners.cpp]): rebinding an existing local name moves it to
   * this owner and remote unless noRebind; tcp:0 picks a port and returns it.
   */
  addReverse(local: string, remote: string, owner: ReverseTunnelOwner, noRebind: boolean): { resolvedPort?: number } {
    const existing = this.rules.find((r) => r.local === local);
    if (existing !== undefined) {
      if (noRebind) throw new ReverseError('cannot rebind existing socket');
      existing.remote = remote;
      existing.owner = owner;
      return {};
    }
    if (local.startsWith('tcp:')) {
      let parsed: { host: string; port: number };
      try {
        parsed = parseTcpSpec(local);
      } catch (e) {
        throw new ReverseError(`cannot bind listener: ${(e as Error).message}`);
      }
      if (parsed.host !== '' && parsed.host !== 'localhost') {
        throw new ReverseError('cannot bind listener: listening on specified hostname currently unsupported');
      }
      const port = parsed.port === 0 ? this.freePort() : parsed.port;
      if (this.isPortTaken(port)) throw new ReverseError(`cannot bind listener: ${addressInUse().message}`);
      const name = parsed.port === 0 ? `tcp:${port}` : local;
      this.rules.push({ local: name, port, remote, owner });
      return parsed.port === 0 ? { resolvedPort: port } : {};
    }
    if (LOCAL_SOCKET_PREFIXES.some((p) => local.startsWith(p))) {
      // Kept and listed; only tcp ports are reachable through connect().
      this.rules.push({ local, port: undefined, remote, owner });
      return {};
    }
    throw new ReverseError(`cannot bind listener: unknown socket specification '${local}'`);
  }

  /** remove_listener: false when no rule has that local name. */
  removeReverse(local: string): boolean {
    const i = this.rules.findIndex((r) => r.local === local);
    if (i < 0) return false;
    this.rules.splice(i, 1);
    return true;
  }

  removeAllReverses(): void {
    this.rules.length = 0;
  }

  /** In install order, like format_listeners. */
  listReverses(): ReverseRule[] {
    return this.rules.map((r) => ({ local: r.local, remote: r.remote, serial: r.owner?.serial ?? '(reverse)' }));
  }

  /** The owner's transport disconnected: its rules go away (listener_disconnect). */
  releaseReverses(owner: ReverseTunnelOwner): void {
    for (let i = this.rules.length - 1; i >= 0; i--) if (this.rules[i]!.owner === owner) this.rules.splice(i, 1);
  }

  /** adbd restarts (root/unroot): keep the owner's rules for the host's reconnect. */
  parkReverses(owner: ReverseTunnelOwner): void {
    for (const r of this.rules) if (r.owner === owner) r.owner = undefined;
  }

  /** A transport came online: it takes over parked rules. */
  adoptParkedReverses(owner: ReverseTunnelOwner): void {
    for (const r of this.rules) if (r.owner === undefined) r.owner = owner;
  }

  /** Drops parked rules (a reboot, or nobody reconnected). */
  dropParkedReverses(): void {
    for (let i = this.rules.length - 1; i >= 0; i--) if (this.rules[i]!.owner === undefined) this.rules.splice(i, 1);
  }

  /** Open handles, for leak checks. `sockets` counts in-memory socket ends not yet destroyed. */
  stats(): { listeners: number; reverseRules: number; sockets: number } {
    return { listeners: this.listeners.size, reverseRules: this.rules.length, sockets: this.openSockets };
  }

  private newPair(): [Duplex, Duplex] {
    this.openSockets += 2;
    return createDuplexPair(() => {
      this.openSockets--;
    });
  }

  private isPortTaken(port: number): boolean {
    return this.listeners.has(port) || this.rules.some((r) => r.port === port);
  }

  private freePort(): number {
    for (let p = EPHEMERAL_FIRST; p <= EPHEMERAL_LAST; p++) if (!this.isPortTaken(p)) return p;
    throw addressInUse();
  }
}
