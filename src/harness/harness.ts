/**
 * The harness API scenarios use. It is implemented over adb (DeviceHarness) and, in unit
 * specs, by a recording fake. Every method that changes device state is undone by the runner
 * (docs/design.md §8); scenarios never restore anything themselves.
 *
 * Scenarios act and observe; they never judge. Everything a read returns is also recorded in
 * the history (a `schedule`, `rows` or `schema` event; requests and backend effects as they
 * arrive), and the property checks of src/checker/properties decide from the history alone.
 */
import type { Config } from '../config/types.js';
import type { WorkSpecRow } from '../android/work-spec.js';

/** A feed item as a scenario describes it; times are relative to the device clock. */
export interface ItemSpec {
  /** Short label, unique within the scenario; the link is derived from it. */
  readonly label: string;
  readonly title?: string;
  /** Published this long before the device's current time (negative: in the future). */
  readonly ageMs?: number;
  /** Published at this device time (epoch ms). */
  readonly atMs?: number;
  /** A date string that does not parse (the app must treat it as 0). */
  readonly rawDate?: string;
  /** `missing`: no link element; `empty`: `<link></link>`. Default: a link derived from the label. */
  readonly link?: 'missing' | 'empty';
}

/** A feed item as served: what the history records as `published`. */
export interface ServedItem {
  readonly label: string;
  /** The item key: the link, or "" when missing or empty. */
  readonly item: string;
  readonly title: string;
  /** Epoch ms; 0 when the date does not parse. */
  readonly publishedAt: number;
}

/**
 * How the process is killed mid-run, by the two means that kill a process running a worker on
 * a real device:
 * - `signal`: `run-as PKG kill -9 PID`, as the low-memory killer would (debuggable apps only),
 *   or `kill -15` on API 29–33, where SELinux refuses run-as a SIGKILL (runAsKillSignal);
 * - `force-stop`: `am force-stop PKG` (also cancels the jobs and notifications; the app is
 *   relaunched before the next run).
 * `am kill` is not one: killBackgroundProcesses kills through
 * ProcessList.killPackageProcessesLSP(…, minOomAdj = SERVICE_ADJ, …), and while JobServiceContext
 * has the job's service bound the process sits at PERCEPTIBLE_LOW_APP_ADJ (250 < 500), so it is
 * spared (frameworks/base services/core/java/com/android/server/am/ActivityManagerService.java,
 * ProcessList.java, job/JobServiceContext.java).
 */
export type KillMethod = 'signal' | 'force-stop';

export interface ForceRunOptions {
  /**
   * Hold the worker part-way: the fixture server holds the nth request to `route` (1-based),
   * the harness kills the process with `kill` once it is held, and records the run as killed.
   */
  readonly killAt?: { readonly route: 'feed' | 'receipts'; readonly nth: number; readonly kill: KillMethod };
  /**
   * A probe: the run is forced exactly as given (no clock move) and kept out of the history; the
   * result says whether WorkManager ran it. Used to prove that a run is *not* due.
   */
  readonly probe?: boolean;
}

/** `finished`: success or failure, read from the workdb when WorkManager logged no result line (history/events.ts RunOutcome). */
export type RunOutcome = 'success' | 'retry' | 'failure' | 'finished' | 'killed' | 'refused';

export interface RunResult {
  readonly run: number;
  readonly outcome: RunOutcome;
  readonly deviceTime: number;
  /** Items posted (status post) in this run, in event order; unmapped posts as `?id=N`. */
  readonly posted: readonly string[];
  readonly updated: readonly string[];
  /** Keys that appeared in the dedup table during this run. */
  readonly stored: readonly string[];
  /** HTTP statuses of the feed fetches in this run. */
  readonly fetchStatuses: readonly number[];
  /** Evidence lines (job command output, result line, kill command). */
  readonly evidence: readonly string[];
}

export interface WorkSnapshot {
  /** Unfinished periodic WorkSpecs named by the unique work name, each with its job id. */
  readonly namedSpecs: readonly ScheduledSpec[];
  /** Every unfinished periodic WorkSpec of the worker class (named or not). */
  readonly workerSpecs: readonly ScheduledSpec[];
  /**
   * The work the harness drives: the named one, else (an app that enqueues without a unique
   * name) the newest periodic WorkSpec of the worker class.
   */
  readonly primary: ScheduledSpec | undefined;
}

/** A WorkSpec row and the JobScheduler id of its current generation (undefined: not scheduled). */
export type ScheduledSpec = WorkSpecRow & { readonly systemId: number | undefined };

export interface DbSnapshot {
  /** Path of a host copy (with -wal replayed) the scenario may open read-write. */
  readonly copyPath: string;
  readonly keys: readonly (string | null)[];
}

export interface Journal {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly dropped?: boolean;
}

export interface ServerEffect {
  readonly key: string | null;
  readonly link: string;
}

export type FaultPlan =
  | { readonly statuses: readonly number[]; readonly retryAfterSec?: number }
  | { readonly status: number; readonly retryAfterSec?: number }
  | { readonly dropAfterProcessing: true; readonly times?: number }
  /** One step per request: 'pass', 'drop-after-processing' (effect stored, no answer) or a status. */
  | { readonly sequence: readonly ('pass' | 'drop-after-processing' | number)[] };

export interface ReadWorkOptions {
  /**
   * Any read made since the device last changed answers, as the one sent with the app's start:
   * for what stays put while nothing changes, as the schedule's interval. Without it, only the
   * read after a run answers (the state that run left), and any other time a read is sent.
   */
  readonly sinceLastChange?: boolean;
}

export interface Harness {
  readonly config: Config;
  readonly apiLevel: number;
  /** Progress line on the console (scenario, step, elapsed). */
  step(text: string): void;
  /** A line of evidence kept with the scenario's result. */
  note(text: string): void;

  /** Serves these items (replacing the feed) and records them as published. */
  serveFeed(items: readonly ItemSpec[]): Promise<readonly ServedItem[]>;
  fault(route: 'feed' | 'receipts', plan: FaultPlan): void;
  clearFaults(): void;
  journal(route: 'feed' | 'receipts'): readonly Journal[];
  effects(): readonly ServerEffect[];

  deviceNow(): Promise<number>;
  /** Moves the device wall clock forward by `ms` (cmd alarm set-time). */
  advanceClock(ms: number): Promise<void>;

  /**
   * Moves the wall clock just past WorkManager's early-run guard (last_enqueue_time + interval,
   * or + backoff after a retry) when it is not already past; returns the device time. The
   * runner calls it before every scenario, so a scenario's first run happens at the time its
   * feed was served.
   */
  openGuard(): Promise<number>;
  /** The forced-run primitive of docs/design.md §3: opens the guard, runs, waits, collects. */
  forceRun(options?: ForceRunOptions): Promise<RunResult>;

  /** Deletes dedup rows (all, or these items) on a backed-up copy and records `forgotten`. */
  forgetRows(items: 'all' | readonly string[]): Promise<void>;
  /** Wipes the app's data (`pm clear`) after backing it up; records `forgotten` all. */
  clearAppData(): Promise<void>;
  startApp(): Promise<void>;
  forceStop(): Promise<void>;
  /**
   * Kills the app process as the low-memory killer does (`run-as PKG kill`), not as a force-stop:
   * its scheduled jobs and alarms stay, and the next start runs Application.onCreate again.
   */
  killProcess(): Promise<void>;
  /**
   * forceStop then startApp as one step: on a device, both commands in one shell invocation
   * (the start only after the stop succeeded), each recorded as its own action.
   */
  restartApp(): Promise<void>;
  /** Starts the app process without an activity, as the platform does for a broadcast. */
  startProcessWithoutActivity(): Promise<void>;

  /** Reads WorkManager's database and records what it read as a `schedule` event labelled `label`. */
  readWork(label?: string, options?: ReadWorkOptions): Promise<WorkSnapshot>;
  /** Pulls the app's database and records the dedup table's keys as a `rows` event. */
  readDatabase(): Promise<DbSnapshot>;
  /**
   * Inspects the dedup table's schema on the pulled copy and probes it with inserts made in a
   * rolled-back transaction (two NULL keys; `sampleKey` again); records a `schema` event.
   */
  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void;
}
