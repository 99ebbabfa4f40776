/**
 * Parsers for JobScheduler shell output.
 *
 * `dumpsys jobscheduler [PKG]` registered-job header, from
 * aosp-mirror/platform_frameworks_base `apex/jobscheduler/service/java/com/android/server/job/
 * JobSchedulerService.java` @f4cdb430 (`pw.print("JOB "); job.printUniqueId(pw); pw.print(": ");
 * pw.println(job.toShortStringExceptUniqueId());`) and `controllers/JobStatus.java` @054fcdf7:
 *   printUniqueId: `<namespace>:` or `#`, then `UserHandle.formatUid(callingUid)`, `/`, job id
 *   toShortStringExceptUniqueId: `<identityHashCode hex> <batteryName>`
 *   batteryName: `[@<namespace>@]<sourceTag>:<pkg>` or `[@<namespace>@]<service component>`
 * so `  JOB #u0a190/42: 1a2b3c4 com.example/androidx.work…SystemJobService` (no namespace, all
 * API levels) and `  JOB androidx.work.systemjobscheduler:u0a190/0: … @androidx.work…@com.example/…`
 * (API 34+, WorkManager 2.10+). Newer platforms prefix the battery name with `#<traceTag>#`
 * (captured on an API 37 emulator: fixtures/device-output/37/dumpsys-jobscheduler.txt).
 *
 * `cmd jobscheduler run` (JobSchedulerShellCommand.java @01a7983f): stdout `Running job` or
 * `Running job [FORCED]`, exit 0; errors on stderr with return codes -1000 (no package),
 * -1001 (no job), -1002 (constraints without --force), which the shell transport truncates to
 * 8 bits: 24, 23, 22. `get-job-state` prints state tokens (see parseJobState).
 */

export interface JobEntry {
  /** JobScheduler namespace (API 34+), null for the default namespace. */
  readonly namespace: string | null;
  /** The calling uid as printed (`u0a190`, `1000`). */
  readonly uidText: string;
  /** The numeric uid (u0a190 → 10190). */
  readonly uid: number;
  readonly jobId: number;
  /**
   * System.identityHashCode of the JobStatus, in hex (toShortStringExceptUniqueId): a new value
   * means a new JobStatus, as when the app schedules the same id again, which replaces the job
   * ("Implicitly replaces the existing job record with the new instance",
   * JobSchedulerService.scheduleAsPackage), or when a run ends and the job is rescheduled.
   */
  readonly identityHash: string;
  /** Package of the job's service (from the battery name), when it names a component. */
  readonly servicePackage: string | null;
  /** Service class as printed (short form `.Foo` kept as printed), when known. */
  readonly serviceClass: string | null;
  /** `#traceTag#` of newer platforms, when printed. */
  readonly traceTag: string | null;
  /** The battery name as printed after the hash code. */
  readonly batteryName: string;
  /**
   * Lines of the job's dump block (indented lines that follow the header), trimmed; none for
   * another app's job in an API 30 `dumpsys jobscheduler PKG`, which prints every job's header
   * but only the package's details (see android/job-scheduler.ts).
   */
  readonly details: readonly string[];
}

const JOB_HEADER = /^(\s*)JOB (?:#|([^\s:]+):)(u\d+a\d+|u\d+i\d+|\d+)\/(-?\d+): ([0-9a-f]+) (.+)$/;

/** A line that names a registered job (`JOB #…` or `JOB <namespace>:…`), parsed or not. */
export function namesJobHeader(line: string): boolean {
  return /^\s*JOB [#\S]/.test(line);
}

/** Whether a line is a registered-job header the parser reads (see parseDumpsysJobs). */
export function isJobHeader(line: string): boolean {
  return JOB_HEADER.test(line);
}

/** `UserHandle.formatUid`: u<user>a<appId-10000>, u<user>i<isolated>, or the raw number. */
export function parseFormattedUid(text: string): number {
  const app = /^u(\d+)a(\d+)$/.exec(text);
  if (app) return Number(app[1]) * 100000 + 10000 + Number(app[2]);
  const isolated = /^u(\d+)i(\d+)$/.exec(text);
  if (isolated) return Number(isolated[1]) * 100000 + 99000 + Number(isolated[2]);
  return Number(text);
}

/** Every registered job listed by `dumpsys jobscheduler [PKG]`, in order, without duplicates. */
export function parseDumpsysJobs(text: string): JobEntry[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const jobs: JobEntry[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const match = JOB_HEADER.exec(lines[i] ?? '');
    if (match === null) continue;
    const [, indent = '', namespace, uidText = '', jobId = '', identityHash = '', batteryName = ''] = match;
    const details: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] ?? '';
      const nextIndent = /^\s*/.exec(next)?.[0].length ?? 0;
      if (next.trim() === '' || nextIndent <= indent.length) break;
      details.push(next.trim());
    }
    const key = `${namespace ?? ''}|${uidText}|${jobId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    jobs.push({
      namespace: namespace ?? null,
      uidText,
      uid: parseFormattedUid(uidText),
      jobId: Number(jobId),
      identityHash,
      ...parseBatteryName(batteryName, details),
      batteryName,
      details,
    });
  }
  return jobs;
}

function parseBatteryName(
  batteryName: string,
  details: readonly string[],
): { servicePackage: string | null; serviceClass: string | null; traceTag: string | null } {
  let rest = batteryName.trim();
  let traceTag: string | null = null;
  const trace = /^#([^#]*)#/.exec(rest);
  if (trace) {
    traceTag = trace[1] ?? null;
    rest = rest.slice(trace[0].length);
  }
  const namespaced = /^@[^@]*@/.exec(rest);
  if (namespaced) rest = rest.slice(namespaced[0].length);
  // The `Service:` detail line names the component even when the battery name is a source tag.
  const serviceLine = details.find((d) => d.startsWith('Service: '));
  const component = serviceLine !== undefined ? serviceLine.slice('Service: '.length).trim() : rest;
  const slash = component.indexOf('/');
  if (slash > 0 && !component.includes(' ')) {
    return { servicePackage: component.slice(0, slash), serviceClass: component.slice(slash + 1), traceTag };
  }
  return { servicePackage: null, serviceClass: null, traceTag };
}

export type RunJobResult =
  | { readonly kind: 'running'; readonly forced: boolean }
  | { readonly kind: 'no-package'; readonly message: string }
  | { readonly kind: 'no-job'; readonly message: string }
  | { readonly kind: 'constraints-unsatisfied'; readonly message: string }
  | { readonly kind: 'error'; readonly message: string; readonly exitCode: number };

/** Interprets the three outputs of `cmd jobscheduler run`. */
export function parseRunJobOutput(stdout: string, stderr: string, exitCode: number): RunJobResult {
  const out = stdout.trim();
  const err = stderr.trim();
  const message = err || out;
  if (exitCode === 0) {
    const running = /^Running job( \[FORCED\])?$/m.exec(out);
    if (running) return { kind: 'running', forced: running[1] !== undefined };
    return { kind: 'error', message: message || 'no output', exitCode };
  }
  if (exitCode === 24 || /^Package not found: /m.test(message)) return { kind: 'no-package', message };
  if (exitCode === 23 || /^Could not find job /m.test(message)) return { kind: 'no-job', message };
  if (exitCode === 22 || /has functional constraints but --force not specified/.test(message)) {
    return { kind: 'constraints-unsatisfied', message };
  }
  return { kind: 'error', message: message || 'no output', exitCode };
}

export const JobStateToken = {
  pending: 'pending',
  active: 'active',
  userStopped: 'user-stopped',
  sourceUserStopped: 'source-user-stopped',
  backingUp: 'backing-up',
  noComponent: 'no-component',
  ready: 'ready',
  waiting: 'waiting',
} as const;
export type JobStateToken = (typeof JobStateToken)[keyof typeof JobStateToken];

const STATE_TOKENS = new Set<string>(Object.values(JobStateToken));

export type JobState =
  | { readonly kind: 'known'; readonly states: readonly JobStateToken[] }
  | { readonly kind: 'unknown'; readonly reason: 'no-package' | 'no-job' | 'other'; readonly message: string };

/**
 * `cmd jobscheduler get-job-state` (JobSchedulerService.getJobState @f4cdb430): `pending` is
 * printed, the others (`active`, `user-stopped`, `source-user-stopped`, `backing-up`,
 * `no-component`, `ready`) printed with a leading space when something came before, `waiting`
 * only when nothing else; unknown package/job print `unknown(...)` on stdout and the error on
 * stderr (exit 24/23).
 */
export function parseJobState(stdout: string, stderr: string, exitCode: number): JobState {
  const out = stdout.trim();
  if (exitCode !== 0 || out.startsWith('unknown(')) {
    const message = stderr.trim() || out;
    const reason = exitCode === 24 || /^Package not found/m.test(message) ? 'no-package' : exitCode === 23 || /^Could not find job/m.test(message) ? 'no-job' : 'other';
    return { kind: 'unknown', reason, message };
  }
  const tokens = out.split(/\s+/).filter((t) => t !== '');
  const states = tokens.filter((t): t is JobStateToken => STATE_TOKENS.has(t));
  if (states.length === 0 || states.length !== tokens.length) {
    return { kind: 'unknown', reason: 'other', message: out || stderr.trim() };
  }
  return { kind: 'known', states };
}

/**
 * android.util.TimeUtils.formatDuration as JobStatus.dump prints it (`+1d0h0m0s0ms`, `+15m0s0ms`,
 * `-30s0ms`): the sum of its fields in ms; null when the text is not one.
 */
export function parseTimeUtilsDuration(text: string): number | null {
  const m = /^([+-])?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text.trim());
  if (m === null || text.trim() === '' || text.trim() === '+' || text.trim() === '-') return null;
  const [, sign, d = '0', h = '0', min = '0', s = '0', ms = '0'] = m;
  const total = ((Number(d) * 24 + Number(h)) * 60 + Number(min)) * 60_000 + Number(s) * 1000 + Number(ms);
  return sign === '-' ? -total : total;
}

/*
 * The lines of a JOB block read below, as JobStatus.dump prints them (AOSP frameworks/base
 * apex/jobscheduler/service/java/com/android/server/job/controllers/JobStatus.java @054fcdf7,
 * dump(): `PERIODIC: interval=` + formatDuration(getIntervalMillis()) + ` flex=` +
 * formatDuration(getFlexMillis()) under `JobInfo:`; `Enqueue time: ` +
 * formatDuration(enqueueTime - nowElapsed); `Num failures: ` + numFailures only when it is not 0),
 * the durations in android.util.TimeUtils.formatDuration's form (frameworks/base
 * core/java/android/util/TimeUtils.java: `+1d0h0m0s0ms`, `-5m2s1ms`).
 */

/** A JOB block's `PERIODIC: interval=… flex=…` (JobStatus.dump, under JobInfo); null for a one-off job. */
export function jobPeriod(job: JobEntry): { intervalMs: number; flexMs: number } | null {
  const m = job.details.map((l) => /^PERIODIC: interval=(\S+) flex=(\S+)$/.exec(l)).find((x) => x !== null);
  const intervalMs = m?.[1] === undefined ? null : parseTimeUtilsDuration(m[1]);
  const flexMs = m?.[2] === undefined ? null : parseTimeUtilsDuration(m[2]);
  return intervalMs === null || flexMs === null ? null : { intervalMs, flexMs };
}

/** A JOB block's `Num failures: N` (JobStatus.dump prints it only when N is not 0). */
export function jobFailures(job: JobEntry): number {
  const m = job.details.map((l) => /^Num failures: (\d+)$/.exec(l)).find((x) => x !== null);
  return m?.[1] === undefined ? 0 : Number(m[1]);
}

/** A JOB block's `Enqueue time: -5m2s1ms` (JobStatus.dump: relative to the dump), in ms; null when absent. */
export function jobEnqueueOffset(job: JobEntry): number | null {
  const m = job.details.map((l) => /^Enqueue time: (\S+)$/.exec(l)).find((x) => x !== null);
  return m?.[1] === undefined ? null : parseTimeUtilsDuration(m[1]);
}
