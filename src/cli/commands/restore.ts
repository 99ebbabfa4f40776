/**
 * `dedup-verify restore [--device SERIAL]`: finishes what an interrupted run could not (DESIGN.md
 * §8): reads the state file the run wrote before it changed anything, and puts the clock,
 * auto_time, reverse rules, app database and shared preferences back.
 */
import { DedupVerifyError, ErrorCode, UsageError } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import { findAdbBinary, isLocalHost } from '../../device/adb-server.js';
import { listSavedStates, readSavedState, restoreDevice, stateDirFor } from '../../scenario/hygiene.js';
import { defaultAdbPort } from './run-devices.js';
import type { CliIo } from '../main.js';

export async function runRestore(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const requested = typeof opts['device'] === 'string' ? opts['device'] : undefined;
  const pending = requested !== undefined ? [requested] : await listSavedStates();
  if (pending.length === 0) {
    io.stdout('Nothing to restore: no interrupted run left a state file.\n');
    return 0;
  }
  if (requested === undefined && pending.length > 1) {
    throw new UsageError(`Several devices wait for a restore (${pending.join(', ')}): pick one with --device SERIAL.`);
  }
  let failed = 0;
  for (const serial of pending) {
    const state = await readSavedState(serial);
    if (state === null) {
      io.stdout(`Nothing to restore on ${serial}: no state file in ${stateDirFor(serial)}.\n`);
      continue;
    }
    const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : state.adb.host;
    const port = typeof opts['adbPort'] === 'number' ? opts['adbPort'] : state.adb.port || defaultAdbPort();
    const device = await AdbDevice.open({ serial, host, port, ...(isLocalHost(host) ? { adbPath: findAdbBinary() } : {}) });
    try {
      const report = await restoreDevice(device, state);
      if (report.problems.length === 0) {
        io.stdout(`Restored ${serial}: clock, auto_time, reverse rules, ${state.pkg} database and shared preferences (state from ${state.savedAt}).\n`);
      } else {
        failed += 1;
        io.stderr(`Could not fully restore ${serial}:\n${report.problems.map((p) => `  - ${p}`).join('\n')}\nThe state and backups stay in ${stateDirFor(serial)}; fix the cause and run restore again.\n`);
      }
    } finally {
      await device.close();
    }
  }
  if (failed > 0) throw new DedupVerifyError(ErrorCode.Restore, `${failed} device(s) could not be restored.`);
  return 0;
}
