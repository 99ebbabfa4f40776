import { expect } from 'chai';
import { findOwnPeriodicJob } from '../../../src/cli/commands/init-shapes.js';
import { parseTimeUtilsDuration } from '../../../src/android/parsers/job-scheduler.js';
import { parseDumpsysJobs } from '../../../src/android/parsers/job-scheduler.js';

describe('init: the shapes it reads from a device', () => {
  it('parses TimeUtils.formatDuration as JobStatus.dump prints it', () => {
    expect(parseTimeUtilsDuration('+1d0h0m0s0ms')).to.equal(86_400_000);
    expect(parseTimeUtilsDuration('+15m0s0ms')).to.equal(900_000);
    expect(parseTimeUtilsDuration('-30s0ms')).to.equal(-30_000);
    expect(parseTimeUtilsDuration('+2h0m0s5ms')).to.equal(7_200_005);
    expect(parseTimeUtilsDuration('')).to.equal(null);
    expect(parseTimeUtilsDuration('soon')).to.equal(null);
  });

  it('takes the app\'s own periodic job, not WorkManager\'s SystemJobService nor a one-off job', () => {
    const dump = [
      'Registered 3 jobs:',
      '  JOB #u0a190/0: 1a2b androidx.work.systemjobscheduler@com.example.app/androidx.work.impl.background.systemjob.SystemJobService',
      '    JobInfo:',
      '      Service: com.example.app/androidx.work.impl.background.systemjob.SystemJobService',
      '  JOB #u0a190/1: 3c4d com.example.app/.OneOffJobService',
      '    JobInfo:',
      '      Service: com.example.app/.OneOffJobService',
      '  JOB #u0a190/2: 5e6f com.example.app/.FeedSyncJobService',
      '    JobInfo:',
      '      Service: com.example.app/.FeedSyncJobService',
      '      PERIODIC: interval=+1h0m0s0ms flex=+15m0s0ms',
      '',
    ].join('\n');
    expect(findOwnPeriodicJob(parseDumpsysJobs(dump), 'com.example.app')).to.deep.equal({ jobId: 2, service: 'com.example.app.FeedSyncJobService', intervalMs: 3_600_000 });
    expect(findOwnPeriodicJob(parseDumpsysJobs(dump), 'com.other')).to.equal(null);
  });
});
