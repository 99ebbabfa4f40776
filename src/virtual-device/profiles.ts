/**
 * System properties per API level profile. Values follow the Android Emulator's "Google APIs"
 * x86_64 images (userdebug, dev-keys) of each release: `sdk_gphone_x86_64` on device
 * `generic_x86_64_arm64` for Android 11, `sdk_gphone64_x86_64` on `emu64xa` from Android 12 on.
 * The fingerprint is `brand/product/device:release/build id/build number:variant/tags`
 * (`ro.build.fingerprint`, built in AOSP `build/make/core/sysprop.mk`); the build ids and numbers
 * are those of public emulator captures of each image: Android 11 `RSR1.240422.006/12134477`,
 * Android 13 `TE1A.220922.019/11045064`, Android 14 `UE1A.230829.050/12077443` (a tombstone's
 * "Build fingerprint:" line). Images without root (`noRoot`, the Google Play ones) are
 * `user/release-keys`.
 */
export type ApiLevel = 30 | 33 | 34;
export const API_LEVELS: readonly ApiLevel[] = [30, 33, 34];

export function isApiLevel(n: number): n is ApiLevel {
  return (API_LEVELS as readonly number[]).includes(n);
}

const RELEASE: Record<ApiLevel, string> = { 30: '11', 33: '13', 34: '14' };

interface Image {
  readonly product: string;
  readonly device: string;
  readonly buildId: string;
  readonly buildNumber: string;
}

const IMAGE: Record<ApiLevel, Image> = {
  30: { product: 'sdk_gphone_x86_64', device: 'generic_x86_64_arm64', buildId: 'RSR1.240422.006', buildNumber: '12134477' },
  33: { product: 'sdk_gphone64_x86_64', device: 'emu64xa', buildId: 'TE1A.220922.019', buildNumber: '11045064' },
  34: { product: 'sdk_gphone64_x86_64', device: 'emu64xa', buildId: 'UE1A.230829.050', buildNumber: '12077443' },
};

export function apiProfile(api: ApiLevel, opts: { serial: string; noRoot: boolean }): Record<string, string> {
  const image = IMAGE[api];
  const variant = opts.noRoot ? 'user' : 'userdebug';
  const tags = opts.noRoot ? 'release-keys' : 'dev-keys';
  return {
    'ro.build.fingerprint': `google/${image.product}/${image.device}:${RELEASE[api]}/${image.buildId}/${image.buildNumber}:${variant}/${tags}`,
    'ro.build.id': image.buildId,
    'ro.build.version.incremental': image.buildNumber,
    'ro.build.tags': tags,
    'ro.build.version.sdk': String(api),
    'ro.build.version.release': RELEASE[api],
    'ro.build.type': variant,
    'ro.debuggable': opts.noRoot ? '0' : '1',
    'ro.secure': '1',
    'ro.product.name': image.product,
    'ro.product.model': image.product,
    'ro.product.device': image.device,
    'ro.product.manufacturer': 'Google',
    'ro.product.cpu.abi': 'x86_64',
    'ro.kernel.qemu': '1',
    'ro.serialno': opts.serial,
    'sys.boot_completed': '1',
    'persist.sys.timezone': 'UTC',
  };
}
