import { expect } from 'chai';
import { FakeDevice } from './fake-device.js';
import { findJob, runJob } from '../../../src/android/job-scheduler.js';
import { parseDumpsysJobs, parseFormattedUid, parseJobState, parseRunJobOutput } from '../../../src/android/parsers/job-scheduler.js';
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
    const missing = await runJob(device, { pkg: 'com.example.feednotifier', id: 7, force: true });
    expect(missing.result.kind).to.equal('no-job');
    expect(missing.command).to.deep.equal(['cmd', 'jobscheduler', 'run', '-f', 'com.example.feednotifier', '7']);
    const job = await findJob(device, { pkg: 'com.example.feednotifier', serviceClass: WM_SERVICE });
    expect(job).to.include({ jobId: 0, namespace: 'androidx.work.systemjobscheduler' });
    expect(await findJob(device, { pkg: 'com.example.feednotifier', jobId: 5 })).to.equal(null);
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
