/**
 * `reverse:<request>` (adb reverse): adbd answers through the same handle_forward_request as the
 * host, writing into the stream with no extra leading OKAY, then closes it
 * ([SC29 adb/daemon/services.cpp reverse_service L66-80; adb/adb.cpp handle_forward_request
 * L915-1020]):
 *   forward:[norebind:]<local>;<remote>  → "OKAY" (+ hex4 port when <local> was tcp:0) | FAIL
 *   killforward:<local>                  → "OKAY" | FAIL "listener '<local>' not found"
 *   killforward-all                      → "OKAY"
 *   list-forward                         → hex4 + "<serial> <local> <remote>\n"…
 *   anything else                        → FAIL "not a reverse forwarding command"
 */
import { ReverseError } from '../../net/device-network.js';
import type { StreamHandler } from '../transport.js';
import type { ServiceContext } from './service-context.js';

/** SendProtocolString: 4 lowercase hex digits of the length, then the bytes ([SC29 adb/adb_io.cpp]). */
export function encodeProtocolString(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'latin1'), body]);
}

const OKAY = Buffer.from('OKAY', 'latin1');

/** SendFail: "FAIL" + protocol string. */
export function encodeFail(message: string): Buffer {
  return Buffer.concat([Buffer.from('FAIL', 'latin1'), encodeProtocolString(message)]);
}

/** The reply bytes for one reverse request. */
export function handleReverseRequest(request: string, ctx: ServiceContext): Buffer {
  const network = ctx.device.network;
  if (request === 'list-forward') {
    // format_listeners: "<serial> <local> <remote>\n" per rule ([SC29 adb/adb_listeners.cpp]).
    const text = network
      .listReverses()
      .map((r) => `${r.serial} ${r.local} ${r.remote}\n`)
      .join('');
    return encodeProtocolString(text);
  }
  if (request === 'killforward-all') {
    network.removeAllReverses();
    return OKAY;
  }
  if (request.startsWith('forward:') || request.startsWith('killforward:')) {
    const kill = request.startsWith('killforward:');
    let rest = kill ? request.slice('killforward:'.length) : request.slice('forward:'.length);
    let noRebind = false;
    if (!kill && rest.startsWith('norebind:')) {
      noRebind = true;
      rest = rest.slice('norebind:'.length);
    }
    const pieces = rest.split(';');
    if (kill) {
      if (pieces.length !== 1 || pieces[0] === '') return encodeFail(`bad killforward: ${rest}`);
      return network.removeReverse(pieces[0]!) ? OKAY : encodeFail(`listener '${rest}' not found`);
    }
    if (pieces.length !== 2 || pieces[0] === '' || pieces[1] === '' || pieces[1]!.startsWith('*')) {
      return encodeFail(`bad forward: ${rest}`);
    }
    try {
      const { resolvedPort } = network.addReverse(pieces[0]!, pieces[1]!, ctx.transport, noRebind);
      return resolvedPort === undefined ? OKAY : Buffer.concat([OKAY, encodeProtocolString(String(resolvedPort))]);
    } catch (e) {
      if (e instanceof ReverseError) return encodeFail(e.message);
      throw e;
    }
  }
  return encodeFail('not a reverse forwarding command');
}

export function reverseService(request: string, ctx: ServiceContext): StreamHandler {
  return async (stream) => {
    await stream.write(handleReverseRequest(request, ctx));
  };
}
