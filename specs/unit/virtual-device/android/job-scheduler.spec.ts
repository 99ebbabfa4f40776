import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JobInfoSpec, JobParameters } from '../../../../src/virtual-device/system/app-framework.js';
import { CMD_ERR_NO_JOB, CMD_ERR_NO_PACKAGE, JobSchedulerService, type JobStatus } from '../../../../src/virtual-device/system/job-scheduler.js';
import type { SystemLog } from '../../../../src/virtual-device/system/system-log.js';

const captured = readFileSync(fileURLToPath(new URL('./captured/dumpsys-jobscheduler-job-lines.txt', import.meta.url)), 'utf8')
  .split('\n')
  .filter((l) => l.startsWith(' '));

const NS = 'androidx.work.systemjobscheduler';
const SERVICE = { packageName: 'com.example.feednotifier', className: 'androidx.work.impl.background.systemjob.SystemJobService' };

function job(id: number, minLatencyMs = 0): JobInfoSpec {
  return {
    id,
    service: SERVICE,
    minLatencyMs,
    backoffPolicy: 1,
    initialBackoffMs: 30_000,
    persisted: false,
    requiredNetworkType: 0,
    requiresCharging: false,
    requiresDeviceIdle: false,
    requiresBatteryNotLow: false,
    requiresStorageNotLow: false,
    extras: { EXTRA_WORK_SPEC_ID: 'x' },
    priority: 300,
  };
}

interface Harness {
  service: JobSchedulerService;
  elapsed: number;
  started: { js: JobStatus; params: JobParameters }[];
}

function harness(api = 34): Harness {
  const h = { elapsed: 10_000, started: [] } as unknown as Harness;
  let hash = 0x258ed68;
  h.service = new JobSchedulerService({
    log: { slog: () => undefined } as unknown as SystemLog,
    apiLevel: api,
    elapsedRealtime: () => h.elapsed,
    now: () => 1_700_000_000_000 + h.elapsed,
    nextIdentityHash: () => hash++,
    packageUid: (pkg) => (pkg === 'com.example.feednotifier' ? 10190 : undefined),
    startJob: (js, params) => {
      h.started.push({ js, params });
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
    expect(jobLines).to.deep.equal([
      '  JOB #u0a190/3: 258ed68 com.example.feednotifier/androidx.work.impl.background.systemjob.SystemJobService',
      `  JOB ${NS}:u0a190/0: 258ed69 @${NS}@com.example.feednotifier/androidx.work.impl.background.systemjob.SystemJobService`,
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
});
