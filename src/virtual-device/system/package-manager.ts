/**
 * PackageManagerService: installed packages, their uids, debuggable flag, runtime permissions and
 * stopped state.
 *
 * Sources: frameworks/base services/core/java/com/android/server/pm/ (PackageManagerService,
 * Settings.dumpPackageLPr for `dumpsys package`, PackageManagerShellCommand for `pm`), and
 * android-facts.md §6. POST_NOTIFICATIONS is a runtime permission from API 33 (Android 13);
 * on API 30 the permission does not exist.
 */
import { randomBytes } from 'node:crypto';
import type { AppDefinition } from './app-framework.js';

export const POST_NOTIFICATIONS = 'android.permission.POST_NOTIFICATIONS';
export const INTERNET = 'android.permission.INTERNET';

export interface PackageState {
  readonly packageName: string;
  readonly uid: number;
  readonly debuggable: boolean;
  readonly system: boolean;
  readonly versionCode: number;
  readonly versionName: string;
  readonly minSdk: number;
  readonly targetSdk: number;
  /** `/data/app/~~<random>==/<pkg>-<random>==` (Android 11+ code paths). */
  readonly codePath: string;
  readonly requestedPermissions: readonly string[];
  /** Runtime permissions and whether they are granted. */
  readonly runtimePermissions: Map<string, boolean>;
  readonly definition: AppDefinition | undefined;
  /** PackageUserState.stopped: true after install and after a force-stop, until a component runs. */
  stopped: boolean;
  notLaunched: boolean;
  readonly firstInstallTime: number;
  lastUpdateTime: number;
}

/** Runtime (dangerous) permissions the model knows, by the API level that introduced them. */
const RUNTIME_PERMISSIONS: Readonly<Record<string, number>> = { [POST_NOTIFICATIONS]: 33 };

function randomPathPart(): string {
  return randomBytes(16).toString('base64').replaceAll('/', '_').replaceAll('+', '-');
}

/** Preinstalled system packages a `pm list packages` shows (uids as on the emulator images). */
const SYSTEM_PACKAGES: readonly { name: string; uid: number; path: string }[] = [
  { name: 'android', uid: 1000, path: '/system/framework/framework-res.apk' },
  { name: 'com.android.shell', uid: 2000, path: '/system/priv-app/Shell/Shell.apk' },
  { name: 'com.android.providers.settings', uid: 1000, path: '/system/priv-app/SettingsProvider/SettingsProvider.apk' },
  { name: 'com.android.systemui', uid: 10127, path: '/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk' },
  { name: 'com.google.android.apps.nexuslauncher', uid: 10134, path: '/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk' },
];

export class PackageManagerService {
  private readonly apiLevel: number;
  private readonly packages = new Map<string, PackageState>();
  /** Files installed with `pm install PATH` (recorded, not parsed). */
  readonly installedFiles: { path: string; timeMs: number }[] = [];

  constructor(apiLevel: number, nowMs: number) {
    this.apiLevel = apiLevel;
    for (const p of SYSTEM_PACKAGES) {
      this.packages.set(p.name, {
        packageName: p.name,
        uid: p.uid,
        debuggable: false,
        system: true,
        versionCode: apiLevel,
        versionName: String(apiLevel),
        minSdk: apiLevel,
        targetSdk: apiLevel,
        codePath: p.path,
        requestedPermissions: [],
        runtimePermissions: new Map(),
        definition: undefined,
        stopped: false,
        notLaunched: false,
        firstInstallTime: nowMs,
        lastUpdateTime: nowMs,
      });
    }
  }

  /** Installs an app (first boot): runtime permissions it requests are granted, as `adb install -g` does. */
  install(definition: AppDefinition, nowMs: number): PackageState {
    const m = definition.manifest;
    const runtime = new Map<string, boolean>();
    for (const perm of m.requestedPermissions) if (this.isRuntimePermission(perm)) runtime.set(perm, true);
    const state: PackageState = {
      packageName: m.packageName,
      uid: m.uid,
      debuggable: m.debuggable,
      system: false,
      versionCode: m.versionCode,
      versionName: m.versionName,
      minSdk: m.minSdk,
      targetSdk: m.targetSdk,
      codePath: `/data/app/~~${randomPathPart()}/${m.packageName}-${randomPathPart()}`,
      requestedPermissions: m.requestedPermissions,
      runtimePermissions: runtime,
      definition,
      stopped: true,
      notLaunched: true,
      firstInstallTime: nowMs,
      lastUpdateTime: nowMs,
    };
    this.packages.set(m.packageName, state);
    return state;
  }

  isRuntimePermission(perm: string): boolean {
    const since = RUNTIME_PERMISSIONS[perm];
    return since !== undefined && this.apiLevel >= since;
  }

  /** True when the permission exists on this API level (PermissionManager knows it). */
  permissionExists(perm: string): boolean {
    if (perm in RUNTIME_PERMISSIONS) return this.isRuntimePermission(perm);
    return perm.startsWith('android.permission.');
  }

  get(packageName: string): PackageState | undefined {
    return this.packages.get(packageName);
  }

  byUid(uid: number): PackageState[] {
    return [...this.packages.values()].filter((p) => p.uid === uid);
  }

  all(): PackageState[] {
    return [...this.packages.values()];
  }

  /** AppOps/permission check NMS uses (PermissionHelper.hasPermission): always true below 33. */
  hasPostNotifications(packageName: string): boolean {
    if (this.apiLevel < 33) return true;
    const p = this.packages.get(packageName);
    if (p === undefined) return false;
    return p.runtimePermissions.get(POST_NOTIFICATIONS) === true;
  }

  apkPath(p: PackageState): string {
    return p.system ? p.codePath : `${p.codePath}/base.apk`;
  }

  /** Android 11+ data directory for user 0. */
  dataDir(packageName: string): string {
    return `/data/user/0/${packageName}`;
  }
}
