/**
 * ActivityManagerService: app processes (pids, start, death), activities (the top one), broadcasts
 * and the exit records ApplicationExitInfo reports.
 *
 * Sources (frameworks/base services/core/java/com/android/server/am/):
 * - ActivityManagerShellCommand.java (`am start`/`force-stop`/`kill`/`broadcast` texts).
 * - ActivityManagerService.forceStopPackage: kills the package's processes
 *   (ApplicationExitInfo.REASON_USER_REQUESTED), marks the package stopped and sends
 *   ACTION_PACKAGE_RESTARTED, on which JobSchedulerService cancels the package's jobs and
 *   NotificationManagerService cancels its notifications (REASON_PACKAGE_CHANGED)
 *   (JobSchedulerService.java @f4cdb430, "app force stopped"; NotificationManagerService
 *   mPackageIntentReceiver).
 * - ActivityManagerService.killBackgroundProcesses: only processes whose oom_adj is at least
 *   ProcessList.SERVICE_ADJ die (REASON_USER_REQUESTED, "kill background"); a process showing the
 *   top activity or running a job survives. See `oomAdj` and `killBackground` for the sources.
 * - Broadcasts to manifest receivers skip stopped packages unless the intent carries
 *   FLAG_INCLUDE_STOPPED_PACKAGES, and since API 26 implicit broadcasts (no package, no
 *   component) do not reach manifest receivers ("Background execution not allowed").
 */
import type { AppContext, AppDefinition, AppInstance, ApplicationExitInfo, ManifestComponent } from './app-framework.js';
import { ExitReason } from './app-framework.js';
import { AppProcess, isProcessDeath } from './app-process.js';
import { IntentFlag, flattenToShortString, intentToString, type ComponentName, type Intent } from './intent.js';
import { formatUid } from './java-lang.js';
import { matchesActivityFilter } from './intent-filter.js';
import type { PackageManagerService, PackageState } from './package-manager.js';
import type { SystemLog } from './system-log.js';
import { LogPriority } from '../types.js';

const TAG = 'ActivityManager';

export type HostingType = 'activity' | 'service' | 'broadcast' | 'added application';

/**
 * A started service (ActiveServices' ServiceRecord, the fields `dumpsys activity services` prints:
 * A14 services/core/java/com/android/server/am/ServiceRecord.java dump()).
 */
export interface ServiceRecord {
  readonly component: ComponentName;
  readonly identityHash: number;
  readonly createRealtimeMs: number;
  lastActivityMs: number;
  lastStartId: number;
  isForeground: boolean;
  foregroundId: number;
  /** Notification.toString() of the foreground notification. */
  foregroundNoti: string | undefined;
}

/** A receiver registered with Context.registerReceiver (lives as long as its process). */
interface RegisteredReceiver {
  readonly pkg: string;
  readonly receiverClass: string;
  readonly action: string;
  readonly process: AppProcess;
}

export interface ProcessRecord {
  readonly process: AppProcess;
  readonly pkg: PackageState;
  instance: AppInstance | undefined;
  /** Resolves once Application.onCreate returned. */
  readonly started: Promise<void>;
  /** Activities created in this process (the task's activities). */
  readonly activities: Set<string>;
}

/** ActivityManager.START_* results `am start` reports. */
export const StartResult = { SUCCESS: 0, TASK_TO_FRONT: 2, DELIVERED_TO_TOP: 3, CLASS_NOT_FOUND: -92, INTENT_NOT_RESOLVED: -91 } as const;
export type StartResult = (typeof StartResult)[keyof typeof StartResult];

export interface BroadcastOutcome {
  readonly resultCode: number;
  readonly resultData: string | undefined;
  readonly delivered: number;
}

export interface ActivityManagerDeps {
  readonly log: SystemLog;
  readonly packages: PackageManagerService;
  now(): number;
  elapsedRealtime(): number;
  /** Builds the Context an app's code sees in a new process. */
  createContext(pkg: PackageState, process: AppProcess): AppContext;
  /** The process of `uid` died (JobScheduler reschedules its running jobs). */
  onProcessDied(uid: number): void;
  /** ACTION_PACKAGE_RESTARTED: jobs and notifications of the package are cancelled. */
  onPackageRestarted(pkg: string): void;
  /** Adds a process to the device's process table (zygote forks it); returns its pid. */
  spawnProcess(spec: { name: string; uid: number; startMs: number; onSignal: (signal: number) => void }): { pid: number; exit(): void };
  /** A process finished Application.onCreate (bound services such as notification listeners rebind). */
  onProcessStarted?(record: ProcessRecord): void;
  /** Identity hashes for the records `dumpsys activity` prints. */
  nextIdentityHash?(): number;
  /**
   * True while JobSchedulerService has a job of `uid` executing (JobServiceContext holds its
   * JobService bound from system_server, from bindServiceAsUser to unbind after jobFinished).
   */
  isJobBound(uid: number): boolean;
}

/**
 * The ProcessList oom_adj levels the model assigns (lower = more important). Values read in
 * services/core/java/com/android/server/am/ProcessList.java: API 30 Ankits-lab/frameworks_base
 * @150a9240 and API 34 yaap/frameworks_base @0533cfa1 (identical for these constants).
 */
export const OomAdj = {
  /** The process running the current foreground (top) activity. */
  FOREGROUND_APP_ADJ: 0,
  /** Activities visible but not on top (the model has no such state: no split screen, no dialogs over other apps). */
  VISIBLE_APP_ADJ: 100,
  /** A foreground service ("fg-service"). */
  PERCEPTIBLE_APP_ADJ: 200,
  /** Bound by the system with BIND_NOT_PERCEPTIBLE: a JobService while its job runs. */
  PERCEPTIBLE_LOW_APP_ADJ: 250,
  /** A started service with recent activity; also killBackgroundProcesses' minOomAdj. */
  SERVICE_ADJ: 500,
  /** The app the user was in before (its activities stopped, e.g. after HOME). */
  PREVIOUS_APP_ADJ: 700,
  /** Cached: nothing above applies (no activity, service or job). */
  CACHED_APP_MIN_ADJ: 900,
} as const;

/** A process's oom_adj and the OomAdjuster adjType that explains it. */
export interface ProcessImportance {
  readonly adj: number;
  readonly adjType: 'top-activity' | 'fg-service' | 'service' | 'started-services' | 'previous' | 'cch-empty';
}

export class ActivityManagerService {
  private readonly deps: ActivityManagerDeps;
  private readonly records = new Map<string, ProcessRecord>();
  private readonly exits = new Map<string, ApplicationExitInfo[]>();
  /** The package whose activity is resumed on top (undefined: the launcher). */
  private topPackage: string | undefined;
  private readonly services = new Map<string, ServiceRecord[]>();
  private readonly registered: RegisteredReceiver[] = [];

  constructor(deps: ActivityManagerDeps) {
    this.deps = deps;
  }

  /** Live app processes. */
  processes(): ProcessRecord[] {
    return [...this.records.values()];
  }

  processOf(pkg: string): ProcessRecord | undefined {
    const r = this.records.get(pkg);
    return r !== undefined && r.process.alive ? r : undefined;
  }

  exitInfos(pkg: string): ApplicationExitInfo[] {
    return [...(this.exits.get(pkg) ?? [])].reverse();
  }

  isTop(pkg: string): boolean {
    return this.topPackage === pkg && this.processOf(pkg) !== undefined;
  }

  /** Starts the package's process (if needed) and waits for Application.onCreate. */
  async ensureProcess(pkg: PackageState, hosting: HostingType, component: ComponentName | string): Promise<ProcessRecord> {
    const existing = this.processOf(pkg.packageName);
    if (existing !== undefined) {
      await existing.started;
      existing.process.throwIfDead();
      return existing;
    }
    const def = pkg.definition;
    if (def === undefined) throw new Error(`package ${pkg.packageName} has no code`);
    let onSignal: (signal: number) => void = () => undefined;
    const handle = this.deps.spawnProcess({ name: pkg.packageName, uid: pkg.uid, startMs: this.deps.now(), onSignal: (signal) => onSignal(signal) });
    const process = new AppProcess({
      pid: handle.pid,
      uid: pkg.uid,
      packageName: pkg.packageName,
      startTimeMs: this.deps.now(),
      startElapsedMs: this.deps.elapsedRealtime(),
    });
    pkg.stopped = false;
    const hostingName = typeof component === 'string' ? component : flattenToShortString(component);
    this.deps.log.slog(LogPriority.I, TAG, `Start proc ${process.pid}:${process.name}/${formatUid(pkg.uid)} for ${hosting} {${hostingName}}`);
    let resolveStarted: () => void = () => undefined;
    let rejectStarted: (e: unknown) => void = () => undefined;
    const started = new Promise<void>((resolve, reject) => {
      resolveStarted = resolve;
      rejectStarted = reject;
    });
    started.catch(() => undefined);
    const record: ProcessRecord = { process, pkg, instance: undefined, started, activities: new Set() };
    this.records.set(pkg.packageName, record);
    // Default actions (signal(7)): these are ignored or stop/continue; the rest terminate. ART
    // takes SIGQUIT and SIGUSR1 itself: its "Signal Catcher" thread sigwait()s for them (blocked
    // in every thread) and dumps the threads' stacks (SIGQUIT, the ANR trace) or forces a GC
    // (SIGUSR1), and the process goes on; SIGPIPE is blocked too (aosp-mirror/platform_art
    // runtime/signal_catcher.cc SignalCatcher::Run, runtime/runtime.cc Runtime::BlockSignals,
    // GrapheneOS/platform_art @1cd00485). ART installs no SIGTERM handler, so SIGTERM ends the
    // process with its default action, as SIGKILL does; the worker's code does not get to run.
    onSignal = (signal) => {
      if (signal === 0 || signal === 17 || signal === 18 || signal === 19 || signal === 20 || signal === 23 || signal === 28) return;
      if (signal === 3 || signal === 10 || signal === 13) return;
      this.killPid(process.pid, signal);
    };
    process.onDeath(() => {
      handle.exit();
      if (this.records.get(pkg.packageName) === record) this.records.delete(pkg.packageName);
      if (this.topPackage === pkg.packageName) this.topPackage = undefined;
      // A dead process loses its services and registered receivers (a force-stopped package's
      // services are not restarted; other deaths would reschedule sticky services, not modelled).
      this.services.delete(pkg.packageName);
      for (let i = this.registered.length - 1; i >= 0; i--) if (this.registered[i]!.process === process) this.registered.splice(i, 1);
      this.deps.onProcessDied(pkg.uid);
    });
    try {
      const instance = this.instantiate(def, pkg, process);
      record.instance = instance;
      await process.guard(instance.onCreate());
      resolveStarted();
      this.deps.onProcessStarted?.(record);
    } catch (e) {
      rejectStarted(e);
      if (!isProcessDeath(e)) {
        this.crash(record, e);
      }
      throw e;
    }
    return record;
  }

  private instantiate(def: AppDefinition, pkg: PackageState, process: AppProcess): AppInstance {
    return def.createInstance(this.deps.createContext(pkg, process));
  }

  /** An uncaught exception in app code: the process dies as a crash (AndroidRuntime FATAL EXCEPTION). */
  crash(record: ProcessRecord, e: unknown): void {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    this.deps.log.slog(LogPriority.E, 'AndroidRuntime', `FATAL EXCEPTION: main\nProcess: ${record.process.name}, PID: ${record.process.pid}\n${message}`);
    this.recordExit(record.pkg.packageName, record.process.pid, ExitReason.CRASH, 'crash');
    record.process.kill('crash');
  }

  private recordExit(pkg: string, pid: number, reason: number, description: string): void {
    let list = this.exits.get(pkg);
    if (list === undefined) {
      list = [];
      this.exits.set(pkg, list);
    }
    list.push({ pid, reason, timestamp: this.deps.now(), description });
    if (list.length > 16) list.shift();
  }

  /**
   * `am start -n PKG/CLS`. An explicit component that resolves to no ActivityInfo, whether the
   * package is missing or only the class, is START_CLASS_NOT_FOUND (ActivityStarter.executeRequest,
   * aosp-mirror/platform_frameworks_base services/core/java/com/android/server/wm/ActivityStarter.java
   * @338f6e29: START_INTENT_NOT_RESOLVED only when `intent.getComponent() == null`, then
   * START_CLASS_NOT_FOUND when `aInfo == null`). The activities of the system packages are not
   * modelled, so they resolve to nothing as well.
   */
  async startActivity(component: ComponentName, intent?: Intent): Promise<StartResult> {
    const pkg = this.deps.packages.get(component.packageName);
    const activity = pkg?.definition?.manifest.activities.find((a) => a.name === component.className);
    if (pkg === undefined || activity === undefined) return StartResult.CLASS_NOT_FOUND;
    const running = this.processOf(pkg.packageName);
    // An intent with data (`am start -a VIEW -d URL -n …`) differs from the task's root intent,
    // so a standard-launchMode activity starts a new instance rather than bringing the task to
    // the front (ActivityStarter: the task is only brought forward for an equal intent).
    const withData = intent?.data !== undefined;
    if (running !== undefined && running.activities.has(activity.name) && !withData) {
      this.topPackage = pkg.packageName;
      return StartResult.TASK_TO_FRONT;
    }
    let record: ProcessRecord;
    try {
      record = await this.ensureProcess(pkg, 'activity', component);
    } catch {
      // The app died in Application.onCreate (crash already logged): the start itself succeeded.
      return StartResult.SUCCESS;
    }
    pkg.notLaunched = false;
    this.topPackage = pkg.packageName;
    record.activities.add(activity.name);
    try {
      await record.process.guard(record.instance!.onActivityCreate(activity.name, ...(withData && intent !== undefined ? [intent] : [])));
    } catch (e) {
      if (!isProcessDeath(e)) this.crash(record, e);
    }
    return StartResult.SUCCESS;
  }

  /**
   * The activities an implicit intent resolves to (PackageManager.queryIntentActivities with
   * MATCH_DEFAULT_ONLY, as ActivityTaskSupervisor.resolveIntent asks): those with an intent filter
   * that takes the intent (intent-filter.ts), of the intent's package when it has one (`-p`).
   * The activities of the system packages are not modelled.
   */
  resolveActivities(intent: Intent): ComponentName[] {
    const found: ComponentName[] = [];
    for (const pkg of this.deps.packages.all()) {
      if (intent.package !== undefined && pkg.packageName !== intent.package) continue;
      for (const activity of pkg.definition?.manifest.activities ?? []) {
        if ((activity.intentFilters ?? []).some((f) => matchesActivityFilter(f, intent))) found.push({ packageName: pkg.packageName, className: activity.name });
      }
    }
    return found;
  }

  /** KEYCODE_HOME: the launcher comes to the front; the app's activity stops (stays created). */
  goHome(): void {
    this.topPackage = undefined;
  }

  /** KEYCODE_BACK: the top activity finishes. */
  goBack(): void {
    const top = this.topPackage;
    if (top === undefined) return;
    this.processOf(top)?.activities.clear();
    this.topPackage = undefined;
  }

  /**
   * The process's oom_adj, as OomAdjuster.computeOomAdjLocked/LSP would set it, for the states
   * the model has (services/core/java/com/android/server/am/OomAdjuster.java, API 30
   * Ankits-lab/frameworks_base @150a9240, and a later copy of computeOomAdjLSP in the code index):
   * - the top activity: FOREGROUND_APP_ADJ, adjType "top-activity";
   * - a foreground service: PERCEPTIBLE_APP_ADJ, "fg-service";
   * - a running job: JobServiceContext.executeRunnableJob binds the JobService with
   *   BIND_AUTO_CREATE | BIND_NOT_FOREGROUND | BIND_NOT_PERCEPTIBLE (apex/jobscheduler/service/
   *   java/com/android/server/job/JobServiceContext.java, API 30 Ankits-lab @150a9240; API 34+
   *   yaap/frameworks_base @3ddcaa00 for regular jobs, expedited ones get BIND_ALMOST_PERCEPTIBLE
   *   = 225, not modelled), and the service-connection loop raises a process bound with
   *   BIND_NOT_PERCEPTIBLE by a client with `clientAdj <= PERCEPTIBLE_APP_ADJ` (system_server,
   *   SYSTEM_ADJ -900) to PERCEPTIBLE_LOW_APP_ADJ, adjType "service";
   * - a started service: at most SERVICE_ADJ ("started-services", within MAX_SERVICE_INACTIVITY;
   *   the model keeps the service's activity recent);
   * - activities created but not on top (after HOME): PREVIOUS_APP_ADJ, "previous";
   * - otherwise cached: CACHED_APP_MIN_ADJ ("cch-empty"; the exact slot in 900..999 is not modelled).
   */
  oomAdj(record: ProcessRecord): ProcessImportance {
    const pkg = record.pkg.packageName;
    if (this.topPackage === pkg) return { adj: OomAdj.FOREGROUND_APP_ADJ, adjType: 'top-activity' };
    const services = this.services.get(pkg) ?? [];
    if (services.some((sr) => sr.isForeground)) return { adj: OomAdj.PERCEPTIBLE_APP_ADJ, adjType: 'fg-service' };
    if (this.deps.isJobBound(record.process.uid)) return { adj: OomAdj.PERCEPTIBLE_LOW_APP_ADJ, adjType: 'service' };
    if (services.length > 0) return { adj: OomAdj.SERVICE_ADJ, adjType: 'started-services' };
    if (record.activities.size > 0) return { adj: OomAdj.PREVIOUS_APP_ADJ, adjType: 'previous' };
    return { adj: OomAdj.CACHED_APP_MIN_ADJ, adjType: 'cch-empty' };
  }

  /**
   * `am force-stop PKG`: the process dies whatever its importance, running job or top activity
   * included: ActivityManagerService.forceStopPackageLocked kills through
   * killPackageProcessesLocked/LSP with minOomAdj = ProcessList.INVALID_ADJ (-10000; A11- and
   * A14-era AMS copies in the code index, INVALID_ADJ in yaap/frameworks_base ProcessList.java
   * @0533cfa1). Jobs and notifications go with ACTION_PACKAGE_RESTARTED.
   */
  forceStop(packageName: string, reason = 'from pid 0'): void {
    const pkg = this.deps.packages.get(packageName);
    if (pkg === undefined) return;
    this.deps.log.slog(LogPriority.I, TAG, `Force stopping ${packageName} appid=${pkg.uid} user=0: ${reason}`);
    const record = this.processOf(packageName);
    if (record !== undefined) {
      const { adj } = this.oomAdj(record);
      this.deps.log.slog(LogPriority.I, TAG, `Killing ${record.process.pid}:${record.process.name}/${formatUid(pkg.uid)} (adj ${adj}): stop ${packageName} due to ${reason}`);
      this.recordExit(packageName, record.process.pid, ExitReason.USER_REQUESTED, `stop ${packageName} due to ${reason}`);
      record.process.kill('force-stop');
    }
    if (this.topPackage === packageName) this.topPackage = undefined;
    if (!pkg.system) pkg.stopped = true;
    this.deps.onPackageRestarted(packageName);
  }

  /**
   * `am kill PKG`: ActivityManagerService.killBackgroundProcesses kills through
   * ProcessList.killPackageProcessesLocked/LSP(packageName, appId, userId, ProcessList.SERVICE_ADJ,
   * REASON_USER_REQUESTED, …, "kill background"), which skips every process whose setAdj is
   * below minOomAdj (`if (app.mState.getSetAdj() < minOomAdj) continue;`). Read in
   * services/core/java/com/android/server/am/ActivityManagerService.java and ProcessList.java:
   * API 30 Ankits-lab/frameworks_base @150a9240 (killPackageProcessesLocked, SUBREASON_UNKNOWN),
   * API 34 yaap/frameworks_base @0533cfa1 (killPackageProcessesLSP, SUBREASON_KILL_BACKGROUND).
   * So the top app (adj 0) and a process running a job (adj 250) survive; an idle background
   * process (previous 700, cached 900) dies. Returns true when a process died.
   */
  killBackground(packageName: string): boolean {
    const record = this.processOf(packageName);
    if (record === undefined) return false;
    const { adj } = this.oomAdj(record);
    if (adj < OomAdj.SERVICE_ADJ) return false;
    this.deps.log.slog(LogPriority.I, TAG, `Killing ${record.process.pid}:${record.process.name}/${formatUid(record.pkg.uid)} (adj ${adj}): kill background`);
    this.recordExit(packageName, record.process.pid, ExitReason.USER_REQUESTED, 'kill background');
    record.process.kill('kill background');
    return true;
  }

  /** A signal from `kill` (run-as or root): the process dies as SIGNALED. */
  killPid(pid: number, signal: number): boolean {
    const record = this.processes().find((r) => r.process.pid === pid && r.process.alive);
    if (record === undefined) return false;
    if (signal === 0) return true;
    this.deps.log.slog(LogPriority.I, TAG, `Process ${record.process.name} (pid ${pid}) has died: fg  SVC `);
    this.recordExit(record.pkg.packageName, pid, ExitReason.SIGNALED, `signal ${signal}`);
    record.process.kill(`signal ${signal}`);
    return true;
  }

  /** `pm clear`: the process dies (force-stop path) before the data goes. */
  killForClear(packageName: string): void {
    this.forceStop(packageName, 'clear data');
  }

  /** Context.registerReceiver from a running process. */
  registerReceiver(process: AppProcess, receiverClass: string, action: string): void {
    if (!process.alive) return;
    this.registered.push({ pkg: process.packageName, receiverClass, action, process });
  }

  /**
   * Context.startService/startForegroundService: brings up the process, creates the ServiceRecord
   * on the first start and delivers onStartCommand (AppInstance.onStartService).
   */
  async startService(pkg: PackageState, serviceClass: string, intent: Intent): Promise<void> {
    const service = pkg.definition?.manifest.services.find((s) => s.name === serviceClass);
    if (service === undefined) throw new ServiceNotFoundError(`Unable to start service Intent { cmp=${pkg.packageName}/${serviceClass} } U=0: not found`);
    const component = { packageName: pkg.packageName, className: serviceClass };
    const record = await this.ensureProcess(pkg, 'service', component);
    let list = this.services.get(pkg.packageName);
    if (list === undefined) {
      list = [];
      this.services.set(pkg.packageName, list);
    }
    let sr = list.find((x) => x.component.className === serviceClass);
    const firstStart = sr === undefined;
    if (sr === undefined) {
      sr = {
        component,
        identityHash: this.deps.nextIdentityHash?.() ?? 0,
        createRealtimeMs: this.deps.elapsedRealtime(),
        lastActivityMs: this.deps.elapsedRealtime(),
        lastStartId: 0,
        isForeground: false,
        foregroundId: 0,
        foregroundNoti: undefined,
      };
      list.push(sr);
    }
    sr.lastStartId++;
    sr.lastActivityMs = this.deps.elapsedRealtime();
    await record.process.guard(record.instance!.onStartService?.(serviceClass, intent, firstStart) ?? Promise.resolve());
  }

  /** Service.startForeground: the ServiceRecord becomes foreground with this notification. */
  setForeground(pkg: string, serviceClass: string, id: number, notification: string): void {
    const sr = this.services.get(pkg)?.find((x) => x.component.className === serviceClass);
    if (sr === undefined) return;
    sr.isForeground = true;
    sr.foregroundId = id;
    sr.foregroundNoti = notification;
  }

  /** Started services of a package (or of every package). */
  startedServices(pkg?: string): ServiceRecord[] {
    if (pkg !== undefined) return [...(this.services.get(pkg) ?? [])];
    return [...this.services.values()].flat();
  }

  /** `am broadcast`: delivers to matching manifest receivers in order and returns the result. */
  async broadcast(intent: Intent): Promise<BroadcastOutcome> {
    let resultCode = 0;
    let resultData: string | undefined;
    let delivered = 0;
    const implicit = intent.package === undefined && intent.component === undefined;
    // Registered receivers first (BroadcastQueue merges them ahead of manifest receivers of the
    // same priority); they get implicit broadcasts, but never component-addressed ones.
    if (intent.component === undefined && intent.action !== undefined) {
      for (const r of this.registered.filter((x) => x.action === intent.action && (intent.package === undefined || intent.package === x.pkg))) {
        const record = this.processOf(r.pkg);
        if (record?.process !== r.process || record.instance === undefined) continue;
        try {
          const result = await record.process.guard(record.instance.onReceive(r.receiverClass, intent));
          delivered++;
          if (result?.resultCode !== undefined) resultCode = result.resultCode;
          if (result?.resultData !== undefined) resultData = result.resultData;
        } catch (e) {
          if (!isProcessDeath(e)) this.crash(record, e);
        }
      }
    }
    for (const pkg of this.deps.packages.all()) {
      const def = pkg.definition;
      if (def === undefined) continue;
      if (intent.package !== undefined && intent.package !== pkg.packageName) continue;
      if (intent.component !== undefined && intent.component.packageName !== pkg.packageName) continue;
      const receivers = def.manifest.receivers.filter((r) => matchesReceiver(r, intent));
      for (const receiver of receivers) {
        const component = { packageName: pkg.packageName, className: receiver.name };
        if (implicit) {
          this.deps.log.slog(LogPriority.W, 'BroadcastQueue', `Background execution not allowed: receiving ${intentToString(intent)} to ${flattenToShortString(component)}`);
          continue;
        }
        if (pkg.stopped && (intent.flags & IntentFlag.FLAG_INCLUDE_STOPPED_PACKAGES) === 0) continue;
        try {
          const record = await this.ensureProcess(pkg, 'broadcast', component);
          const result = await record.process.guard(record.instance!.onReceive(receiver.name, intent));
          delivered++;
          if (result?.resultCode !== undefined) resultCode = result.resultCode;
          if (result?.resultData !== undefined) resultData = result.resultData;
        } catch (e) {
          if (!isProcessDeath(e)) {
            const record = this.processOf(pkg.packageName);
            if (record !== undefined) this.crash(record, e);
          }
        }
      }
    }
    return { resultCode, resultData, delivered };
  }
}

export class ServiceNotFoundError extends Error {}

function matchesReceiver(r: ManifestComponent, intent: Intent): boolean {
  if (intent.component !== undefined) return intent.component.className === r.name;
  return intent.action !== undefined && (r.actions ?? []).includes(intent.action);
}
