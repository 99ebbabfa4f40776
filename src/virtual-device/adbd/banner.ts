/**
 * The CNXN payload adbd sends: "device::" + properties joined with ';', no trailing ';' and no
 * NUL (get_connection_string, [SC29 adb/adb.cpp L188-210]). The host splits it on ':' and ';'
 * and '=' (parse_banner, [SC29 adb/adb.cpp L236-290]), so values must not contain those.
 */

/**
 * What this device implements, and nothing more: advertising `cmd`/`abb_exec` would send
 * `adb install` down paths that are not here ([SC29 adb/client/adb_install.cpp L62-67,
 * L196-221]), `delayed_ack` would make newer hosts expect receive windows
 * (GrapheneOS/platform_packages_modules_adb @4d73d56b docs/dev/delayed_ack.md). adb 29's own
 * set: [SC29 adb/transport.cpp L66-77].
 */
export const DEVICE_FEATURES = ['shell_v2', 'stat_v2', 'ls_v2', 'fixed_push_mkdir'] as const;

const BANNER_PROPS = ['ro.product.name', 'ro.product.model', 'ro.product.device'] as const;

function sanitize(value: string): string {
  return value.replace(/[:;=\0]/g, '_');
}

export function buildDeviceBanner(props: ReadonlyMap<string, string>): string {
  const parts = BANNER_PROPS.map((key) => `${key}=${sanitize(props.get(key) ?? '')}`);
  parts.push(`features=${DEVICE_FEATURES.join(',')}`);
  return `device::${parts.join(';')}`;
}
