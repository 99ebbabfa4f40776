/**
 * Runs virtual devices on 127.0.0.1 TCP ports, each reachable with `adb connect 127.0.0.1:PORT`
 * (the transport serial the adb server shows is that address, [SC29 adb/socket_spec.cpp L191-219]).
 */
import net from 'node:net';
import { AdbDaemon } from './adbd/daemon.js';
import { MAX_LATENCY_MS, isValidLatencyMs } from './adbd/delayed-link.js';
import { VirtualDevice, type VirtualDeviceOptions } from './device.js';
import { installAndroidModel } from './system/index.js';

export interface StartVirtualDeviceOptions extends VirtualDeviceOptions {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /**
   * Delays every packet the device sends by this many milliseconds (a whole number from 0 to
   * 60000), in order, as a slow device→host link would; the host's packets are not delayed, so
   * each request/response costs about this much more. Default 0: no delay.
   */
  latencyMs?: number;
}

export interface RunningVirtualDevice {
  readonly port: number;
  /** The adb serial: "127.0.0.1:PORT". */
  readonly serial: string;
  readonly device: VirtualDevice;
  readonly daemon: AdbDaemon;
  /** Ends every connection, stops listening and disposes the device (its temp directory). */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen({ host: HOST, port, exclusive: true }, () => {
      server.off('error', onError);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error(`unexpected listen address ${String(address)}`));
      else resolve(address.port);
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function startVirtualDevice(options: StartVirtualDeviceOptions = {}): Promise<RunningVirtualDevice> {
  const { port: requested = 0, latencyMs = 0, ...deviceOptions } = options;
  // Checked before anything is started, so a bad value leaves nothing behind.
  if (!isValidLatencyMs(latencyMs)) throw new RangeError(`latencyMs takes a whole number of milliseconds from 0 to ${MAX_LATENCY_MS} (got ${String(latencyMs)})`);
  // Connections that arrive while the device is still being created wait here.
  const state: { daemon?: AdbDaemon } = {};
  const early: net.Socket[] = [];
  const server = net.createServer({ noDelay: true }, (socket) => {
    if (state.daemon === undefined) early.push(socket);
    else state.daemon.handleConnection(socket);
  });
  const port = await listen(server, requested);
  let device: VirtualDevice;
  try {
    device = await VirtualDevice.create({ serialHint: `virtual-${port}`, ...deviceOptions }, [installAndroidModel]);
  } catch (e) {
    for (const s of early) s.destroy();
    await closeServer(server);
    throw e;
  }
  const ready = new AdbDaemon(device, { latencyMs });
  state.daemon = ready;
  for (const s of early.splice(0)) ready.handleConnection(s);

  let closing: Promise<void> | undefined;
  return {
    port,
    serial: `${HOST}:${port}`,
    device,
    daemon: ready,
    close: () => {
      closing ??= (async () => {
        const stopped = closeServer(server);
        await ready.close();
        await stopped;
        await device.dispose();
      })();
      return closing;
    },
  };
}

export interface StartVirtualDevicesOptions extends StartVirtualDeviceOptions {
  /** Number of devices, on consecutive ports from `port` (default 1). */
  count?: number;
}

/** How often a free block of consecutive ports is looked for when port is 0. */
const PORT_BLOCK_ATTEMPTS = 20;

/**
 * Starts `count` devices on consecutive ports. With port 0 a block of free consecutive ports is
 * found; with an explicit port every port of the block must be free (else EADDRINUSE).
 */
export async function startVirtualDevices(options: StartVirtualDevicesOptions = {}): Promise<RunningVirtualDevice[]> {
  const { count = 1, port = 0, ...rest } = options;
  if (count < 1) return [];
  const attempts = port === 0 ? PORT_BLOCK_ATTEMPTS : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const started: RunningVirtualDevice[] = [];
    try {
      const first = await startVirtualDevice({ ...rest, port, ...(rest.serialHint === undefined ? {} : { serialHint: `${rest.serialHint}-1` }) });
      started.push(first);
      if (first.port + count - 1 > 65535) {
        throw Object.assign(new Error(`no room for ${count} consecutive ports after ${first.port}`), { code: 'EADDRINUSE' });
      }
      for (let i = 1; i < count; i++) {
        started.push(
          await startVirtualDevice({ ...rest, port: first.port + i, ...(rest.serialHint === undefined ? {} : { serialHint: `${rest.serialHint}-${i + 1}` }) }),
        );
      }
      return started;
    } catch (e) {
      lastError = e;
      await Promise.all(started.map((d) => d.close()));
      if ((e as { code?: unknown }).code !== 'EADDRINUSE') throw e;
    }
  }
  throw lastError;
}
