/**
 * `reboot:[target]` (adb reboot, adbkit reboot()): adbd runs `/system/bin/reboot <target>`
 * ([SC29 adb/daemon/services.cpp reboot_device L144-162]), which prints nothing and takes adbd
 * down. Here: OKAY, CLSE, then every TCP link drops; the host reconnects (~250 ms,
 * [SC29 adb/transport.cpp L120-121]) to a device whose adbd runs unrooted again.
 */
import type { StreamHandler } from '../transport.js';
import { RestartKind, type ServiceContext } from './service-context.js';

export function rebootService(ctx: ServiceContext): StreamHandler {
  return async (stream) => {
    await stream.close();
    ctx.restart(RestartKind.Reboot);
  };
}
