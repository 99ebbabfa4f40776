/**
 * Installs the Android system model (system services and their shell commands) and the
 * preinstalled apps on a virtual device.
 */
import type { VirtualDevice } from '../device.js';

export async function installAndroidModel(_device: VirtualDevice): Promise<void> {
  // Filled in by the Android model: packages, activity manager, job scheduler, notifications,
  // settings, alarm, run-as, sqlite3, dumpsys, and the reference app.
}
