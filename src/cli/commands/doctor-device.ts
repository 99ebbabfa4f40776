/**
 * Two doctor checks about the device rather than the set-up: whether it is an emulator (on a
 * phone, moving the clock reaches other apps), and whether the app's WorkManager logs at INFO
 * (without it no `Worker result` line comes and run outcomes are read from the workdb).
 */
import type { AndroidDevice } from '../../device/android-device.js';
import { describeError } from '../../errors.js';
import { sendBroadcast } from '../../android/activity.js';
import { CLOCK_MOVE_ON_A_PHONE, readEmulatorProperties } from '../../android/properties.js';
import { parseLogLine } from '../../android/parsers/logcat.js';
import { workDatabaseRead } from '../../android/work-db.js';
import { runReads } from '../../android/shell-reads.js';
import { WorkState } from '../../android/work-spec.js';
import type { DoctorCheck } from './doctor.js';

/** androidx work-runtime's DiagnosticsWorker (androidx.work.impl.workers), enqueued by DiagnosticsReceiver. */
const DIAGNOSTICS_WORKER = 'androidx.work.impl.workers.DiagnosticsWorker';
/** How long the diagnostics work may take to finish before the check gives up. */
const DIAGNOSTICS_TIMEOUT_MS = 10_000;
const PRIORITY_ORDER = 'VDIWEF';
const LEVEL_NAMES: Record<string, string> = { V: 'VERBOSE', D: 'DEBUG', I: 'INFO', W: 'WARN', E: 'ERROR', F: 'ASSERT' };

export async function checkEmulator(device: AndroidDevice): Promise<DoctorCheck> {
  const name = 'emulator';
  try {
    const props = await readEmulatorProperties(device);
    if (props.emulator) return { name, ok: true, found: `an emulator (ro.boot.qemu=${props.bootQemu || 'unset'}, ro.kernel.qemu=${props.kernelQemu || 'unset'})` };
    return {
      name,
      ok: true,
      found: `not an emulator (ro.boot.qemu and ro.kernel.qemu are not 1): a phone, so ${CLOCK_MOVE_ON_A_PHONE}`,
      warning: 'use an emulator, or a phone with nothing on it you mind alarms and time-change receivers firing for',
    };
  } catch (e) {
    return { name, ok: true, found: `could not read ro.boot.qemu / ro.kernel.qemu: ${describeError(e)}` };
  }
}

/** The app's WorkManager lines (tags `WM-…`) in the log, by the lowest priority seen. */
async function lowestWmPriority(device: AndroidDevice, pid: string): Promise<{ lowest: string | undefined; lines: number }> {
  const text = await device.shellText(['logcat', '-d', '-v', 'epoch', `--pid=${pid}`]);
  let lowest: string | undefined;
  let lines = 0;
  for (const raw of text.split('\n')) {
    const line = parseLogLine(raw.replace(/\r$/, ''));
    if (!line?.tag.startsWith('WM-')) continue;
    lines++;
    if (lowest === undefined || PRIORITY_ORDER.indexOf(line.priority) < PRIORITY_ORDER.indexOf(lowest)) lowest = line.priority;
  }
  return { lowest, lines };
}

async function diagnosticsDone(device: AndroidDevice, pkg: string): Promise<number> {
  const [db] = await runReads(device, [workDatabaseRead(device.serial, pkg)]);
  return db.workSpecs.filter((s) => s.workerClassName === DIAGNOSTICS_WORKER && s.state === WorkState.SUCCEEDED).length;
}

/**
 * Whether WorkManager logs at INFO in this app: the app's WM- lines in the log say it when
 * there are INFO or lower ones; otherwise WorkManager's exported diagnostics receiver is asked
 * for its report (a one-time DiagnosticsWorker, whose end WorkerWrapper logs at INFO: "Worker
 * result SUCCESS for Work [ … DiagnosticsWorker … ]"), and once the workdb shows that work
 * SUCCEEDED the log is read again. No INFO line then: the app's Configuration sets a minimum
 * logging level above Log.INFO (Configuration.Builder().setMinimumLoggingLevel).
 */
export async function checkWorkManagerLogLevel(device: AndroidDevice, pkg: string, now: () => number = () => performance.now()): Promise<DoctorCheck> {
  const name = 'WorkManager log level';
  // pidof exits 1 when no process has the name.
  const pid = (await device.shell(['pidof', pkg])).stdout.toString('utf8').trim().split(/\s+/)[0] ?? '';
  if (!/^\d+$/.test(pid)) return { name, ok: true, found: `${pkg} is not running, so its log level was not looked at (launch the app and run doctor again)` };
  const seen = await lowestWmPriority(device, pid);
  const atOrBelowInfo = (p: string | undefined): boolean => p !== undefined && PRIORITY_ORDER.indexOf(p) <= PRIORITY_ORDER.indexOf('I');
  const logsAt = (p: string): DoctorCheck => ({
    name,
    ok: true,
    found: `WorkManager logs at ${LEVEL_NAMES[p] ?? p} or below in ${pkg} (its WM- lines in the log): runs end on their "Worker result" lines`,
  });
  if (atOrBelowInfo(seen.lowest)) return logsAt(seen.lowest ?? 'I');
  try {
    const before = await diagnosticsDone(device, pkg);
    await sendBroadcast(device, { action: 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS', pkg });
    const deadline = now() + DIAGNOSTICS_TIMEOUT_MS;
    let waitMs = 50;
    while ((await diagnosticsDone(device, pkg)) <= before) {
      if (now() > deadline) return { name, ok: true, found: `could not tell: WorkManager's diagnostics work did not finish within ${DIAGNOSTICS_TIMEOUT_MS} ms` };
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, 1_000);
    }
  } catch (e) {
    return { name, ok: true, found: `could not tell: ${describeError(e)}` };
  }
  const after = await lowestWmPriority(device, pid);
  if (atOrBelowInfo(after.lowest)) return logsAt(after.lowest ?? 'I');
  return {
    name,
    ok: true,
    found: `WorkManager logs nothing at INFO in ${pkg} (its diagnostics work finished with no "Worker result" line${after.lowest !== undefined ? `; lowest WM- level seen: ${LEVEL_NAMES[after.lowest] ?? after.lowest}` : ''}): the app's Configuration sets a minimum logging level above Log.INFO, so results come from the workdb (state, run_attempt_count, last_enqueue_time, period_count) once JobScheduler lets each job go, and a periodic run's success and failure both read "finished"`,
    warning: "to see the result lines, let the debug build's Configuration.Provider keep Log.INFO (setMinimumLoggingLevel(Log.INFO) or lower)",
  };
}
