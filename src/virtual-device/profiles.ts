/**
 * System properties per API level profile. Values follow the Android Emulator's
 * `sdk_gphone64_x86_64` images ("Google APIs", userdebug-capable) of each release.
 */
export type ApiLevel = 30 | 33 | 34;
export const API_LEVELS: readonly ApiLevel[] = [30, 33, 34];

export function isApiLevel(n: number): n is ApiLevel {
  return (API_LEVELS as readonly number[]).includes(n);
}

const RELEASE: Record<ApiLevel, string> = { 30: '11', 33: '13', 34: '14' };

export function apiProfile(api: ApiLevel, opts: { serial: string; noRoot: boolean }): Record<string, string> {
  return {
    'ro.build.version.sdk': String(api),
    'ro.build.version.release': RELEASE[api],
    'ro.build.type': opts.noRoot ? 'user' : 'userdebug',
    'ro.debuggable': opts.noRoot ? '0' : '1',
    'ro.secure': '1',
    'ro.product.name': 'sdk_gphone64_x86_64',
    'ro.product.model': 'sdk_gphone64_x86_64',
    'ro.product.device': 'emu64xa',
    'ro.product.manufacturer': 'Google',
    'ro.product.cpu.abi': 'x86_64',
    'ro.kernel.qemu': '1',
    'ro.serialno': opts.serial,
    'sys.boot_completed': '1',
    'persist.sys.timezone': 'UTC',
  };
}
