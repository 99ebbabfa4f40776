/**
 * System properties through `getprop NAME` (one value per call; an unset property reads as '').
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';
import type { AndroidDevice } from '../device/android-device.js';

const PROPERTY_NAME = /^[A-Za-z0-9_.-]+$/;

/** One property's value; '' when it is not set. */
export async function getProperty(device: AndroidDevice, name: string): Promise<string> {
  if (!PROPERTY_NAME.test(name)) throw new DedupVerifyError(ErrorCode.Internal, `"${name}" is not a system property name.`);
  return (await device.shellText(['getprop', name])).trim();
}

/** `ro.build.version.sdk` as a number (30 for Android 11, 33 for 13, 34 for 14). */
export async function getSdkLevel(device: AndroidDevice): Promise<number> {
  const value = await getProperty(device, 'ro.build.version.sdk');
  if (!/^\d+$/.test(value)) {
    throw new DedupVerifyError(
      ErrorCode.DeviceCommand,
      `Device ${device.serial} reported ro.build.version.sdk="${value}", which is not an API level.`,
    );
  }
  return Number(value);
}

/** Whether adbd runs as root (after `adb root`): `id -u` prints 0. */
export async function isShellRoot(device: AndroidDevice): Promise<boolean> {
  return (await device.shellText(['id', '-u'])).trim() === '0';
}
