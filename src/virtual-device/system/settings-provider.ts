/**
 * SettingsProvider: the global/system/secure tables `settings get/put/delete/list` read and write.
 * Defaults are those of a freshly booted emulator image (auto_time and auto_time_zone on:
 * frameworks/base packages/SettingsProvider/res/values/defaults.xml def_auto_time = true).
 * An unset key reads as `null` (SettingsService prints the Java null).
 */
export type SettingsNamespace = 'global' | 'system' | 'secure';

export const SETTINGS_NAMESPACES: readonly SettingsNamespace[] = ['system', 'secure', 'global'];

export class SettingsProvider {
  private readonly tables: Record<SettingsNamespace, Map<string, string>>;

  constructor() {
    this.tables = {
      global: new Map([
        ['auto_time', '1'],
        ['auto_time_zone', '1'],
        ['adb_enabled', '1'],
        ['development_settings_enabled', '1'],
        ['device_provisioned', '1'],
        ['stay_on_while_plugged_in', '0'],
        ['window_animation_scale', '1.0'],
        ['transition_animation_scale', '1.0'],
        ['animator_duration_scale', '1.0'],
      ]),
      system: new Map([
        ['screen_off_timeout', '60000'],
        ['time_12_24', '24'],
      ]),
      secure: new Map([
        ['android_id', 'b4f1c0a9e2d37f65'],
        ['user_setup_complete', '1'],
      ]),
    };
  }

  get(ns: SettingsNamespace, key: string): string | undefined {
    return this.tables[ns].get(key);
  }

  put(ns: SettingsNamespace, key: string, value: string): void {
    this.tables[ns].set(key, value);
  }

  /** Returns the number of rows deleted (0 or 1). */
  delete(ns: SettingsNamespace, key: string): number {
    return this.tables[ns].delete(key) ? 1 : 0;
  }

  list(ns: SettingsNamespace): [string, string][] {
    return [...this.tables[ns].entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
