/**
 * JobScheduler through the shell: find a job in `dumpsys jobscheduler`,
 * run it with `cmd jobscheduler run`, read its state with `get-job-state`.
 *
 * WorkManager 2.10+ on API 34+ schedules its jobs in the namespace
 * `androidx.work.systemjobscheduler` (androidx `work/work-runtime/.../systemjob/
 * JobSchedulerExt.kt` @a9b06aaf: WORKMANAGER_NAMESPACE); such a job needs `-n` (without it:
 * "Could not find job N …"). Namespaces (`-n`) exist only on API 34+ (JobSchedulerShellCommand
 * @01a7983f; pre-14 usage has no -n).
 *
 * `dumpsys jobscheduler PKG` on Android 11 (API 30) prints the `JOB #…` line of every registered
 * job, of every app, and the details (`Source: …`, `Service: …`) only under the package's own:
 * JobSchedulerService.dumpInternal prints the line before `if (!predicate.test(job)) continue;`
 * (Ankits-lab/frameworks_base apex/jobscheduler/service/java/com/android/server/job/
 * JobSchedulerService.java @150a9240); Android 12+ tests first and prints only the package's
 * jobs (CAF-MOD/platform_frameworks_base @447be57b, aosp-mirror @f4cdb430). Every app's
 * WorkManager numbers its jobs from 0, so on API 30 a job id alone matches other apps' jobs: a
 * job is the package's only when its service component (the `Service:` line, or the battery name
 * of the JOB line) is in the package; a job whose component cannot be read (a source-tag battery
 * name `tag:pkg` without details) only when a `Source: … pkg=PKG` line says so.
 */
import type { AndroidDevice, ShellResult } from '../device/android-device.js';
import { assertPackageName } from './names.js';
import { commandFailed } from '../device/android-device.js';
import { runReads, type ShellRead } from './shell-reads.js';
import { buildShellCommand } from '../device/shell-quote.js';
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

/** Every registered job of `pkg` (`dumpsys jobscheduler PKG`), without other apps' JOB lines. */
export async function listJobs(device: AndroidDevice, pkg: string): Promise<JobEntry[]> {
  const [jobs] = await runReads(device, [jobListRead(pkg)]);
  return jobs;
}

/** listJobs as one read, to go out with others in one shell invocation (src/device/shell-batch.ts). */
export function jobListRead(pkg: string): ShellRead<JobEntry[]> {
  const argv = ['dumpsys', 'jobscheduler', assertPackageName(pkg)];
  return {
    commands: [argv],
    parse: ([result]) => {
      if (result === undefined || result.exitCode !== 0) throw commandFailed(buildShellCommand(argv), result ?? { stdout: Buffer.alloc(0), stderr: '', exitCode: 255 });
      return jobsOfPackage(parseDumpsysJobs(result.stdout.toString('utf8')), pkg);
    },
  };
}

/** The jobs of `pkg` among parsed JOB entries (see the header: API 30 lists other apps' too). */
export function jobsOfPackage(jobs: readonly JobEntry[], pkg: string): JobEntry[] {
  return jobs.filter((job) => (job.servicePackage !== null ? job.servicePackage === pkg : job.details.some((d) => sourcePackageOf(d) === pkg)));
}

/** The package of a `Source: uid=u0a190 user=0 pkg=<pkg>` detail line (JobStatus.dump). */
function sourcePackageOf(detail: string): string | null {
  const m = /^Source: uid=\S+ user=-?\d+ pkg=(\S+)$/.exec(detail);
  return m === null ? null : (m[1] ?? null);
}

/** The first job that matches; null when none is registered. */
export async function findJob(device: AndroidDevice, query: JobQuery): Promise<JobEntry | null> {
  return selectJob(await listJobs(device, query.pkg), query);
}

/**
 * The first of `jobs` that is the package's (jobsOfPackage) with the query's job id and service
 * class; null when none is.
 */
export function selectJob(jobs: readonly JobEntry[], query: JobQuery): JobEntry | null {
  return (
    jobsOfPackage(jobs, query.pkg).find(
      (job) =>
        (query.jobId === undefined || job.jobId === query.jobId) &&
        (query.serviceClass === undefined || serviceMatches(job, query.pkg, query.serviceClass)),
    ) ?? null
  );
}

/** The job's service is `pkg/serviceClass` (a short class `.Foo` is relative to its package). */
function serviceMatches(job: JobEntry, pkg: string, serviceClass: string): boolean {
  if (job.serviceClass === null || job.servicePackage !== pkg) return false;
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
  /** `-s`: run only if every constraint is met (JobSchedulerShellCommand; not with `-f`). */
  readonly satisfied?: boolean;
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
  const argv = runJobCommand(request);
  return runJobOutcome(argv, await device.shell(argv));
}

/** The words of `cmd jobscheduler run` for `request`. */
export function runJobCommand(request: RunJobRequest): string[] {
  const argv = ['cmd', 'jobscheduler', 'run'];
  if (request.force) argv.push('-f');
  else if (request.satisfied === true) argv.push('-s');
  if (request.userId !== undefined) argv.push('-u', String(request.userId));
  if (request.namespace != null) argv.push('-n', request.namespace);
  argv.push(assertPackageName(request.pkg), String(Math.trunc(request.id)));
  return argv;
}

/** What `cmd jobscheduler run` (sent as `argv`) answered. */
export function runJobOutcome(argv: readonly string[], result: ShellResult): RunJobOutcome {
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
