/**
 * Installs the Android system model (system services and their shell commands) and the
 * preinstalled apps on a virtual device: the reference app, and on API 30 the other apps of
 * apps/other-apps.ts.
 */
import type { VirtualDevice } from '../device.js';
import { feedNotifierAppFor } from '../apps/feed-notifier/feed-notifier-app.js';
import { installOtherApps } from '../apps/other-apps.js';
import { ANDROID_SYSTEM, AndroidSystem } from './android-system.js';
import { amCommand } from './commands/am.js';
import { appopsCommand } from './commands/appops.js';
import { base64 } from './commands/base64.js';
import { cmdCommand } from './commands/cmd.js';
import { dumpsysCommand } from './commands/dumpsys.js';
import { inputCommand } from './commands/input.js';
import { pmCommand } from './commands/pm.js';
import { runAsCommand } from './commands/run-as.js';
import { settingsCommand } from './commands/settings.js';
import { sqlite3Command } from './commands/sqlite3.js';
import { installAppiumSupport } from '../uia2/index.js';

export { ANDROID_SYSTEM, AndroidSystem, getAndroidSystem } from './android-system.js';

/** Refused (DuplicateExtensionError) on a device that has it already, before it changes anything. */
export async function installAndroidModel(device: VirtualDevice): Promise<void> {
  const system = device.extensions.install(ANDROID_SYSTEM, () => new AndroidSystem(device));
  const commands = device.commands;
  commands.register('am', amCommand(system));
  commands.register('pm', pmCommand(system));
  commands.register('cmd', cmdCommand(system));
  commands.register('dumpsys', dumpsysCommand(system));
  commands.register('settings', settingsCommand(system));
  commands.register('run-as', runAsCommand(system));
  commands.register('input', inputCommand(system));
  commands.register('appops', appopsCommand(system));
  commands.register('base64', base64);
  // sqlite3 is in PRODUCT_PACKAGES_DEBUG (userdebug/eng builds only): a `--no-sqlite3` device has
  // none, and the shell reports `sqlite3: inaccessible or not found` for it.
  // A phone (--physical) is a user build: no sqlite3 binary, as with --no-sqlite3.
  if (device.options.noSqlite3 !== true && device.options.physical !== true) commands.register('sqlite3', sqlite3Command(system));
  // The reference app, in the shape of the app profile the device was started with.
  await system.install(feedNotifierAppFor(device.options.appProfile ?? 'reference'));
  // API 30: other apps with registered WorkManager jobs (apps/other-apps.ts).
  await installOtherApps(system);
  installAppiumSupport(system);
}
