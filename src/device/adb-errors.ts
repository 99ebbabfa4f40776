/**
 * Where adb and adbkit failures become DedupVerifyErrors (the edge: nothing past src/device
 * sees an adbkit error). The adb server answers a request it cannot serve with FAIL + message
 * (smart sockets: platform-tools-29.0.6 `adb/protocol.txt`, `adb/sockets.cpp` smart_socket_enqueue
 * L719-880): `closed` when the device refused to open a service
 * (platform-tools-29.0.6 `adb/sockets.cpp` L525-543), `device offline …` for a transport that is
 * not online; for an unknown serial or an unauthorized device the texts contain "not found" /
 * "unauthorized" (`adb/transport.cpp` acquire_one_transport; matched by substring because the
 * exact wording has not been confirmed from source).
 */
import { DedupVerifyError, DeviceCommandError, ErrorCode } from '../errors.js';

export interface AdbEndpoint {
  readonly host: string;
  readonly port: number;
}

/** The adb server cannot be reached at all. */
export function adbServerError(endpoint: AdbEndpoint, cause: unknown): DedupVerifyError {
  return new DedupVerifyError(
    ErrorCode.AdbServer,
    `No adb server on ${endpoint.host}:${endpoint.port} (${describeUnreachable(cause)}). ` +
      `Start one with \`adb -P ${endpoint.port} start-server\`, or point --adb-host/--adb-port at a running one.`,
    { cause },
  );
}

export function deviceNotFoundError(serial: string, connected: readonly string[], cause?: unknown): DedupVerifyError {
  const list = connected.length === 0 ? 'none' : connected.join(', ');
  return new DedupVerifyError(
    ErrorCode.DeviceNotFound,
    `No device "${serial}" (connected: ${list}). Is the emulator running? Try \`adb devices\`.`,
    { cause },
  );
}

export function deviceGoneError(serial: string, during: string, cause?: unknown): DedupVerifyError {
  return new DedupVerifyError(
    ErrorCode.DeviceGone,
    `Lost device "${serial}" during ${during} (${errorText(cause)}). ` +
      'Check that it is still listed as "device" by `adb devices`, then run again.',
    { cause },
  );
}

/** A short reason for an unreachable server (adbkit's failed auto-start shows up as ENOENT). */
function describeUnreachable(cause: unknown): string {
  const code = errorCode(cause);
  if (code === 'ECONNREFUSED' || code === 'ENOENT') return 'connection refused';
  if (code === 'EHOSTUNREACH' || code === 'ENOTFOUND') return `host unreachable: ${errorText(cause)}`;
  return errorText(cause);
}

/** True for socket-level failures that mean the adb server is not there. */
export function isServerUnreachable(e: unknown): boolean {
  const code = errorCode(e);
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENOTFOUND' || code === 'ENOENT' || code === 'EACCES';
}

/** True for failures of an established connection (device or server went away mid-command). */
export function isConnectionLost(e: unknown): boolean {
  const code = errorCode(e);
  if (code === 'ECONNRESET' || code === 'EPIPE') return true;
  return e instanceof Error && e.name === 'PrematureEOFError';
}

/** The text of an adb server FAIL reply, when `e` is adbkit's FailError. */
export function failReplyText(e: unknown): string | undefined {
  return e instanceof Error && e.name === 'FailError' ? e.message.replace(/^Failure: '(.*)'$/s, '$1') : undefined;
}

export type TransportFailure = 'not-found' | 'offline' | 'unauthorized' | 'refused' | 'other';

/** Classifies an adb server FAIL text for `host:transport:` and service requests. */
export function classifyFailReply(text: string): TransportFailure {
  if (/not found|no devices/i.test(text)) return 'not-found';
  if (/offline/i.test(text)) return 'offline';
  if (/unauthorized/i.test(text)) return 'unauthorized';
  if (/^closed$/i.test(text.trim())) return 'refused';
  return 'other';
}

/**
 * Maps a failure of opening `service` on `serial` to a DedupVerifyError. `listConnected` is
 * only called for "not found", to name what is connected instead.
 */
export async function mapOpenFailure(
  e: unknown,
  context: { endpoint: AdbEndpoint; serial: string; service: string; listConnected: () => Promise<string[]> },
): Promise<Error> {
  if (e instanceof DedupVerifyError) return e;
  if (isServerUnreachable(e)) return adbServerError(context.endpoint, e);
  const reply = failReplyText(e);
  if (reply !== undefined) {
    const kind = classifyFailReply(reply);
    switch (kind) {
      case 'not-found': {
        const connected = await context.listConnected().catch(() => []);
        return deviceNotFoundError(context.serial, connected, e);
      }
      case 'offline':
        return new DedupVerifyError(
          ErrorCode.DeviceGone,
          `Device "${context.serial}" is offline. Wait until \`adb devices\` lists it as "device" (restart the emulator if it stays offline).`,
          { cause: e },
        );
      case 'unauthorized':
        return new DedupVerifyError(
          ErrorCode.DeviceNotFound,
          `Device "${context.serial}" is unauthorized: accept the "Allow USB debugging" prompt on the device, then run again.`,
          { cause: e },
        );
      case 'refused':
        return new DeviceCommandError(
          `Device "${context.serial}" refused the adb service "${context.service}" (the adb server answered "closed").`,
          { command: context.service, stderr: reply },
          { cause: e },
        );
      case 'other':
        return new DeviceCommandError(
          `adb could not open "${context.service}" on "${context.serial}": ${reply}`,
          { command: context.service, stderr: reply },
          { cause: e },
        );
      default: {
        const unreachable: never = kind;
        return unreachable;
      }
    }
  }
  if (isConnectionLost(e)) return deviceGoneError(context.serial, `"${context.service}"`, e);
  return new DedupVerifyError(
    ErrorCode.Internal,
    `Unexpected failure opening "${context.service}" on "${context.serial}": ${errorText(e)}`,
    { cause: e },
  );
}

export function errorCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = e.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
