/**
 * The Android system model of one virtual device: system_server's services wired together, the
 * Context apps get, and its processes in the device's process table (what the shell's
 * `ps`/`pidof`/`kill` read). Installed on the device under the ANDROID_SYSTEM key.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import type { VirtualDevice } from '../device.js';
import { extensionKey } from '../extensions.js';
import { APP_LOG_PRIORITY, LogPriority, Uid } from '../types.js';
import { ActivityManagerService } from './activity-manager.js';
import type { AppComponentsApi, AppContext, AppDefinition, AppFiles, AppInstance, AppJobScheduler, AppManifest, AppNotificationManager, JobParameters, NotificationSpec } from './app-framework.js';
import { NotificationFlag } from './app-framework.js';
import { readApkManifest, type ApkManifest } from './apk-parser.js';
import { InstrumentationController } from './instrumentation.js';
import { NotificationListeners } from './notification-listeners.js';
import { notificationToString } from './notification-record.js';
import type { AppProcess } from './app-process.js';
import { IdentityHashes } from './java-lang.js';
import { JobSchedulerService, type JobStatus } from './job-scheduler.js';
import { CancelReason, NotificationManagerService } from './notification-manager.js';
import { AppOpsService } from './app-ops.js';
import { PackageManagerService, type PackageState } from './package-manager.js';
import { runAsSignalPolicy, UNTRUSTED_APP_DOMAIN } from './selinux-signals.js';
import { SettingsProvider } from './settings-provider.js';
import { SystemLog } from './system-log.js';

/** Well-known pids of the model (a freshly booted emulator has them in the low hundreds). */
export const ZYGOTE_PID = 312;
export const SYSTEM_SERVER_PID = 541;

/** The Android system model on a device where installAndroidModel (system/index.ts) ran. */
export const ANDROID_SYSTEM = extensionKey<AndroidSystem>('android.system');

/** Builds the code of an installed package from its manifest (apps the model knows by package name). */
export type AppModelFactory = (manifest: AppManifest) => AppDefinition;

/** Why `pm install` refused an APK: PackageManager.INSTALL_* code name and message. */
export class InstallFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'InstallFailure';
  }
}

export class AndroidSystem {
  readonly device: VirtualDevice;
  readonly log: SystemLog;
  readonly hashes: IdentityHashes;
  readonly packages: PackageManagerService;
  readonly settings = new SettingsProvider();
  readonly appOps = new AppOpsService();
  readonly notifications: NotificationManagerService;
  readonly jobs: JobSchedulerService;
  readonly activities: ActivityManagerService;
  readonly listeners: NotificationListeners;
  readonly instrumentation: InstrumentationController;
  /** Code for packages installed from an APK, by package name; others install without code. */
  readonly appModels = new Map<string, AppModelFactory>();
  private readonly bootTimeMs: number;

  constructor(device: VirtualDevice) {
    this.device = device;
    this.bootTimeMs = device.clock.now() - device.clock.elapsedRealtime();
    this.log = new SystemLog(device.logs, SYSTEM_SERVER_PID);
    this.hashes = new IdentityHashes(device.serialHint);
    this.packages = new PackageManagerService(device.apiLevel, device.clock.now());
    this.notifications = new NotificationManagerService({
      log: this.log,
      apiLevel: device.apiLevel,
      now: () => device.clock.now(),
      elapsedRealtime: () => device.clock.elapsedRealtime(),
      nextIdentityHash: () => this.hashes.next(),
      hasPostPermission: (pkg) => this.packages.hasPostNotifications(pkg),
    });
    this.jobs = new JobSchedulerService({
      log: this.log,
      apiLevel: device.apiLevel,
      elapsedRealtime: () => device.clock.elapsedRealtime(),
      now: () => device.clock.now(),
      nextIdentityHash: () => this.hashes.next(),
      packageUid: (pkg) => this.packages.get(pkg)?.uid,
      startJob: (js, params) => this.startJob(js, params),
      // JobServiceContext delivers onStopJob asynchronously (a binder call into the app).
      stopJob: (js, params) => {
        setImmediate(() => {
          const record = this.activities.processOf(js.sourcePackage);
          if (record?.instance === undefined) return;
          record.process.guard(record.instance.onStopJob(js.job.service.className, params)).catch(() => undefined);
        });
      },
    });
    this.activities = new ActivityManagerService({
      log: this.log,
      packages: this.packages,
      now: () => device.clock.now(),
      elapsedRealtime: () => device.clock.elapsedRealtime(),
      createContext: (pkg, process) => this.createContext(pkg, process),
      onProcessDied: (uid) => this.jobs.onProcessDied(uid),
      onPackageRestarted: (pkg) => {
        this.jobs.cancelJobsForPackage(pkg, 'app force stopped');
        this.notifications.cancelAllForPackage(pkg, CancelReason.PACKAGE_CHANGED);
        this.instrumentation.onPackageForceStopped(pkg);
      },
      spawnProcess: (spec) =>
        device.processes.spawn({ name: spec.name, uid: spec.uid, ppid: ZYGOTE_PID, startMs: spec.startMs, onSignal: spec.onSignal, domain: UNTRUSTED_APP_DOMAIN }),
      onProcessStarted: (record) => this.listeners.onProcessStarted(record),
      nextIdentityHash: () => this.hashes.next(),
      // JobServiceContext keeps the JobService bound while the job executes (process importance).
      isJobBound: (uid) => this.jobs.all().some((js) => js.callingUid === uid && js.active),
    });
    this.listeners = new NotificationListeners(this);
    this.instrumentation = new InstrumentationController(this);
    const table = device.processes;
    table.signalPolicy = runAsSignalPolicy(device.apiLevel);
    const boot = this.bootTimeMs;
    for (const p of [
      { name: 'zygote64', uid: 0, pid: ZYGOTE_PID, ppid: 1 },
      { name: 'system_server', uid: 1000, pid: SYSTEM_SERVER_PID, ppid: ZYGOTE_PID },
      { name: 'com.android.systemui', uid: 10127, pid: 812, ppid: ZYGOTE_PID },
      { name: 'com.google.android.apps.nexuslauncher', uid: 10134, pid: 1203, ppid: ZYGOTE_PID },
    ]) {
      if (table.get(p.pid) === undefined) table.spawn({ ...p, startMs: boot, onSignal: () => undefined });
    }
    device.onDispose(() => this.dispose());
  }

  dispose(): void {
    this.jobs.dispose();
    for (const record of this.activities.processes()) record.process.kill('device shutdown');
  }

  /** Installs an app at first boot: package record and its data directory owned by its uid. */
  async install(definition: AppDefinition): Promise<PackageState> {
    const state = this.packages.install(definition, this.device.clock.now());
    const dataDir = `/data/data/${state.packageName}`;
    await this.device.fs.mkdir(dataDir, Uid.root, { mode: 0o700, owner: { uid: state.uid, gid: state.uid } });
    for (const sub of ['cache', 'code_cache']) {
      await this.device.fs.mkdir(`${dataDir}/${sub}`, Uid.root, { mode: 0o771, owner: { uid: state.uid, gid: state.uid } });
    }
    return state;
  }

  /**
   * `pm install` / `cmd package install`: parses the APK's manifest, checks it as
   * PackageManagerService.preparePackageLI does (downgrade refused unless -d on a debuggable
   * package; SDK level), installs or replaces the package and creates its data directory.
   * Throws InstallFailure with the INSTALL_* code `pm` prints in `Failure [CODE: message]`.
   */
  async installApk(apk: Buffer, options: { grantRuntimePermissions: boolean; allowDowngrade: boolean; apkPath: string }): Promise<PackageState> {
    let parsed: ApkManifest;
    try {
      parsed = readApkManifest(apk);
    } catch (e) {
      throw new InstallFailure('INSTALL_PARSE_FAILED_NOT_APK', `Failed to parse ${options.apkPath}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (parsed.minSdk > this.device.apiLevel) {
      throw new InstallFailure('INSTALL_FAILED_OLDER_SDK', `Failed parse during installPackageLI: /data/app/vmdl.tmp/base.apk (at Binary XML file line #7): Requires newer sdk version #${parsed.minSdk} (current version is #${this.device.apiLevel})`);
    }
    const old = this.packages.get(parsed.packageName);
    if (old?.system === true) {
      throw new InstallFailure('INSTALL_FAILED_UPDATE_INCOMPATIBLE', `Package ${parsed.packageName} is a system package; the model does not update system packages`);
    }
    if (old !== undefined && parsed.versionCode < old.versionCode && !(options.allowDowngrade && old.debuggable)) {
      throw new InstallFailure('INSTALL_FAILED_VERSION_DOWNGRADE', `Downgrade detected: Update version code ${parsed.versionCode} is older than current ${old.versionCode}`);
    }
    const manifest: AppManifest = {
      packageName: parsed.packageName,
      uid: this.packages.uidFor(parsed.packageName),
      debuggable: parsed.debuggable,
      versionCode: parsed.versionCode,
      versionName: parsed.versionName,
      minSdk: parsed.minSdk,
      targetSdk: parsed.targetSdk,
      requestedPermissions: parsed.requestedPermissions,
      activities: parsed.activities,
      receivers: parsed.receivers,
      services: parsed.services,
      instrumentations: parsed.instrumentations,
    };
    if (old !== undefined) this.activities.forceStop(parsed.packageName, 'installPackageLI');
    const factory = this.appModels.get(parsed.packageName);
    const definition = factory === undefined ? inertApp(manifest) : factory(manifest);
    const { state, replaced } = this.packages.installFromShell(definition, this.device.clock.now(), { grantRuntimePermissions: options.grantRuntimePermissions });
    if (!replaced) await this.createDataDir(state);
    this.log.slog(LogPriority.I, 'PackageManager', `${replaced ? 'Update' : 'New'} package ${state.packageName} codePath=${state.codePath} versionCode=${state.versionCode}`);
    return state;
  }

  /** `pm uninstall PKG`: stops it, removes its data and its package record. */
  async uninstall(packageName: string): Promise<boolean> {
    const state = this.packages.get(packageName);
    if (state === undefined || state.system) return false;
    this.activities.forceStop(packageName, 'deletePackageX');
    this.notifications.clearChannels(packageName);
    this.packages.remove(packageName);
    await this.device.fs.rm(`/data/data/${packageName}`, Uid.root, { recursive: true, force: true });
    return true;
  }

  private async createDataDir(state: PackageState): Promise<void> {
    const dataDir = `/data/data/${state.packageName}`;
    await this.device.fs.mkdir(dataDir, Uid.root, { mode: 0o700, owner: { uid: state.uid, gid: state.uid } });
    for (const sub of ['cache', 'code_cache']) {
      await this.device.fs.mkdir(`${dataDir}/${sub}`, Uid.root, { mode: 0o771, owner: { uid: state.uid, gid: state.uid } });
    }
  }

  /**
   * `pm clear`: force-stop, reset the runtime permissions, wipe the data directory, drop
   * notification channels. PackageManagerService.clearApplicationUserDataLIF calls
   * mPermissionManager.resetRuntimePermissions(pkg, userId) before clearAppDataLIF
   * (services/core/java/com/android/server/pm/PackageManagerService.java: API 33
   * AOSP-TIRAMISU-x3/frameworks_base @564d095d, API 34 LOS21-pre-QPR2/android_frameworks_base
   * @029eb1a2); what the reset does is PackageManagerService.resetRuntimePermissions.
   */
  async clearData(packageName: string): Promise<boolean> {
    const state = this.packages.get(packageName);
    if (state === undefined) return false;
    this.activities.killForClear(packageName);
    this.jobs.cancelJobsForPackage(packageName, 'clear data');
    this.notifications.cancelAllForPackage(packageName, CancelReason.CLEAR_DATA);
    this.notifications.clearChannels(packageName);
    this.packages.resetRuntimePermissions(packageName);
    const dataDir = `/data/data/${packageName}`;
    if (!state.system) {
      for (const entry of await this.device.fs.readdir(dataDir, Uid.root)) {
        if (entry.name === '.' || entry.name === '..') continue;
        await this.device.fs.rm(`${dataDir}/${entry.name}`, Uid.root, { recursive: true, force: true });
      }
      for (const sub of ['cache', 'code_cache']) {
        await this.device.fs.mkdir(`${dataDir}/${sub}`, Uid.root, { mode: 0o771, owner: { uid: state.uid, gid: state.uid } });
      }
    }
    return true;
  }

  private async startJob(js: JobStatus, params: JobParameters): Promise<{ pid: number; continues: boolean } | undefined> {
    const pkg = this.packages.get(js.sourcePackage);
    const def = pkg?.definition;
    if (pkg === undefined || def === undefined) return undefined;
    const service = def.manifest.services.find((s) => s.name === js.job.service.className);
    if (service === undefined) return undefined;
    const record = await this.activities.ensureProcess(pkg, 'service', js.job.service);
    // Cancelled (e.g. by the app's own Application.onCreate) before the service was bound.
    if (js.removed || !js.active) return undefined;
    const continues = await record.process.guard(record.instance!.onStartJob(service.name, params));
    return { pid: record.process.pid, continues };
  }

  private createContext(pkg: PackageState, process: AppProcess): AppContext {
    const device = this.device;
    const uid = pkg.uid;
    const name = pkg.packageName;
    const jobs = this.jobs;
    const apiLevel = device.apiLevel;
    const jobSchedulerFor = (namespace: string | null): AppJobScheduler => ({
      namespace,
      schedule: (job) => jobs.schedule(uid, name, namespace, job),
      cancel: (jobId) => jobs.cancel(uid, namespace, jobId),
      cancelAll: () => jobs.cancelAll(uid, namespace),
      cancelInAllNamespaces: () => jobs.cancelAll(uid, null, true),
      getAllPendingJobs: () => jobs.pendingJobs(uid, namespace),
      forNamespace: (ns) => {
        if (apiLevel < 34) throw new Error(`JobScheduler.forNamespace needs API 34 (device is ${apiLevel})`);
        return jobSchedulerFor(ns);
      },
    });
    const notifications = this.notifications;
    const notificationManager: AppNotificationManager = {
      createNotificationChannel: (channel) => notifications.createNotificationChannel(name, channel),
      getNotificationChannel: (id) => notifications.getChannel(name, id),
      notify: async (tag, id, notification) => {
        process.throwIfDead();
        notifications.enqueue({ pkg: name, opPkg: name, callingUid: uid, callingPid: process.pid, userId: 0, tag, id, notification });
        await process.checkpoint();
      },
      cancel: (tag, id) => notifications.cancel(name, 0, tag, id),
      areNotificationsEnabled: () => this.packages.hasPostNotifications(name),
    };
    const files = createAppFiles(device, `/data/user/0/${name}`);
    const components: AppComponentsApi = {
      startService: async (serviceClass, intent) => {
        process.throwIfDead();
        await this.activities.startService(pkg, serviceClass, intent);
      },
      startForeground: async (serviceClass, id, notification: NotificationSpec) => {
        process.throwIfDead();
        const n: NotificationSpec = { ...notification, flags: notification.flags | NotificationFlag.FLAG_FOREGROUND_SERVICE | NotificationFlag.FLAG_NO_CLEAR };
        this.activities.setForeground(name, serviceClass, id, notificationToString(n));
        notifications.enqueue({ pkg: name, opPkg: name, callingUid: uid, callingPid: process.pid, userId: 0, tag: null, id, notification: n });
        await process.checkpoint();
      },
      registerReceiver: (receiverClass, action) => this.activities.registerReceiver(process, receiverClass, action),
      getSecureSetting: (key) => this.settings.get('secure', key),
    };
    return {
      process,
      packageName: name,
      uid,
      apiLevel,
      files,
      log: {
        println: (priority: LogPriority, tag: string, message: string) => {
          if (!process.alive) return;
          device.logs.write({ buffer: 'main', priority, tag, message, pid: process.pid, tid: process.pid, uid });
        },
      },
      currentTimeMillis: () => device.clock.now(),
      elapsedRealtime: () => device.clock.elapsedRealtime(),
      notificationManager,
      jobScheduler: jobSchedulerFor(null),
      historicalProcessExitReasons: () => this.activities.exitInfos(name),
      connect: (port: number): Promise<Duplex> => process.guard(device.network.connect(port)),
      bugs: new Set(device.options.bugs ?? []),
      ...(device.options.appProfile === undefined ? {} : { appProfile: device.options.appProfile }),
      ...(device.options.appLogLevel === undefined ? {} : { workManagerLogLevel: APP_LOG_PRIORITY[device.options.appLogLevel] }),
      ...(device.options.workManagerTaskDelayMs === undefined ? {} : { workManagerTaskDelayMs: device.options.workManagerTaskDelayMs }),
      components,
    };
  }
}

/** A package installed from an APK the model has no code for: its components start and do nothing. */
function inertApp(manifest: AppManifest): AppDefinition {
  const instance: AppInstance = {
    onCreate: () => Promise.resolve(),
    onActivityCreate: () => Promise.resolve(),
    onReceive: () => Promise.resolve(undefined),
    onStartJob: () => Promise.resolve(false),
    onStopJob: () => Promise.resolve(false),
  };
  return { manifest, createInstance: () => instance };
}

/** File access for an app: host files under the device directory, owned by the app through its data dir. */
function createAppFiles(device: VirtualDevice, dataDir: string): AppFiles {
  const host = (p: string): string => device.hostPath(p);
  return {
    dataDir,
    hostPath: host,
    mkdirs: (p) => {
      const h = host(p);
      if (existsSync(h)) return;
      mkdirSync(h, { recursive: true });
      chmodSync(h, 0o771);
    },
    exists: (p) => existsSync(host(p)),
    readFile: (p) => {
      const h = host(p);
      return existsSync(h) ? readFileSync(h) : undefined;
    },
    writeFile: (p, data) => {
      writeFileSync(host(p), data);
      chmodSync(host(p), 0o660);
    },
    // Files created on the host inherit the owner of their directory (VirtualFs metadata).
    adopt: () => undefined,
  };
}

/** The device's Android system model, or undefined on a bare device (core only). */
export function getAndroidSystem(device: VirtualDevice): AndroidSystem | undefined {
  return device.extensions.find(ANDROID_SYSTEM);
}
