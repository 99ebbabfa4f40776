import { expect } from 'chai';
import { FakeDevice } from './fake-device.js';
import { findJob, jobsOfPackage, listJobs, runJob, selectJob } from '../../../src/android/job-scheduler.js';
import { jobEnqueueOffset, jobFailures, jobPeriod, parseDumpsysJobs, parseFormattedUid, parseJobState, parseRunJobOutput } from '../../../src/android/parsers/job-scheduler.js';
import { loadFixture } from './fixtures.js';

const WM_SERVICE = 'androidx.work.impl.background.systemjob.SystemJobService';

describe('JobScheduler parsers', () => {
  describe('parseFormattedUid', () => {
    it('reads UserHandle.formatUid forms', () => {
      expect(parseFormattedUid('u0a190')).to.equal(10190);
      expect(parseFormattedUid('u10a5')).to.equal(1010005);
      expect(parseFormattedUid('1000')).to.equal(1000);
    });
  });

  describe('parseDumpsysJobs', () => {
    it('reads a namespaced WorkManager job (API 34, derived)', () => {
      const fixture = loadFixture('34/dumpsys-jobscheduler-pkg.txt');
      expect(parseDumpsysJobs(fixture.body)).to.deep.equal([
        {
          namespace: 'androidx.work.systemjobscheduler',
          uidText: 'u0a190',
          uid: 10190,
          jobId: 0,
          identityHash: '8c4f1d2',
          servicePackage: 'com.example.feednotifier',
          serviceClass: WM_SERVICE,
          traceTag: null,
          batteryName: `@androidx.work.systemjobscheduler@com.example.feednotifier/${WM_SERVICE}`,
          details: [
            `u0a190 tag=*job*/@androidx.work.systemjobscheduler@com.example.feednotifier/${WM_SERVICE}`,
            'Source: uid=u0a190 user=0 pkg=com.example.feednotifier',
            'JobInfo:',
            `Service: com.example.feednotifier/${WM_SERVICE}`,
          ],
        },
      ]);
    });

    it('reads a job without a namespace (API 33, derived)', () => {
      const [job] = parseDumpsysJobs(loadFixture('33/dumpsys-jobscheduler-pkg.txt').body);
      expect(job).to.include({ namespace: null, uidText: 'u0a190', uid: 10190, jobId: 0, servicePackage: 'com.example.feednotifier', serviceClass: WM_SERVICE, traceTag: null });
      expect(job?.batteryName).to.equal(`com.example.feednotifier/${WM_SERVICE}`);
    });

    it('reads captured API 37 lines: a system job and a traced WorkManager job', () => {
      const fixture = loadFixture('37/dumpsys-jobscheduler.txt');
      expect(fixture.provenance).to.equal('captured');
      expect(parseDumpsysJobs(fixture.body)).to.deep.equal([
        {
          namespace: null,
          uidText: '1000',
          uid: 1000,
          jobId: 808,
          identityHash: 'cb8ff9f',
          servicePackage: 'android',
          serviceClass: 'com.android.server.MountServiceIdler',
          traceTag: null,
          batteryName: 'android/com.android.server.MountServiceIdler',
          details: [],
        },
        {
          namespace: 'androidx.work.systemjobscheduler',
          uidText: 'u0a233',
          uid: 10233,
          jobId: 1,
          identityHash: '258ed68',
          servicePackage: 'com.companyname.mauitodo',
          serviceClass: WM_SERVICE,
          traceTag: 'SampleSyncWorker',
          batteryName: `#SampleSyncWorker#@androidx.work.systemjobscheduler@com.companyname.mauitodo/${WM_SERVICE}`,
          details: [
            `u0a233 tag=*job*r/#SampleSyncWorker#@androidx.work.systemjobscheduler@com.companyname.mauitodo/${WM_SERVICE}`,
            `Service: com.companyname.mauitodo/${WM_SERVICE}`,
          ],
        },
      ]);
    });

    it('lists a job once when it appears again later in the dump', () => {
      const text = `  JOB #u0a190/3: abc com.example/.Svc\n  JOB #u0a190/3: abc com.example/.Svc\n`;
      expect(parseDumpsysJobs(text).map((j) => j.jobId)).to.deep.equal([3]);
    });

    it('reads an API 30 dump: every app\'s JOB line, details only under the package\'s own (derived)', () => {
      const fixture = loadFixture('30/dumpsys-jobscheduler-pkg-other-apps.txt');
      const jobs = parseDumpsysJobs(fixture.body);
      expect(jobs.map((j) => [j.uidText, j.jobId, j.servicePackage, j.serviceClass, j.details.length])).to.deep.equal([
        ['1000', 808, 'android', 'com.android.server.MountServiceIdler', 0],
        ['u0a153', 0, 'com.example.photobackup', WM_SERVICE, 0],
        ['u0a153', 1, 'com.example.photobackup', WM_SERVICE, 0],
        ['u0a176', 0, 'org.example.weather', WM_SERVICE, 0],
        ['u0a190', 0, 'com.example.feednotifier', WM_SERVICE, 4],
        ['u0a191', 0, 'com.example.feednotifier.beta', WM_SERVICE, 0],
      ]);
    });

    it('finds nothing in text without JOB lines', () => {
      expect(parseDumpsysJobs('Invalid package: com.example.none\n')).to.deep.equal([]);
    });
  });

  describe('parseRunJobOutput', () => {
    it('reads a forced run', () => {
      const f = loadFixture('34/cmd-jobscheduler-run-forced.txt');
      expect(parseRunJobOutput(f.body, '', f.exitCode ?? -1)).to.deep.equal({ kind: 'running', forced: true });
      expect(parseRunJobOutput('Running job\n', '', 0)).to.deep.equal({ kind: 'running', forced: false });
    });

    it('reads the three error returns (exit 23, 22, 24)', () => {
      const noJob = loadFixture('34/cmd-jobscheduler-run-no-job-namespace.txt');
      expect(parseRunJobOutput('', noJob.body, noJob.exitCode ?? -1)).to.deep.equal({
        kind: 'no-job',
        message: 'Could not find job 7 in package com.example.feednotifier / namespace androidx.work.systemjobscheduler / user 0',
      });
      const constraints = loadFixture('34/cmd-jobscheduler-run-constraints.txt');
      expect(parseRunJobOutput('', constraints.body, constraints.exitCode ?? -1)).to.deep.equal({
        kind: 'constraints-unsatisfied',
        message: 'Job 0 in package com.example.feednotifier / user 0 has functional constraints but --force not specified',
      });
      const noPackage = loadFixture('34/cmd-jobscheduler-run-no-package.txt');
      expect(parseRunJobOutput('', noPackage.body, noPackage.exitCode ?? -1)).to.deep.equal({
        kind: 'no-package',
        message: 'Package not found: com.example.missing / user 0',
      });
    });

    it('recognises an error text whatever the exit code', () => {
      const noJob = loadFixture('34/cmd-jobscheduler-run-no-job.txt');
      expect(parseRunJobOutput('', noJob.body, 1).kind).to.equal('no-job');
    });

    it('does not call exit 0 without "Running job" a run', () => {
      expect(parseRunJobOutput('Error: unknown option \'-x\'\n', '', 0)).to.deep.equal({ kind: 'error', message: "Error: unknown option '-x'", exitCode: 0 });
      expect(parseRunJobOutput('', '', 255)).to.deep.equal({ kind: 'error', message: 'no output', exitCode: 255 });
    });
  });

  describe('parseJobState', () => {
    it('reads state tokens', () => {
      for (const [file, states] of [
        ['34/cmd-jobscheduler-get-job-state-ready.txt', ['ready']],
        ['34/cmd-jobscheduler-get-job-state-pending-ready.txt', ['pending', 'ready']],
        ['34/cmd-jobscheduler-get-job-state-waiting.txt', ['waiting']],
      ] as const) {
        const f = loadFixture(file);
        expect(parseJobState(f.body, '', f.exitCode ?? 0), file).to.deep.equal({ kind: 'known', states });
      }
    });

    it('reads an unknown job', () => {
      const f = loadFixture('34/cmd-jobscheduler-get-job-state-unknown.txt');
      expect(parseJobState(f.body, 'Could not find job 42 in package com.example.feednotifier / user 0\n', f.exitCode ?? 0)).to.deep.equal({
        kind: 'unknown',
        reason: 'no-job',
        message: 'Could not find job 42 in package com.example.feednotifier / user 0',
      });
    });

    it('does not accept unexpected words as states', () => {
      expect(parseJobState('ready sideways\n', '', 0)).to.deep.equal({ kind: 'unknown', reason: 'other', message: 'ready sideways' });
    });
  });
});

describe("an app's own periodic job in JobStatus.dump (../shared/reference: PERIODIC, Enqueue time, [Num failures: N])", () => {
  const block = (extra: string[]): string =>
    [
      '  JOB #u0a190/2: 5e6f7a8 com.example.feednotifier/.FeedSyncJobService',
      '    u0a190 tag=*job*/com.example.feednotifier/.FeedSyncJobService',
      '    Source: uid=u0a190 user=0 pkg=com.example.feednotifier',
      '    JobInfo:',
      '      Service: com.example.feednotifier/.FeedSyncJobService',
      '      PERIODIC: interval=+1d0h0m0s0ms flex=+1d0h0m0s0ms',
      '      Backoff: policy=1 initial=+30s0ms',
      '    Enqueue time: -5m2s1ms',
      '    Run time: earliest=-5m2s1ms, latest=+23h54m57s999ms, original latest=+23h54m57s999ms',
      ...extra,
    ].join('\n') + '\n';

  it('reads the period, the enqueue time relative to the dump, and no failures when the line is absent', () => {
    const [job] = parseDumpsysJobs(block([]));
    expect(job).to.include({ jobId: 2, servicePackage: 'com.example.feednotifier', serviceClass: '.FeedSyncJobService' });
    expect(jobPeriod(job!)).to.deep.equal({ intervalMs: 86_400_000, flexMs: 86_400_000 });
    expect(jobEnqueueOffset(job!)).to.equal(-302_001);
    expect(jobFailures(job!)).to.equal(0);
  });

  it('reads Num failures, and a one-off job has no period', () => {
    const [job] = parseDumpsysJobs(block(['    Num failures: 3']));
    expect(jobFailures(job!)).to.equal(3);
    const [oneOff] = parseDumpsysJobs(block([]).replace(/^ {6}PERIODIC: .*\n/m, ''));
    expect(jobPeriod(oneOff!)).to.equal(null);
  });
});

describe('JobScheduler wrapper', () => {
  it('runs a job with -f and -n and returns the outcome as data', async () => {
    const noJob = loadFixture('34/cmd-jobscheduler-run-no-job-namespace.txt');
    const dump = loadFixture('34/dumpsys-jobscheduler-pkg.txt');
    const device = new FakeDevice((argv) => {
      if (argv[0] === 'dumpsys') return { stdout: dump.body };
      return argv.includes('7') ? { stderr: noJob.body, exitCode: 23 } : { stdout: 'Running job [FORCED]\n' };
    });
    const ran = await runJob(device, { pkg: 'com.example.feednotifier', id: 0, namespace: 'androidx.work.systemjobscheduler', force: true });
    expect(ran.result).to.deep.equal({ kind: 'running', forced: true });
    expect(ran.command).to.deep.equal(['cmd', 'jobscheduler', 'run', '-f', '-n', 'androidx.work.systemjobscheduler', 'com.example.feednotifier', '0']);
    const probe = await runJob(device, { pkg: 'com.example.feednotifier', id: 0, namespace: 'androidx.work.systemjobscheduler', force: false, satisfied: true });
    expect(probe.command).to.deep.equal(['cmd', 'jobscheduler', 'run', '-s', '-n', 'androidx.work.systemjobscheduler', 'com.example.feednotifier', '0']);
    const missing = await runJob(device, { pkg: 'com.example.feednotifier', id: 7, force: true });
    expect(missing.result.kind).to.equal('no-job');
    expect(missing.command).to.deep.equal(['cmd', 'jobscheduler', 'run', '-f', 'com.example.feednotifier', '7']);
    const job = await findJob(device, { pkg: 'com.example.feednotifier', serviceClass: WM_SERVICE });
    expect(job).to.include({ jobId: 0, namespace: 'androidx.work.systemjobscheduler' });
    expect(await findJob(device, { pkg: 'com.example.feednotifier', jobId: 5 })).to.equal(null);
  });

  describe('on an API 30 dump that lists other apps\' WorkManager jobs', () => {
    const dump = loadFixture('30/dumpsys-jobscheduler-pkg-other-apps.txt').body;
    const PKG = 'com.example.feednotifier';

    it('lists and finds only the package\'s job, by package, job id and service class', async () => {
      const device = new FakeDevice(() => ({ stdout: dump }));
      expect((await listJobs(device, PKG)).map((j) => [j.uid, j.jobId])).to.deep.equal([[10190, 0]]);
      // Job 0 of three other apps comes first or after: the app's is the one found.
      expect(await findJob(device, { pkg: PKG, jobId: 0, serviceClass: WM_SERVICE })).to.include({ uid: 10190, jobId: 0, servicePackage: PKG });
      expect(await findJob(device, { pkg: PKG, serviceClass: WM_SERVICE })).to.include({ uid: 10190, jobId: 0 });
      expect(await findJob(device, { pkg: PKG, jobId: 0 })).to.include({ uid: 10190 });
      // Ids only other apps have are not the app's.
      expect(await findJob(device, { pkg: PKG, jobId: 1, serviceClass: WM_SERVICE })).to.equal(null);
      expect(await findJob(device, { pkg: PKG, jobId: 808 })).to.equal(null);
      expect(device.calls.map((c) => c.argv)).to.deep.equal(Array(6).fill(['dumpsys', 'jobscheduler', PKG]));
      // The other apps' jobs are found for their own package.
      expect(selectJob(parseDumpsysJobs(dump), { pkg: 'org.example.weather', jobId: 0, serviceClass: WM_SERVICE })).to.include({ uid: 10176 });
      expect(jobsOfPackage(parseDumpsysJobs(dump), 'com.example.photobackup').map((j) => j.jobId)).to.deep.equal([0, 1]);
    });

    it('does not take a JOB line whose battery name is a source tag (no component) for the package\'s', () => {
      const tagged = `Registered 2 jobs:\n  JOB #1000/0: 9db65d7 sync:${PKG}\n${dump.split('\n').slice(5).join('\n')}`;
      const jobs = parseDumpsysJobs(tagged);
      expect(jobs[0]).to.include({ uid: 1000, jobId: 0, servicePackage: null });
      expect(selectJob(jobs, { pkg: PKG, jobId: 0 })).to.include({ uid: 10190 });
      // With details naming the package as the source, such a job is the package's.
      const withSource = `  JOB #1000/5: 9db65d7 sync:${PKG}\n    1000 tag=*job*/sync:${PKG}\n    Source: uid=u0a190 user=0 pkg=${PKG}\n`;
      expect(jobsOfPackage(parseDumpsysJobs(withSource), PKG).map((j) => j.jobId)).to.deep.equal([5]);
      expect(jobsOfPackage(parseDumpsysJobs(withSource), 'com.example.other')).to.deep.equal([]);
    });
  });

  it('refuses a package name that is not one before running anything', async () => {
    const device = new FakeDevice(() => ({}));
    try {
      await runJob(device, { pkg: 'com.example; reboot', id: 0, force: true });
      expect.fail('accepted');
    } catch (e) {
      expect(e).to.have.property('code', 'DV_CONFIG');
    }
    expect(device.calls).to.deep.equal([]);
  });
});
