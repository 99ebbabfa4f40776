import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildJobInfo, type JobInfoSpec, type JobParameters } from '../../../../src/virtual-device/system/app-framework.js';
import { CMD_ERR_CONSTRAINTS, CMD_ERR_NO_JOB, CMD_ERR_NO_PACKAGE, JobSchedulerService, type JobStatus } from '../../../../src/virtual-device/system/job-scheduler.js';
import type { SystemLog } from '../../../../src/virtual-device/system/system-log.js';

const captured = readFileSync(fileURLToPath(new URL('./captured/dumpsys-jobscheduler-job-lines.txt', import.meta.url)), 'utf8')
  .split('\n')
  .filter((l) => l.startsWith(' '));

const NS = 'androidx.work.systemjobscheduler';
const SERVICE = { packageName: 'com.example.feednotifier', className: 'androidx.work.impl.background.systemjob.SystemJobService' };

function job(id: number, minLatencyMs = 0, constraints: Partial<Pick<JobInfoSpec, 'requiredNetworkType' | 'requiresCharging' | 'requiresDeviceIdle' | 'requiresBatteryNotLow' | 'requiresStorageNotLow'>> = {}): JobInfoSpec {
  return buildJobInfo(id, SERVICE, { minLatencyMs, extras: { EXTRA_WORK_SPEC_ID: 'x' }, ...constraints });
}

interface Harness {
  service: JobSchedulerService;
  elapsed: number;
  started: { js: JobStatus; params: JobParameters }[];
  /** Called after each JobService start. */
  onStart: (() => void)[];
}

/** Resolves once `n` jobs have been started; fails after a deadline. */
function waitStarted(h: Harness, n: number, deadlineMs = 2_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${h.started.length} of ${n} jobs started`)), deadlineMs);
    const check = (): void => {
      if (h.started.length < n) return;
      clearTimeout(timer);
      resolve();
    };
    h.onStart.push(check);
    check();
  });
}

function harness(api = 34, uids: Readonly<Record<string, number>> = { 'com.example.feednotifier': 10190 }): Harness {
  const h = { elapsed: 10_000, started: [], onStart: [] } as unknown as Harness;
  let hash = 0x258ed68;
  h.service = new JobSchedulerService({
    log: { slog: () => undefined } as unknown as SystemLog,
    apiLevel: api,
    elapsedRealtime: () => h.elapsed,
    now: () => 1_700_000_000_000 + h.elapsed,
    nextIdentityHash: () => hash++,
    packageUid: (pkg) => uids[pkg],
    startJob: (js, params) => {
      h.started.push({ js, params });
      for (const f of h.onStart) f();
      return Promise.resolve({ pid: 4321, continues: true });
    },
    stopJob: () => undefined,
  });
  return h;
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

describe('JobSchedulerService', () => {
  let h: Harness;
  afterEach(() => h.service.dispose());

  it('JOB lines: `#u0a190/N` without a namespace, `ns:u0a190/N` + @ns@ battery name with one, shaped like the captures', () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', null, job(3, 86_400_000));
    h.service.schedule(10190, 'com.example.feednotifier', NS, job(0, 86_400_000));
    const dump = h.service.dump(undefined).split('\n');
    const jobLines = dump.filter((l) => l.startsWith('  JOB '));
    // sortJobs: calling uid, then job id (whatever the namespace or the order of scheduling).
    expect(jobLines).to.deep.equal([
      `  JOB ${NS}:u0a190/0: 258ed69 @${NS}@com.example.feednotifier/androidx.work.impl.background.systemjob.SystemJobService`,
      '  JOB #u0a190/3: 258ed68 com.example.feednotifier/androidx.work.impl.background.systemjob.SystemJobService',
    ]);
    // Same shape as the captured lines (the capture's `#Trace#` prefix and `*job*r/` tag are newer-platform additions).
    const shape = /^ {2}JOB (#|[\w.]+:)(u\d+a\d+|\d+)\/\d+: [0-9a-f]+ (#\w+#)?(@[\w.]+@)?[\w.]+\/[\w.$]+$/;
    for (const l of [...jobLines, captured[0]!, captured[1]!]) expect(l).to.match(shape);
    const tagShape = /^ {4}(u\d+a\d+|\d+) tag=\*job\*r?\/(#\w+#)?(@[\w.]+@)?[\w.]+\/[\w.$]+$/;
    expect(dump.filter((l) => l.includes(' tag=*job*'))).to.have.length(2);
    for (const l of [...dump.filter((x) => x.includes(' tag=*job*')), captured[2]!]) expect(l).to.match(tagShape);
    expect(dump[1]).to.equal('Registered 2 jobs:');
    expect(dump).to.include('      Minimum latency: +1d0h0m0s0ms');
    expect(dump).to.include('      Backoff: policy=1 initial=+30s0ms');
  });

  it('run: -1000 for an unknown package, -1001 for an unknown job or the wrong namespace, 0 and the job runs', async () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', NS, job(0, 86_400_000));
    await tick();
    expect(h.started).to.have.length(0);
    expect(h.service.runCommand('com.nope', 0, NS, 0, false, true)).to.equal(CMD_ERR_NO_PACKAGE);
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 0, false, true)).to.equal(CMD_ERR_NO_JOB);
    expect(h.service.runCommand('com.example.feednotifier', 0, NS, 7, false, true)).to.equal(CMD_ERR_NO_JOB);
    expect(h.service.runCommand('com.example.feednotifier', 0, NS, 0, false, true)).to.equal(0);
    await tick();
    expect(h.started.map((s) => s.params.jobId)).to.deep.equal([0]);
    expect(h.service.jobState('com.example.feednotifier', 0, NS, 0)).to.deep.equal({ out: 'active\n\n', code: 0 });
    expect(h.service.jobState('com.example.feednotifier', 0, NS, 9)).to.deep.equal({ out: 'unknown(u0a190/jid9)\n', code: CMD_ERR_NO_JOB });
    expect(h.service.jobState('com.nope', 0, NS, 9)).to.deep.equal({ out: 'unknown(com.nope)\n', code: CMD_ERR_NO_PACKAGE });
  });

  it('a job with no latency runs by itself; jobFinished(false) removes it; a waiting job reports `waiting`', async () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', null, job(1));
    h.service.schedule(10190, 'com.example.feednotifier', null, job(2, 60_000));
    await tick();
    expect(h.started.map((s) => s.params.jobId)).to.deep.equal([1]);
    expect(h.service.jobState('com.example.feednotifier', 0, null, 2)).to.deep.equal({ out: 'waiting\n', code: 0 });
    h.started[0]!.params.jobFinished(false);
    expect(h.service.all().map((j) => j.job.id)).to.deep.equal([2]);
  });

  it('a process death while running reschedules with exponential backoff (30 s, then 60 s); force-stop drops every job', async () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', null, job(5));
    await tick();
    h.service.onProcessDied(10190);
    const js = h.service.all()[0]!;
    expect([js.numFailures, js.earliestRunElapsed - h.elapsed]).to.deep.equal([1, 30_000]);
    h.service.runCommand('com.example.feednotifier', 0, null, 5, false, true);
    await tick();
    h.service.onProcessDied(10190);
    expect([js.numFailures, js.earliestRunElapsed - h.elapsed]).to.deep.equal([2, 60_000]);
    h.service.cancelJobsForPackage('com.example.feednotifier', 'app force stopped');
    expect(h.service.all()).to.have.length(0);
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 5, false, true)).to.equal(CMD_ERR_NO_JOB);
  });
  it('run -s (OVERRIDE_SORTING) ignores no constraint: a pending timing delay is -1002 and the override is dropped', async () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', NS, job(0, 86_400_000));
    expect(h.service.runCommand('com.example.feednotifier', 0, NS, 0, true, false)).to.equal(CMD_ERR_CONSTRAINTS);
    // Neither pending nor ready: the job still waits for its delay.
    expect(h.service.jobState('com.example.feednotifier', 0, NS, 0)).to.deep.equal({ out: 'waiting\n', code: 0 });
    // Once the delay has passed, -s runs it.
    h.elapsed += 86_400_000;
    expect(h.service.runCommand('com.example.feednotifier', 0, NS, 0, true, false)).to.equal(0);
    await waitStarted(h, 1);
    expect(h.started.map((s) => s.params.jobId)).to.deep.equal([0]);
  });

  it('run without -f/-s (OVERRIDE_SOFT) ignores the timing delay, charging, battery, storage and idle, not the network', async () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', null, job(1, 86_400_000));
    h.service.schedule(10190, 'com.example.feednotifier', null, job(2, 0, { requiresCharging: true, requiresBatteryNotLow: true, requiresStorageNotLow: true, requiresDeviceIdle: true }));
    h.service.schedule(10190, 'com.example.feednotifier', null, job(3, 0, { requiredNetworkType: 1 }));
    for (const id of [1, 2, 3]) expect(h.service.jobState('com.example.feednotifier', 0, null, id)).to.deep.equal({ out: 'waiting\n', code: 0 });
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 2, true, false)).to.equal(CMD_ERR_CONSTRAINTS);
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 3, false, false)).to.equal(CMD_ERR_CONSTRAINTS);
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 1, false, false)).to.equal(0);
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 2, false, false)).to.equal(0);
    await waitStarted(h, 2);
    // The same evaluation passed over job 3, which stays unstarted.
    expect(h.started.map((s) => s.params.jobId).sort()).to.deep.equal([1, 2]);
    expect(h.service.jobState('com.example.feednotifier', 0, null, 3)).to.deep.equal({ out: 'waiting\n', code: 0 });
    // -f (OVERRIDE_FULL) ignores everything.
    expect(h.service.runCommand('com.example.feednotifier', 0, null, 3, false, true)).to.equal(0);
    await waitStarted(h, 3);
    expect(h.started.map((s) => s.params.jobId).sort()).to.deep.equal([1, 2, 3]);
  });

  it('cancel: all jobs of the uid in every namespace, or one job in its namespace; `No matching …` and 0 when nothing goes', () => {
    h = harness();
    h.service.schedule(10190, 'com.example.feednotifier', NS, job(0, 86_400_000));
    h.service.schedule(10190, 'com.example.feednotifier', null, job(0, 86_400_000));
    h.service.schedule(10190, 'com.example.feednotifier', null, job(4, 86_400_000));
    expect(h.service.cancelCommand('com.nope', 0, null, undefined)).to.deep.equal({ out: 'Package com.nope not found.\n', code: CMD_ERR_NO_PACKAGE });
    expect(h.service.cancelCommand(null, 0, null, 4)).to.deep.equal({ out: 'Package null not found.\n', code: CMD_ERR_NO_PACKAGE });
    expect(h.service.cancelCommand('com.example.feednotifier', 0, 'other', 0)).to.deep.equal({
      out: 'Canceling job com.example.feednotifier/#0 in user 0\nNo matching job found.\n',
      code: 0,
    });
    expect(h.service.all()).to.have.length(3);
    expect(h.service.cancelCommand('com.example.feednotifier', 0, NS, 0)).to.deep.equal({ out: 'Canceling job com.example.feednotifier/#0 in user 0\n', code: 0 });
    expect(h.service.all().map((j) => [j.namespace, j.job.id])).to.deep.equal([
      [null, 0],
      [null, 4],
    ]);
    expect(h.service.cancelCommand('com.example.feednotifier', 0, NS, undefined)).to.deep.equal({ out: 'Canceling all jobs for com.example.feednotifier in user 0\n', code: 0 });
    expect(h.service.all()).to.have.length(0);
    expect(h.service.cancelCommand('com.example.feednotifier', 0, null, undefined)).to.deep.equal({
      out: 'Canceling all jobs for com.example.feednotifier in user 0\nNo matching jobs found.\n',
      code: 0,
    });
  });

  it('dump: `  None.` under no printed job, `Restricted due to: none.` before Ready, `  None` for an empty pending queue (API 34)', () => {
    h = harness(34);
    const empty = h.service.dump(undefined).split('\n');
    expect(empty.slice(1, 3)).to.deep.equal(['Registered 0 jobs:', '  None.']);
    expect(empty.slice(empty.indexOf('Pending queue:'), empty.indexOf('Pending queue:') + 3)).to.deep.equal(['Pending queue:', '  None', '']);
    h.service.schedule(10190, 'com.example.feednotifier', NS, job(0, 86_400_000));
    const one = h.service.dump(10190).split('\n');
    const ready = one.findIndex((l) => l.startsWith('    Ready: '));
    expect(one[ready - 1]).to.equal('    Restricted due to: none.');
    expect(one).to.not.include('  None.');
    // Filtered to another uid: nothing printed, so `None.` under the total count.
    expect(h.service.dump(10191).split('\n').slice(1, 3)).to.deep.equal(['Registered 1 jobs:', '  None.']);
  });

  it('dump on API 30: `  None.` only with no job registered, nothing under an empty pending queue', () => {
    h = harness(30);
    const empty = h.service.dump(undefined).split('\n');
    expect(empty.slice(1, 3)).to.deep.equal(['Registered 0 jobs:', '  None.']);
    expect(empty.slice(empty.indexOf('Pending queue:'), empty.indexOf('Pending queue:') + 3)).to.deep.equal(['Pending queue:', '', 'Active jobs:']);
    h.service.schedule(10190, 'com.example.feednotifier', null, job(0, 86_400_000));
    // Filtered to another uid: the job's JOB line still, without its details.
    expect(h.service.dump(10191).split('\n').slice(1, 4)).to.deep.equal([
      'Registered 1 jobs:',
      '  JOB #u0a190/0: 258ed68 com.example.feednotifier/androidx.work.impl.background.systemjob.SystemJobService',
      '',
    ]);
  });

  describe('dumpsys jobscheduler PKG with other apps\' WorkManager jobs', () => {
    const OTHER = { packageName: 'com.example.photobackup', className: SERVICE.className };
    const WEATHER = { packageName: 'org.example.weather', className: SERVICE.className };
    function withOtherApps(api: number): Harness {
      const hh = harness(api, { 'com.example.feednotifier': 10190, 'com.example.photobackup': 10153, 'org.example.weather': 10201 });
      // Scheduled out of order: the dump sorts by calling uid, then job id.
      hh.service.schedule(10201, 'org.example.weather', null, { ...job(0, 3_600_000), service: WEATHER });
      hh.service.schedule(10190, 'com.example.feednotifier', null, job(0, 86_400_000));
      hh.service.schedule(10153, 'com.example.photobackup', null, { ...job(1, 3_600_000, { requiredNetworkType: 1 }), service: OTHER });
      hh.service.schedule(10153, 'com.example.photobackup', null, { ...job(0, 3_600_000, { requiredNetworkType: 1 }), service: OTHER });
      return hh;
    }
    const WM = 'androidx.work.impl.background.systemjob.SystemJobService';

    it('API 30 (Android 11): every registered job\'s JOB line, sorted, details only under the package\'s own', () => {
      h = withOtherApps(30);
      const dump = h.service.dump(10190).split('\n');
      const registered = dump.slice(dump.indexOf('Registered 4 jobs:') + 1, dump.indexOf('Pending queue:') - 1);
      expect(registered.filter((l) => l.startsWith('  JOB '))).to.deep.equal([
        `  JOB #u0a153/0: 258ed6b com.example.photobackup/${WM}`,
        `  JOB #u0a153/1: 258ed6a com.example.photobackup/${WM}`,
        `  JOB #u0a190/0: 258ed69 com.example.feednotifier/${WM}`,
        `  JOB #u0a201/0: 258ed68 org.example.weather/${WM}`,
      ]);
      // Only the app's job has details: the lines after the other apps' headers are the next header.
      expect(registered[0]).to.match(/^ {2}JOB #u0a153\/0: /);
      expect(registered[1]).to.match(/^ {2}JOB #u0a153\/1: /);
      expect(registered[2]).to.match(/^ {2}JOB #u0a190\/0: /);
      expect(registered[3]).to.equal(`    u0a190 tag=*job*/com.example.feednotifier/${WM}`);
      expect(registered[registered.length - 1]).to.match(/^ {2}JOB #u0a201\/0: /);
      expect(registered.filter((l) => l.startsWith('    Source: '))).to.deep.equal(['    Source: uid=u0a190 user=0 pkg=com.example.feednotifier']);
      // Unfiltered, every job has its details.
      expect(h.service.dump(undefined).split('\n').filter((l) => l.startsWith('    Source: '))).to.have.length(4);
    });

    it('API 33 and 34: only the package\'s own jobs', () => {
      for (const api of [33, 34]) {
        h.service.dispose();
        h = withOtherApps(api);
        const jobLines = h.service.dump(10190).split('\n').filter((l) => l.startsWith('  JOB '));
        expect(jobLines, `API ${api}`).to.deep.equal([`  JOB #u0a190/0: 258ed69 com.example.feednotifier/${WM}`]);
        const none = h.service.dump(10999).split('\n');
        expect(none.slice(1, 3), `API ${api}`).to.deep.equal(['Registered 4 jobs:', '  None.']);
        expect(none.slice(none.indexOf('Pending queue:'), none.indexOf('Pending queue:') + 2), `API ${api}`).to.deep.equal(['Pending queue:', '  None']);
      }
    });

    it('run and get-job-state name a job by package and id: the other apps\' job 0 is theirs', async () => {
      h = withOtherApps(30);
      expect(h.service.jobState('com.example.photobackup', 0, null, 0)).to.deep.equal({ out: 'waiting\n', code: 0 });
      expect(h.service.jobState('com.example.photobackup', 0, null, 2)).to.deep.equal({ out: 'unknown(u0a153/jid2)\n', code: CMD_ERR_NO_JOB });
      // A network constraint is never satisfied in the model: only -f runs it.
      expect(h.service.runCommand('com.example.photobackup', 0, null, 0, false, false)).to.equal(CMD_ERR_CONSTRAINTS);
      expect(h.service.runCommand('com.example.photobackup', 0, null, 0, false, true)).to.equal(0);
      await tick();
      expect(h.started.map((s) => [s.js.sourcePackage, s.params.jobId])).to.deep.equal([['com.example.photobackup', 0]]);
    });
  });
});
