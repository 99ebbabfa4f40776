/**
 * The seam between the Android system model (android/) and the apps installed on the virtual
 * device (apps/): what the system knows of an app (its manifest and the entry points it calls),
 * and the framework API the app's code sees (Context, NotificationManager, JobScheduler, Log).
 */
import type { Duplex } from 'node:stream';
import type { LogPriority } from '../types.js';
import type { AppProcess } from './app-process.js';
import type { ComponentName, Intent } from './intent.js';

export interface ManifestComponent {
  /** Fully qualified class name. */
  readonly name: string;
  readonly exported: boolean;
  /** Permission a caller must hold (android:permission). */
  readonly permission?: string;
  /** Intent actions of the component's intent filters (a receiver's). */
  readonly actions?: readonly string[];
  /** An activity's `<intent-filter>`s beside MAIN/LAUNCHER (the implicit intents `am start` resolves to it). */
  readonly intentFilters?: readonly IntentFilterSpec[];
  /** true for the MAIN/LAUNCHER activity. */
  readonly launcher?: boolean;
}

/** One `<intent-filter>` of an activity (intent-filter.ts matches an intent against it). */
export interface IntentFilterSpec {
  readonly actions: readonly string[];
  readonly categories?: readonly string[];
  /** `<data android:scheme>`. */
  readonly schemes?: readonly string[];
  /** `<data android:host>`; `*` first matches every host ending with the rest. */
  readonly hosts?: readonly string[];
  /** `<data android:pathPattern>` (PatternMatcher.PATTERN_SIMPLE_GLOB). */
  readonly pathPatterns?: readonly string[];
  /** `<data android:mimeType>`. */
  readonly mimeTypes?: readonly string[];
}

/** An `<instrumentation android:name=… android:targetPackage=…>` element. */
export interface InstrumentationSpec {
  /** Fully qualified runner class, e.g. androidx.test.runner.AndroidJUnitRunner. */
  readonly name: string;
  readonly targetPackage: string;
}

export interface AppManifest {
  readonly packageName: string;
  readonly uid: number;
  readonly debuggable: boolean;
  readonly versionCode: number;
  readonly versionName: string;
  readonly minSdk: number;
  readonly targetSdk: number;
  readonly requestedPermissions: readonly string[];
  readonly activities: readonly ManifestComponent[];
  readonly receivers: readonly ManifestComponent[];
  readonly services: readonly ManifestComponent[];
  readonly instrumentations?: readonly InstrumentationSpec[];
}

/** An installed app: its manifest and a factory for its code in a freshly started process. */
export interface AppDefinition {
  readonly manifest: AppManifest;
  createInstance(context: AppContext): AppInstance;
}

/** Result of a broadcast receiver (BroadcastReceiver.setResult*). */
export interface ReceiverResult {
  readonly resultCode?: number;
  readonly resultData?: string;
}

/** The entry points the system calls in an app process, in Android's order. */
export interface AppInstance {
  /** Application.onCreate (after the process is created, before any component). */
  onCreate(): Promise<void>;
  /** Activity.onCreate of `activityClass`, with the Intent that started it (getIntent()) when one came with data. */
  onActivityCreate(activityClass: string, intent?: Intent): Promise<void>;
  /** BroadcastReceiver.onReceive of `receiverClass`. */
  onReceive(receiverClass: string, intent: Intent): Promise<ReceiverResult | undefined>;
  /** JobService.onStartJob of `serviceClass`; the job runs until `params.jobFinished`. */
  onStartJob(serviceClass: string, params: JobParameters): Promise<boolean>;
  /** JobService.onStopJob: the system stops a running job (cancel, timeout). */
  onStopJob(serviceClass: string, params: JobParameters): Promise<boolean>;
  /** Service.onCreate (first start) and onStartCommand of a started service. */
  onStartService?(serviceClass: string, intent: Intent, firstStart: boolean): Promise<void>;
  /** NotificationListenerService.onListenerConnected, with getActiveNotifications(). */
  onListenerConnected?(serviceClass: string, active: readonly StatusBarNotificationView[]): Promise<void>;
  /** NotificationListenerService.onNotificationPosted. */
  onNotificationPosted?(serviceClass: string, sbn: StatusBarNotificationView): Promise<void>;
  /** NotificationListenerService.onNotificationRemoved. */
  onNotificationRemoved?(serviceClass: string, sbn: StatusBarNotificationView): Promise<void>;
}

/** What a notification listener sees of a posted notification (android.service.notification.StatusBarNotification). */
export interface StatusBarNotificationView {
  readonly packageName: string;
  readonly id: number;
  readonly tag: string | null;
  /** `user|pkg|id|tag|uid`. */
  readonly key: string;
  readonly groupKey: string;
  readonly overrideGroupKey: string | null;
  /** getPostTime(): this post's device wall-clock time (ms). */
  readonly postTime: number;
  readonly userId: number;
  readonly uid: number;
  readonly notification: NotificationSpec;
}

/**
 * Components beyond jobs and manifest receivers, for apps that need them (the Appium settings
 * helper): started/foreground services, context-registered receivers and the secure settings.
 */
export interface AppComponentsApi {
  /** Context.startService / startForegroundService: the system calls AppInstance.onStartService. */
  startService(serviceClass: string, intent: Intent): Promise<void>;
  /** Service.startForeground(id, notification): posts it (FLAG_FOREGROUND_SERVICE) and marks the service foreground. */
  startForeground(serviceClass: string, id: number, notification: NotificationSpec): Promise<void>;
  /** Context.registerReceiver(receiver, new IntentFilter(action), RECEIVER_EXPORTED) while the process lives. */
  registerReceiver(receiverClass: string, action: string): void;
  /** Settings.Secure.getString. */
  getSecureSetting(key: string): string | undefined;
}

/** android.app.NotificationManager importance levels (NotificationManager.java). */
export const Importance = { UNSPECIFIED: -1000, NONE: 0, MIN: 1, LOW: 2, DEFAULT: 3, HIGH: 4, MAX: 5 } as const;
export type Importance = (typeof Importance)[keyof typeof Importance];

export interface NotificationChannelSpec {
  readonly id: string;
  readonly name: string;
  readonly importance: number;
  readonly description?: string;
}

/** A value in a Bundle as dumpsys prints it: `<SimpleClassName> (<value>)`. */
export type BundleValue =
  | { readonly kind: 'String'; readonly value: string }
  | { readonly kind: 'Boolean'; readonly value: boolean }
  | { readonly kind: 'Integer'; readonly value: number }
  | { readonly kind: 'Long'; readonly value: number }
  | { readonly kind: 'ApplicationInfo'; readonly value: string }
  | null;

/** Notification.FLAG_* (Notification.java). */
export const NotificationFlag = {
  FLAG_ONGOING_EVENT: 0x2,
  FLAG_ONLY_ALERT_ONCE: 0x8,
  FLAG_AUTO_CANCEL: 0x10,
  FLAG_NO_CLEAR: 0x20,
  FLAG_FOREGROUND_SERVICE: 0x40,
  FLAG_LOCAL_ONLY: 0x100,
  FLAG_GROUP_SUMMARY: 0x200,
  FLAG_AUTOGROUP_SUMMARY: 0x400,
} as const;

/** A built android.app.Notification (the fields NMS and dumpsys read). */
export interface NotificationSpec {
  readonly channelId: string | null;
  /** Icon(typ=RESOURCE pkg=... id=0x...); null when the app set none. */
  readonly smallIcon: { readonly packageName: string; readonly resId: number } | null;
  readonly when: number;
  readonly flags: number;
  readonly priority: number;
  /** Notification.VISIBILITY_PRIVATE = 0, PUBLIC = 1, SECRET = -1. */
  readonly visibility: number;
  readonly color: number;
  readonly category?: string;
  /** PendingIntent description, or null. */
  readonly contentIntent: string | null;
  readonly extras: readonly (readonly [string, BundleValue])[];
  /** Notification.getGroup() (setGroup); absent when the app named no group. */
  readonly group?: string;
  /** Notification.getSortKey() (setSortKey). */
  readonly sortKey?: string;
  /** Notification.mGroupAlertBehavior (GROUP_ALERT_ALL 0, SUMMARY 1, CHILDREN 2); 0 when absent. */
  readonly groupAlertBehavior?: number;
}

/** The NotificationManager API an app calls (android.app.NotificationManager). */
export interface AppNotificationManager {
  createNotificationChannel(channel: NotificationChannelSpec): void;
  getNotificationChannel(id: string): NotificationChannelSpec | undefined;
  /** notify(tag, id, notification): a binder call into NMS (enqueueNotificationWithTag). */
  notify(tag: string | null, id: number, notification: NotificationSpec): Promise<void>;
  cancel(tag: string | null, id: number): void;
  areNotificationsEnabled(): boolean;
}

/** JobInfo backoff policies (JobInfo.java). */
export const JobBackoffPolicy = { LINEAR: 0, EXPONENTIAL: 1 } as const;

/** The parts of android.app.job.JobInfo the model uses. */
export interface JobInfoSpec {
  readonly id: number;
  readonly service: ComponentName;
  readonly minLatencyMs: number;
  readonly backoffPolicy: number;
  readonly initialBackoffMs: number;
  readonly persisted: boolean;
  /** JobInfo.NETWORK_TYPE_NONE = 0, ANY = 1, UNMETERED = 2, NOT_ROAMING = 3, CELLULAR = 4. */
  readonly requiredNetworkType: number;
  readonly requiresCharging: boolean;
  readonly requiresDeviceIdle: boolean;
  readonly requiresBatteryNotLow: boolean;
  readonly requiresStorageNotLow: boolean;
  /** PersistableBundle extras. */
  readonly extras: Readonly<Record<string, string | number | boolean>>;
  /** JobInfo.PRIORITY_DEFAULT = 300. */
  readonly priority: number;
  /**
   * JobInfo.Builder.setPeriodic(intervalMillis[, flexMillis]): a periodic job (isPeriodic()).
   * setPeriodic(interval) is setPeriodic(interval, interval) (frameworks/base
   * apex/jobscheduler/framework/java/android/app/job/JobInfo.java).
   */
  readonly periodic?: { readonly intervalMs: number; readonly flexMs: number };
}

/**
 * `new JobInfo.Builder(id, service)` with what the app sets: the Builder's defaults otherwise
 * (JobInfo.java: DEFAULT_INITIAL_BACKOFF_MILLIS 30 s, DEFAULT_BACKOFF_POLICY exponential,
 * NETWORK_TYPE_NONE, not persisted, PRIORITY_DEFAULT 300).
 */
export function buildJobInfo(id: number, service: ComponentName, set: Partial<Omit<JobInfoSpec, 'id' | 'service'>>): JobInfoSpec {
  return {
    id,
    service,
    minLatencyMs: 0,
    backoffPolicy: JobBackoffPolicy.EXPONENTIAL,
    initialBackoffMs: 30_000,
    persisted: false,
    requiredNetworkType: 0,
    requiresCharging: false,
    requiresDeviceIdle: false,
    requiresBatteryNotLow: false,
    requiresStorageNotLow: false,
    extras: {},
    priority: 300,
    ...set,
  };
}

/** android.app.job.JobParameters as a JobService receives it. */
export interface JobParameters {
  readonly jobId: number;
  readonly namespace: string | null;
  readonly extras: Readonly<Record<string, string | number | boolean>>;
  /** JobService.jobFinished(params, needsReschedule). */
  jobFinished(needsReschedule: boolean): void;
}

/** JobScheduler.RESULT_SUCCESS / RESULT_FAILURE. */
export const JobScheduleResult = { FAILURE: 0, SUCCESS: 1 } as const;

/** The JobScheduler API an app calls (android.app.job.JobScheduler, namespaces from API 34). */
export interface AppJobScheduler {
  readonly namespace: string | null;
  schedule(job: JobInfoSpec): number;
  cancel(jobId: number): void;
  cancelAll(): void;
  /** API 34: cancels the app's jobs in every namespace. */
  cancelInAllNamespaces(): void;
  getAllPendingJobs(): JobInfoSpec[];
  /** API 34: JobScheduler.forNamespace. */
  forNamespace(namespace: string): AppJobScheduler;
}

/** android.app.ApplicationExitInfo reasons (ApplicationExitInfo.java). */
export const ExitReason = {
  UNKNOWN: 0,
  EXIT_SELF: 1,
  SIGNALED: 2,
  LOW_MEMORY: 3,
  CRASH: 4,
  USER_REQUESTED: 10,
  USER_STOPPED: 11,
  OTHER: 13,
} as const;

export interface ApplicationExitInfo {
  readonly pid: number;
  readonly reason: number;
  readonly timestamp: number;
  readonly description: string;
}

export interface AppLog {
  /** android.util.Log.println into the main buffer with this process's pid/uid. */
  println(priority: LogPriority, tag: string, message: string): void;
}

/** File access as the app's uid (files it creates are owned by it, as on the device). */
export interface AppFiles {
  /** Absolute Android path of the data directory (`/data/user/0/<pkg>`). */
  readonly dataDir: string;
  /** Real host path of an Android path (for SQLite). */
  hostPath(androidPath: string): string;
  mkdirs(androidPath: string): void;
  exists(androidPath: string): boolean;
  readFile(androidPath: string): Buffer | undefined;
  writeFile(androidPath: string, data: string | Uint8Array): void;
  /** Records files the app created on the host path (SQLite db, -wal, -shm) as its own. */
  adopt(androidPath: string): void;
}

/** What the app's code sees of the system (a Context plus the services it uses). */
export interface AppContext {
  readonly process: AppProcess;
  readonly packageName: string;
  readonly uid: number;
  readonly apiLevel: number;
  readonly files: AppFiles;
  readonly log: AppLog;
  /** System.currentTimeMillis() (device wall clock). */
  currentTimeMillis(): number;
  /** SystemClock.elapsedRealtime(). */
  elapsedRealtime(): number;
  readonly notificationManager: AppNotificationManager;
  readonly jobScheduler: AppJobScheduler;
  /** ActivityManager.getHistoricalProcessExitReasons(null, 0, 0), newest first. */
  historicalProcessExitReasons(): ApplicationExitInfo[];
  /** A TCP connection from the device to 127.0.0.1:port (adb reverse). */
  connect(port: number): Promise<Duplex>;
  /** The bug switches the device was started with (reference app only). */
  readonly bugs: ReadonlySet<string>;
  /** The app profile the reference app runs (`virtual-device --app-profile`; reference app only). */
  readonly appProfile?: string;
  /**
   * The minimum level of WorkManager's logger, as the reference app's Configuration.Provider sets
   * it with Configuration.Builder().setMinimumLoggingLevel() (reference app only; default Log.INFO).
   */
  readonly workManagerLogLevel?: LogPriority;
  /** How long WorkManager's task thread takes to take a task up (reference app only; VirtualDeviceOptions.workManagerTaskDelayMs). */
  readonly workManagerTaskDelayMs?: number;
  /** Services, registered receivers and secure settings (present on every device context). */
  readonly components?: AppComponentsApi;
}
