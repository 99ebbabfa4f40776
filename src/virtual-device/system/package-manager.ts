/**
 * PackageManagerService: installed packages, their uids, debuggable flag, runtime permissions and
 * stopped state.
 *
 * Sources: frameworks/base services/core/java/com/android/server/pm/ (PackageManagerService,
 * Settings.dumpPackageLPr for `dumpsys package`, PackageManagerShellCommand for `pm`); run-as
 * serves debuggable packages only (aosp-mirror/platform_system_core run-as/run-as.cpp @145ac70b);
 * `pm clear` resets runtime permissions (appium/appium-android-driver PR #325, and see
 * resetRuntimePermissions). POST_NOTIFICATIONS is a runtime permission from API 33 (Android 13);
 * on API 30 the permission does not exist.
 */
import { randomBytes } from 'node:crypto';
import type { AppDefinition, InstrumentationSpec } from './app-framework.js';

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
  /** `<instrumentation>` elements of the manifest (test packages). */
  readonly instrumentations: readonly InstrumentationSpec[];
  /** Installed with `pm install` / `adb install` (not at first boot). */
  readonly installedByShell: boolean;
}

/** First uid handed to a package installed from the shell (after the preinstalled apps' uids). */
const FIRST_SHELL_INSTALL_UID = 10200;

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
        instrumentations: [],
        installedByShell: false,
      });
    }
  }

  /** Installs an app (first boot): runtime permissions it requests are granted, as `adb install -g` does. */
  install(definition: AppDefinition, nowMs: number): PackageState {
    const runtime = new Map<string, boolean>();
    for (const perm of definition.manifest.requestedPermissions) if (this.isRuntimePermission(perm)) runtime.set(perm, true);
    return this.register(definition, nowMs, runtime, undefined, false);
  }

  /**
   * `pm install` of a parsed APK (PackageManagerService.installPackagesLI, abridged): a new package
   * gets the next free app uid; an update keeps its uid, first install time and the grants it had
   * (replace is the default since Android 10's `pm install`; -R would refuse it). Runtime
   * permissions are granted only with `-g`. The caller has already checked the version rules.
   */
  installFromShell(definition: AppDefinition, nowMs: number, options: { grantRuntimePermissions: boolean }): { state: PackageState; replaced: boolean } {
    const old = this.packages.get(definition.manifest.packageName);
    const runtime = new Map<string, boolean>();
    for (const perm of definition.manifest.requestedPermissions) {
      if (!this.isRuntimePermission(perm)) continue;
      runtime.set(perm, options.grantRuntimePermissions || old?.runtimePermissions.get(perm) === true);
    }
    return { state: this.register(definition, nowMs, runtime, old, true), replaced: old !== undefined };
  }

  /** The package's state after an install; an update (`old`) keeps its stopped state and first install time. */
  private register(definition: AppDefinition, nowMs: number, runtime: Map<string, boolean>, old: PackageState | undefined, installedByShell: boolean): PackageState {
    const m = definition.manifest;
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
      stopped: old?.stopped ?? true,
      notLaunched: old?.notLaunched ?? true,
      firstInstallTime: old?.firstInstallTime ?? nowMs,
      lastUpdateTime: nowMs,
      instrumentations: m.instrumentations ?? [],
      installedByShell,
    };
    this.packages.set(m.packageName, state);
    return state;
  }

  /** The uid a package installed now would get: its current one on an update, else the next free app uid. */
  uidFor(packageName: string): number {
    const existing = this.packages.get(packageName);
    if (existing !== undefined) return existing.uid;
    const used = new Set([...this.packages.values()].map((p) => p.uid));
    let uid = FIRST_SHELL_INSTALL_UID;
    while (used.has(uid)) uid++;
    return uid;
  }

  /** Removes a package record (`pm uninstall`); false when there was none. */
  remove(packageName: string): boolean {
    return this.packages.delete(packageName);
  }

  /** Every `<instrumentation>` of every package, as queryInstrumentation returns them. */
  instrumentations(): { readonly pkg: PackageState; readonly info: InstrumentationSpec }[] {
    return [...this.packages.values()].flatMap((pkg) => pkg.instrumentations.map((info) => ({ pkg, info })));
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

  /**
   * `pm clear`'s permission reset: PermissionManagerServiceImpl.resetRuntimePermissionsInternal,
   * which PermissionManagerService.resetRuntimePermissions delegates to
   * (aosp-mirror/platform_frameworks_base services/core/java/com/android/server/pm/permission/
   * PermissionManagerServiceImpl.java @0243d061). For every requested runtime permission the
   * user-settable flags are cleared; SYSTEM_FIXED/POLICY_FIXED ones are left alone,
   * GRANTED_BY_DEFAULT/GRANTED_BY_ROLE ones are granted again, a legacy app (targetSdk < 23) is
   * marked REVIEW_REQUIRED and keeps its grant, and every other one is revoked
   * (revokeRuntimePermissionInternal). The model's apps hold no fixed, default or role grants, so
   * a runtime permission is revoked unless the app targets SDK < 23. Only permissions that are
   * runtime on this API level are in `runtimePermissions` (POST_NOTIFICATIONS from 33), so on
   * API 30 nothing changes. Called by `pm clear` (AndroidSystem.clearData).
   */
  resetRuntimePermissions(packageName: string): void {
    const p = this.packages.get(packageName);
    if (p === undefined || p.targetSdk < 23) return;
    for (const perm of p.runtimePermissions.keys()) p.runtimePermissions.set(perm, false);
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
