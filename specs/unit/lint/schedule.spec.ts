/**
 * When the app's periodic work is not WorkManager's, the result says what schedules it instead
 * and which rules had nothing to read, instead of a bare "no findings".
 */
import { expect } from 'chai';
import type { CliIo } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import { lintPaths, lintSources } from '../../../src/lint/lint.js';

describe('lint schedule notes', () => {
  it('names a JobScheduler setPeriodic and the rules that did not run', async () => {
    const D = 'fixtures/lint/schedule/jobscheduler';
    const r = await lintPaths([D]);
    expect(r.findings).to.deep.equal([]);
    expect(r.notes).to.deep.equal([
      {
        file: `${D}/src/main/java/com/example/reader/SyncJob.kt`,
        line: 31,
        message:
          `no WorkManager periodic work found (no PeriodicWorkRequest); found instead: JobScheduler setPeriodic (${D}/src/main/java/com/example/reader/SyncJob.kt:31): ` +
          'window-vs-interval and periodic-without-unique-name did not run (they read a WorkManager schedule); with no WorkManager worker, newest-first, dedup-on-title, ' +
          'date-defaults-to-now, channel-only-in-activity and new-key-per-attempt followed the path of the JobScheduler job or SyncAdapter instead: ' +
          `SyncJobService (${D}/src/main/java/com/example/reader/SyncJob.kt:15)`,
      },
    ]);
  });

  it('names addPeriodicSync and AlarmManager repeating alarms, and leaves out alarms on other receivers', () => {
    const r = lintSources([
      { path: 'Sync.kt', text: 'fun setup(account: Account) {\n    ContentResolver.addPeriodicSync(account, AUTHORITY, Bundle.EMPTY, 3600L)\n}\n' },
      {
        path: 'Alarms.java',
        text:
          'class Alarms {\n    void arm(Context c, PendingIntent pi) {\n        AlarmManager alarmManager = c.getSystemService(AlarmManager.class);\n' +
          '        alarmManager.setInexactRepeating(AlarmManager.RTC, 0L, AlarmManager.INTERVAL_HOUR, pi);\n        animator.setRepeating(true);\n    }\n}\n',
      },
    ]);
    expect(r.notes.map((n) => n.message.split(': window-vs-interval')[0])).to.deep.equal([
      'no WorkManager periodic work found (no PeriodicWorkRequest); found instead: AlarmManager setInexactRepeating (Alarms.java:4), SyncAdapter addPeriodicSync (Sync.kt:2)',
    ]);
    // no worker, job or sync adapter class in the sources: nothing was followed, and the note says so
    expect(r.notes[0]?.message).to.match(/with no WorkManager worker, JobScheduler job or SyncAdapter, newest-first, .* had no worker path to follow/);
  });

  it('has no note when WorkManager periodic work is found', async () => {
    expect((await lintPaths(['fixtures/lint/clean-app'])).notes).to.deep.equal([]);
  });

  it('prints the note on stderr and points at it from the summary', async () => {
    let stdout = '';
    let stderr = '';
    const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) };
    const code = await main(['node', 'dedup-verify', 'lint', 'fixtures/lint/schedule/jobscheduler'], io);
    expect(code).to.equal(0);
    expect(stdout).to.equal('');
    const lines = stderr.split('\n');
    expect(lines[0]).to.match(/^note: no WorkManager periodic work found \(no PeriodicWorkRequest\); found instead: JobScheduler setPeriodic /);
    expect(lines[1]).to.equal('no findings in 1 file; the note above says what was not checked');
  });
});
