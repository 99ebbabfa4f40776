/**
 * Android user and group ids and their names, as bionic's getpwuid()/getgrgid() report them.
 *
 * Sources:
 * - system/core/libcutils/include/private/android_filesystem_config.h (AID_* values and names).
 * - bionic libc/bionic/grp_pwd.cpp: app ids print as `u<user>_a<n>` (10000-19999),
 *   `u<user>_a<n>_cache` (20000-29999), `all_a<n>` (50000-59999), `u<user>_i<n>` (isolated);
 *   pw_dir "/" and pw_shell "/bin/sh" for every id.
 * - packages/modules/adb daemon/main.cpp drop_privileges(): the supplementary groups adbd keeps
 *   for shell commands (AID_ADB, AID_LOG, AID_INPUT, AID_INET, AID_NET_BT, AID_NET_BT_ADMIN,
 *   AID_SDCARD_R, AID_SDCARD_RW, AID_NET_BW_STATS, AID_READPROC, AID_UHID, AID_EXT_DATA_RW,
 *   AID_EXT_OBB_RW, AID_READTRACEFS). AID_READTRACEFS (3012) exists from Android 13 (API 33).
 */
import { Uid } from '../types.js';

const AID_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'root'],
  [1000, 'system'],
  [1001, 'radio'],
  [1002, 'bluetooth'],
  [1003, 'graphics'],
  [1004, 'input'],
  [1005, 'audio'],
  [1006, 'camera'],
  [1007, 'log'],
  [1008, 'compass'],
  [1009, 'mount'],
  [1010, 'wifi'],
  [1011, 'adb'],
  [1012, 'install'],
  [1013, 'media'],
  [1014, 'dhcp'],
  [1015, 'sdcard_rw'],
  [1016, 'vpn'],
  [1017, 'keystore'],
  [1018, 'usb'],
  [1019, 'drm'],
  [1020, 'mdnsr'],
  [1021, 'gps'],
  [1023, 'media_rw'],
  [1024, 'mtp'],
  [1026, 'drmrpc'],
  [1027, 'nfc'],
  [1028, 'sdcard_r'],
  [1029, 'clat'],
  [1077, 'external_storage'],
  [1078, 'ext_data_rw'],
  [1079, 'ext_obb_rw'],
  [2000, 'shell'],
  [2001, 'cache'],
  [2002, 'diag'],
  [3001, 'net_bt_admin'],
  [3002, 'net_bt'],
  [3003, 'inet'],
  [3004, 'net_raw'],
  [3005, 'net_admin'],
  [3006, 'net_bw_stats'],
  [3007, 'net_bw_acct'],
  [3009, 'readproc'],
  [3010, 'wakelock'],
  [3011, 'uhid'],
  [3012, 'readtracefs'],
  [9997, 'everybody'],
  [9998, 'misc'],
  [9999, 'nobody'],
]);

const PER_USER_RANGE = 100000;

/** The name bionic prints for a uid or gid (falls back to the number). */
export function idName(id: number): string {
  const known = AID_NAMES.get(id);
  if (known !== undefined) return known;
  const user = Math.floor(id / PER_USER_RANGE);
  const appId = id % PER_USER_RANGE;
  if (appId >= 10000 && appId <= 19999) return `u${user}_a${appId - 10000}`;
  if (appId >= 20000 && appId <= 29999) return `u${user}_a${appId - 20000}_cache`;
  if (appId >= 50000 && appId <= 59999) return `all_a${appId - 50000}`;
  if (appId >= 90000 && appId <= 99999) return `u${user}_i${appId - 90000}`;
  return String(id);
}

/** Resolves a user or group name (or a number) to an id, or undefined. */
export function idFromName(name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  for (const [id, n] of AID_NAMES) if (n === name) return id;
  const app = /^u(\d+)_a(\d+)(_cache)?$/.exec(name);
  if (app) return Number(app[1]) * PER_USER_RANGE + Number(app[2]) + (app[3] ? 20000 : 10000);
  const all = /^all_a(\d+)$/.exec(name);
  if (all) return 50000 + Number(all[1]);
  return undefined;
}

export function isAppUid(uid: number): boolean {
  const appId = uid % PER_USER_RANGE;
  return appId >= Uid.appStart && appId <= 19999;
}

const ADBD_SHELL_GROUPS_BASE = [1011, 1007, 1004, 3003, 3002, 3001, 1028, 1015, 3006, 3009, 3011, 1078, 1079];

/**
 * Supplementary groups of a process running as `uid` (sorted, as the kernel keeps them):
 * root and shell get adbd's groups, app uids get inet, everybody and their cache/shared gids.
 */
export function supplementaryGroups(uid: number, apiLevel = 34): number[] {
  if (uid === Uid.root || uid === Uid.shell) {
    const groups = [...ADBD_SHELL_GROUPS_BASE];
    if (apiLevel >= 33) groups.push(3012);
    return groups.sort((a, b) => a - b);
  }
  if (isAppUid(uid)) {
    const appId = uid % PER_USER_RANGE;
    return [3003, Uid.everybody, appId + 10000, appId - 10000 + 50000].sort((a, b) => a - b);
  }
  return [];
}

/** The primary gid of a uid (Android gives every AID its own group). */
export function primaryGid(uid: number): number {
  return uid;
}

/** bionic passwd fields used by adbd's shell environment (HOME, SHELL, USER, LOGNAME). */
export function passwdOf(uid: number): { name: string; dir: string; shell: string } {
  return { name: idName(uid), dir: '/', shell: '/bin/sh' };
}
