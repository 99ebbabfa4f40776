/**
 * `dedup-verify doctor` against virtual devices through the real adb binary on a private
 * server: every check passes once the reference app has been launched, and the device is left
 * as it was (reverse rules, auto_time); a failing check prints FAIL, what it found and its fix,
 * and exits 2; `--json` has the documented shape; the reverse check really carries a line
 * through an `adb reverse` rule, so a rule that does not carry it fails the check.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from '../../src/cli/main.js';
import { probeReverse } from '../../src/cli/commands/doctor.js';
import { AdbDevice } from '../../src/device/adb-device.js';
import type { AndroidDevice } from '../../src/device/android-device.js';
import { loadConfig } from '../../src/config/load-config.js';
import { tableDatabaseOf } from '../../src/config/types.js';
import { saveDeviceState } from '../../src/harness/device-state.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { runCli } from '../support/cli.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';
import type { StartVirtualDeviceOptions } from '../../src/virtual-device/server.js';

const PKG = 'com.example.feednotifier';
const CONFIG = 'fixtures/reference-app.config.json';
/** The checks before the probe run, which runs only when all of them hold. */
const CHECKS_BEFORE_PROBE = [
  'adb',
  'adb server',
  'device',
  'restored after earlier runs',
  'config',
  'API level',
  'app installed',
  'debuggable (run-as)',
  'notification permission',
  'periodic work scheduled',
  'WorkManager log level',
  'emulator',
  'clock can be set',
  'adb reverse carries a connection',
];
const CHECKS = [...CHECKS_BEFORE_PROBE, 'feed fetched by a forced run'];

interface Check {
  name: string;
  ok: boolean;
  found: string;
  fix?: string;
}

describe('dedup-verify doctor (virtual devices, real adb)', function () {
  this.timeout(60_000);
  let adb: AdbServer;
  let work: string;
  const devices = testDevices();

  let savedStateHome: string | undefined;

  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-doctor-spec-'));
    // State files of interrupted runs: this spec's own, never the user's ~/.local/state.
    savedStateHome = process.env['XDG_STATE_HOME'];
    process.env['XDG_STATE_HOME'] = join(work, 'state');
  });
  after(async () => {
    if (savedStateHome === undefined) delete process.env['XDG_STATE_HOME'];
    else process.env['XDG_STATE_HOME'] = savedStateHome;
    await devices.stopAll();
    await adb.stop();
    await rm(work, { recursive: true, force: true });
  });

  async function device(options: StartVirtualDeviceOptions = {}, launch = true): Promise<RunningVirtualDevice> {
    const d = await devices.start(options);
    await adb.connect(d.serial);
    if (launch) await shell(d.serial, `am start -n ${PKG}/.MainActivity`);
    return d;
  }

  async function shell(serial: string, command: string): Promise<string> {
    return (await adb.adb(['-s', serial, 'shell', command])).stdout.toString('utf8').trim();
  }

  async function doctor(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
    const code = await main(['node', 'dedup-verify', 'doctor', '--adb-port', String(adb.port), '--config', CONFIG, ...args], io);
    return { code, out, err };
  }

  it('passes every check after am start, prints the documented --json, and leaves the device as it was', async () => {
    const d = await device();
    await adb.adb(['-s', d.serial, 'reverse', 'tcp:9999', 'tcp:9999']);
    const reversesBefore = (await adb.adb(['-s', d.serial, 'reverse', '--list'])).stdout.toString('utf8');
    const autoTimeBefore = await shell(d.serial, 'settings get global auto_time');

    const r = await doctor('--device', d.serial, '--json');
    expect(r.code, r.out + r.err).to.equal(0);
    const report = JSON.parse(r.out) as { ok: boolean; checks: Check[] };
    expect(Object.keys(report).sort()).to.deep.equal(['checks', 'ok']);
    expect(report.ok).to.equal(true);
    expect(report.checks.map((c) => c.name)).to.deep.equal(CHECKS);
    for (const c of report.checks) {
      expect(Object.keys(c).sort(), c.name).to.deep.equal(['found', 'name', 'ok']);
      expect(c.ok, `${c.name}: ${c.found}`).to.equal(true);
      expect(c.found).to.be.a('string').and.not.equal('');
    }
    const reverse = report.checks.find((c) => c.name === 'adb reverse carries a connection');
    expect(reverse?.found).to.match(/^a line went from device tcp:\d+ to host tcp:\d+; rule removed, 1 other rule\(s\) left as they were$/);
    expect(report.checks.find((c) => c.name === 'periodic work scheduled')?.found).to.match(/"feed-poll": job \d+ in namespace androidx\.work\.systemjobscheduler, interval 86400000 ms/);
    expect(report.checks.find((c) => c.name === 'feed fetched by a forced run')?.found).to.equal(
      'the app fetched http://127.0.0.1:8765/feed.xml (HTTP 200) in one forced run; the device was restored',
    );

    expect((await adb.adb(['-s', d.serial, 'reverse', '--list'])).stdout.toString('utf8')).to.equal(reversesBefore);
    expect(await shell(d.serial, 'settings get global auto_time')).to.equal(autoTimeBefore);
  });

  it('on a phone (--physical) says that moving the clock fires other apps\' alarms and time-change receivers, and run says it once before it moves the clock', async () => {
    const d = await device({ physical: true });
    expect(await shell(d.serial, 'getprop ro.product.model')).to.equal('Pixel 8');
    expect(await shell(d.serial, 'getprop ro.kernel.qemu')).to.equal('');
    const r = await doctor('--device', d.serial, '--json');
    expect(r.code, r.out + r.err).to.equal(0);
    const check = (JSON.parse(r.out) as { checks: (Check & { warning?: string })[] }).checks.find((c) => c.name === 'emulator');
    expect(check?.ok).to.equal(true);
    expect(check?.found).to.match(/^not an emulator .*RTC alarms.*TIME_SET\/TIME_CHANGED receivers.*restore puts the clock back but cannot undo/);
    expect(check?.warning).to.be.a('string');
    const run = await runCli(['run', '--device', d.serial, '--config', CONFIG, '--scenario', 'back-to-back'], { env: { ANDROID_ADB_SERVER_PORT: String(adb.port), XDG_STATE_HOME: join(work, 'state') } });
    expect(run.code, run.stderr).to.equal(0);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('not an emulator'));
    expect(warnings).to.have.length(1);
    expect(run.stderr.indexOf('not an emulator')).to.be.lessThan(run.stderr.indexOf('back-to-back'));
  });

  it('on an app whose WorkManager logs at WARN says so, and that results come from the workdb', async () => {
    const d = await device({ appLogLevel: 'warn' });
    const r = await doctor('--device', d.serial, '--json');
    expect(r.code, r.out + r.err).to.equal(0);
    const check = (JSON.parse(r.out) as { checks: (Check & { warning?: string })[] }).checks.find((c) => c.name === 'WorkManager log level');
    expect(check?.found).to.match(/logs nothing at INFO .* minimum logging level above Log\.INFO, so results come from the workdb/);
    const info = await device();
    const atInfo = (JSON.parse((await doctor('--device', info.serial, '--json')).out) as { checks: Check[] }).checks.find((c) => c.name === 'WorkManager log level');
    expect(atInfo?.found).to.match(/logs at INFO or below/);
  });

  it('prints ok lines and a closing "Ready" line without --json', async () => {
    const d = await device({ apiLevel: 30 });
    const r = await doctor('--device', d.serial);
    expect(r.code, r.out).to.equal(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.slice(0, -1).map((l) => l.slice(0, 5))).to.deep.equal(CHECKS.map(() => 'ok   '));
    expect(lines.at(-1)).to.match(/^Ready: /);
    expect(r.out).to.match(/periodic work scheduled: "feed-poll": job \d+, interval/);
  });

  it('before the app ever ran: the work check fails with the am start fix, and doctor exits 2', async () => {
    const d = await device({}, false);
    const r = await doctor('--device', d.serial);
    expect(r.code, r.out).to.equal(2);
    const lines = r.out.split('\n');
    const fail = lines.findIndex((l) => l.startsWith('FAIL periodic work scheduled: '));
    expect(fail, r.out).to.be.greaterThan(-1);
    expect(lines[fail + 1]).to.equal(`     fix: launch the app once so WorkManager creates its database and schedules the work: adb -s ${d.serial} shell am start -n ${PKG}/.MainActivity`);
    expect(lines.filter((l) => l.startsWith('FAIL'))).to.have.length(1);
    expect(r.out, r.out).to.match(/1 check\(s\) failed: apply the fix shown under each FAIL/);
  });

  it('a revoked POST_NOTIFICATIONS on API 33 fails with the pm grant command as its fix (--json)', async () => {
    const d = await device({ apiLevel: 33 });
    await shell(d.serial, `pm revoke ${PKG} android.permission.POST_NOTIFICATIONS`);
    const r = await doctor('--device', d.serial, '--json');
    expect(r.code).to.equal(2);
    const report = JSON.parse(r.out) as { ok: boolean; checks: Check[] };
    expect(report.ok).to.equal(false);
    const failed = report.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).to.deep.equal(['notification permission']);
    expect(failed[0]).to.deep.equal({
      name: 'notification permission',
      ok: false,
      found: 'POST_NOTIFICATIONS not granted',
      fix: `adb -s ${d.serial} shell pm grant ${PKG} android.permission.POST_NOTIFICATIONS`,
    });
  });

  it('a device an interrupted run left unrestored fails its check with the restore command; run refuses it leading with that command', async () => {
    const d = await device();
    const config = await loadConfig(CONFIG);
    // What a run that was killed right after it saved the device leaves behind.
    const real = await AdbDevice.open({ serial: d.serial, port: adb.port });
    try {
      await saveDeviceState(real, { adb: { host: '127.0.0.1', port: adb.port }, pkg: PKG, databaseFile: tableDatabaseOf(config, 'the spec').file, devicePort: config.feed.devicePort });
    } finally {
      await real.close();
    }
    // Saving stopped the app (its jobs with it); launched again, only the state file is left wrong.
    await shell(d.serial, `am start -n ${PKG}/.MainActivity`);
    const restoreCommand = `dedup-verify restore --device ${d.serial}`;

    const json = await doctor('--device', d.serial, '--json');
    expect(json.code, json.out).to.equal(2);
    const report = JSON.parse(json.out) as { ok: boolean; checks: Check[] };
    expect(report.ok).to.equal(false);
    // The probe run would be refused by the state file: it is not made when a check above fails.
    expect(report.checks.map((c) => c.name)).to.deep.equal(CHECKS_BEFORE_PROBE);
    const failed = report.checks.filter((c) => !c.ok);
    expect(failed.map((c) => [c.name, c.fix])).to.deep.equal([['restored after earlier runs', restoreCommand]]);
    expect(failed[0]?.found).to.match(/^an interrupted run left its state file \(saved .*, app com\.example\.feednotifier\) in .*: .*run refuses this device until it is restored$/);

    const text = await doctor('--device', d.serial);
    expect(text.code).to.equal(2);
    const lines = text.out.split('\n');
    const fail = lines.findIndex((l) => l.startsWith('FAIL restored after earlier runs: '));
    expect(fail, text.out).to.be.greaterThan(-1);
    expect(lines[fail + 1]).to.equal(`     fix: ${restoreCommand}`);
    expect(text.out).to.not.match(/^Ready/m);

    const run = await runCli(['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--scenario', 'back-to-back'], {
      env: { XDG_STATE_HOME: join(work, 'state') },
    });
    expect(run.code, run.stderr).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr.trimEnd().split('\n'), run.stderr).to.have.length(1);
    expect(run.stderr.startsWith(`error: Run \`${restoreCommand}\` first, then this command again: `), run.stderr).to.equal(true);
    expect(run.stderr).to.not.include('no retry was left');

    let restoreOut = '';
    const restored = await main(['node', 'dedup-verify', 'restore', '--device', d.serial, '--adb-port', String(adb.port)], { stdout: (t) => (restoreOut += t), stderr: (t) => (restoreOut += t) });
    expect(restored, restoreOut).to.equal(0);
    const after = await doctor('--device', d.serial);
    expect(after.code, after.out).to.equal(0);
    expect(after.out).to.match(/^ok {3}restored after earlier runs: no state file left by an interrupted run/m);
  });

  it('a wrong feed.devicePort: the probe run fetched nothing, with the logcat line and the field to check, exit 2', async () => {
    const d = await device();
    const config = JSON.parse(await readFile(CONFIG, 'utf8')) as { feed: Record<string, unknown> };
    config.feed['devicePort'] = 8766;
    const file = join(work, 'port.json');
    await writeFile(file, JSON.stringify(config));
    const autoTimeBefore = await shell(d.serial, 'settings get global auto_time');
    const r = await doctor('--device', d.serial, '--config', file, '--json');
    expect(r.code, r.out).to.equal(2);
    const report = JSON.parse(r.out) as { ok: boolean; checks: Check[] };
    const failed = report.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).to.deep.equal(['feed fetched by a forced run']);
    expect(failed[0]?.found).to.match(/^run 1 ended retry without fetching the feed served at http:\/\/127\.0\.0\.1:8766\/feed\.xml /);
    expect(failed[0]?.found).to.include('java.net.ConnectException: Failed to connect to /127.0.0.1:8765');
    expect(failed[0]?.found).to.include('check feed.devicePort');
    expect(failed[0]?.fix).to.include('http://127.0.0.1:8766/feed.xml');
    expect(await shell(d.serial, 'settings get global auto_time')).to.equal(autoTimeBefore);
  });

  it('stops at the device check, with its fix, when the serial is not online', async () => {
    const r = await doctor('--device', 'emulator-5554', '--json');
    expect(r.code).to.equal(2);
    const report = JSON.parse(r.out) as { checks: Check[] };
    expect(report.checks.map((c) => c.name)).to.deep.equal(['adb', 'adb server', 'device']);
    expect(report.checks[2]).to.include({ ok: false });
    expect(report.checks[2]?.found).to.match(/^emulator-5554 not online/);
    expect(report.checks[2]?.fix).to.be.a('string');
  });

  it('the reverse check fails when the rule does not carry the line', async () => {
    const d = await device();
    const real = await AdbDevice.open({ serial: d.serial, port: adb.port });
    try {
      // adb accepts the rule request but nothing is forwarded: nc finds no listener.
      const broken: AndroidDevice = Object.assign(Object.create(real) as AndroidDevice, { reverse: () => Promise.resolve(), removeReverse: () => Promise.resolve() });
      const check = await probeReverse(broken);
      expect(check.ok).to.equal(false);
      expect(check.found).to.match(/nc 127\.0\.0\.1 \d+\\?` exited 1 \(nc: connect: Connection refused\) and the host listener on tcp:\d+ got nothing/);
      expect(check.fix).to.match(/adb reverse --list/);
      const ok = await probeReverse(real);
      expect(ok.ok, ok.found).to.equal(true);
    } finally {
      await real.close();
    }
  });
});
