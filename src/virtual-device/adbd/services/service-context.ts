/**
 * What a service gets besides its stream: the device, the transport that opened it, and a way
 * to restart adbd (root:/unroot:) or the device (reboot:).
 */
import type { AdbdDevice } from '../adbd-device.js';
import type { AdbTransport } from '../transport.js';
import { Uid } from '../../types.js';

export const RestartKind = { Root: 'root', Unroot: 'unroot', Reboot: 'reboot' } as const;
export type RestartKind = (typeof RestartKind)[keyof typeof RestartKind];

export interface ServiceContext {
  readonly device: AdbdDevice;
  readonly transport: AdbTransport;
  /** Drops every adb link of the device after the current replies went out; see AdbDaemon. */
  restart(kind: RestartKind): void;
}

/** The uid adbd's own services (sync:) run as: shell, or root after `adb root`. */
export function adbdUid(device: AdbdDevice): number {
  return device.adbdIsRoot ? Uid.root : Uid.shell;
}
