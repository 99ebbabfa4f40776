/**
 * Maps an OPEN payload to its service, in the order adbd checks them: socket specs first
 * (service_to_fd → is_socket_spec, [SC29 adb/services.cpp]), then daemon_service_to_fd
 * ([SC29 adb/daemon/services.cpp L261-335]). Anything else is unknown: the transport answers
 * CLSE(0, id), and the adb server tells its client "FAIL closed" (adb prints "error: closed").
 */
import type { StreamHandler } from '../transport.js';
import { execService } from './exec.js';
import { rebootService } from './reboot.js';
import { reverseService } from './reverse.js';
import { rootService, unrootService } from './root.js';
import type { ServiceContext } from './service-context.js';
import { shellService } from './shell.js';
import { syncService } from './sync.js';
import { tcpService } from './tcp.js';

export async function resolveService(name: string, ctx: ServiceContext): Promise<StreamHandler | undefined> {
  if (name.startsWith('tcp:')) return tcpService(name, ctx);
  if (name.startsWith('reboot:')) return rebootService(ctx);
  if (name.startsWith('root:')) return rootService(ctx);
  if (name.startsWith('unroot:')) return unrootService(ctx);
  if (name.startsWith('shell')) return shellService(name.slice('shell'.length), ctx);
  if (name.startsWith('exec:')) return execService(name.slice('exec:'.length), ctx);
  if (name.startsWith('sync:')) return syncService(ctx);
  if (name.startsWith('reverse:')) return reverseService(name.slice('reverse:'.length), ctx);
  return undefined;
}
