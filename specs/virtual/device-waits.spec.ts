/**
 * The read-only waits the harness sends on the device after a command that changes it
 * (src/android/job-scheduler.ts, src/android/activity.ts): until the app's WorkManager job is
 * listed after a start, until a job JobScheduler ran has let go, and until no process of the app
 * is left after a kill. Each runs in a subshell as a command of a batch does;
 * its exit status says whether what it waited for came before its deadline. Real adb, a virtual
 * device.
 */
import { expect } from 'chai';
import { awaitProcessGoneCommand } from '../../src/android/activity.js';
import { awaitJobIdleCommand, awaitJobRegisteredCommand, WORKMANAGER_JOB_NAMESPACE, WORKMANAGER_JOB_SERVICE } from '../../src/android/job-scheduler.js';
import { virtualLab } from '../support/lab.js';

const PKG = 'com.example.feednotifier';

describe('device-side waits (virtual device, real adb)', function () {
  this.timeout(60_000);
  const lab = virtualLab('dv-waits-');

  /** Runs `line` as a batch runs a command (a subshell without input); its exit status and output. */
  async function run(serial: string, line: string): Promise<{ status: number; out: string }> {
    const out = (await lab.adb.adb(['-s', serial, 'shell', `( ${line}\n) </dev/null; echo "status=$?"`])).stdout.toString('utf8');
    return { status: Number(/status=(\d+)/.exec(out)?.[1] ?? -1), out };
  }

  it("waits until the app's job is listed after a start, and gives up at its deadline when none comes", async () => {
    const d = await lab.devices.start({ apiLevel: 34 });
    await lab.adb.connect(d.serial);
    // Stopped, the app has no job (am force-stop cancels them): the wait ends at its deadline.
    await lab.adb.adb(['-s', d.serial, 'shell', `am force-stop ${PKG}`]);
    const started = Date.now();
    expect(await run(d.serial, awaitJobRegisteredCommand(PKG, WORKMANAGER_JOB_SERVICE, 200))).to.deep.include({ status: 1 });
    expect(Date.now() - started).to.be.at.least(200);
    // Started, the app schedules its work: the wait ends once its job is listed.
    const after = await run(d.serial, `am start -n ${PKG}/.MainActivity >/dev/null && ${awaitJobRegisteredCommand(PKG, WORKMANAGER_JOB_SERVICE, 10_000)}`);
    expect(after.status, after.out).to.equal(0);
    const jobs = (await lab.adb.adb(['-s', d.serial, 'shell', `dumpsys jobscheduler ${PKG}`])).stdout.toString('utf8');
    expect(jobs).to.include(`${PKG}/${WORKMANAGER_JOB_SERVICE}`);
  });

  it('a job JobScheduler does not have is not busy: the wait for it to let go ends at once', async () => {
    const d = await lab.devices.start({ apiLevel: 34 });
    await lab.adb.connect(d.serial);
    await lab.adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
    const r = await run(d.serial, awaitJobIdleCommand({ pkg: PKG, id: 999, namespace: WORKMANAGER_JOB_NAMESPACE }, WORKMANAGER_JOB_SERVICE, 10_000));
    expect(r.status, r.out).to.equal(0);
  });

  it('waits until no process of the app is left, and gives up at its deadline while one runs', async () => {
    const d = await lab.devices.start({ apiLevel: 34 });
    await lab.adb.connect(d.serial);
    await lab.adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
    const pid = (await lab.adb.adb(['-s', d.serial, 'shell', `pidof ${PKG}`])).stdout.toString('utf8').trim();
    expect(pid).to.match(/^\d+$/);
    // Running: the wait ends at its deadline with exit 1.
    const started = Date.now();
    expect(await run(d.serial, awaitProcessGoneCommand(PKG, 200))).to.deep.include({ status: 1 });
    expect(Date.now() - started).to.be.at.least(200);
    // Killed in the same invocation: the wait ends once the process is gone.
    const after = await run(d.serial, `run-as ${PKG} kill -9 ${pid} && ${awaitProcessGoneCommand(PKG, 10_000)}`);
    expect(after.status, after.out).to.equal(0);
    expect((await lab.adb.adb(['-s', d.serial, 'shell', `pidof ${PKG}`])).stdout.toString('utf8').trim()).to.equal('');
  });
});
