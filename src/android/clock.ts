/**
 * The device's wall clock (docs/design.md §3 step 2, §8).
 *
 * - Read: toybox `date +%s%3N` prints epoch seconds then the first 3 digits of the zero-padded
 *   nanoseconds, i.e. epoch ms (landley/toybox `toys/posix/date.c`, `%N` since 0.7.4). A toybox
 *   without `%N` prints the text back, so `date +%s` × 1000 is the fallback.
 * - Set: `cmd alarm set-time <ms>` ("Set the system clock time to TIME where TIME is
 *   milliseconds since the Epoch", AlarmManagerService ShellCmd; returns 0 on success, -1 → 255
 *   otherwise). The shell user holds SET_TIME (`packages/Shell/AndroidManifest.xml`), no root
 *   needed. When that fails and adbd is root, toybox `date -u MMDDhhmmYYYY.ss` (the POSIX form
 *   every toybox accepts; `settimeofday` needs CAP_SYS_TIME: "date: cannot set date: Operation
 *   not permitted" otherwise).
 * - `settings get global auto_time` prints `1`, `0` or `null` (unset); `settings put global
 *   auto_time 0` stops network time from overwriting a manual time (shell holds
 *   WRITE_SECURE_SETTINGS).
 *
 * Save/restore: a snapshot keeps the device time, the host wall time when it was taken and
 * auto_time. Restoring sets the device to `saved device time + host time elapsed since`, so the
 * device ends up where its clock would be had nobody touched it; then auto_time goes back.
 */
import { DeviceCommandError } from '../errors.js';
import { commandFailed, type AndroidDevice, type ShellResult } from '../device/android-device.js';
import { isShellRoot } from './properties.js';
import { runReads, type ShellRead } from './shell-reads.js';

/** The host's clock, injected so restores can be tested; wall time in ms. */
export interface HostClock {
  nowMs(): number;
}

export const systemHostClock: HostClock = { nowMs: () => Date.now() };

export async function readDeviceTimeMs(device: AndroidDevice): Promise<number> {
  const text = (await device.shellText(['date', '+%s%3N'])).trim();
  if (/^\d{13,}$/.test(text)) return Number(text);
  const seconds = (await device.shellText(['date', '+%s'])).trim();
  if (/^\d+$/.test(seconds)) return Number(seconds) * 1000;
  throw new DeviceCommandError(`Could not read the clock of ${device.serial}: \`date +%s\` printed "${seconds}".`, {
    command: 'date +%s',
    stderr: '',
  });
}

/**
 * `date +%s%3N` as one read, to go out with others in one shell invocation (src/device/
 * shell-batch.ts): epoch ms, or null when the device's toybox does not print them (then
 * readDeviceTimeMs, with its fallback).
 */
export function deviceTimeRead(): ShellRead<number | null> {
  return {
    commands: [['date', '+%s%3N']],
    parse: ([result]) => {
      const text = result?.exitCode === 0 ? result.stdout.toString('utf8').trim() : '';
      return /^\d{13,}$/.test(text) ? Number(text) : null;
    },
  };
}

/** `auto_time` as stored: '1', '0', or null when unset. */
export async function getAutoTime(device: AndroidDevice): Promise<string | null> {
  return autoTimeFrom(await device.shellText(['settings', 'get', 'global', 'auto_time']));
}

/** What `settings get global auto_time` printed, as stored ('null' is unset). */
function autoTimeFrom(text: string): string | null {
  const value = text.trim();
  return value === 'null' || value === '' ? null : value;
}

/** Writes auto_time back; null deletes the setting (as it was unset). */
export async function setAutoTime(device: AndroidDevice, value: string | null): Promise<void> {
  await device.shellText(autoTimeCommand(value));
}

/** The words that write auto_time (setAutoTime): `settings delete` for null. */
export function autoTimeCommand(value: string | null): string[] {
  return value === null ? ['settings', 'delete', 'global', 'auto_time'] : ['settings', 'put', 'global', 'auto_time', value];
}

export type SetTimeMethod = 'cmd-alarm' | 'root-date';

/** `cmd alarm set-time MS`: the first way setDeviceTime tries. */
export function setTimeCommand(epochMs: number): string[] {
  return ['cmd', 'alarm', 'set-time', String(Math.round(epochMs))];
}

/**
 * Whether `cmd alarm set-time` set the clock: exit 0, and none of the texts a shell without the
 * command prints (an older AlarmManagerService without it, or no such service).
 */
export function setTimeTook(result: ShellResult): boolean {
  return result.exitCode === 0 && !/Unknown command|No shell command|Can't find service/i.test(result.stdout.toString('utf8') + result.stderr);
}

/** Sets the wall clock to `epochMs`; returns how. Throws with the fix when neither way works. */
export async function setDeviceTime(device: AndroidDevice, epochMs: number): Promise<SetTimeMethod> {
  const ms = Math.round(epochMs);
  const viaAlarm = await device.shell(setTimeCommand(ms));
  if (setTimeTook(viaAlarm)) return 'cmd-alarm';
  if (await isShellRoot(device)) {
    const argv = ['date', '-u', formatPosixDate(ms)];
    const viaDate = await device.shell(argv);
    if (viaDate.exitCode === 0) return 'root-date';
    throw new DeviceCommandError(
      `Could not set the clock of ${device.serial}: \`cmd alarm set-time\` exited ${viaAlarm.exitCode} and \`${argv.join(' ')}\` failed: ${viaDate.stderr.trim()}`,
      { command: argv.join(' '), exitCode: viaDate.exitCode, stderr: viaDate.stderr },
    );
  }
  const detail = (viaAlarm.stderr || viaAlarm.stdout.toString('utf8')).trim();
  throw new DeviceCommandError(
    `Could not set the clock of ${device.serial}: \`cmd alarm set-time ${ms}\` exited ${viaAlarm.exitCode}${detail ? ` (${detail})` : ''} ` +
      'and adbd is not root. Use an emulator image that allows `adb root` (a "Google APIs" image), run `adb root`, and try again.',
    { command: `cmd alarm set-time ${ms}`, exitCode: viaAlarm.exitCode, stderr: viaAlarm.stderr },
  );
}

/** `MMDDhhmmYYYY.ss` in UTC (toybox date's POSIX input form, used with `-u`). */
export function formatPosixDate(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${d.getUTCFullYear()}.${two(d.getUTCSeconds())}`;
}

export interface ClockSnapshot {
  readonly deviceTimeMs: number;
  readonly hostTimeMs: number;
  readonly autoTime: string | null;
}

/** Records what restoreClock needs; take it before changing the clock. */
export async function saveClock(device: AndroidDevice, host: HostClock = systemHostClock): Promise<ClockSnapshot> {
  const [snapshot] = await runReads(device, [clockSnapshotRead(host)]);
  return completeClockSnapshot(device, snapshot, host);
}

/** A snapshot as one read gives it: the device time is null when `date +%s%3N` printed no ms. */
export type ClockReading = Omit<ClockSnapshot, 'deviceTimeMs'> & { readonly deviceTimeMs: number | null };

/**
 * `date +%s%3N` and `settings get global auto_time` as one read (their outputs as the file
 * comment says: toybox date.c, the SettingsProvider shell command's `null` for an unset key), to go out with others in one
 * shell invocation; make it just before sending it (the host time is taken when it is made and
 * when its results come back, and the device read happened in between: the middle is kept).
 */
export function clockSnapshotRead(host: HostClock = systemHostClock): ShellRead<ClockReading> {
  const before = host.nowMs();
  const time = deviceTimeRead();
  const autoTime = ['settings', 'get', 'global', 'auto_time'];
  return {
    commands: [...time.commands, autoTime],
    parse: async ([date, setting]) => {
      const after = host.nowMs();
      if (setting === undefined || setting.exitCode !== 0) throw commandFailed(autoTime.join(' '), setting ?? { stdout: Buffer.alloc(0), stderr: 'not run', exitCode: 255 });
      return { deviceTimeMs: date === undefined ? null : await time.parse([date]), hostTimeMs: Math.round((before + after) / 2), autoTime: autoTimeFrom(setting.stdout.toString('utf8')) };
    },
  };
}

/** The snapshot of a reading; a device whose `date` printed no ms is read again the slower way. */
export async function completeClockSnapshot(device: AndroidDevice, reading: ClockReading, host: HostClock = systemHostClock): Promise<ClockSnapshot> {
  if (reading.deviceTimeMs !== null) return { ...reading, deviceTimeMs: reading.deviceTimeMs };
  const before = host.nowMs();
  const deviceTimeMs = await readDeviceTimeMs(device);
  return { deviceTimeMs, hostTimeMs: Math.round((before + host.nowMs()) / 2), autoTime: reading.autoTime };
}

/** The device time a snapshot says it is now (saved time + host time elapsed since). */
export function restoredTimeMs(snapshot: ClockSnapshot, hostNowMs: number): number {
  return snapshot.deviceTimeMs + Math.max(0, hostNowMs - snapshot.hostTimeMs);
}

/** Sets the clock back to where it would be untouched, then auto_time as it was. */
export async function restoreClock(device: AndroidDevice, snapshot: ClockSnapshot, host: HostClock = systemHostClock): Promise<void> {
  await setDeviceTime(device, restoredTimeMs(snapshot, host.nowMs()));
  await setAutoTime(device, snapshot.autoTime);
}

/** Turns auto_time off (so the time stays where it is put) and moves the clock by `deltaMs`. */
export async function shiftDeviceTime(device: AndroidDevice, deltaMs: number): Promise<number> {
  await setAutoTime(device, '0');
  const now = await readDeviceTimeMs(device);
  const target = now + deltaMs;
  await setDeviceTime(device, target);
  return target;
}
