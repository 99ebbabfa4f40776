/**
 * The device a one-device command (init, capture) works on: the one named by --device, else
 * the only device online; a one-line error naming the fix otherwise.
 */
import { DedupVerifyError, ErrorCode, UsageError } from '../errors.js';
import { createAdbClient, listDevices, probeAdbServer } from '../device/adb-server.js';

export async function chooseDevice(opts: Record<string, unknown>, endpoint: { host: string; port: number }): Promise<string> {
  if ((await probeAdbServer(endpoint)) === null) {
    throw new DedupVerifyError(
      ErrorCode.AdbServer,
      `No adb server answers on ${endpoint.host}:${endpoint.port}. Start it with \`adb -P ${endpoint.port} start-server\` (and start the emulator), or pass --adb-port.`,
    );
  }
  const online = (await listDevices(createAdbClient(endpoint), endpoint)).filter((d) => d.state === 'device').map((d) => d.serial);
  const wanted = typeof opts['device'] === 'string' ? opts['device'] : undefined;
  if (wanted !== undefined) {
    if (online.includes(wanted)) return wanted;
    throw new DedupVerifyError(
      ErrorCode.DeviceNotFound,
      `No device "${wanted}" online on the adb server ${endpoint.host}:${endpoint.port} (online: ${online.join(', ') || 'none'}). Check \`adb devices\`; for a TCP device run \`adb connect ${wanted}\` first.`,
    );
  }
  if (online.length === 1 && online[0] !== undefined) return online[0];
  if (online.length === 0) {
    throw new DedupVerifyError(
      ErrorCode.DeviceNotFound,
      `No device is online on the adb server ${endpoint.host}:${endpoint.port}. Start the emulator (or plug in the phone) and check \`adb devices\`.`,
    );
  }
  throw new UsageError(`Several devices are online (${online.join(', ')}): pick one with --device SERIAL.`);
}
