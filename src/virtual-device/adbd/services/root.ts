/**
 * `root:` and `unroot:` ([SC29 adb/daemon/restart_service.cpp]):
 *   already root                → "adbd is already running as root\n"
 *   not debuggable (user build) → "adbd cannot run as root in production builds\n"
 *   otherwise                   → set service.adb.root=1, "restarting adbd as root\n", restart
 *   unroot, not root            → "adbd not running as root\n"
 *   unroot, root                → set service.adb.root=0, "restarting adbd as non root\n", restart
 * The restart drops the TCP link; the host reconnects and finds adbd as root. The adb CLI waits
 * for that when the reply contains "restarting" ([SC29 adb/client/commandline.cpp adb_root
 * L1100-1154]); adbkit's root() wants /restarting adbd as root/ (adbkit 3.3.9
 * src/adb/command/host-transport/root.ts).
 */
import type { StreamHandler } from '../transport.js';
import { RestartKind, type ServiceContext } from './service-context.js';

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

export function rootService(ctx: ServiceContext): StreamHandler {
  return async (stream) => {
    const device = ctx.device;
    if (device.adbdIsRoot) {
      await stream.write(text('adbd is already running as root\n'));
      return;
    }
    // __android_log_is_debuggable() reads ro.debuggable.
    if (device.props.get('ro.debuggable') !== '1') {
      await stream.write(text('adbd cannot run as root in production builds\n'));
      return;
    }
    device.props.set('service.adb.root', '1');
    await stream.write(text('restarting adbd as root\n'));
    await stream.close();
    ctx.restart(RestartKind.Root);
  };
}

export function unrootService(ctx: ServiceContext): StreamHandler {
  return async (stream) => {
    const device = ctx.device;
    if (!device.adbdIsRoot) {
      await stream.write(text('adbd not running as root\n'));
      return;
    }
    device.props.set('service.adb.root', '0');
    await stream.write(text('restarting adbd as non root\n'));
    await stream.close();
    ctx.restart(RestartKind.Unroot);
  };
}
