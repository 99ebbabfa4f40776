/**
 * Virtual devices in the test process: start them on free ports, stop exactly those; and a raw
 * adb host connection for specs that must see (or break) the wire protocol itself.
 */
import net from 'node:net';
import { AdbCommand, PacketReader, encodePacket, type AdbPacket } from '../../src/virtual-device/adbd/packet.js';
import { startVirtualDevice, startVirtualDevices, type RunningVirtualDevice, type StartVirtualDeviceOptions } from '../../src/virtual-device/server.js';

export type { RunningVirtualDevice };

export interface TestDevices {
  start(options?: StartVirtualDeviceOptions): Promise<RunningVirtualDevice>;
  startMany(count: number, options?: StartVirtualDeviceOptions): Promise<RunningVirtualDevice[]>;
  /** Stops every device this helper started. */
  stopAll(): Promise<void>;
}

export function testDevices(): TestDevices {
  const running: RunningVirtualDevice[] = [];
  return {
    start: async (options = {}) => {
      const d = await startVirtualDevice({ port: 0, ...options });
      running.push(d);
      return d;
    },
    startMany: async (count, options = {}) => {
      const ds = await startVirtualDevices({ port: 0, ...options, count });
      running.push(...ds);
      return ds;
    },
    stopAll: async () => {
      const all = running.splice(0);
      await Promise.all(all.map((d) => d.close()));
    },
  };
}

/** The host CNXN payload Debian adb 29.0.6 sends, as seen on the wire. */
/**
 * Records the name of every service the host opens on `dev` (one OPEN: one adb round trip)
 * until `stop()`, which puts the daemon's own resolver back.
 */
export function watchServices(dev: RunningVirtualDevice): { readonly opened: string[]; stop(): void } {
  const opened: string[] = [];
  const daemon = dev.daemon;
  const resolve = daemon.resolveService.bind(daemon);
  daemon.resolveService = (name, transport) => {
    opened.push(name);
    return resolve(name, transport);
  };
  return { opened, stop: () => void (daemon.resolveService = resolve) };
}

export const HOST_BANNER = 'host::features=remount_shell,abb_exec,abb,apex,fixed_push_mkdir,ls_v2,stat_v2,fixed_push_symlink_timestamp,cmd,shell_v2';

/**
 * One TCP connection speaking the host side of the adb protocol by hand, so a spec can send
 * exactly the packets it wants and see exactly what the device answers.
 */
export class RawAdbHost {
  private readonly reader = new PacketReader(16 * 1024 * 1024);
  private readonly packets: AdbPacket[] = [];
  private waiters: (() => void)[] = [];
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      for (const p of this.reader.push(chunk)) this.packets.push(p);
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.ended = true;
        this.wake();
        resolve();
      });
    });
    socket.on('error', () => {
      // 'close' follows
    });
  }

  static connect(port: number): Promise<RawAdbHost> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.off('error', reject);
        resolve(new RawAdbHost(socket));
      });
      socket.once('error', reject);
    });
  }

  /** CNXN(0x01000001, maxPayload, host banner) and the device's CNXN reply. */
  async handshake(maxPayload = 0x100000): Promise<AdbPacket> {
    this.send(AdbCommand.Cnxn, 0x01000001, maxPayload, Buffer.from(HOST_BANNER));
    return this.expect(AdbCommand.Cnxn);
  }

  send(command: number, arg0: number, arg1: number, data: Uint8Array = Buffer.alloc(0)): void {
    this.socket.write(encodePacket(command, arg0, arg1, data, true));
  }

  sendRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next packet from the device; rejects if the connection closes or `timeoutMs` passes. */
  async next(timeoutMs = 5000): Promise<AdbPacket> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = this.packets.shift();
      if (p !== undefined) return p;
      if (this.ended) throw new Error('connection closed by the device');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no packet within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async expect(command: number, timeoutMs = 5000): Promise<AdbPacket> {
    const p = await this.next(timeoutMs);
    if (p.command !== command) {
      throw new Error(`expected ${Buffer.from(new Uint32Array([command]).buffer).toString('latin1')}, got ${Buffer.from(new Uint32Array([p.command]).buffer).toString('latin1')}`);
    }
    return p;
  }

  /**
   * Opens a service and reads it to the end, acknowledging every WRTE; returns the bytes and
   * whether the device answered the OPEN with OKAY.
   */
  async runService(localId: number, service: string, input?: Buffer): Promise<{ opened: boolean; data: Buffer }> {
    this.send(AdbCommand.Open, localId, 0, Buffer.from(`${service}\0`));
    const first = await this.next();
    if (first.command === AdbCommand.Clse) return { opened: false, data: Buffer.alloc(0) };
    if (first.command !== AdbCommand.Okay || first.arg1 !== localId) throw new Error('unexpected reply to OPEN');
    const remoteId = first.arg0;
    if (input !== undefined) this.send(AdbCommand.Wrte, localId, remoteId, input);
    const chunks: Buffer[] = [];
    for (;;) {
      const p = await this.next();
      if (p.arg1 !== localId) continue;
      if (p.command === AdbCommand.Wrte) {
        chunks.push(p.data);
        this.send(AdbCommand.Okay, localId, remoteId);
      } else if (p.command === AdbCommand.Clse) {
        return { opened: true, data: Buffer.concat(chunks) };
      }
    }
  }

  /** True if the device ends the connection within `timeoutMs`. */
  async isClosedWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.closed.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return result;
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }
}
