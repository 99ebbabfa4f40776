/**
 * What the virtual device needs for a real Appium UiAutomator2 session: the code behind the
 * packages the driver installs from its bundled APKs (the io.appium.settings helper, the
 * UiAutomator2 server and its test package), wired into the Android model. The packages
 * themselves are installed by the driver through `adb install`, as on any device.
 */
import type { AndroidSystem } from '../system/android-system.js';
import { SETTINGS_PACKAGE, appiumSettingsApp } from './appium-settings-app.js';
import { RUNNER_CLASS, TEST_PACKAGE, runUiAutomator2Server } from './uiautomator2-server.js';

export function installAppiumSupport(system: AndroidSystem): void {
  system.appModels.set(SETTINGS_PACKAGE, appiumSettingsApp);
  system.instrumentation.registerRunner(TEST_PACKAGE, RUNNER_CLASS, runUiAutomator2Server);
}
