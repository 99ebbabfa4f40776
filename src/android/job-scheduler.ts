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
import { buildShellCommand, quoteShellArg } from '../device/shell-quote.js';
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

/** A job `cmd jobscheduler get-job-state` is asked about. */
export interface JobStateRequest {
  readonly pkg: string;
  readonly id: number;
  readonly namespace?: string | null;
  readonly userId?: number;
}

/** The words of `cmd jobscheduler get-job-state [-u U] [-n NS] PKG ID`. */
export function jobStateCommand(request: JobStateRequest): string[] {
  const argv = ['cmd', 'jobscheduler', 'get-job-state'];
  if (request.userId !== undefined) argv.push('-u', String(request.userId));
  if (request.namespace != null) argv.push('-n', request.namespace);
  argv.push(assertPackageName(request.pkg), String(Math.trunc(request.id)));
  return argv;
}

/** `cmd jobscheduler get-job-state [-n NS] PKG ID`. */
export function getJobState(device: AndroidDevice, request: JobStateRequest): Promise<JobState> {
  return getJobStateWith(device, request, []);
}

/**
 * getJobState with other reads in one shell invocation (a sync marker: the answer and every line
 * logged until it, for one round trip).
 */
export async function getJobStateWith(device: AndroidDevice, request: JobStateRequest, others: readonly ShellRead<unknown>[]): Promise<JobState> {
  const read: ShellRead<JobState> = {
    commands: [jobStateCommand(request)],
    parse: ([r]) => parseJobState(r?.stdout.toString('utf8') ?? '', r?.stderr ?? 'not run', r?.exitCode ?? 255),
  };
  return (await runReads(device, [read, ...others]))[0];
}

/**
 * The pauses of the device-side waits (awaitJobIdleCommand, awaitJobRegisteredCommand) between
 * two asks, in ms: short at first, as what they wait for often comes within milliseconds, then
 * DEVICE_WAIT_POLL_MS.
 */
const DEVICE_WAIT_FIRST_PAUSES_MS = [5, 5, 10, 10] as const;
const DEVICE_WAIT_POLL_MS = 20;
/** How long awaitJobIdleCommand waits, after the job let go, for its owner to register it again. */
const REREGISTER_GRACE_MS = 500;

/**
 * A device shell loop: while `condition` holds, pause (DEVICE_WAIT_FIRST_PAUSES_MS, then
 * DEVICE_WAIT_POLL_MS) and ask again; once at least `deadlineMs` of pauses went by, `onDeadline`
 * (an `exit N` of the subshell the command runs in).
 */
export function waitLoop(keyword: 'while' | 'until', condition: string, deadlineMs: number, onDeadline: string): string {
  const first = DEVICE_WAIT_FIRST_PAUSES_MS.reduce((a, b) => a + b, 0);
  const polls = DEVICE_WAIT_FIRST_PAUSES_MS.length + Math.max(0, Math.ceil((deadlineMs - first) / DEVICE_WAIT_POLL_MS));
  const cases = DEVICE_WAIT_FIRST_PAUSES_MS.map((ms, i) => `${i}) __dv_s=${ms / 1000};;`).join(' ');
  return (
    `__dv_n=0; ${keyword} ${condition}; do [ "$__dv_n" -lt ${polls} ] || ${onDeadline}; ` +
    `case $__dv_n in ${cases} *) __dv_s=${DEVICE_WAIT_POLL_MS / 1000};; esac; __dv_n=$((__dv_n+1)); sleep $__dv_s; done`
  );
}

/** A shell condition: `dumpsys jobscheduler PKG` lists a job of `service` (a `PKG/SERVICE` component). */
function jobListedCondition(pkg: string, service: string): string {
  return `dumpsys jobscheduler ${assertPackageName(pkg)} 2>/dev/null | grep -qF ${quoteShellArg(`${pkg}/${service}`)}`;
}

/**
 * A device shell line that waits, on the device, until JobScheduler has the job neither pending
 * nor active: `get-job-state` prints `pending` and `active` among its state words while the job
 * waits to run or runs (JobSchedulerService.getJobState @f4cdb430, see parseJobState), and
 * `unknown(...)` with exit 23 once the job is gone. Then, for at most REREGISTER_GRACE_MS, while
 * no job of `service` is listed for the package: WorkManager may re-register its work after a
 * run, cancelling the job and scheduling it again (androidx Schedulers.java
 * registerRescheduling, see WorkManagerScheduling.awaitsRescheduling). It asks again after short
 * pauses (waitLoop); exit 1 when the job is still busy after `deadlineMs`, else 0. What it
 * runs only reads. Sent after `cmd jobscheduler run` in the same invocation, it holds the reads
 * that follow until the run is over, so they need no round trip of their own.
 */
export function awaitJobIdleCommand(request: JobStateRequest, service: string, deadlineMs: number): string {
  const state = buildShellCommand(jobStateCommand(request));
  return `${waitLoop('while', `${state} 2>/dev/null | grep -qwE 'pending|active'`, deadlineMs, 'exit 1')}; ${waitLoop('until', jobListedCondition(request.pkg, service), REREGISTER_GRACE_MS, 'exit 0')}`;
}

/**
 * A device shell line that waits, on the device, until `dumpsys jobscheduler PKG` lists a job of
 * `service` for the package (an app that schedules its work as it starts), asking again after
 * short pauses (waitLoop); exit 1 when none is listed after `deadlineMs`. Read-only. Sent after the
 * `am start` of the app in the same invocation, it holds back the reads that follow until the
 * app has scheduled its work.
 */
export function awaitJobRegisteredCommand(pkg: string, service: string, deadlineMs: number): string {
  return waitLoop('until', jobListedCondition(pkg, service), deadlineMs, 'exit 1');
}
