/**
 * The reference app `com.example.feednotifier` (docs/reference-app.md): uid 10190, debuggable,
 * launcher activity `.MainActivity`, Application.onCreate initialises WorkManager and enqueues
 * the unique periodic work `feed-poll` (24 h, flex 24 h, KEEP), WorkManager's SystemJobService
 * and DiagnosticsReceiver from the merged manifest (work-runtime's AndroidManifest.xml).
 * The process's open databases close when it dies; a new process reopens `feed.db` (so a copy
 * the harness pushed while the app was stopped is the one used).
 *
 * The app profiles (app-profiles.ts) change the manifest and the entry points: `subscription`
 * gives MainActivity the intent filters of Feeder's AddFeedFromShareActivity (VIEW of http/https
 * URLs with a feed type or a feed-like path, FEED_URL_FILTERS), and adds the URL of a VIEW
 * intent to `feeds` (spacecowboy/Feeder @091ca126 app/src/main/AndroidManifest.xml:115-134); `jobscheduler` has no WorkManager: its
 * FeedSyncJobService is scheduled in Application.onCreate with JobInfo.Builder.setPeriodic, unless
 * the job is pending already (Feeder's schedulePeriodicRssSync, app/src/main/java/com/
 * nononsenseapps/feeder/background/RssSyncJob.kt:108-147: Builder(RSS_SYNC_PERIODIC.jobId = 2,
 * FeederJobService).setRequiredNetworkType(NETWORK_TYPE_ANY).setPeriodic(frequency).setPersisted(true),
 * scheduled when getMyPendingJob(id) == null), and FeederJobService.onStartJob runs the sync and
 * calls jobFinished(params, false) (background/FeederJobService.kt:29-92).
 */
import type { AppContext, AppDefinition, AppInstance, AppManifest, JobParameters, ReceiverResult } from '../../system/app-framework.js';
import { isProcessDeath } from '../../system/app-process.js';
import { buildJobInfo, Importance } from '../../system/app-framework.js';
import { LogPriority } from '../../types.js';
import type { Intent } from '../../system/intent.js';
import { DIAGNOSTICS_RECEIVER, REQUEST_DIAGNOSTICS_ACTION, SYSTEM_JOB_SERVICE, WorkManager } from '../work-manager/work-manager.js';
import { DEFAULT_APP_PROFILE, isAppProfile, type AppProfile } from './app-profiles.js';
import { Bugs } from './bugs.js';
import { KeyTableStore, NotifiedFlagStore, WatermarkStore, WATERMARK_PREFS, type DedupStore } from './dedup-stores.js';
import { FeedDatabase, REFERENCE_TABLES, type FeedTables } from './feed-database.js';
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

/** Profile `jobscheduler`: the app's JobService, its job id and the line it logs per run. */
export const FEED_SYNC_JOB_SERVICE = 'com.example.feednotifier.FeedSyncJobService';
export const FEED_SYNC_JOB_ID = 2;
const FEED_SYNC_TAG = 'FeedSyncJob';
export const ACTION_VIEW = 'android.intent.action.VIEW';

/**
 * Profile `subscription`: the intent filters of Feeder's AddFeedFromShareActivity
 * (spacecowboy/Feeder app/src/main/AndroidManifest.xml @00db8833, "URLs with feed mimetype can be
 * opened" and "URLs ending with '.xml' or '.rss' can be opened directly"): VIEW of http/https
 * URLs of any host with a feed MIME type, or whose path ends .xml, .rss, .atom or .json
 * (android:pathPattern=".*\\.xml" in the XML is the pattern `.*\.xml`).
 */
const FEED_URL_FILTERS = [
  { actions: [ACTION_VIEW], categories: ['android.intent.category.DEFAULT', 'android.intent.category.BROWSABLE'], schemes: ['http', 'https'], hosts: ['*'], mimeTypes: ['text/xml', 'application/rss+xml', 'application/atom+xml', 'application/xml', 'application/json'] },
  { actions: [ACTION_VIEW], categories: ['android.intent.category.DEFAULT', 'android.intent.category.BROWSABLE'], schemes: ['http', 'https'], hosts: ['*'], pathPatterns: ['.*\\.xml', '.*\\.rss', '.*\\.atom', '.*\\.json'] },
] as const;

export const feedNotifierApp: AppDefinition = {
  manifest: FEED_NOTIFIER_MANIFEST,
  createInstance: (context) => new FeedNotifierProcess(context),
};

/** The reference app as one profile builds it: its manifest, and its code in a process. */
export function feedNotifierAppFor(profile: AppProfile): AppDefinition {
  if (profile === 'reference') return feedNotifierApp;
  return { manifest: manifestFor(profile), createInstance: (context) => new FeedNotifierProcess(context) };
}

function manifestFor(profile: AppProfile): AppManifest {
  const m = FEED_NOTIFIER_MANIFEST;
  switch (profile) {
    case 'subscription':
      return {
        ...m,
        activities: [
          { name: MAIN_ACTIVITY, exported: true, launcher: true, intentFilters: FEED_URL_FILTERS },
        ],
      };
    case 'jobscheduler':
      // No work-runtime: none of its merged components (SystemJobService, DiagnosticsReceiver).
      return { ...m, receivers: [], services: [{ name: FEED_SYNC_JOB_SERVICE, exported: false, permission: 'android.permission.BIND_JOB_SERVICE' }] };
    case 'reference':
    case 'grouped':
    case 'row-id':
    case 'watermark':
      return m;
    default: {
      const unreachable: never = profile;
      return unreachable;
    }
  }
}

function tablesFor(profile: AppProfile): FeedTables {
  switch (profile) {
    case 'row-id':
      return { notifications: false, feedItems: true, feeds: false };
    case 'watermark':
      return { notifications: false, feedItems: false, feeds: false };
    case 'subscription':
      return { ...REFERENCE_TABLES, feeds: true };
    case 'reference':
    case 'grouped':
    case 'jobscheduler':
      return REFERENCE_TABLES;
    default: {
      const unreachable: never = profile;
      return unreachable;
    }
  }
}

/** The app's code in one process. */
class FeedNotifierProcess implements AppInstance, FeedRuntime {
  readonly context: AppContext;
  readonly bugs: Bugs;
  readonly profile: AppProfile;
  private workManager: WorkManager | undefined;
  private feedDb: FeedDatabase | undefined;
  private sharedPrefs: SharedPreferences | undefined;
  private otherPrefs: SharedPreferences | undefined;
  private store: DedupStore | undefined;

  constructor(context: AppContext) {
    this.context = context;
    this.bugs = new Bugs(context.bugs);
    this.profile = isAppProfile(context.appProfile) ? context.appProfile : DEFAULT_APP_PROFILE;
  }

  database(): FeedDatabase {
    if (this.feedDb === undefined) {
      const dir = `${this.context.files.dataDir}/databases`;
      this.context.files.mkdirs(dir);
      const db = FeedDatabase.open(this.context.files.hostPath(`${dir}/feed.db`), { uniqueIndex: !this.bugs.has('no-unique-index'), nowMs: this.context.currentTimeMillis(), tables: tablesFor(this.profile) });
      this.context.process.onDeath(() => db.close());
      this.feedDb = db;
    }
    return this.feedDb;
  }

  prefs(): SharedPreferences {
    this.sharedPrefs ??= new SharedPreferences(this.context.files, 'feed_prefs');
    return this.sharedPrefs;
  }

  /** In the watermark profile `dedup-elsewhere` keeps its mark beside the configured one, in another file. */
  elsewherePrefs(): SharedPreferences {
    if (this.profile !== 'watermark') return this.prefs();
    this.otherPrefs ??= new SharedPreferences(this.context.files, 'sync_state');
    return this.otherPrefs;
  }

  dedupStore(): DedupStore {
    if (this.store === undefined) {
      const db = (): FeedDatabase => this.database();
      if (this.profile === 'row-id') this.store = new NotifiedFlagStore(db);
      else if (this.profile === 'watermark') this.store = new WatermarkStore(() => new SharedPreferences(this.context.files, WATERMARK_PREFS));
      else this.store = new KeyTableStore(db);
    }
    return this.store;
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
    if (this.profile === 'jobscheduler') {
      this.database();
      this.schedulePeriodicSync();
      return Promise.resolve();
    }
    this.workManager = WorkManager.initialize(this.context, (className) => (className === FEED_POLL_WORKER ? new FeedPollWorker(this) : undefined));
    // The Room database opens with the process (Room's first access in Application.onCreate).
    this.database();
    const store = this.dedupStore();
    if (store instanceof WatermarkStore) store.initialize();
    const request = { workerClassName: FEED_POLL_WORKER, intervalMs: INTERVAL_MS, flexMs: INTERVAL_MS };
    if (this.bugs.has('duplicate-schedule')) this.workManager.enqueue(request);
    else this.workManager.enqueueUniquePeriodicWork(UNIQUE_WORK_NAME, 'KEEP', request);
    return Promise.resolve();
  }

  /**
   * Profile `jobscheduler`: schedulePeriodicRssSync. Bug `duplicate-schedule`: every start
   * schedules one more job under a new id instead of keeping the pending one (unique-work counts
   * the periodic jobs of the app's service).
   */
  private schedulePeriodicSync(): void {
    const js = this.context.jobScheduler;
    const pending = js.getAllPendingJobs();
    const duplicate = this.bugs.has('duplicate-schedule');
    if (!duplicate && pending.some((j) => j.id === FEED_SYNC_JOB_ID)) return;
    // NETWORK_TYPE_ANY (1): the model never satisfies a network constraint, so the job runs when forced.
    const id = duplicate ? FEED_SYNC_JOB_ID + pending.length : FEED_SYNC_JOB_ID;
    js.schedule(buildJobInfo(id, { packageName: this.context.packageName, className: FEED_SYNC_JOB_SERVICE }, { requiredNetworkType: 1, persisted: true, periodic: { intervalMs: INTERVAL_MS, flexMs: INTERVAL_MS } }));
  }

  /**
   * MainActivity.onCreate: lists the stored notifications; the bug creates the channel here only.
   * Profile `subscription`: a VIEW intent's http(s) URL becomes a row of `feeds`.
   */
  onActivityCreate(activityClass: string, intent?: Intent): Promise<void> {
    if (activityClass === MAIN_ACTIVITY) {
      const db = this.database();
      if (this.bugs.has('channel-in-activity')) this.createChannel();
      const url = intent?.data;
      if (this.profile === 'subscription' && intent?.action === ACTION_VIEW && url !== undefined && /^https?:\/\//i.test(url)) {
        db.addFeed(url, url);
        this.context.log.println(LogPriority.I, 'MainActivity', `Subscribed to ${url}`);
      }
    }
    return Promise.resolve();
  }

  onReceive(receiverClass: string, _intent: Intent): Promise<ReceiverResult | undefined> {
    if (receiverClass === DIAGNOSTICS_RECEIVER && this.workManager !== undefined) this.wm().requestDiagnostics();
    return Promise.resolve(undefined);
  }

  onStartJob(serviceClass: string, params: JobParameters): Promise<boolean> {
    if (serviceClass === FEED_SYNC_JOB_SERVICE && this.profile === 'jobscheduler') return Promise.resolve(this.runSyncJob(params));
    if (serviceClass !== SYSTEM_JOB_SERVICE) return Promise.resolve(false);
    return Promise.resolve(this.wm().onStartJob(params));
  }

  /**
   * FeederJobService.runJob: the sync in a coroutine, then jobFinished (here with needsReschedule
   * for a retry, which JobScheduler turns into its backoff). One line per run,
   * `Sync job <id> finished: success|retry|failure`, for the config's work.resultLine.
   */
  private runSyncJob(params: JobParameters): boolean {
    new FeedPollWorker(this).startWork().then(
      (result) => {
        if (!this.context.process.alive) return;
        this.context.log.println(LogPriority.I, FEED_SYNC_TAG, `Sync job ${params.jobId} finished: ${result.type}`);
        params.jobFinished(result.type === 'retry');
      },
      (e: unknown) => {
        if (isProcessDeath(e) || !this.context.process.alive) return;
        this.context.log.println(LogPriority.E, FEED_SYNC_TAG, `Sync job ${params.jobId} failed: ${e instanceof Error ? e.message : String(e)}`);
        params.jobFinished(false);
      },
    );
    return true;
  }

  onStopJob(serviceClass: string, params: JobParameters): Promise<boolean> {
    if (serviceClass !== SYSTEM_JOB_SERVICE || this.workManager === undefined) return Promise.resolve(false);
    return Promise.resolve(this.wm().onStopJob(params));
  }
}
