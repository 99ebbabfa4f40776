/**
 * `tcp:PORT` / `tcp:HOST:PORT` (adb forward, adbkit openTcp): adbd connects to the device's own
 * loopback port (socket_spec_connect, [SC29 adb/socket_spec.cpp]; only "" and "localhost" are
 * local hosts, anything else is refused: "adbd does not support arbitrary tcp connections").
 * A failed connect answers the OPEN with CLSE(0, id), and the adb server drops its client
 * ([SC29 adb/adb.cpp L375-383; adb/sockets.cpp L525-543]).
 */
import { parseTcpSpec } from '../../net/device-network.js';
import { bridgeStreamAndSocket } from '../socket-bridge.js';
import type { StreamHandler } from '../transport.js';
import type { ServiceContext } from './service-context.js';

export async function tcpService(spec: string, ctx: ServiceContext): Promise<StreamHandler | undefined> {
  let port: number;
  try {
    const parsed = parseTcpSpec(spec);
    if (parsed.host !== '' && parsed.host !== 'localhost') return undefined;
    port = parsed.port;
  } catch {
    return undefined;
  }
  let socket;
  try {
    socket = await ctx.device.network.connect(port);
  } catch {
    return undefined;
  }
  return (stream) => bridgeStreamAndSocket(stream, socket);
}
