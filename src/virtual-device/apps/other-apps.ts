/**
 * Other installed apps of the API 30 profile, each with WorkManager jobs registered with
 * JobScheduler, as on a device where more apps than the one under test use WorkManager.
 *
 * They make the API 30 `dumpsys jobscheduler com.example.feednotifier` what Android 11 prints:
 * JobSchedulerService.dumpInternal (Ankits-lab/frameworks_base
 * apex/jobscheduler/service/java/com/android/server/job/JobSchedulerService.java @150a9240)
 * prints the `  JOB #<uid>/<id>: <hash> <batteryName>` line of every registered job before its
 * `if (!predicate.test(job)) continue;`, so these apps' lines appear, without details, before
 * the app's own job (sortJobs orders by calling uid, then job id). From Android 12 the test comes first and they are not printed (see
 * system/job-scheduler.ts). The lines are WorkManager's: the service component
 * `<pkg>/androidx.work.impl.background.systemjob.SystemJobService` (batteryName =
 * flattenToShortString of the service without a source tag, controllers/JobStatus.java
 * @150a9240), job ids from 0 per app (WorkManager's IdGenerator starts at 0, see
 * work-manager/work-database.ts nextJobSchedulerId), so an id alone does not name the app's job.
 *
 * Model choices, not taken from a real image: the package names, uids and versions, and that the
 * jobs are registered at boot (the state once those apps have scheduled their work; how they
 * did, boot receivers or earlier runs, is not modelled, and no process of theirs runs until a
 * job of theirs is started). One app's jobs need a network (JobInfo.NETWORK_TYPE_ANY), which the
 * model never satisfies: they wait for good, `cmd jobscheduler run` without -f answers -1002 and
 * `get-job-state` says `waiting`. The other's wait on a timing delay only (`run` without -f
 * overrides it). A job of theirs that runs finishes at once and is scheduled again with the same
 * id one interval later, as WorkManager does after a periodic run (Schedulers.registerRescheduling ->
 * SystemJobScheduler with the work's SystemIdInfo id; see work-manager/work-manager.ts). Their
 * WorkManager's log lines are not modelled.
 */
import type { AndroidSystem } from '../system/android-system.js';
import type { AppDefinition, AppInstance, AppManifest, JobInfoSpec } from '../system/app-framework.js';
import { JobBackoffPolicy } from '../system/app-framework.js';
import { EXTRA_IS_PERIODIC, EXTRA_WORK_SPEC_GENERATION, EXTRA_WORK_SPEC_ID, SYSTEM_JOB_SERVICE, WORKMANAGER_NAMESPACE } from './work-manager/work-manager.js';

export interface OtherAppJob {
  /** WorkManager's SystemIdInfo id. */
  readonly id: number;
  readonly workSpecId: string;
  /** The periodic work's interval: the latency of the job scheduled after a run. */
  readonly intervalMs: number;
  /** Latency of the job registered at boot. */
  readonly firstLatencyMs: number;
  /** JobInfo.NETWORK_TYPE_*: 0 none, 1 any. */
  readonly requiredNetworkType: number;
}

export interface OtherApp {
  readonly packageName: string;
  readonly uid: number;
  readonly jobs: readonly OtherAppJob[];
}

const HOUR = 3_600_000;

/** The other apps of the API 30 profile (uids below the reference app's 10190, so sortJobs prints them first). */
export const API30_OTHER_APPS: readonly OtherApp[] = [
  {
    packageName: 'com.example.photobackup',
    uid: 10153,
    jobs: [
      { id: 0, workSpecId: '0b6a4c55-6f8e-4c52-9a51-3d3e9f1c2a10', intervalMs: 12 * HOUR, firstLatencyMs: 9 * HOUR, requiredNetworkType: 1 },
      { id: 1, workSpecId: '5d1f7e02-2c4b-4f0e-8f3a-b7c9e0a4d621', intervalMs: 24 * HOUR, firstLatencyMs: 20 * HOUR, requiredNetworkType: 1 },
    ],
  },
  {
    packageName: 'org.example.weather',
    uid: 10176,
    jobs: [{ id: 0, workSpecId: 'c2e8a7b4-91d3-4e6a-a0f5-6b2d8c3e7f94', intervalMs: 6 * HOUR, firstLatencyMs: 5 * HOUR, requiredNetworkType: 0 }],
  },
];

/** The other apps a profile has: only API 30's (API 31+ dumps would not show them anyway). */
export function otherAppsFor(apiLevel: number): readonly OtherApp[] {
  return apiLevel === 30 ? API30_OTHER_APPS : [];
}

/** The JobInfo WorkManager builds for the work (SystemJobInfoConverter, as work-manager.ts models it). */
export function otherAppJobInfo(app: OtherApp, job: OtherAppJob, latencyMs: number): JobInfoSpec {
  return {
    id: job.id,
    service: { packageName: app.packageName, className: SYSTEM_JOB_SERVICE },
    minLatencyMs: latencyMs,
    backoffPolicy: JobBackoffPolicy.EXPONENTIAL,
    initialBackoffMs: 30_000,
    persisted: false,
    requiredNetworkType: job.requiredNetworkType,
    requiresCharging: false,
    requiresDeviceIdle: false,
    requiresBatteryNotLow: false,
    requiresStorageNotLow: false,
    extras: { [EXTRA_WORK_SPEC_ID]: job.workSpecId, [EXTRA_WORK_SPEC_GENERATION]: 0, [EXTRA_IS_PERIODIC]: true },
    priority: 300,
  };
}

function manifestOf(app: OtherApp): AppManifest {
  return {
    packageName: app.packageName,
    uid: app.uid,
    debuggable: false,
    versionCode: 1,
    versionName: '1.0',
    minSdk: 23,
    targetSdk: 30,
    // work-runtime's merged manifest permissions (as the reference app's).
    requestedPermissions: ['android.permission.WAKE_LOCK', 'android.permission.ACCESS_NETWORK_STATE', 'android.permission.RECEIVE_BOOT_COMPLETED', 'android.permission.FOREGROUND_SERVICE'],
    activities: [],
    receivers: [],
    services: [{ name: SYSTEM_JOB_SERVICE, exported: true, permission: 'android.permission.BIND_JOB_SERVICE' }],
  };
}

export function otherAppDefinition(app: OtherApp): AppDefinition {
  return {
    manifest: manifestOf(app),
    createInstance: (context): AppInstance => {
      const jobs = context.apiLevel >= 34 ? context.jobScheduler.forNamespace(WORKMANAGER_NAMESPACE) : context.jobScheduler;
      return {
        onCreate: () => Promise.resolve(),
        onActivityCreate: () => Promise.resolve(),
        onReceive: () => Promise.resolve(undefined),
        onStartJob: (serviceClass, params) => {
          const job = app.jobs.find((j) => j.id === params.jobId);
          // The work ran: its next period is scheduled under the same id, which replaces this job.
          if (serviceClass === SYSTEM_JOB_SERVICE && job !== undefined) jobs.schedule(otherAppJobInfo(app, job, job.intervalMs));
          return Promise.resolve(false);
        },
        onStopJob: () => Promise.resolve(false),
      };
    },
  };
}

/** Installs the profile's other apps and registers their jobs (first boot). */
export async function installOtherApps(system: AndroidSystem): Promise<void> {
  const namespace = system.device.apiLevel >= 34 ? WORKMANAGER_NAMESPACE : null;
  for (const app of otherAppsFor(system.device.apiLevel)) {
    const state = await system.install(otherAppDefinition(app));
    // They have run before (they scheduled their work): not in the stopped state of a fresh install.
    state.stopped = false;
    state.notLaunched = false;
    for (const job of app.jobs) system.jobs.schedule(app.uid, app.packageName, namespace, otherAppJobInfo(app, job, job.firstLatencyMs));
  }
}
