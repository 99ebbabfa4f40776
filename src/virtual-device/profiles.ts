/**
 * System properties per API level profile. Values follow the Android Emulator's "Google APIs"
 * x86_64 images (userdebug, dev-keys) of each release: `sdk_gphone_x86_64` on device
 * `generic_x86_64_arm64` for Android 11, `sdk_gphone64_x86_64` on `emu64xa` from Android 12 on.
 * The fingerprint is `brand/product/device:release/build id/build number:variant/tags`
 * (`ro.build.fingerprint`, built in AOSP `build/make/core/sysprop.mk`); the build ids and numbers
 * are those of public emulator captures of each image: Android 11 `RSR1.240422.006/12134477`,
 * Android 13 `TE1A.220922.019/11045064`, Android 14 `UE1A.230829.050/12077443` (a tombstone's
 * "Build fingerprint:" line), Android 15 `AE3A.240806.043/12960925` (`getprop ro.build.fingerprint`
 * of the `android-35;google_apis;x86_64` image, quoted in several published device-test notes),
 * Android 16 `BE2A.250530.026.F3/13894323` (the `system-images;android-36;google_apis;x86_64`
 * revision 7 image, in published getprop tables). Images without root (`noRoot`, the Google Play ones) are
 * `user/release-keys`.
 */
export type ApiLevel = 30 | 33 | 34 | 35 | 36;
export const API_LEVELS: readonly ApiLevel[] = [30, 33, 34, 35, 36];

export function isApiLevel(n: number): n is ApiLevel {
  return (API_LEVELS as readonly number[]).includes(n);
}

const RELEASE: Record<ApiLevel, string> = { 30: '11', 33: '13', 34: '14', 35: '15', 36: '16' };

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
  35: { product: 'sdk_gphone64_x86_64', device: 'emu64xa', buildId: 'AE3A.240806.043', buildNumber: '12960925' },
  36: { product: 'sdk_gphone64_x86_64', device: 'emu64xa', buildId: 'BE2A.250530.026.F3', buildNumber: '13894323' },
};

/**
 * A phone rather than an emulator (`virtual-device --physical`): a Pixel 8 ("shiba") on its stock
 * Android 14 build, `google/shiba/shiba:14/AP1A.240405.002/11480754:user/release-keys`, the stock
 * fingerprint and model LineageOS's device tree for it reports (LineageOS/android_device_google_shusky
 * `lineage_shiba.mk` @062eb6ba: BUILD_FINGERPRINT, PRIVATE_BUILD_DESC "shiba-user 14
 * AP1A.240405.002 11480754 release-keys", PRODUCT_MODEL "Pixel 8"). A phone is a user build
 * with release keys and has neither `ro.kernel.qemu` nor `ro.boot.qemu` (the emulator's kernel
 * command line sets `androidboot.qemu=1`, which init turns into ro.boot.qemu).
 */
const PHONE = { brand: 'google', product: 'shiba', device: 'shiba', model: 'Pixel 8', release: '14', buildId: 'AP1A.240405.002', buildNumber: '11480754', sdk: 34 } as const;

/** The API level --physical answers as (the phone's build is Android 14). */
export const PHYSICAL_API_LEVEL: ApiLevel = PHONE.sdk;

function phoneProfile(serial: string): Record<string, string> {
  return {
    'ro.build.fingerprint': `${PHONE.brand}/${PHONE.product}/${PHONE.device}:${PHONE.release}/${PHONE.buildId}/${PHONE.buildNumber}:user/release-keys`,
    'ro.build.id': PHONE.buildId,
    'ro.build.version.incremental': PHONE.buildNumber,
    'ro.build.tags': 'release-keys',
    'ro.build.version.sdk': String(PHONE.sdk),
    'ro.build.version.release': PHONE.release,
    'ro.build.type': 'user',
    'ro.debuggable': '0',
    'ro.secure': '1',
    'ro.product.brand': PHONE.brand,
    'ro.product.name': PHONE.product,
    'ro.product.model': PHONE.model,
    'ro.product.device': PHONE.device,
    'ro.product.manufacturer': 'Google',
    'ro.product.cpu.abi': 'arm64-v8a',
    'ro.serialno': serial,
    'sys.boot_completed': '1',
    'persist.sys.timezone': 'UTC',
  };
}

export function apiProfile(api: ApiLevel, opts: { serial: string; noRoot: boolean; physical?: boolean }): Record<string, string> {
  if (opts.physical === true) return phoneProfile(opts.serial);
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
