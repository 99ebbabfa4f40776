/**
 * The Android system model of one virtual device: system_server's services wired together, the
 * Context apps get, and the process table the shell's `ps`/`pidof`/`kill` can read
 * (device.extensions 'android.processes').
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import type { VirtualDevice } from '../device.js';
import { Uid, type LogPriority } from '../types.js';
import { ActivityManagerService } from './activity-manager.js';
import type { AppContext, AppDefinition, AppFiles, AppJobScheduler, AppNotificationManager, JobParameters } from './app-framework.js';
import type { AppProcess } from './app-process.js';
import { IdentityHashes } from './java-lang.js';
import { JobSchedulerService, type JobStatus } from './job-scheduler.js';
import { CancelReason, NotificationManagerService } from './notification-manager.js';
import { PackageManagerService, type PackageState } from './package-manager.js';
import { SettingsProvider } from './settings-provider.js';
import { SystemLog } from './system-log.js';
import { processTableOf } from '../shell/process-table.js';

/** Well-known pids of the model (a freshly booted emulator has them in the low hundreds). */
export const ZYGOTE_PID = 312;
export const SYSTEM_SERVER_PID = 541;

export const ANDROID_SYSTEM_EXTENSION = 'android.system';

export class AndroidSystem {
  readonly device: VirtualDevice;
  readonly log: SystemLog;
  readonly hashes: IdentityHashes;
  readonly packages: PackageManagerService;
  readonly settings = new SettingsProvider();
  readonly notifications: NotificationManagerService;
  readonly jobs: JobSchedulerService;
  readonly activities: ActivityManagerService;
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
      },
      spawnProcess: (spec) => processTableOf(device).spawn({ name: spec.name, uid: spec.uid, ppid: ZYGOTE_PID, startMs: spec.startMs, onSignal: spec.onSignal }),
    });
    const table = processTableOf(device);
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

  /** `pm clear`: force-stop, wipe the data directory, drop notification channels. */
  async clearData(packageName: string): Promise<boolean> {
    const state = this.packages.get(packageName);
    if (state === undefined) return false;
    this.activities.killForClear(packageName);
    this.jobs.cancelJobsForPackage(packageName, 'clear data');
    this.notifications.cancelAllForPackage(packageName, CancelReason.CLEAR_DATA);
    this.notifications.clearChannels(packageName);
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
    };
  }
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

export function getAndroidSystem(device: VirtualDevice): AndroidSystem | undefined {
  const sys = device.extensions.get(ANDROID_SYSTEM_EXTENSION);
  return sys instanceof AndroidSystem ? sys : undefined;
}
