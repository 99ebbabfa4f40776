/**
 * System properties through `getprop NAME` (one value per call; an unset property reads as '').
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';
import { commandFailed, type AndroidDevice } from '../device/android-device.js';
import { runReads, textRead, type ShellRead } from './shell-reads.js';

const PROPERTY_NAME = /^[A-Za-z0-9_.-]+$/;

/** One property's value; '' when it is not set. */
export async function getProperty(device: AndroidDevice, name: string): Promise<string> {
  if (!PROPERTY_NAME.test(name)) throw new DedupVerifyError(ErrorCode.Internal, `"${name}" is not a system property name.`);
  return (await device.shellText(['getprop', name])).trim();
}

/** `ro.build.version.sdk` as a number (30 for Android 11, 33 for 13, 34 for 14). */
export async function getSdkLevel(device: AndroidDevice): Promise<number> {
  return (await runReads(device, [sdkLevelRead(device.serial)]))[0];
}

/**
 * getSdkLevel as a read that goes out with others (one shell invocation). `getprop NAME` prints
 * the value and a newline, an empty line for an unset property (system/core toolbox/getprop.cpp).
 */
export function sdkLevelRead(serial: string): ShellRead<number> {
  const read = textRead(['getprop', 'ro.build.version.sdk']);
  return {
    commands: read.commands,
    parse: async (results) => {
      const value = (await read.parse(results)).trim();
      if (!/^\d+$/.test(value)) {
        throw new DedupVerifyError(ErrorCode.DeviceCommand, `Device ${serial} reported ro.build.version.sdk="${value}", which is not an API level.`);
      }
      return Number(value);
    },
  };
}

/** Whether adbd runs as root (after `adb root`): `id -u` prints 0. */
export async function isShellRoot(device: AndroidDevice): Promise<boolean> {
  return (await device.shellText(['id', '-u'])).trim() === '0';
}

/**
 * Whether the device is an emulator: `ro.boot.qemu` (set by init from the emulator kernel's
 * `androidboot.qemu=1`) or, on older images, `ro.kernel.qemu` is 1. Both are read in one
 * invocation; a phone has neither.
 */
export async function readEmulatorProperties(device: AndroidDevice): Promise<EmulatorProperties> {
  return (await runReads(device, [emulatorPropertiesRead()]))[0];
}

export interface EmulatorProperties {
  readonly emulator: boolean;
  readonly bootQemu: string;
  readonly kernelQemu: string;
}

/**
 * readEmulatorProperties as a read that goes out with others (one shell invocation): both
 * properties in one command line, one value per line as getprop prints them (system/core
 * toolbox/getprop.cpp; ro.boot.qemu from the emulator kernel's androidboot.qemu=1, above).
 */
export function emulatorPropertiesRead(): ShellRead<EmulatorProperties> {
  const line = 'getprop ro.boot.qemu; getprop ro.kernel.qemu';
  return {
    commands: [line],
    parse: ([result]) => {
      if (result === undefined || result.exitCode !== 0) throw commandFailed(line, result ?? { stdout: Buffer.alloc(0), stderr: 'not run', exitCode: 255 });
      const [bootQemu = '', kernelQemu = ''] = result.stdout.toString('utf8').split('\n').map((l) => l.trim());
      return { emulator: bootQemu === '1' || kernelQemu === '1', bootQemu, kernelQemu };
    },
  };
}

/**
 * What moving the wall clock does on a device that is somebody's phone. AlarmManagerService,
 * told by the kernel that the clock changed, rebatches every alarm (RTC alarms now in the past
 * are delivered at once) and sends ACTION_TIME_CHANGED ("android.intent.action.TIME_SET") to
 * every user's receivers, background ones included (frameworks/base
 * apex/jobscheduler/service/java/com/android/server/alarm/AlarmManagerService.java, AlarmThread:
 * "Time changed notification from kernel; rebatching", rebatchAllAlarms(),
 * sendBroadcastAsUser(intent, UserHandle.ALL) with FLAG_RECEIVER_INCLUDE_BACKGROUND). `restore`
 * puts the clock back, but what other apps did meanwhile stays done.
 */
export const CLOCK_MOVE_ON_A_PHONE =
  "moving the clock fires other apps' RTC alarms that fall due and their TIME_SET/TIME_CHANGED receivers (AlarmManagerService rebatches every alarm and broadcasts ACTION_TIME_CHANGED to all users); restore puts the clock back but cannot undo what those apps did";
