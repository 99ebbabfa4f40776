/**
 * `dedup-verify restore [--device SERIAL] [--json]`: finishes what an interrupted run could not
 * (docs/design.md §8): reads the state file the run wrote before it changed anything, and puts the
 * clock, auto_time, reverse rules, app database and shared preferences back. `--json` prints
 * `{ restored: [{ serial, package, savedAt }], nothingToRestore: [serial], failed: [{ serial,
 * problems, stateDir }] }`; a device that could not be restored still ends with DV_RESTORE
 * (exit 2), after the JSON.
 */
import { DedupVerifyError, ErrorCode, UsageError } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import { findAdbBinary, isLocalHost } from '../../device/adb-server.js';
import { listSavedStates, readSavedState, restoreDevice, stateDirFor } from '../../harness/device-state.js';
import { defaultAdbPort } from './run-devices.js';
import type { CliIo } from '../io.js';

export interface RestoreSummary {
  readonly restored: { readonly serial: string; readonly package: string; readonly savedAt: string }[];
  /** Serials asked for that have no state file. */
  readonly nothingToRestore: string[];
  readonly failed: { readonly serial: string; readonly problems: readonly string[]; readonly stateDir: string }[];
}

export async function runRestore(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const json = opts['json'] === true;
  const summary: RestoreSummary = { restored: [], nothingToRestore: [], failed: [] };
  const say = (text: string): void => {
    if (!json) io.stdout(text);
  };
  const requested = typeof opts['device'] === 'string' ? opts['device'] : undefined;
  const pending = requested !== undefined ? [requested] : await listSavedStates();
  if (pending.length === 0) {
    say('Nothing to restore: no interrupted run left a state file.\n');
  }
  if (requested === undefined && pending.length > 1) {
    throw new UsageError(`Several devices wait for a restore (${pending.join(', ')}): pick one with --device SERIAL.`);
  }
  for (const serial of pending) {
    const state = await readSavedState(serial);
    if (state === null) {
      summary.nothingToRestore.push(serial);
      say(`Nothing to restore on ${serial}: no state file in ${stateDirFor(serial)}.\n`);
      continue;
    }
    const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : state.adb.host;
    const port = typeof opts['adbPort'] === 'number' ? opts['adbPort'] : state.adb.port || defaultAdbPort();
    const device = await AdbDevice.open({ serial, host, port, ...(isLocalHost(host) ? { adbPath: findAdbBinary() } : {}) });
    try {
      const report = await restoreDevice(device, state);
      if (report.problems.length === 0) {
        summary.restored.push({ serial, package: state.pkg, savedAt: state.savedAt });
        say(`Restored ${serial}: clock, auto_time, reverse rules, ${state.pkg} database and shared preferences (state from ${state.savedAt}).\n`);
      } else {
        summary.failed.push({ serial, problems: report.problems, stateDir: stateDirFor(serial) });
        io.stderr(`Could not fully restore ${serial}:\n${report.problems.map((p) => `  - ${p}`).join('\n')}\nThe state and backups stay in ${stateDirFor(serial)}; fix the cause and run restore again.\n`);
      }
    } finally {
      await device.close();
    }
  }
  if (json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
  if (summary.failed.length > 0) {
    throw new DedupVerifyError(
      ErrorCode.Restore,
      `${summary.failed.length} device(s) could not be restored (${summary.failed.map((f) => f.serial).join(', ')}); the problems are listed above, the backups stay in the state directory: fix the cause and run \`dedup-verify restore\` again.`,
    );
  }
  return 0;
}
