/**
 * The top-level layout of a freshly booted device, with Android's owners and modes.
 *
 * Sources (owners/modes): system/core/rootdir/init.rc (`mkdir /data 0771 system system`,
 * `mkdir /data/local 0751 root root`, `mkdir /data/local/tmp 0771 shell shell`,
 * `mkdir /data/data 0771 system system`, `mkdir /data/user 0711 system system`,
 * `symlink /data/data /data/user/0`, `mkdir /data/system 0775 system system`,
 * `mkdir /storage 0751 system sdcard_r`), system/core/libcutils/fs_config.cpp (`system/bin`
 * 0751 root shell, binaries 0755 root shell) and the root symlinks of Android 10+ images
 * (`/bin -> /system/bin`, `/etc -> /system/etc`, `/sdcard -> /storage/self/primary`).
 * /dev/null & co. are character devices 1,3 / 1,5 / 1,8 / 1,9 (Linux Documentation/admin-guide/devices.txt).
 * External storage is modelled as root:sdcard_rw 0771 so the shell user (member of sdcard_rw)
 * can write to it, as it can through the FUSE daemon on a real device.
 */
export type LayoutEntry =
  | { kind: 'dir'; path: string; uid: number; gid: number; perm: number }
  | { kind: 'file'; path: string; uid: number; gid: number; perm: number; content?: string }
  | { kind: 'link'; path: string; target: string; uid: number; gid: number }
  | { kind: 'chr'; path: string; uid: number; gid: number; perm: number; major: number; minor: number };

const ROOT = 0;
const SYSTEM = 1000;
const SHELL = 2000;
const SDCARD_RW = 1015;
const SDCARD_R = 1028;
const MISC = 9998;

const dir = (path: string, uid: number, gid: number, perm: number): LayoutEntry => ({ kind: 'dir', path, uid, gid, perm });
const link = (path: string, target: string): LayoutEntry => ({ kind: 'link', path, target, uid: ROOT, gid: ROOT });
const chr = (path: string, major: number, minor: number): LayoutEntry => ({ kind: 'chr', path, uid: ROOT, gid: ROOT, perm: 0o666, major, minor });

/** Parents come before children. */
export const ANDROID_LAYOUT: readonly LayoutEntry[] = [
  dir('/', ROOT, ROOT, 0o755),
  dir('/system', ROOT, ROOT, 0o755),
  dir('/system/bin', ROOT, SHELL, 0o751),
  { kind: 'file', path: '/system/bin/sh', uid: ROOT, gid: SHELL, perm: 0o755 },
  { kind: 'file', path: '/system/bin/toybox', uid: ROOT, gid: SHELL, perm: 0o755 },
  dir('/system/xbin', ROOT, SHELL, 0o751),
  dir('/system/etc', ROOT, ROOT, 0o755),
  dir('/system/app', ROOT, ROOT, 0o755),
  dir('/system/priv-app', ROOT, ROOT, 0o755),
  dir('/system/framework', ROOT, ROOT, 0o755),
  dir('/vendor', ROOT, SHELL, 0o755),
  dir('/vendor/bin', ROOT, SHELL, 0o751),
  link('/bin', '/system/bin'),
  link('/etc', '/system/etc'),
  dir('/data', SYSTEM, SYSTEM, 0o771),
  dir('/data/app', SYSTEM, SYSTEM, 0o771),
  dir('/data/data', SYSTEM, SYSTEM, 0o771),
  dir('/data/local', ROOT, ROOT, 0o751),
  dir('/data/local/tmp', SHELL, SHELL, 0o771),
  dir('/data/misc', SYSTEM, MISC, 0o1771),
  dir('/data/system', SYSTEM, SYSTEM, 0o775),
  dir('/data/system_ce', SYSTEM, SYSTEM, 0o770),
  dir('/data/system_ce/0', SYSTEM, SYSTEM, 0o770),
  dir('/data/user', SYSTEM, SYSTEM, 0o711),
  link('/data/user/0', '/data/data'),
  dir('/data/user_de', SYSTEM, SYSTEM, 0o711),
  dir('/data/user_de/0', SYSTEM, SYSTEM, 0o771),
  dir('/data/anr', SYSTEM, SYSTEM, 0o775),
  dir('/data/tombstones', SYSTEM, SYSTEM, 0o771),
  dir('/dev', ROOT, ROOT, 0o755),
  chr('/dev/null', 1, 3),
  chr('/dev/zero', 1, 5),
  chr('/dev/random', 1, 8),
  chr('/dev/urandom', 1, 9),
  dir('/proc', ROOT, ROOT, 0o555),
  dir('/sys', ROOT, ROOT, 0o755),
  dir('/mnt', ROOT, SYSTEM, 0o755),
  dir('/storage', SYSTEM, SDCARD_R, 0o751),
  dir('/storage/emulated', ROOT, ROOT, 0o711),
  dir('/storage/emulated/0', ROOT, SDCARD_RW, 0o771),
  dir('/storage/emulated/0/Android', ROOT, SDCARD_RW, 0o771),
  dir('/storage/emulated/0/Android/data', ROOT, SDCARD_RW, 0o771),
  dir('/storage/emulated/0/Download', ROOT, SDCARD_RW, 0o771),
  dir('/storage/self', ROOT, ROOT, 0o755),
  link('/storage/self/primary', '/storage/emulated/0'),
  link('/sdcard', '/storage/self/primary'),
];
