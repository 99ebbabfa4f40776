/**
 * JobScheduler through the shell (android-facts.md §3): find a job in `dumpsys jobscheduler`,
 * run it with `cmd jobscheduler run`, read its state with `get-job-state`.
 *
 * WorkManager 2.10+ on API 34+ schedules its jobs in the namespace
 * `androidx.work.systemjobscheduler` (androidx `work/work-runtime/.../systemjob/
 * JobSchedulerExt.kt` @a9b06aaf: WORKMANAGER_NAMESPACE); such a job needs `-n` (without it:
 * "Could not find job N …"). Namespaces (`-n`) exist only on API 34+ (JobSchedulerShellCommand
 * @01a7983f; pre-14 usage has no -n).
 */
import type { AndroidDevice } from '../device/android-device.js';
import { assertPackageName } from './names.js';
import { parseDumpsysJobs, parseJobState, parseRunJobOutput, type JobEntry, type JobState, type RunJobResult } from './parsers/job-scheduler.js';

export const WORKMANAGER_JOB_NAMESPACE = 'androidx.work.systemjobscheduler';
export const WORKMANAGER_JOB_SERVICE = 'androidx.work.impl.background.systemjob.SystemJobService';
/** First API level whose `cmd jobscheduler` accepts `-n NAMESPACE`. */
export const JOB_NAMESPACES_SINCE_API = 34;

export interface JobQuery {
  readonly pkg: string;
  readonly jobId?: number;
  /** Only jobs of this service class (full name, as printed after `pkg/`). */
  readonly serviceClass?: string;
}

/** Every registered job of `pkg` (`dumpsys jobscheduler PKG`). */
export async function listJobs(device: AndroidDevice, pkg: string): Promise<JobEntry[]> {
  const text = await device.shellText(['dumpsys', 'jobscheduler', assertPackageName(pkg)]);
  return parseDumpsysJobs(text).filter((job) => job.servicePackage === null || job.servicePackage === pkg);
}

/** The first job that matches; null when none is registered. */
export async function findJob(device: AndroidDevice, query: JobQuery): Promise<JobEntry | null> {
  const jobs = await listJobs(device, query.pkg);
  return (
    jobs.find(
      (job) =>
        (query.jobId === undefined || job.jobId === query.jobId) &&
        (query.serviceClass === undefined || serviceMatches(job, query.pkg, query.serviceClass)),
    ) ?? null
  );
}

function serviceMatches(job: JobEntry, pkg: string, serviceClass: string): boolean {
  if (job.serviceClass === null) return false;
  const printed = job.serviceClass.startsWith('.') ? `${pkg}${job.serviceClass}` : job.serviceClass;
  return printed === serviceClass;
}

export interface RunJobRequest {
  readonly pkg: string;
  readonly id: number;
  /** Job namespace (API 34+); omit for the default namespace. */
  readonly namespace?: string | null;
  /** `-f`: ignore constraints (and, historically, battery). */
  readonly force: boolean;
  readonly userId?: number;
}

export interface RunJobOutcome {
  readonly result: RunJobResult;
  readonly command: readonly string[];
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** `cmd jobscheduler run [-f] [-u U] [-n NS] PKG ID`; the outcome is data, never thrown. */
export async function runJob(device: AndroidDevice, request: RunJobRequest): Promise<RunJobOutcome> {
  const argv = ['cmd', 'jobscheduler', 'run'];
  if (request.force) argv.push('-f');
  if (request.userId !== undefined) argv.push('-u', String(request.userId));
  if (request.namespace != null) argv.push('-n', request.namespace);
  argv.push(assertPackageName(request.pkg), String(Math.trunc(request.id)));
  const result = await device.shell(argv);
  const stdout = result.stdout.toString('utf8');
  return {
    result: parseRunJobOutput(stdout, result.stderr, result.exitCode),
    command: argv,
    stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
  };
}

/** `cmd jobscheduler get-job-state [-n NS] PKG ID`. */
export async function getJobState(
  device: AndroidDevice,
  request: { readonly pkg: string; readonly id: number; readonly namespace?: string | null; readonly userId?: number },
): Promise<JobState> {
  const argv = ['cmd', 'jobscheduler', 'get-job-state'];
  if (request.userId !== undefined) argv.push('-u', String(request.userId));
  if (request.namespace != null) argv.push('-n', request.namespace);
  argv.push(assertPackageName(request.pkg), String(Math.trunc(request.id)));
  const result = await device.shell(argv);
  return parseJobState(result.stdout.toString('utf8'), result.stderr, result.exitCode);
}
