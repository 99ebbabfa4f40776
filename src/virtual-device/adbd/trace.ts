/**
 * Optional protocol trace on stderr, switched on with DEDUP_VERIFY_ADBD_TRACE=1 (2: every packet too). Off by default:
 * a virtual device is silent like a real one.
 */
const level = Number(process.env['DEDUP_VERIFY_ADBD_TRACE'] ?? '0');

export function trace(message: string): void {
  if (level >= 1) process.stderr.write(`[adbd] ${message}\n`);
}

/** Level 2 also traces every packet. */
export const tracePackets = level >= 2;
