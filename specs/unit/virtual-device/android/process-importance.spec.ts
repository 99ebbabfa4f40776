/**
 * Process importance (oom_adj) and what it decides: `am kill` (killBackgroundProcesses) spares a
 * process that shows the top activity or runs a job and kills an idle background one, while
 * `am force-stop` and a signal kill any process. And `pm clear` resetting runtime permissions:
 * POST_NOTIFICATIONS is revoked on API 33+ (posts are refused before notification_enqueue) and
 * nothing changes on API 30. Sources are cited in activity-manager.ts, package-manager.ts and
 * android-system.ts.
 */
import { expect } from 'chai';
import { ActivityManagerService, OomAdj } from '../../../../src/virtual-device/system/activity-manager.js';
import { getAndroidSystem, type AndroidSystem } from '../../../../src/virtual-device/system/android-system.js';
import { buildJobInfo, ExitReason, type AppContext, type AppDefinition, type AppInstance, type JobInfoSpec, type JobParameters, type NotificationSpec } from '../../../../src/virtual-device/system/app-framework.js';
import { PackageManagerService, POST_NOTIFICATIONS } from '../../../../src/virtual-device/system/package-manager.js';
import type { SystemLog } from '../../../../src/virtual-device/system/system-log.js';
import { VirtualDevice } from '../../../../src/virtual-device/device.js';
import { CaptureSink } from '../../../../src/virtual-device/shell/streams.js';
import { stdinOf } from '../shell-harness.js';
import { installAndroidModel } from '../../../../src/virtual-device/system/index.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOLDER = 'com.example.holder';
const HOLDER_UID = 10250;
const FEED = 'com.example.feednotifier';

/** An app with a launcher activity and a JobService whose job runs until the spec finishes it. */
function holderApp(onJob: (params: JobParameters) => void, options: { scheduleOnCreate: boolean } = { scheduleOnCreate: true }): AppDefinition {
  const job: JobInfoSpec = buildJobInfo(7, { packageName: HOLDER, className: `${HOLDER}.Job` }, {});
  return {
    manifest: {
      packageName: HOLDER,
      uid: HOLDER_UID,
      debuggable: true,
      versionCode: 1,
      versionName: '1',
      minSdk: 30,
      targetSdk: 34,
      requestedPermissions: [],
      activities: [{ name: `${HOLDER}.Main`, exported: true, launcher: true }],
      receivers: [],
      services: [{ name: `${HOLDER}.Job`, exported: false, permission: 'android.permission.BIND_JOB_SERVICE' }],
    },
    createInstance: (ctx: AppContext): AppInstance => ({
      onCreate: () => {
        if (options.scheduleOnCreate) ctx.jobScheduler.schedule(job);
        return Promise.resolve();
      },
      onActivityCreate: () => Promise.resolve(),
      onReceive: () => Promise.resolve(undefined),
      onStartJob: (_cls, params) => {
        onJob(params);
        return Promise.resolve(true);
      },
      onStopJob: () => Promise.resolve(false),
    }),
  };
}

/** ActivityManagerService on fakes: one installed app, a switch for "a job is bound". */
function amOnFakes(): { am: ActivityManagerService; logs: string[]; setJobBound: (b: boolean) => void; pkgs: PackageManagerService } {
  const pkgs = new PackageManagerService(34, T0);
  const instance: AppInstance = {
    onCreate: () => Promise.resolve(),
    onActivityCreate: () => Promise.resolve(),
    onReceive: () => Promise.resolve(undefined),
    onStartJob: () => Promise.resolve(true),
    onStopJob: () => Promise.resolve(false),
  };
  const def = holderApp(() => undefined);
  pkgs.install({ manifest: def.manifest, createInstance: () => instance }, T0);
  const logs: string[] = [];
  let jobBound = false;
  let pid = 5000;
  const am = new ActivityManagerService({
    log: { slog: (_p: number, tag: string, msg: string) => logs.push(`${tag}: ${msg}`) } as unknown as SystemLog,
    packages: pkgs,
    now: () => T0,
    elapsedRealtime: () => 0,
    createContext: () => ({}) as AppContext,
    onProcessDied: () => undefined,
    onPackageRestarted: () => undefined,
    spawnProcess: () => ({ pid: pid++, exit: () => undefined }),
    isJobBound: (uid) => jobBound && uid === HOLDER_UID,
  });
  return { am, logs, setJobBound: (b) => (jobBound = b), pkgs };
}

const MAIN = { packageName: HOLDER, className: `${HOLDER}.Main` };

describe('ActivityManagerService: process importance and am kill', () => {
  it('oom_adj: top activity 0, running job 250, previous (after HOME) 700, cached 900', async () => {
    const { am, setJobBound } = amOnFakes();
    await am.startActivity(MAIN);
    const record = am.processOf(HOLDER)!;
    expect(am.oomAdj(record)).to.deep.equal({ adj: OomAdj.FOREGROUND_APP_ADJ, adjType: 'top-activity' });
    setJobBound(true);
    expect(am.oomAdj(record).adj).to.equal(0);
    am.goHome();
    expect(am.oomAdj(record)).to.deep.equal({ adj: OomAdj.PERCEPTIBLE_LOW_APP_ADJ, adjType: 'service' });
    setJobBound(false);
    expect(am.oomAdj(record)).to.deep.equal({ adj: OomAdj.PREVIOUS_APP_ADJ, adjType: 'previous' });
    await am.startActivity(MAIN);
    am.goBack();
    expect(am.oomAdj(record)).to.deep.equal({ adj: OomAdj.CACHED_APP_MIN_ADJ, adjType: 'cch-empty' });
  });

  it('a foreground service is perceptible (200): am kill spares it', async () => {
    const { am } = amOnFakes();
    await am.startActivity(MAIN);
    am.goHome();
    const pkg = am.processOf(HOLDER)!.pkg;
    // startService needs the service in the manifest: the job service stands in for one.
    await am.startService(pkg, `${HOLDER}.Job`, { flags: 0 });
    expect(am.oomAdj(am.processOf(HOLDER)!).adj).to.equal(OomAdj.SERVICE_ADJ);
    am.setForeground(HOLDER, `${HOLDER}.Job`, 1, 'Notification()');
    expect(am.oomAdj(am.processOf(HOLDER)!)).to.deep.equal({ adj: OomAdj.PERCEPTIBLE_APP_ADJ, adjType: 'fg-service' });
    expect(am.killBackground(HOLDER)).to.equal(false);
  });

  it('am kill: spares the top app and a process running a job; kills it once idle in the background (adj 700 in the log)', async () => {
    const { am, logs, setJobBound } = amOnFakes();
    await am.startActivity(MAIN);
    const pid = am.processOf(HOLDER)!.process.pid;
    expect(am.killBackground(HOLDER)).to.equal(false);
    setJobBound(true);
    am.goHome();
    expect(am.killBackground(HOLDER)).to.equal(false);
    expect(am.processOf(HOLDER)?.process.pid).to.equal(pid);
    expect(logs.filter((l) => l.includes('kill background'))).to.deep.equal([]);
    setJobBound(false);
    expect(am.killBackground(HOLDER)).to.equal(true);
    expect(am.processOf(HOLDER)).to.equal(undefined);
    expect(logs).to.include(`ActivityManager: Killing ${pid}:${HOLDER}/u0a250 (adj 700): kill background`);
    expect(am.exitInfos(HOLDER)[0]).to.include({ pid, reason: ExitReason.USER_REQUESTED, description: 'kill background' });
  });

  it('am kill on a process started only for a job that has finished: cached (adj 900), killed', async () => {
    const { am, logs, pkgs } = amOnFakes();
    const record = await am.ensureProcess(pkgs.get(HOLDER)!, 'service', { packageName: HOLDER, className: `${HOLDER}.Job` });
    expect(am.killBackground(HOLDER)).to.equal(true);
    expect(logs).to.include(`ActivityManager: Killing ${record.process.pid}:${HOLDER}/u0a250 (adj 900): kill background`);
  });

  it('am force-stop and a signal kill a process running a job (and the top one)', async () => {
    const { am, logs, setJobBound } = amOnFakes();
    setJobBound(true);
    await am.startActivity(MAIN);
    am.goHome();
    const first = am.processOf(HOLDER)!.process.pid;
    am.forceStop(HOLDER);
    expect(am.processOf(HOLDER)).to.equal(undefined);
    expect(logs).to.include(`ActivityManager: Killing ${first}:${HOLDER}/u0a250 (adj 250): stop ${HOLDER} due to from pid 0`);
    await am.startActivity(MAIN);
    const second = am.processOf(HOLDER)!.process.pid;
    expect(am.killPid(second, 9)).to.equal(true);
    expect(am.processOf(HOLDER)).to.equal(undefined);
    expect(am.exitInfos(HOLDER)[0]).to.include({ pid: second, reason: ExitReason.SIGNALED });
  });
});

async function sh(device: VirtualDevice, line: string): Promise<{ out: string; err: string; code: number }> {
  const out = new CaptureSink();
  const err = new CaptureSink();
  const code = await device.runShell(line, { stdin: stdinOf(''), stdout: out, stderr: err, signal: new AbortController().signal });
  return { out: out.text(), err: err.text(), code };
}

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('am kill / force-stop / run-as kill on a device whose app holds a running job', () => {
  let device: VirtualDevice;
  let system: AndroidSystem;
  let running: JobParameters | undefined;

  beforeEach(async () => {
    device = await VirtualDevice.create({ apiLevel: 34 }, [installAndroidModel]);
    system = getAndroidSystem(device)!;
    running = undefined;
    await system.install(
      holderApp((p) => {
        running = p;
      }),
    );
  });
  afterEach(async () => {
    await device.dispose();
  });

  const pidof = async (): Promise<string> => (await sh(device, `pidof ${HOLDER}`)).out.trim();

  it('the job keeps the process alive through am kill, on top and after HOME; once finished, am kill kills it', async () => {
    expect((await sh(device, `am start -n ${HOLDER}/.Main`)).code).to.equal(0);
    const params = await until('the job to start', () => running);
    const pid = await pidof();
    expect(pid).to.match(/^\d+$/);
    expect(await sh(device, `am kill ${HOLDER}`)).to.deep.equal({ out: '', err: '', code: 0 });
    await sh(device, 'input keyevent KEYCODE_HOME');
    expect(await sh(device, `am kill ${HOLDER}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await pidof()).to.equal(pid);
    params.jobFinished(false);
    await until('the job to end', () => (system.jobs.all().some((j) => j.active) ? undefined : true));
    await sh(device, `am kill ${HOLDER}`);
    expect(await pidof()).to.equal('');
    const log = (await sh(device, 'logcat -d -s ActivityManager')).out;
    expect(log).to.include(`Killing ${pid}:${HOLDER}/u0a250 (adj 700): kill background`);
  });

  it('am force-stop kills the process running the job and drops the job', async () => {
    await sh(device, `am start -n ${HOLDER}/.Main`);
    await until('the job to start', () => running);
    await sh(device, 'input keyevent KEYCODE_HOME');
    expect(await sh(device, `am force-stop ${HOLDER}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await pidof()).to.equal('');
    expect(system.jobs.all().filter((j) => j.sourcePackage === HOLDER)).to.deep.equal([]);
  });

  it('run-as PKG kill -9 PID kills the process running the job; JobScheduler keeps the job for a retry', async () => {
    await sh(device, `am start -n ${HOLDER}/.Main`);
    await until('the job to start', () => running);
    const pid = await pidof();
    expect(await sh(device, `run-as ${HOLDER} kill -9 ${pid}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await pidof()).to.not.equal(pid);
    expect(system.activities.exitInfos(HOLDER).find((e) => e.pid === Number(pid))).to.include({ reason: ExitReason.SIGNALED, description: 'signal 9' });
    const jobs = system.jobs.all().filter((j) => j.sourcePackage === HOLDER);
    expect(jobs.map((j) => [j.job.id, j.numFailures])).to.deep.equal([[7, 1]]);
  });
});

const NOTE: NotificationSpec = {
  channelId: 'feed',
  smallIcon: { packageName: FEED, resId: 0x7f080001 },
  when: T0,
  flags: 0x10,
  priority: 0,
  visibility: 0,
  color: 0,
  contentIntent: null,
  extras: [],
};

describe('pm clear and runtime permissions', () => {
  const enqueue = (system: AndroidSystem): ReturnType<AndroidSystem['notifications']['enqueue']> => {
    system.notifications.createNotificationChannel(FEED, { id: 'feed', name: 'Feed', importance: 3 });
    return system.notifications.enqueue({ pkg: FEED, opPkg: FEED, callingUid: 10190, callingPid: 4321, userId: 0, tag: null, id: 1, notification: NOTE });
  };
  const enqueueEvents = async (device: VirtualDevice): Promise<number> => (await sh(device, 'logcat -b events -d')).out.split('\n').filter((l) => l.includes(' notification_enqueue: ')).length;

  it('API 34: pm clear revokes POST_NOTIFICATIONS (dumpsys granted=false); posts are refused without an event until pm grant', async () => {
    const device = await VirtualDevice.create({ apiLevel: 34 }, [installAndroidModel]);
    try {
      const system = getAndroidSystem(device)!;
      const perm = '        android.permission.POST_NOTIFICATIONS: granted=';
      expect((await sh(device, `dumpsys package ${FEED}`)).out).to.include(`${perm}true`);
      expect(await sh(device, `pm clear ${FEED}`)).to.deep.equal({ out: 'Success\n', err: '', code: 0 });
      expect((await sh(device, `dumpsys package ${FEED}`)).out).to.include(`${perm}false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]\n`);
      expect(system.packages.hasPostNotifications(FEED)).to.equal(false);
      expect(enqueue(system)).to.equal('blocked');
      expect(await enqueueEvents(device)).to.equal(0);
      expect(await sh(device, `pm grant ${FEED} ${POST_NOTIFICATIONS}`)).to.deep.equal({ out: '', err: '', code: 0 });
      expect((await sh(device, `dumpsys package ${FEED}`)).out).to.include(`${perm}true`);
      expect(enqueue(system)).to.equal(undefined);
      expect(await enqueueEvents(device)).to.equal(1);
    } finally {
      await device.dispose();
    }
  });

  it('API 30: POST_NOTIFICATIONS is no runtime permission; after pm clear posts still go through', async () => {
    const device = await VirtualDevice.create({ apiLevel: 30 }, [installAndroidModel]);
    try {
      const system = getAndroidSystem(device)!;
      expect(await sh(device, `pm clear ${FEED}`)).to.deep.equal({ out: 'Success\n', err: '', code: 0 });
      expect((await sh(device, `dumpsys package ${FEED}`)).out).to.not.include('runtime permissions:');
      expect(system.packages.hasPostNotifications(FEED)).to.equal(true);
      expect(enqueue(system)).to.equal(undefined);
      expect(await enqueueEvents(device)).to.equal(1);
    } finally {
      await device.dispose();
    }
  });

  it('resetRuntimePermissions: every runtime grant goes; a legacy app (targetSdk < 23) keeps its grants', () => {
    const pkgs = new PackageManagerService(34, T0);
    const make = (name: string, uid: number, targetSdk: number): AppDefinition => {
      const base = holderApp(() => undefined).manifest;
      return { manifest: { ...base, packageName: name, uid, targetSdk, requestedPermissions: [POST_NOTIFICATIONS, 'android.permission.INTERNET'] }, createInstance: () => ({}) as AppInstance };
    };
    pkgs.install(make('com.example.modern', 10300, 34), T0);
    pkgs.install(make('com.example.legacy', 10301, 22), T0);
    pkgs.resetRuntimePermissions('com.example.modern');
    pkgs.resetRuntimePermissions('com.example.legacy');
    pkgs.resetRuntimePermissions('com.example.absent');
    expect([...pkgs.get('com.example.modern')!.runtimePermissions]).to.deep.equal([[POST_NOTIFICATIONS, false]]);
    expect([...pkgs.get('com.example.legacy')!.runtimePermissions]).to.deep.equal([[POST_NOTIFICATIONS, true]]);
    const api30 = new PackageManagerService(30, T0);
    api30.install(make('com.example.modern', 10300, 34), T0);
    api30.resetRuntimePermissions('com.example.modern');
    expect(api30.hasPostNotifications('com.example.modern')).to.equal(true);
  });
});

describe('run-as signals under SELinux (runas_app: no sigkill before API 34; sources in selinux-signals.ts, kill.ts)', () => {
  for (const apiLevel of [30, 33, 34] as const) {
    describe(`API ${apiLevel}`, () => {
      let device: VirtualDevice;
      let system: AndroidSystem;
      let running: JobParameters | undefined;
      beforeEach(async () => {
        device = await VirtualDevice.create({ apiLevel }, [installAndroidModel]);
        system = getAndroidSystem(device)!;
        running = undefined;
        await system.install(
          holderApp((p) => {
            running = p;
          }),
        );
        await sh(device, `am start -n ${HOLDER}/.Main`);
        await until('the job to start', () => running);
      });
      afterEach(async () => {
        await device.dispose();
      });
      const pidof = async (): Promise<string> => (await sh(device, `pidof ${HOLDER}`)).out.trim();

      it(apiLevel < 34 ? 'run-as kill -9 is refused as toybox reports EACCES, and the process lives' : 'run-as kill -9 kills the process', async () => {
        const pid = await pidof();
        const r = await sh(device, `run-as ${HOLDER} kill -9 ${pid}`);
        if (apiLevel < 34) {
          expect(r).to.deep.equal({ out: '', err: `kill: unknown pid '${pid}'\n`, code: 1 });
          expect(await pidof()).to.equal(pid);
        } else {
          expect(r).to.deep.equal({ out: '', err: '', code: 0 });
          expect(await pidof()).to.equal('');
        }
      });

      it('run-as kill -15 ends the process running the job like a SIGKILL: exit reason SIGNALED, the job kept for a retry', async () => {
        const pid = await pidof();
        expect(await sh(device, `run-as ${HOLDER} kill -15 ${pid}`)).to.deep.equal({ out: '', err: '', code: 0 });
        expect(await pidof()).to.equal('');
        expect(system.activities.exitInfos(HOLDER).find((e) => e.pid === Number(pid))).to.include({ reason: ExitReason.SIGNALED, description: 'signal 15' });
        expect(system.jobs.all().filter((j) => j.sourcePackage === HOLDER).map((j) => [j.job.id, j.numFailures])).to.deep.equal([[7, 1]]);
      });

      it("run-as kill -3 and -10 reach ART's signal catcher: the process goes on", async () => {
        const pid = await pidof();
        expect((await sh(device, `run-as ${HOLDER} kill -3 ${pid}`)).code).to.equal(0);
        expect((await sh(device, `run-as ${HOLDER} kill -10 ${pid}`)).code).to.equal(0);
        expect(await pidof()).to.equal(pid);
      });

      it('the shell user may not signal the app at all (DAC: EPERM), by the shell builtin or toybox', async () => {
        const pid = await pidof();
        expect(await sh(device, `kill -9 ${pid}`)).to.deep.equal({ out: '', err: `/system/bin/sh: kill: ${pid}: Operation not permitted\n`, code: 1 });
        const toybox = await sh(device, `/system/bin/kill -15 ${pid}`);
        expect(toybox.err).to.equal(apiLevel < 34 ? `kill: unknown pid '${pid}'\n` : `kill: bad pid '${pid}': Operation not permitted\n`);
        expect(toybox.code).to.equal(1);
        expect(await pidof()).to.equal(pid);
      });
    });
  }
});
