/**
 * The reference app `com.example.feednotifier` (docs/reference-app.md): uid 10190, debuggable,
 * launcher activity `.MainActivity`, Application.onCreate initialises WorkManager and enqueues
 * the unique periodic work `feed-poll` (24 h, flex 24 h, KEEP), WorkManager's SystemJobService
 * and DiagnosticsReceiver from the merged manifest (work-runtime's AndroidManifest.xml).
 * The process's open databases close when it dies; a new process reopens `feed.db` (so a copy
 * the harness pushed while the app was stopped is the one used).
 */
import type { AppContext, AppDefinition, AppInstance, AppManifest, JobParameters, ReceiverResult } from '../../system/app-framework.js';
import { Importance } from '../../system/app-framework.js';
import type { Intent } from '../../system/intent.js';
import { DIAGNOSTICS_RECEIVER, REQUEST_DIAGNOSTICS_ACTION, SYSTEM_JOB_SERVICE, WorkManager } from '../work-manager/work-manager.js';
import { Bugs } from './bugs.js';
import { FeedDatabase } from './feed-database.js';
import { CHANNEL_ID, CHANNEL_NAME, FEED_POLL_WORKER, FeedPollWorker, INTERVAL_MS, type FeedRuntime } from './feed-poll-worker.js';
import { SharedPreferences } from './shared-prefs.js';

export const FEED_NOTIFIER_PACKAGE = 'com.example.feednotifier';
export const FEED_NOTIFIER_UID = 10190;
export const MAIN_ACTIVITY = 'com.example.feednotifier.MainActivity';
export const UNIQUE_WORK_NAME = 'feed-poll';

export const FEED_NOTIFIER_MANIFEST: AppManifest = {
  packageName: FEED_NOTIFIER_PACKAGE,
  uid: FEED_NOTIFIER_UID,
  debuggable: true,
  versionCode: 9,
  versionName: '1.9',
  minSdk: 26,
  targetSdk: 34,
  requestedPermissions: [
    'android.permission.INTERNET',
    'android.permission.POST_NOTIFICATIONS',
    'android.permission.WAKE_LOCK',
    'android.permission.ACCESS_NETWORK_STATE',
    'android.permission.RECEIVE_BOOT_COMPLETED',
    'android.permission.FOREGROUND_SERVICE',
  ],
  activities: [{ name: MAIN_ACTIVITY, exported: true, launcher: true }],
  receivers: [{ name: DIAGNOSTICS_RECEIVER, exported: true, permission: 'android.permission.DUMP', actions: [REQUEST_DIAGNOSTICS_ACTION] }],
  services: [{ name: SYSTEM_JOB_SERVICE, exported: true, permission: 'android.permission.BIND_JOB_SERVICE' }],
};

export const feedNotifierApp: AppDefinition = {
  manifest: FEED_NOTIFIER_MANIFEST,
  createInstance: (context) => new FeedNotifierProcess(context),
};

/** The app's code in one process. */
class FeedNotifierProcess implements AppInstance, FeedRuntime {
  readonly context: AppContext;
  readonly bugs: Bugs;
  private workManager: WorkManager | undefined;
  private feedDb: FeedDatabase | undefined;
  private sharedPrefs: SharedPreferences | undefined;

  constructor(context: AppContext) {
    this.context = context;
    this.bugs = new Bugs(context.bugs);
  }

  database(): FeedDatabase {
    if (this.feedDb === undefined) {
      const dir = `${this.context.files.dataDir}/databases`;
      this.context.files.mkdirs(dir);
      const db = FeedDatabase.open(this.context.files.hostPath(`${dir}/feed.db`), { uniqueIndex: !this.bugs.has('no-unique-index'), nowMs: this.context.currentTimeMillis() });
      this.context.process.onDeath(() => db.close());
      this.feedDb = db;
    }
    return this.feedDb;
  }

  prefs(): SharedPreferences {
    this.sharedPrefs ??= new SharedPreferences(this.context.files, 'feed_prefs');
    return this.sharedPrefs;
  }

  createChannel(): void {
    this.context.notificationManager.createNotificationChannel({ id: CHANNEL_ID, name: CHANNEL_NAME, importance: Importance.DEFAULT });
  }

  private wm(): WorkManager {
    if (this.workManager === undefined) throw new Error('WorkManager is not initialized');
    return this.workManager;
  }

  /** FeedApplication.onCreate. */
  onCreate(): Promise<void> {
    this.workManager = WorkManager.initialize(this.context, (className) => (className === FEED_POLL_WORKER ? new FeedPollWorker(this) : undefined));
    // The Room database opens with the process (Room's first access in Application.onCreate).
    this.database();
    const request = { workerClassName: FEED_POLL_WORKER, intervalMs: INTERVAL_MS, flexMs: INTERVAL_MS };
    if (this.bugs.has('duplicate-schedule')) this.workManager.enqueue(request);
    else this.workManager.enqueueUniquePeriodicWork(UNIQUE_WORK_NAME, 'KEEP', request);
    return Promise.resolve();
  }

  /** MainActivity.onCreate: lists the stored notifications; the bug creates the channel here only. */
  onActivityCreate(activityClass: string): Promise<void> {
    if (activityClass === MAIN_ACTIVITY) {
      this.database();
      if (this.bugs.has('channel-in-activity')) this.createChannel();
    }
    return Promise.resolve();
  }

  onReceive(receiverClass: string, _intent: Intent): Promise<ReceiverResult | undefined> {
    if (receiverClass === DIAGNOSTICS_RECEIVER) this.wm().requestDiagnostics();
    return Promise.resolve(undefined);
  }

  onStartJob(serviceClass: string, params: JobParameters): Promise<boolean> {
    if (serviceClass !== SYSTEM_JOB_SERVICE) return Promise.resolve(false);
    return Promise.resolve(this.wm().onStartJob(params));
  }

  onStopJob(serviceClass: string, params: JobParameters): Promise<boolean> {
    if (serviceClass !== SYSTEM_JOB_SERVICE || this.workManager === undefined) return Promise.resolve(false);
    return Promise.resolve(this.wm().onStopJob(params));
  }
}
