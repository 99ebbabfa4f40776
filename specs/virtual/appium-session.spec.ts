/**
 * The Appium path for real: the `appium` 3 server from npm with `appium-uiautomator2-driver` 8
 * (started here on a free port), the real adb on a private port, and a virtual device reached
 * with `adb connect`. The driver installs its helper APKs, starts the UiAutomator2 server through
 * `am instrument`, forwards its port, and the AppiumDevice runs the harness's commands through
 * `mobile: shell`, files through pullFile/pushFile and reads `mobile: getNotifications`.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';
import { AdbDevice } from '../../src/device/adb-device.js';
import { AppiumDevice } from '../../src/device/appium-device.js';
import { uiautomator2Capabilities } from '../../src/device/appium-capabilities.js';
import { startLocalAppiumServer, type LocalAppiumServer } from '../../src/device/appium-server.js';
import { crossCheckNotifications, eventLogPosts } from '../../src/android/appium-notifications.js';
import { DeviceSession } from '../../src/harness/device-session.js';
import { loadConfig } from '../../src/config/load-config.js';
import { backToBack } from '../../src/scenarios/back-to-back.js';
import { DedupVerifyError, DeviceCommandError, TimeoutError } from '../../src/errors.js';
import { getAndroidSystem } from '../../src/virtual-device/system/android-system.js';
import { NotificationFlag } from '../../src/virtual-device/system/app-framework.js';

const PKG = 'com.example.feednotifier';

describe('Appium 3 + UiAutomator2 driver session against a virtual device (real appium, real adb)', function () {
  this.timeout(90_000);
  let adb: AdbServer;
  let vd: RunningVirtualDevice;
  let server: LocalAppiumServer;
  let device: AppiumDevice | undefined;
  let stateHome: string;
  const savedState = process.env['XDG_STATE_HOME'];
  const devices = testDevices();
  const servers: LocalAppiumServer[] = [];

  const sh = async (cmd: string): Promise<string> => {
    const r = await adb.adb(['-s', vd.serial, 'shell', cmd]);
    return r.stdout.toString('utf8');
  };
  const forwards = async (): Promise<string[]> =>
    (await adb.adb(['forward', '--list'])).stdout
      .toString('utf8')
      .split('\n')
      .filter((l) => l.startsWith(`${vd.serial} `));

  before(async () => {
    stateHome = await mkdtemp(join(tmpdir(), 'dv-appium-state-'));
    process.env['XDG_STATE_HOME'] = stateHome;
    adb = await startAdbServer();
    vd = await devices.start();
    await adb.connect(vd.serial);
    server = await startLocalAppiumServer({ port: await freePort() });
    servers.push(server);
  });

  after(async () => {
    await device?.close();
    for (const s of servers) await s.stop();
    await devices.stopAll();
    await adb.stop();
    if (savedState === undefined) delete process.env['XDG_STATE_HOME'];
    else process.env['XDG_STATE_HOME'] = savedState;
    await rm(stateHome, { recursive: true, force: true });
  });

  it('creates a session: the driver installs its helpers, starts the UiAutomator2 server by instrumentation and forwards port 6790', async () => {
    expect(await sh('pm list packages io.appium')).to.equal('');
    device = await AppiumDevice.connect({ hostname: '127.0.0.1', port: server.port, capabilities: uiautomator2Capabilities({ udid: vd.serial, adbPort: adb.port }) });
    expect(device.serial).to.equal(vd.serial);
    expect((await sh('pm list packages io.appium')).split('\n').filter((l) => l !== '').sort()).to.deep.equal([
      'package:io.appium.settings',
      'package:io.appium.uiautomator2.server',
      'package:io.appium.uiautomator2.server.test',
    ]);
    expect(await sh('pm list instrumentation')).to.equal('instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner (target=io.appium.uiautomator2.server)\n');
    expect(await sh('ps -A -o NAME')).to.match(/^io\.appium\.uiautomator2\.server$/m);
    expect(await sh('dumpsys activity services io.appium.settings')).to.include('isForeground=true');
    const forward = await forwards();
    expect(forward, 'adb forward --list').to.have.length(1);
    expect(forward[0]).to.match(new RegExp(`^${vd.serial.replace(/\./g, '\\.')} tcp:\\d+ tcp:6790$`));
  });

  it('mobile: shell gives the exit status, stderr apart and stdout as bytes; files go through pullFile/pushFile', async () => {
    const d = device!;
    const r = await d.shell('echo out; echo err >&2; exit 3');
    expect({ stdout: r.stdout.toString('utf8'), stderr: r.stderr, exitCode: r.exitCode }).to.deep.equal({ stdout: 'out\n', stderr: 'err\n', exitCode: 3 });
    const missing = await d.shell(['ls', '/no/such/dir']);
    expect({ stderr: missing.stderr, exitCode: missing.exitCode }).to.deep.equal({ stderr: 'ls: /no/such/dir: No such file or directory\n', exitCode: 1 });
    const err = await d.shellText(['ls', '/no/such/dir']).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(DeviceCommandError);
    expect((err as DeviceCommandError).exitCode).to.equal(1);
    const bytes = Buffer.from([0, 1, 0x0a, 0x0d, 0x80, 0xfe, 0xff, 0x27, 0x22]);
    await d.push(bytes, '/data/local/tmp/dv-bytes.bin', 0o600);
    expect((await d.pull('/data/local/tmp/dv-bytes.bin')).equals(bytes)).to.equal(true);
    expect((await d.shell(['cat', '/data/local/tmp/dv-bytes.bin'])).stdout.equals(bytes)).to.equal(true);
    expect(await sh('stat -c %a /data/local/tmp/dv-bytes.bin')).to.equal('600\n');
    const viaStdin = await d.shell(['sh', '-c', 'wc -c; exit 4'], { stdin: Buffer.alloc(70_000, 0x41) });
    expect({ out: viaStdin.stdout.toString('utf8').trim(), code: viaStdin.exitCode }).to.deep.equal({ out: '70000', code: 4 });
    expect((await d.getProperties())['ro.build.version.sdk']).to.equal('34');
    expect(d.traffic.shell).to.be.greaterThan(5);
    expect(d.traffic.pullFile).to.equal(1);
  });

  it("mobile: getNotifications shows the reference app's posts after a forced run, as the event log does", async () => {
    const config = await loadConfig('fixtures/reference-app.config.json');
    const companion = await AdbDevice.open({ serial: vd.serial, port: adb.port });
    const d = device!.withAdb(companion);
    const before = await d.getNotifications();
    const session = await DeviceSession.open({ device: d, config, adb: { host: '127.0.0.1', port: adb.port }, progress: () => undefined });
    let outcome;
    let after;
    try {
      outcome = await session.runScenario(backToBack);
      after = await d.getNotifications();
    } finally {
      await session.close();
      await d.close();
    }
    expect(outcome.report.verdict, outcome.report.error ?? '').to.equal('pass');
    // GroupHelper's autogroup summary in the app's name reaches the listener too; it is no item.
    const summaries = after.entries.filter((e) => e.packageName === PKG && e.tag === 'ranker_group');
    expect(summaries.length).to.be.at.most(1);
    const posted = after.entries.filter((e) => e.packageName === PKG && e.tag !== 'ranker_group');
    expect(posted.length).to.be.greaterThan(0);
    const titles = new Set(posted.map((e) => e.title));
    const served = outcome.events.filter((e) => e.type === 'published').map((e) => (e.type === 'published' ? e.title : ''));
    for (const t of titles) expect(served).to.include(t);
    for (const e of posted) expect(e.key).to.match(new RegExp(`^0\\|${PKG}\\|${e.id}\\|null\\|\\d+$`));
    const check = crossCheckNotifications(eventLogPosts(outcome.events, PKG), before.entries, after.entries, PKG);
    expect(check.eventLogPosts).to.equal(posted.length);
    expect(check.agree, check.summary).to.equal(true);
    expect(check.overflowed).to.equal(false);
    // Logcat and the reverse rule went to the adb companion; no shell command did: every shell
    // invocation was a mobile: shell, at least 9 of them (the session's checks, its saved state and
    // the backup's listing; the scenario's start and two forced runs; the restore's invocation and
    // the removal of what the runs wrote).
    expect(d.traffic.adbStreams).to.equal(1);
    expect(d.traffic.adbReverse).to.be.greaterThan(0);
    expect(d.traffic.shell).to.be.at.least(9);
  });

  it('the notification buffer keeps the newest 100 entries, and the cross-check says it overflowed', async () => {
    const d = device!;
    const before = await d.getNotifications();
    // 110 posts of the app, each cancelled again (the package may keep at most 50 active):
    // posted through the device's NotificationManager model, as the app would.
    const system = getAndroidSystem(vd.device)!;
    const uid = system.packages.get(PKG)!.uid;
    system.notifications.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    const ids = Array.from({ length: 110 }, (_, i) => 9000 + i);
    for (const id of ids) {
      const refused = system.notifications.enqueue({
        pkg: PKG,
        opPkg: PKG,
        callingUid: uid,
        callingPid: 4000,
        userId: 0,
        tag: null,
        id,
        notification: {
          channelId: 'feed_items',
          smallIcon: { packageName: PKG, resId: 0x7f080001 },
          when: 0,
          flags: NotificationFlag.FLAG_AUTO_CANCEL,
          priority: 0,
          visibility: 0,
          color: 0,
          contentIntent: null,
          extras: [['android.title', { kind: 'String', value: `overflow ${id}` }]],
        },
      });
      expect(refused).to.equal(undefined);
      system.notifications.cancel(PKG, 0, null, id);
    }
    const after = await d.getNotifications();
    expect(after.entries).to.have.length(100);
    expect(after.full).to.equal(true);
    expect(after.entries.map((e) => e.id)).to.deep.equal(ids.slice(10).reverse());
    expect(after.entries.every((e) => e.isRemoved && e.title === `overflow ${e.id}`)).to.equal(true);
    const check = crossCheckNotifications(ids.map((id) => ({ id, tag: null, t: 0 })), before.entries, after.entries, PKG);
    expect(check.overflowed).to.equal(true);
    expect(check.missingFromBuffer.map((p) => p.id)).to.deep.equal(ids.slice(0, 10));
    expect(check.agree).to.equal(true);
    expect(check.summary).to.include('overflowed');
    // Without the overflow the same shortfall is a disagreement.
    expect(crossCheckNotifications(ids.map((id) => ({ id, tag: null, t: 0 })), [], after.entries, PKG).agree).to.equal(false);
  });

  it('a command past its timeout is a TimeoutError; readLog returns the log lines after a cursor, in order', async () => {
    const d = device!;
    const err = await d.shell(['sleep', '5'], { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TimeoutError);
    const first = await d.readLog(['main']);
    await d.shellText(['log', '-t', 'dv-readlog', 'one']);
    await d.shellText(['log', '-t', 'dv-readlog', 'two']);
    const next = await d.readLog(['main'], first.cursor);
    expect(next.gap).to.equal(false);
    expect(next.lines.filter((l) => l.includes('dv-readlog')).map((l) => l.slice(l.lastIndexOf(': ') + 2))).to.deep.equal(['one', 'two']);
    const again = await d.readLog(['main'], next.cursor);
    expect(again.lines.filter((l) => l.includes('dv-readlog'))).to.deep.equal([]);
    expect((await d.readLog(['main'], { lastLine: 'no such line', lastLineRepeats: 1 })).gap).to.equal(true);
  });

  it('deleteSession ends the UiAutomator2 server and removes the port forward', async () => {
    await device!.close();
    device = undefined;
    expect(await forwards()).to.deep.equal([]);
    expect(await sh('ps -A -o NAME')).not.to.match(/^io\.appium\.uiautomator2\.server$/m);
  });

  it('a server started without the adb_shell feature refuses mobile: shell, and the error names the flag', async () => {
    const strict = await startLocalAppiumServer({ port: await freePort(), withoutAdbShell: true });
    servers.push(strict);
    const d = await AppiumDevice.connect({ hostname: '127.0.0.1', port: strict.port, capabilities: uiautomator2Capabilities({ udid: vd.serial, adbPort: adb.port }) });
    try {
      const err = await d.shell(['echo', 'hi']).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(DedupVerifyError);
      expect((err as DedupVerifyError).code).to.equal('DV_APPIUM');
      expect((err as Error).message).to.include('--allow-insecure uiautomator2:adb_shell');
    } finally {
      await d.close();
    }
  });
});
