import { expect } from 'chai';
import { mkdtempSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppContext, AppJobScheduler, JobInfoSpec } from '../../../../src/virtual-device/system/app-framework.js';
import { AppProcess, ProcessDeath } from '../../../../src/virtual-device/system/app-process.js';
import { WorkDatabase } from '../../../../src/virtual-device/apps/work-manager/work-database.js';
import { WorkManager, EXTRA_WORK_SPEC_ID, serialTaskExecutor, type TaskTimer } from '../../../../src/virtual-device/apps/work-manager/work-manager.js';
import { BackoffPolicy, calculateNextRunTime, newWorkSpec, WorkState, type WorkSpec } from '../../../../src/virtual-device/apps/work-manager/work-spec.js';
import { WorkerWrapper } from '../../../../src/virtual-device/apps/work-manager/worker-wrapper.js';
import { Result, WorkLogger, type WorkerResult } from '../../../../src/virtual-device/apps/work-manager/worker.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

interface Fixture {
  dir: string;
  now: number;
  logs: string[];
  jobs: JobInfoSpec[];
  exits: { reason: number; timestamp: number; pid: number; description: string }[];
  process: AppProcess;
  context: AppContext;
}

function fakeJobScheduler(f: Fixture, namespace: string | null): AppJobScheduler {
  return {
    namespace,
    schedule: (job) => {
      f.jobs = f.jobs.filter((j) => j.id !== job.id);
      f.jobs.push(job);
      return 1;
    },
    cancel: (id) => {
      f.jobs = f.jobs.filter((j) => j.id !== id);
    },
    cancelAll: () => {
      f.jobs = [];
    },
    cancelInAllNamespaces: () => {
      f.jobs = [];
    },
    getAllPendingJobs: () => [...f.jobs],
    forNamespace: (ns) => fakeJobScheduler(f, ns),
  };
}

function fixture(dir = mkdtempSync(join(tmpdir(), 'wm-spec-'))): Fixture {
  const f = { dir, now: T0, logs: [], jobs: [], exits: [] } as unknown as Fixture;
  f.process = new AppProcess({ pid: 4321, uid: 10190, packageName: 'com.example.feednotifier', startTimeMs: T0, startElapsedMs: 0 });
  const host = (p: string): string => join(dir, p);
  f.context = {
    process: f.process,
    packageName: 'com.example.feednotifier',
    uid: 10190,
    apiLevel: 34,
    files: {
      dataDir: '/data',
      hostPath: host,
      mkdirs: (p) => mkdirSync(host(p), { recursive: true }),
      exists: (p) => existsSync(host(p)),
      readFile: () => undefined,
      writeFile: () => undefined,
      adopt: () => undefined,
    },
    log: { println: (priority, tag, message) => f.logs.push(`${priority} ${tag}: ${message}`) },
    currentTimeMillis: () => f.now,
    elapsedRealtime: () => f.now - T0,
    notificationManager: undefined as never,
    jobScheduler: fakeJobScheduler(f, null),
    historicalProcessExitReasons: () => [...f.exits].reverse(),
    connect: () => Promise.reject(new Error('no network')),
    bugs: new Set(),
  };
  return f;
}

function periodic(id: string, lastEnqueueTime: number): WorkSpec {
  const s = newWorkSpec(id, 'com.example.Worker');
  s.intervalDuration = DAY;
  s.flexDuration = DAY;
  s.lastEnqueueTime = lastEnqueueTime;
  return s;
}

describe('WorkManager model: WorkSpec.calculateNextRunTime', () => {
  it('first period: last_enqueue_time + initial delay; later periods: + interval', () => {
    const s = periodic('a', T0);
    expect(calculateNextRunTime(s)).to.equal(T0);
    s.initialDelay = HOUR;
    expect(calculateNextRunTime(s)).to.equal(T0 + HOUR);
    s.periodCount = 1;
    expect(calculateNextRunTime(s)).to.equal(T0 + DAY);
  });

  it('flex only delays the first period by interval - flex', () => {
    const s = periodic('a', T0);
    s.flexDuration = 6 * HOUR;
    expect(calculateNextRunTime(s)).to.equal(T0 + 18 * HOUR);
    s.periodCount = 3;
    expect(calculateNextRunTime(s)).to.equal(T0 + DAY);
  });

  it('backed-off work: exponential 30 s doubling capped at 5 h, linear multiplies', () => {
    const s = periodic('a', T0);
    s.runAttemptCount = 1;
    expect(calculateNextRunTime(s)).to.equal(T0 + 30_000);
    s.runAttemptCount = 2;
    expect(calculateNextRunTime(s)).to.equal(T0 + 60_000);
    s.runAttemptCount = 20;
    expect(calculateNextRunTime(s)).to.equal(T0 + 5 * HOUR);
    s.backoffPolicy = BackoffPolicy.LINEAR;
    s.runAttemptCount = 3;
    expect(calculateNextRunTime(s)).to.equal(T0 + 90_000);
  });
});

describe('WorkManager model: WorkerWrapper state machine (injected clock)', () => {
  let f: Fixture;
  let db: WorkDatabase;
  let calls: number;
  let next: () => Promise<WorkerResult>;

  beforeEach(() => {
    f = fixture();
    db = WorkDatabase.open(join(f.dir, 'workdb'), f.now);
    calls = 0;
    next = () => Promise.resolve(Result.success());
  });
  afterEach(() => {
    db.close();
    rmSync(f.dir, { recursive: true, force: true });
  });

  const run = async (id: string) => {
    const spec = db.getWorkSpec(id)!;
    const wrapper = new WorkerWrapper({
      db,
      workSpec: spec,
      tags: db.getTagsForWorkSpecId(id),
      logger: new WorkLogger(f.context),
      factory: () => ({
        startWork: () => {
          calls++;
          return next();
        },
      }),
      now: () => f.now,
      process: f.process,
    });
    return wrapper.launch();
  };

  const insert = (id: string): void => {
    db.insertWorkSpec(periodic(id, T0));
    db.insertWorkTag('com.example.Worker', id);
  };

  it('success on a periodic spec: ENQUEUED, period_count+1, attempts 0, last_enqueue_time = now, INFO result line', async () => {
    insert('11111111-1111-1111-1111-111111111111');
    f.now = T0 + 5;
    const outcome = await run('11111111-1111-1111-1111-111111111111');
    expect(outcome).to.deep.equal({ needsReschedule: false, resolution: 'success' });
    const s = db.getWorkSpec('11111111-1111-1111-1111-111111111111')!;
    expect([s.state, s.periodCount, s.runAttemptCount, s.lastEnqueueTime, s.scheduleRequestedAt]).to.deep.equal([WorkState.ENQUEUED, 1, 0, T0 + 5, -1]);
    expect(f.logs).to.deep.equal(['4 WM-WorkerWrapper: Worker result SUCCESS for Work [ id=11111111-1111-1111-1111-111111111111, tags={ com.example.Worker } ]']);
  });

  it('the early-run guard refuses a second run before last_enqueue_time + interval (no worker call, nothing logged at INFO)', async () => {
    insert('a');
    await run('a');
    f.now = T0 + 10 * 60_000;
    f.logs.length = 0;
    const outcome = await run('a');
    expect(outcome).to.deep.equal({ needsReschedule: true, resolution: 'delayed' });
    expect(calls).to.equal(1);
    expect(db.getWorkSpec('a')!.periodCount).to.equal(1);
    expect(f.logs).to.deep.equal([]);
    f.now = T0 + DAY + 1;
    expect((await run('a')).resolution).to.equal('success');
    expect(calls).to.equal(2);
    expect(db.getWorkSpec('a')!.periodCount).to.equal(2);
  });

  it('retry keeps run_attempt_count and guards on last_enqueue_time + backoff (30 s, then 60 s)', async () => {
    insert('r');
    next = () => Promise.resolve(Result.retry());
    f.now = T0 + 1000;
    expect((await run('r')).resolution).to.equal('retry');
    let s = db.getWorkSpec('r')!;
    expect([s.state, s.runAttemptCount, s.periodCount, s.lastEnqueueTime]).to.deep.equal([WorkState.ENQUEUED, 1, 0, T0 + 1000]);
    f.now = T0 + 1000 + 29_999;
    expect((await run('r')).resolution).to.equal('delayed');
    f.now = T0 + 1000 + 30_000;
    expect((await run('r')).resolution).to.equal('retry');
    s = db.getWorkSpec('r')!;
    expect(s.runAttemptCount).to.equal(2);
    expect(calculateNextRunTime(s) - s.lastEnqueueTime).to.equal(60_000);
    next = () => Promise.resolve(Result.success());
    f.now += 60_000;
    expect((await run('r')).resolution).to.equal('success');
    expect(db.getWorkSpec('r')!.runAttemptCount).to.equal(0);
    expect(f.logs.map((l) => l.split(' for ')[0])).to.deep.equal(['4 WM-WorkerWrapper: Worker result RETRY', '4 WM-WorkerWrapper: Worker result RETRY', '4 WM-WorkerWrapper: Worker result SUCCESS']);
  });

  it('failure on a periodic spec resets it to the next period', async () => {
    insert('x');
    next = () => Promise.resolve(Result.failure({ reason: 'reauth_required' }));
    expect((await run('x')).resolution).to.equal('failure');
    const s = db.getWorkSpec('x')!;
    expect([s.state, s.periodCount, s.runAttemptCount]).to.deep.equal([WorkState.ENQUEUED, 1, 0]);
  });

  it('a process death while RUNNING leaves the row RUNNING with its attempt counted', async () => {
    insert('d');
    next = () => new Promise(() => undefined);
    const launched = run('d');
    await new Promise((r) => setImmediate(r));
    expect(db.getState('d')).to.equal(WorkState.RUNNING);
    f.process.kill('test');
    let thrown: unknown;
    try {
      await launched;
    } catch (e) {
      thrown = e;
    }
    expect(thrown).to.be.instanceOf(ProcessDeath);
    const reopened = WorkDatabase.open(join(f.dir, 'workdb'), f.now);
    try {
      const s = reopened.getWorkSpec('d')!;
      expect([s.state, s.runAttemptCount]).to.deep.equal([WorkState.RUNNING, 1]);
    } finally {
      reopened.close();
    }
  });
});

describe('WorkManager model: enqueueing, scheduling and ForceStopRunnable', () => {
  let f: Fixture;
  afterEach(() => {
    if (f.process.alive) f.process.kill('end');
    rmSync(f.dir, { recursive: true, force: true });
  });

  const request = { workerClassName: 'com.example.Worker', intervalMs: DAY, flexMs: DAY };

  it('KEEP keeps the unique work; job ids come from next_job_scheduler_id; namespace on API 34', () => {
    f = fixture();
    const wm = WorkManager.initialize(f.context, () => undefined);
    const id = wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request);
    expect(f.jobs.map((j) => [j.id, j.extras[EXTRA_WORK_SPEC_ID], j.minLatencyMs])).to.deep.equal([[0, id, 0]]);
    expect(wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request)).to.equal(id);
    expect(f.jobs).to.have.length(1);
    expect(wm.db.getPreference('next_job_scheduler_id')).to.equal(1);
    const row = wm.db.db.prepare('SELECT interval_duration, flex_duration, backoff_policy, backoff_delay_duration, last_enqueue_time, trace_tag FROM workspec').get();
    expect(row).to.deep.equal({ interval_duration: DAY, flex_duration: DAY, backoff_policy: 0, backoff_delay_duration: 30_000, last_enqueue_time: T0, trace_tag: 'Worker' });
    expect(wm.db.db.pragma('user_version', { simple: true })).to.equal(24);
    expect(wm.db.db.pragma('journal_mode', { simple: true })).to.equal('wal');
  });

  it('CANCEL_AND_REENQUEUE replaces the spec; plain enqueue adds another', () => {
    f = fixture();
    const wm = WorkManager.initialize(f.context, () => undefined);
    const first = wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request);
    const second = wm.enqueueUniquePeriodicWork('feed-poll', 'CANCEL_AND_REENQUEUE', request);
    expect(second).to.not.equal(first);
    expect(wm.db.getWorkSpec(first)).to.equal(undefined);
    wm.enqueue(request);
    expect((wm.db.db.prepare('SELECT COUNT(*) AS n FROM workspec').get() as { n: number }).n).to.equal(2);
  });

  it('UPDATE keeps the WorkSpec id, bumps its generation and reschedules it with the new interval', () => {
    f = fixture();
    const wm = WorkManager.initialize(f.context, () => undefined);
    const id = wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request);
    expect(wm.enqueueUniquePeriodicWork('feed-poll', 'UPDATE', { ...request, intervalMs: 2 * DAY, flexMs: 2 * DAY })).to.equal(id);
    const row = wm.db.db.prepare('SELECT interval_duration, generation FROM workspec WHERE id = ?').get(id);
    expect(row).to.deep.equal({ interval_duration: 2 * DAY, generation: 1 });
    expect(f.jobs.map((j) => [j.id, j.extras['EXTRA_WORK_SPEC_GENERATION']])).to.deep.equal([[1, 1]]);
  });

  it('after a force-stop (USER_REQUESTED exit) the next process cancels and reschedules with the same job id', () => {
    f = fixture();
    const wm = WorkManager.initialize(f.context, () => undefined);
    wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request);
    f.process.kill('force-stop');
    // ActivityManager: the process died as USER_REQUESTED and JobScheduler dropped the jobs.
    const next = fixture(f.dir);
    next.now = T0 + HOUR;
    next.exits.push({ reason: 10, timestamp: T0 + 30 * 60_000, pid: 4321, description: 'stop' });
    f = next;
    const again = WorkManager.initialize(f.context, () => undefined);
    expect(f.jobs.map((j) => j.id)).to.deep.equal([0]);
    expect(again.db.getPreference('last_force_stop_ms')).to.equal(T0 + HOUR);
  });
});

describe("WorkManager model: re-scheduling after a run goes on WorkManager's task executor (Schedulers.registerRescheduling)", () => {
  let f: Fixture;
  afterEach(() => {
    if (f.process.alive) f.process.kill('end');
    rmSync(f.dir, { recursive: true, force: true });
  });

  /** A timer that runs nothing until the spec says so. */
  function manualTimer(): { timer: TaskTimer; pending: (() => void)[]; delays: number[] } {
    const pending: (() => void)[] = [];
    const delays: number[] = [];
    return { pending, delays, timer: (run, ms) => (pending.push(run), delays.push(ms)) };
  }

  const request = { workerClassName: 'com.example.Worker', intervalMs: DAY, flexMs: DAY };

  it('after the result line and jobFinished the WorkSpec keeps its old job until the task runs; then the old id goes and a new one is scheduled', async () => {
    f = fixture();
    const t = manualTimer();
    const wm = WorkManager.initialize(f.context, () => ({ startWork: () => Promise.resolve(Result.success()) }), { taskExecutor: serialTaskExecutor(t.timer, 5) });
    const id = wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request);
    expect(wm.db.getSystemIdInfo(id, 0)).to.equal(0);
    f.now = T0 + DAY + 1;
    let finished: boolean | undefined;
    const job = f.jobs[0]!;
    expect(wm.onStartJob({ jobId: job.id, namespace: null, extras: job.extras, jobFinished: (r) => (finished = r) })).to.equal(true);
    for (let i = 0; i < 100 && finished === undefined; i++) await new Promise((r) => setImmediate(r));
    expect(finished).to.equal(false);
    expect(f.logs.some((l) => l.startsWith('4 WM-WorkerWrapper: Worker result SUCCESS'))).to.equal(true);
    // The result line and jobFinished have come; the re-scheduling waits on the task thread.
    expect(t.pending).to.have.length(1);
    expect(t.delays).to.deep.equal([5]);
    expect(wm.db.getSystemIdInfo(id, 0)).to.equal(0);
    expect(f.jobs.map((j) => j.id)).to.deep.equal([0]);
    t.pending.shift()!();
    expect(wm.db.getSystemIdInfo(id, 0)).to.equal(1);
    expect(f.jobs.map((j) => j.id)).to.deep.equal([1]);
  });

  it('a process that dies before the task thread runs does not re-schedule', async () => {
    f = fixture();
    const t = manualTimer();
    const wm = WorkManager.initialize(f.context, () => ({ startWork: () => Promise.resolve(Result.success()) }), { taskExecutor: serialTaskExecutor(t.timer, 5) });
    const id = wm.enqueueUniquePeriodicWork('feed-poll', 'KEEP', request);
    f.now = T0 + DAY + 1;
    let finished = false;
    const job = f.jobs[0]!;
    wm.onStartJob({ jobId: job.id, namespace: null, extras: job.extras, jobFinished: () => (finished = true) });
    for (let i = 0; i < 100 && !finished; i++) await new Promise((r) => setImmediate(r));
    expect(finished).to.equal(true);
    const stale = wm.db.getSystemIdInfo(id, 0);
    f.process.kill('signal 9');
    t.pending.shift()!();
    expect(stale).to.equal(0);
    expect(f.jobs.map((j) => j.id)).to.deep.equal([0]);
  });
});
