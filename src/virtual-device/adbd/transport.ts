/**
 * One adb transport: a TCP connection from an adb server (`adb connect 127.0.0.1:PORT`).
 *
 * Handshake [SC29 adb/adb.cpp handle_new_connection L292-312]:
 * the host sends CNXN(version, maxdata, "host::features=…"); adbd without auth_required answers
 * at once with CNXN(A_VERSION, min(host maxdata, MAX_PAYLOAD), device banner), no AUTH.
 * Then streams: OPEN → OKAY(local, remote) or CLSE(0, remote); WRTE/OKAY; CLSE.
 * A bad magic or an oversize data_length drops this connection (check_header,
 * [SC29 adb/transport.cpp L1346-1360]); unknown commands and packets for unknown stream ids are
 * ignored ([SC29 adb/adb.cpp handle_packet L366-451]; adb/protocol.txt).
 * Every packet the device sends goes through a DelayedLink, which holds it for the transport's
 * latency (0 by default: written at once), as a slow device→host link would.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { buildDeviceBanner } from './banner.js';
import { DelayedLink } from './delayed-link.js';
import {
  A_VERSION,
  A_VERSION_MIN,
  A_VERSION_SKIP_CHECKSUM,
  AdbCommand,
  MAX_PAYLOAD,
  MAX_PAYLOAD_V1,
  PacketError,
  PacketReader,
  commandName,
  encodePacket,
  isAdbCommand,
  type AdbPacket,
} from './packet.js';
import { bridgeStreamAndSocket } from './socket-bridge.js';
import { AdbStream, type StreamTransport } from './stream.js';
import { trace, tracePackets } from './trace.js';

/** Runs one service on an opened stream; the stream is closed (flushed, CLSE) when it returns. */
export type StreamHandler = (stream: AdbStream) => Promise<void>;

/** What a transport needs from the daemon that accepted it. */
export interface TransportHost {
  /** Device properties (the banner is built from them at each CNXN). */
  readonly props: ReadonlyMap<string, string>;
  /** Maps an OPEN payload to a handler, or undefined for "unknown service / failed" (CLSE). */
  resolveService(name: string, transport: AdbTransport): Promise<StreamHandler | undefined>;
  transportOnline(transport: AdbTransport): void;
  transportClosed(transport: AdbTransport): void;
}

/** How long a dropped link waits before FIN, so the host reads the last reply first. */
const DROP_DELAY_MS = 100;
/** How long after FIN a dropped link waits for the host to close before destroying it. */
const DROP_DESTROY_MS = 2000;

function stripTrailingNuls(data: Buffer): Buffer {
  let end = data.length;
  while (end > 0 && data[end - 1] === 0) end--;
  return data.subarray(0, end);
}

export class AdbTransport implements StreamTransport {
  readonly id: number;
  /** adbd names TCP transports "host-<fd>" ([SC29 adb/transport_local.cpp L271]); this is "host-<id>". */
  readonly serial: string;
  private readonly socket: Socket;
  /** The device→host direction: every packet sent is written through it. */
  private readonly link: DelayedLink;
  private readonly host: TransportHost;
  private readonly reader = new PacketReader(MAX_PAYLOAD);
  private readonly streams = new Map<number, AdbStream>();
  private nextLocalId = 1;
  private protocolVersion = A_VERSION_MIN;
  private negotiatedMaxPayload = MAX_PAYLOAD_V1;
  /** Bumped at each CNXN: OPENs resolved for an older session are dropped. */
  private session = 0;
  private online = false;
  private closedFlag = false;
  private dropping = false;
  private readonly closedPromise: Promise<void>;

  /** `latencyMs`: how long each packet the device sends waits before it is written (see DelayedLink). */
  constructor(socket: Socket, host: TransportHost, id: number, latencyMs = 0) {
    this.socket = socket;
    this.link = new DelayedLink(socket, latencyMs);
    this.host = host;
    this.id = id;
    this.serial = `host-${id}`;
    // Without TCP_NODELAY sync request/reply pairs stall ~40 ms (measured against Debian adb
    // 29.0.6); adbkit's own device bridge sets it too.
    socket.setNoDelay(true);
    this.closedPromise = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.once('close', () => this.link.discard());
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => trace(`transport ${this.serial}: socket error ${e.message}`));
    socket.once('close', (hadError) => this.onClose(hadError));
    if (tracePackets) trace(`${this.serial}: accepted from ${socket.remoteAddress}:${socket.remotePort}`);
  }

  get isOnline(): boolean {
    return this.online && !this.closedFlag;
  }

  get maxPayload(): number {
    return this.negotiatedMaxPayload;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** The one-way delay of the packets this transport sends. */
  get latencyMs(): number {
    return this.link.latencyMs;
  }

  sendPacket(command: AdbCommand, arg0: number, arg1: number, data?: Uint8Array): void {
    if (this.closedFlag || this.socket.destroyed || this.socket.writableEnded || this.link.isEnded) return;
    // data_check is 0 once the peer speaks 0x01000001 [SC29 adb/transport.cpp L433-440]; the
    // CNXN carries the byte sum, which every receiver ignores anyway.
    const checksum = command === AdbCommand.Cnxn || this.protocolVersion < A_VERSION_SKIP_CHECKSUM;
    if (tracePackets) trace(`${this.serial} > ${commandName(command)} ${arg0} ${arg1} ${data?.length ?? 0}`);
    this.link.write(encodePacket(command, arg0, arg1, data, checksum));
  }

  releaseStream(localId: number): void {
    this.streams.delete(localId);
  }

  /**
   * Carries one device-side connection to the host as a device-opened stream
   * ([SC29 adb/adb_listeners.cpp listener_event_func → connect_to_remote]; reference §3.2):
   * OPEN(local, 0, "<remote>\0"), then OKAY(hostId, local) or CLSE(0, local) from the host.
   */
  openTunnel(remote: string, socket: Duplex): void {
    if (!this.isOnline || this.dropping) {
      socket.destroy();
      return;
    }
    const stream = this.createStream(0, remote);
    this.sendPacket(AdbCommand.Open, stream.localId, 0, Buffer.from(`${remote}\0`, 'utf8'));
    stream.waitOpened().then(
      () => bridgeStreamAndSocket(stream, socket),
      () => {
        // The host could not connect to its end: the device-side connection just closes.
        socket.destroy();
      },
    );
  }

  /**
   * Ends the link the way a restarting adbd does: no more packets are handled, the bytes
   * already queued go out, then FIN; the host reconnects ~250 ms later
   * ([SC29 adb/transport.cpp L120-121, L155-166]). On a delayed link the FIN follows the
   * packets sent before it, with the same delay.
   */
  drop(): Promise<void> {
    if (!this.dropping && !this.closedFlag) {
      this.dropping = true;
      const fin = setTimeout(() => {
        this.link.end();
        // The FIN itself leaves only after the link's delay.
        const kill = setTimeout(() => this.socket.destroy(), DROP_DESTROY_MS + this.link.latencyMs);
        kill.unref();
      }, DROP_DELAY_MS);
      fin.unref();
    }
    return this.closedPromise;
  }

  /** Closes the connection at once (server shutdown). */
  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closedFlag || this.dropping) return;
    try {
      for (const p of this.reader.push(chunk)) {
        if (this.closedFlag || this.dropping) return;
        this.handlePacket(p);
      }
    } catch (e) {
      // A bad header (or a fault while handling a packet) costs this connection only.
      const what = e instanceof PacketError ? e.message : `internal error: ${(e as Error).stack ?? String(e)}`;
      trace(`transport ${this.serial}: ${what}; dropping the connection`);
      this.socket.destroy();
    }
  }

  private handlePacket(p: AdbPacket): void {
    if (tracePackets) {
      const text = p.command === AdbCommand.Open || p.command === AdbCommand.Cnxn ? ` ${JSON.stringify(p.data.toString('latin1'))}` : '';
      trace(`${this.serial} < ${commandName(p.command)} ${p.arg0} ${p.arg1} ${p.data.length}${text}`);
    }
    if (!isAdbCommand(p.command)) {
      // adb 29 prints and ignores an unknown command [SC29 adb/adb.cpp L449-451].
      trace(`transport ${this.serial}: ignoring unknown command ${commandName(p.command)}`);
      return;
    }
    switch (p.command) {
      case AdbCommand.Cnxn:
        this.handleConnect(p);
        return;
      case AdbCommand.Auth:
      case AdbCommand.Sync:
      case AdbCommand.Stls:
        // No auth is required, so AUTH never starts; SYNC and STLS are never valid from a host.
        return;
      case AdbCommand.Open:
        if (!this.online) return;
        void this.handleOpen(p.arg0, p.arg1, p.data);
        return;
      case AdbCommand.Okay: {
        if (!this.online) return;
        const s = this.findStream(p.arg1, p.arg0, true);
        s?.handleOkay(p.arg0);
        return;
      }
      case AdbCommand.Wrte: {
        if (!this.online) return;
        const s = this.findStream(p.arg1, p.arg0, false);
        s?.handleWrite(p.data);
        return;
      }
      case AdbCommand.Clse: {
        if (!this.online) return;
        // CLSE(0, x) is "OPEN failed" and matches any peer id ([SC29 adb/sockets.cpp find_local_socket]).
        const s = this.streams.get(p.arg1);
        if (s !== undefined && (p.arg0 === 0 || p.arg0 === s.remoteId)) s.handlePeerClose();
        return;
      }
      default: {
        const unreachable: never = p.command;
        return unreachable;
      }
    }
  }

  /** A stream for (local, peer); a device-opened stream still waiting for OKAY matches any peer. */
  private findStream(localId: number, remoteId: number, okay: boolean): AdbStream | undefined {
    if (localId === 0 || remoteId === 0) return undefined;
    const s = this.streams.get(localId);
    if (s === undefined) return undefined;
    if (s.remoteId === remoteId || (okay && s.remoteId === 0)) return s;
    return undefined;
  }

  private handleConnect(p: AdbPacket): void {
    if (this.online) {
      // A CNXN on a live link resets it: every stream is gone (handle_new_connection starts with
      // handle_offline, which closes all the transport's sockets: [SC29 adb/adb.cpp]).
      for (const s of [...this.streams.values()]) s.destroy();
    }
    this.session++;
    // update_version [SC29 adb/transport.cpp L1020-1023].
    this.protocolVersion = Math.min(p.arg0 >>> 0, A_VERSION);
    this.negotiatedMaxPayload = Math.max(MAX_PAYLOAD_V1, Math.min(p.arg1 >>> 0, MAX_PAYLOAD));
    this.reader.setMaxDataLength(this.negotiatedMaxPayload);
    const banner = buildDeviceBanner(this.host.props);
    this.sendPacket(AdbCommand.Cnxn, A_VERSION, this.negotiatedMaxPayload, Buffer.from(banner, 'utf8'));
    const wasOnline = this.online;
    this.online = true;
    trace(`transport ${this.serial}: online (version 0x${this.protocolVersion.toString(16)}, max payload ${this.negotiatedMaxPayload})`);
    if (!wasOnline) this.host.transportOnline(this);
  }

  private async handleOpen(remoteId: number, arg1: number, data: Buffer): Promise<void> {
    if (remoteId === 0) return;
    if (arg1 !== 0) {
      // A receive window without delayed_ack negotiated: newer adbd answers CLSE(0, id)
      // ([MOD packages/modules/adb adb.cpp]); adb 29 never sends it.
      this.sendPacket(AdbCommand.Clse, 0, remoteId);
      return;
    }
    // The host appends one NUL; adbd strips trailing NULs [SC29 adb/adb.cpp L366-385].
    const name = stripTrailingNuls(data).toString('utf8');
    const session = this.session;
    let handler: StreamHandler | undefined;
    try {
      handler = await this.host.resolveService(name, this);
    } catch (e) {
      trace(`transport ${this.serial}: service "${name}" failed to start: ${(e as Error).message}`);
      handler = undefined;
    }
    if (this.closedFlag || this.dropping || session !== this.session) {
      // The link went away meanwhile: let the handler see a closed stream and clean up.
      if (handler !== undefined) {
        const orphan = new AdbStream(this, 0, 0, name);
        orphan.destroy();
        await this.runHandler(orphan, handler);
      }
      return;
    }
    if (handler === undefined) {
      trace(`transport ${this.serial}: unknown or failed service "${name}"`);
      this.sendPacket(AdbCommand.Clse, 0, remoteId);
      return;
    }
    const stream = this.createStream(remoteId, name);
    this.sendPacket(AdbCommand.Okay, stream.localId, remoteId);
    await this.runHandler(stream, handler);
  }

  private async runHandler(stream: AdbStream, handler: StreamHandler): Promise<void> {
    try {
      await handler(stream);
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'EPIPE') trace(`service "${stream.service}" failed: ${(e as Error).stack ?? String(e)}`);
    } finally {
      await stream.close();
    }
  }

  private createStream(remoteId: number, service: string): AdbStream {
    let id = this.nextLocalId;
    while (id === 0 || this.streams.has(id)) id = (id + 1) >>> 0;
    this.nextLocalId = (id + 1) >>> 0;
    const stream = new AdbStream(this, id, remoteId, service);
    this.streams.set(id, stream);
    return stream;
  }

  private onClose(hadError: boolean): void {
    if (this.closedFlag) return;
    if (hadError) trace(`transport ${this.serial}: closed on a socket error`);
    this.closedFlag = true;
    for (const s of [...this.streams.values()]) s.destroy();
    this.streams.clear();
    trace(`transport ${this.serial}: closed`);
    this.host.transportClosed(this);
  }
}
