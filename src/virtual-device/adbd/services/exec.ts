/**
 * `exec:<command>` (adb exec-out / exec-in): a raw subprocess, no PTY, no protocol; output
 * streamed back as is, then CLSE; no exit status travels back
 * ([SC29 adb/daemon/services.cpp L318-320; adb/client/commandline.cpp L1644-1672]).
 * adbd runs the command through `sh -c`, so it is one shell line here too.
 */
import type { StreamHandler } from '../transport.js';
import type { ServiceContext } from './service-context.js';
import { runRawShell } from './shell.js';

export function execService(command: string, ctx: ServiceContext): StreamHandler {
  return (stream) => runRawShell(ctx, stream, command, false);
}
