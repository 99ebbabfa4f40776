import { expect } from 'chai';
import type { AndroidSystem } from '../../../../src/virtual-device/system/android-system.js';
import { buildJobInfo, type JobInfoSpec } from '../../../../src/virtual-device/system/app-framework.js';
import { jobschedulerHandler } from '../../../../src/virtual-device/system/commands/jobscheduler-cmd.js';
import { alarmHandler } from '../../../../src/virtual-device/system/commands/alarm-cmd.js';
import { appopsHandler } from '../../../../src/virtual-device/system/commands/appops.js';
import { AppOpsService } from '../../../../src/virtual-device/system/app-ops.js';
import { settingsHandler } from '../../../../src/virtual-device/system/commands/settings.js';
import { runShellCommand, ShellArgs, type ShellCommandHandler } from '../../../../src/virtual-device/system/commands/shell-command.js';
import { formatReal, splitStatements } from '../../../../src/virtual-device/system/commands/sqlite3.js';
import { IntentFlag, intentToString, parseComponentName } from '../../../../src/virtual-device/system/intent.js';
import { JobSchedulerService } from '../../../../src/virtual-device/system/job-scheduler.js';
import { SettingsProvider } from '../../../../src/virtual-device/system/settings-provider.js';
import type { SystemLog } from '../../../../src/virtual-device/system/system-log.js';
import type { CommandContext } from '../../../../src/virtual-device/types.js';

async function run(handler: ShellCommandHandler, args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  const ctx = {
    stdout: { write: (d: string | Uint8Array) => ((out += String(d)), Promise.resolve()) },
    stderr: { write: (d: string | Uint8Array) => ((err += String(d)), Promise.resolve()) },
  } as unknown as CommandContext;
  const code = await runShellCommand(ctx, args, handler);
  return { out, err, code };
}

function fakeSystem(api: number): { system: AndroidSystem; jobs: JobSchedulerService; clockSetTo: number[] } {
  const jobs = new JobSchedulerService({
    log: { slog: () => undefined } as unknown as SystemLog,
    apiLevel: api,
    elapsedRealtime: () => 0,
    now: () => 0,
    nextIdentityHash: () => 1,
    packageUid: (pkg) => (pkg === 'com.example.feednotifier' ? 10190 : undefined),
    startJob: () => Promise.resolve({ pid: 1, continues: true }),
    stopJob: () => undefined,
  });
  const clockSetTo: number[] = [];
  const settings = new SettingsProvider();
  const system = { device: { apiLevel: api, clock: { set: (ms: number) => clockSetTo.push(ms) }, props: new Map() }, jobs, settings } as unknown as AndroidSystem;
  return { system, jobs, clockSetTo };
}

const JOB: JobInfoSpec = buildJobInfo(0, { packageName: 'com.example.feednotifier', className: 'androidx.work.impl.background.systemjob.SystemJobService' }, { minLatencyMs: 86_400_000 });

describe('ShellCommand argument handling', () => {
  it('splits -xVALUE, stops at --, and names the previous argument when one is missing', () => {
    const a = new ShellArgs(['-n30', '--force', '--', '-f', 'pkg']);
    expect(a.getNextOption()).to.equal('-n');
    expect(a.getNextArgRequired()).to.equal('30');
    expect(a.getNextOption()).to.equal('--force');
    expect(a.getNextOption()).to.equal(null);
    expect(a.getNextArg()).to.equal('-f');
    expect(a.getNextArg()).to.equal('pkg');
    expect(() => a.getNextArgRequired()).to.throw('Argument expected after "pkg"');
  });
});

describe('cmd jobscheduler', () => {
  it('API 34: namespace run prints Running job [FORCED]; errors go to stderr with exit 23/24', async () => {
    const { system, jobs } = fakeSystem(34);
    jobs.schedule(10190, 'com.example.feednotifier', 'androidx.work.systemjobscheduler', JOB);
    const h = jobschedulerHandler(system, 2000);
    expect(await run(h, ['run', '-f', '-n', 'androidx.work.systemjobscheduler', 'com.example.feednotifier', '0'])).to.deep.equal({ out: 'Running job [FORCED]\n', err: '', code: 0 });
    expect(await run(h, ['run', 'com.example.feednotifier', '0'])).to.deep.equal({ out: '', err: 'Could not find job 0 in package com.example.feednotifier / user 0\n', code: 23 });
    expect(await run(h, ['run', '-f', '-n', 'ns', 'com.example.feednotifier', '0'])).to.deep.equal({
      out: '',
      err: 'Could not find job 0 in package com.example.feednotifier / namespace ns / user 0\n',
      code: 23,
    });
    expect(await run(h, ['run', '-f', 'com.nope', '0'])).to.deep.equal({ out: '', err: 'Package not found: com.nope / user 0\n', code: 24 });
    jobs.dispose();
  });

  it('API 30: -n is an unknown option (255); bad and missing arguments print Exception: on stdout', async () => {
    const { system, jobs } = fakeSystem(30);
    const h = jobschedulerHandler(system, 2000);
    expect(await run(h, ['run', '-n', 'x', 'com.example.feednotifier', '0'])).to.deep.equal({ out: "Error: unknown option '-n'\n", err: '', code: 255 });
    expect(await run(h, ['run', '-f', '-s', 'p', '0'])).to.deep.equal({ out: 'Cannot specify both --force and --satisfied\n', err: '', code: 255 });
    expect(await run(h, ['run'])).to.deep.equal({ out: 'Exception: java.lang.IllegalArgumentException: Argument expected after "run"\n', err: '', code: 255 });
    expect(await run(h, ['run', 'com.example.feednotifier', 'abc'])).to.deep.equal({ out: 'Exception: java.lang.NumberFormatException: For input string: "abc"\n', err: '', code: 255 });
    expect((await run(h, [])).out).to.match(/^Job scheduler \(jobscheduler\) commands:\n/);
    expect((await run(h, ['frob'])).out).to.equal('Unknown command: frob\n');
    expect(await run(jobschedulerHandler(system, 10190), ['run', 'com.example.feednotifier', '0'])).to.deep.equal({
      out: 'Exception: java.lang.SecurityException: Uid 10190 not permitted to force scheduled jobs\n',
      err: '',
      code: 255,
    });
    jobs.dispose();
  });

  it('run -s on a job still in its timing delay: functional-constraints error on stderr, exit 22; run (soft) runs it', async () => {
    const { system, jobs } = fakeSystem(34);
    jobs.schedule(10190, 'com.example.feednotifier', 'androidx.work.systemjobscheduler', JOB);
    const h = jobschedulerHandler(system, 2000);
    expect(await run(h, ['run', '-s', '-n', 'androidx.work.systemjobscheduler', 'com.example.feednotifier', '0'])).to.deep.equal({
      out: '',
      err: 'Job 0 in package com.example.feednotifier / namespace androidx.work.systemjobscheduler / user 0 has functional constraints but --force not specified\n',
      code: 22,
    });
    expect(await run(h, ['run', '-n', 'androidx.work.systemjobscheduler', 'com.example.feednotifier', '0'])).to.deep.equal({ out: 'Running job\n', err: '', code: 0 });
    jobs.dispose();
  });

  it('help and no command print the help and exit 255 (BasicShellCommandHandler returns -1); dump is an unknown command', async () => {
    const { system, jobs } = fakeSystem(34);
    const h = jobschedulerHandler(system, 2000);
    for (const args of [[], ['help'], ['-h']]) {
      const r = await run(h, args);
      expect([r.out.split('\n')[0], r.err, r.code]).to.deep.equal(['Job scheduler (jobscheduler) commands:', '', 255]);
    }
    expect(await run(h, ['dump'])).to.deep.equal({ out: 'Unknown command: dump\n', err: '', code: 255 });
    jobs.dispose();
  });

  it('cancel without a package reaches executeCancelCommand as null: `Package null not found.`, exit 24', async () => {
    const { system, jobs } = fakeSystem(34);
    const h = jobschedulerHandler(system, 2000);
    expect(await run(h, ['cancel'])).to.deep.equal({ out: 'Package null not found.\n', err: '', code: 24 });
    expect(await run(h, ['cancel', 'com.example.feednotifier'])).to.deep.equal({
      out: 'Canceling all jobs for com.example.feednotifier in user 0\nNo matching jobs found.\n',
      err: '',
      code: 0,
    });
    jobs.dispose();
  });
});

describe('cmd alarm / settings', () => {
  it('set-time moves the clock for shell, prints nothing; an app uid is refused', async () => {
    const { system, clockSetTo } = fakeSystem(30);
    expect(await run(alarmHandler(system, 2000), ['set-time', '1800000000000'])).to.deep.equal({ out: '', err: '', code: 0 });
    expect(clockSetTo).to.deep.equal([1_800_000_000_000]);
    expect((await run(alarmHandler(system, 2000), ['set-time', 'soon'])).out).to.equal('java.lang.NumberFormatException: For input string: "soon"\n');
    expect((await run(alarmHandler(system, 10190), ['set-time', '1'])).code).to.equal(255);
    expect(clockSetTo).to.have.length(1);
  });

  it('settings get/put/delete/list', async () => {
    const { system } = fakeSystem(34);
    const h = settingsHandler(system);
    expect(await run(h, ['get', 'global', 'auto_time'])).to.deep.equal({ out: '1\n', err: '', code: 0 });
    expect(await run(h, ['put', 'global', 'auto_time', '0'])).to.deep.equal({ out: '', err: '', code: 0 });
    expect((await run(h, ['get', 'global', 'auto_time'])).out).to.equal('0\n');
    expect((await run(h, ['get', 'global', 'no_such_key'])).out).to.equal('null\n');
    expect((await run(h, ['delete', 'global', 'auto_time'])).out).to.equal('Deleted 1 rows\n');
    expect((await run(h, ['get', 'nope', 'x'])).err).to.equal("Invalid namespace 'nope'\n");
    expect((await run(h, ['list', 'global'])).out).to.include('auto_time_zone=1\n');
  });
});

describe('appops', () => {
  it('records modes in the system model: set prints nothing, get lists them; unknown packages and modes are errors', async () => {
    const appOps = new AppOpsService();
    const system = { packages: { get: (pkg: string) => (pkg === 'com.example.feednotifier' ? {} : undefined) }, appOps } as unknown as AndroidSystem;
    const h = appopsHandler(system);
    expect(await run(h, ['get', 'com.example.feednotifier'])).to.deep.equal({ out: 'No operations.\n', err: '', code: 0 });
    expect(await run(h, ['set', 'com.example.feednotifier', 'POST_NOTIFICATION', 'ignore'])).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await run(h, ['set', '--user', '0', 'com.example.feednotifier', 'RUN_IN_BACKGROUND', 'deny'])).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await run(h, ['get', 'com.example.feednotifier'])).to.deep.equal({ out: 'POST_NOTIFICATION: ignore\nRUN_IN_BACKGROUND: deny\n', err: '', code: 0 });
    expect(await run(h, ['get', 'com.example.feednotifier', 'RUN_IN_BACKGROUND'])).to.deep.equal({ out: 'RUN_IN_BACKGROUND: deny\n', err: '', code: 0 });
    expect([...appOps.modesOf('com.example.feednotifier')]).to.deep.equal([
      ['POST_NOTIFICATION', 'ignore'],
      ['RUN_IN_BACKGROUND', 'deny'],
    ]);
    const unknown = await run(h, ['set', 'com.example.other', 'POST_NOTIFICATION', 'ignore']);
    expect([unknown.err, unknown.code]).to.deep.equal(['Error: No UID for com.example.other in user 0\n', 255]);
    const badMode = await run(h, ['set', 'com.example.feednotifier', 'POST_NOTIFICATION', 'sometimes']);
    expect([badMode.err, badMode.code]).to.deep.equal(['Error: Mode sometimes is not valid\n', 255]);
    expect(appOps.modesOf('com.example.other').size).to.equal(0);
  });
});

describe('Intent.toString and sqlite3 helpers', () => {
  it('prints act, flg, pkg, cmp in Intent order', () => {
    expect(intentToString({ flags: 0, component: parseComponentName('com.example.feednotifier/.MainActivity')! })).to.equal('Intent { cmp=com.example.feednotifier/.MainActivity }');
    expect(
      intentToString({
        action: 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS',
        package: 'com.example.feednotifier',
        flags: IntentFlag.FLAG_RECEIVER_FROM_SHELL | IntentFlag.FLAG_INCLUDE_STOPPED_PACKAGES,
      }),
    ).to.equal('Intent { act=androidx.work.diagnostics.REQUEST_DIAGNOSTICS flg=0x400020 pkg=com.example.feednotifier }');
  });

  it('formats reals as %!.15g and splits statements outside quotes and comments', () => {
    expect(formatReal(1.5)).to.equal('1.5');
    expect(formatReal(2)).to.equal('2.0');
    expect(formatReal(1 / 3)).to.equal('0.333333333333333');
    expect(formatReal(1e20)).to.equal('1.0e+20');
    // Values the host sqlite3 3.40.1 prints for 1e-5 and 123456789012345678.0.
    expect(formatReal(1e-5)).to.equal('1.0e-05');
    expect(formatReal(123456789012345680)).to.equal('1.23456789012346e+17');
    expect(formatReal(-0.5)).to.equal('-0.5');
    expect(splitStatements("select 'a;b'; -- x;\nselect \"c;\" /* ; */ ;")).to.deep.equal(["select 'a;b'", 'select "c;"']);
  });
});
