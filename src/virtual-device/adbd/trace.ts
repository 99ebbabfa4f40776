/**
 * Optional protocol trace on stderr, switched on with DEDUP_VERIFY_ADBD_TRACE=1. Off by default:
 * a virtual device is silent like a real one.
 */
const enabled = process.env['DEDUP_VERIFY_ADBD_TRACE'] === '1';

export function trace(message: string): void {
  if (enabled) process.stderr.write(`[adbd] ${message}\n`);
}
