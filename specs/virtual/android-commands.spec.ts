import { createRequire } from 'node:module';
/**
 * The Android shell binaries of the model through the real adb binary: pm, am, run-as, settings,
 * sqlite3 (present, and absent on a `noSqlite3` device), dumpsys, cmd, and the WorkManager
 * diagnostics broadcast. Each expectation is the text Android prints (sources cited in the
 * command implementations under src/virtual-device/system/commands/).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices } from '../support/virtual-devices.js';

const PKG = 'com.example.feednotifier';
const HOUR = 3_600_000;

describe('android model: shell commands (adb only)', function () {
  this.timeout(60_000);
  const devices = testDevices();
  let adb: AdbServer;
  let fixture: FixtureServer;
  let serial: string;
  let work: string;

  const sh = async (cmd: string, s = serial): Promise<{ out: string; err: string; code: number }> => {
    const r = await adb.adb(['-s', s, 'shell', cmd]);
    return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
  };
  const waitFor = async (what: string, ok: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + 15_000;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const results = async (): Promise<number> => (await sh('logcat -d -s WM-WorkerWrapper')).out.split('\n').filter((l) => l.includes('Worker result')).length;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'dv-cmd-spec-'));
    adb = await startAdbServer();
    fixture = await startFixtureServer();
    const pub = new Date(Math.floor((Date.now() - HOUR) / 1000) * 1000).toUTCString();
    fixture.setFeed({ xml: `<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>https://example.org/</link><item><title>Only</title><link>https://example.org/only</link><pubDate>${pub}</pubDate></item></channel></rss>` });
    const d = await devices.start({ apiLevel: 34 });
    serial = d.serial;
    await adb.connect(serial);
    await adb.adb(['-s', serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`]);
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await fixture.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('a broadcast to a stopped package needs --include-stopped-packages; diagnostics then log WorkManager\'s tables', async () => {
    const action = 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS';
    const stopped = await sh(`am broadcast -a ${action} -p ${PKG}`);
    expect(stopped).to.deep.equal({ out: `Broadcasting: Intent { act=${action} flg=0x400000 pkg=${PKG} }\nBroadcast completed: result=0\n`, err: '', code: 0 });
    expect((await sh(`pidof ${PKG}`)).code).to.equal(1);
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the first period', async () => (await results()) === 1);
    const b = await sh(`am broadcast -a ${action} -p ${PKG}`);
    expect(b.out).to.equal(`Broadcasting: Intent { act=${action} flg=0x400000 pkg=${PKG} }\nBroadcast completed: result=0\n`);
    await waitFor('the diagnostics tables', async () => (await sh('logcat -d -s WM-DiagnosticsWrkr')).out.includes('Enqueued work:'));
    const diag = (await sh('logcat -d -s WM-DiagnosticsWrkr')).out.split('\n');
    expect(diag.some((l) => / I WM-DiagnosticsWrkr: {2}Id \t Class Name\t Job Id\t State\t Unique Name\t Tags\t$/.test(l))).to.equal(true);
    expect(diag.some((l) => /I WM-DiagnosticsWrkr: [0-9a-f-]{36}\t com\.example\.feednotifier\.FeedPollWorker\t \d+\t ENQUEUED\t feed-poll\t com\.example\.feednotifier\.FeedPollWorker\t$/.test(l))).to.equal(true);
    expect(diag.some((l) => /androidx\.work\.impl\.workers\.DiagnosticsWorker\t \d+\t RUNNING\t \t androidx\.work\.impl\.workers\.DiagnosticsWorker\t$/.test(l))).to.equal(true);
  });

  it('am: a second start brings the task to the front; an unknown activity is error type 3', async () => {
    expect(await sh(`am start -n ${PKG}/.MainActivity`)).to.deep.equal({
      out: `Starting: Intent { cmp=${PKG}/.MainActivity }\n`,
      err: 'Warning: Activity not started, its current task has been brought to the front\n',
      code: 0,
    });
    expect(await sh(`am start -n ${PKG}/.Nope`)).to.deep.equal({
      out: `Starting: Intent { cmp=${PKG}/.Nope }\n`,
      err: `Error type 3\nError: Activity class {${PKG}/${PKG}.Nope} does not exist.\n`,
      code: 0,
    });
    expect((await sh('am frobnicate')).out).to.equal('Unknown command: frobnicate\n');
    // An explicit component of a package that is not installed resolves to no ActivityInfo: START_CLASS_NOT_FOUND.
    expect(await sh('am start -n com.nope/.X')).to.deep.equal({
      out: 'Starting: Intent { cmp=com.nope/.X }\n',
      err: 'Error type 3\nError: Activity class {com.nope/com.nope.X} does not exist.\n',
      code: 0,
    });
  });

  it('cmd notification list / get (unredacted, prefix ""), and the error for an unknown key', async () => {
    const list = await sh('cmd notification list');
    const key = `0|${PKG}|${'https://example.org/only'.split('').reduce((h, c) => (Math.imul(31, h) + c.charCodeAt(0)) | 0, 0)}|null|10190`;
    expect(list).to.deep.equal({ out: `${key}\n`, err: '', code: 0 });
    const get = await sh(`cmd notification get '${key}'`);
    expect(get.code).to.equal(0);
    const lines = get.out.split('\n');
    expect(lines[0]).to.match(/^NotificationRecord\(0x[0-9a-f]{8}: pkg=com\.example\.feednotifier user=UserHandle\{0\} id=-?\d+ tag=null importance=3 key=/);
    expect(lines).to.include('  uid=10190 userId=0');
    expect(lines).to.include('        android.title=String (Only)');
    expect(await sh("cmd notification get '0|x|1|null|1'")).to.deep.equal({ out: 'error: no active notification matching key: 0|x|1|null|1\n', err: '', code: 1 });
    expect((await sh('cmd jobscheduler get-job-state -n androidx.work.systemjobscheduler com.example.feednotifier 99')).out).to.equal('unknown(u0a190/jid99)\n');
  });

  it('run-as: the app uid in /data/user/0/PKG, and run-as.cpp\'s errors with exit 1', async () => {
    expect(await sh(`run-as ${PKG} pwd`)).to.deep.equal({ out: `/data/user/0/${PKG}\n`, err: '', code: 0 });
    expect((await sh(`run-as ${PKG} id`)).out).to.match(/^uid=10190\(u0_a190\) gid=10190\(u0_a190\)/);
    expect(await sh('run-as com.example.nope id')).to.deep.equal({ out: '', err: 'run-as: unknown package: com.example.nope\n', code: 1 });
    expect(await sh('run-as com.android.systemui id')).to.deep.equal({ out: '', err: 'run-as: package not debuggable: com.android.systemui\n', code: 1 });
    expect(await sh('run-as android id')).to.deep.equal({ out: '', err: 'run-as: package not an application: android\n', code: 1 });
    expect(await sh(`run-as ${PKG} no-such-binary`)).to.deep.equal({ out: '', err: 'run-as: exec failed for no-such-binary: No such file or directory\n', code: 1 });
    expect((await sh('ls /data/data/com.example.feednotifier')).code).to.not.equal(0);
  });

  it('sqlite3 on the device: list mode, -header, .tables, .schema and its error text', async () => {
    const q = await sh(`run-as ${PKG} sqlite3 -header databases/feed.db 'select link, title from notifications'`);
    expect(q).to.deep.equal({ out: 'link|title\nhttps://example.org/only|Only\n', err: '', code: 0 });
    expect((await sh(`run-as ${PKG} sqlite3 databases/feed.db .tables`)).out).to.equal('android_metadata   notifications      pending_receipts   room_master_table\n');
    expect((await sh(`run-as ${PKG} sqlite3 databases/feed.db '.schema notifications'`)).out).to.equal(
      'CREATE TABLE `notifications` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `link` TEXT, `title` TEXT NOT NULL, `published_at` INTEGER NOT NULL, `notified_at` INTEGER NOT NULL);\n' +
        'CREATE UNIQUE INDEX `index_notifications_link` ON `notifications` (`link`);\n',
    );
    expect(await sh(`run-as ${PKG} sqlite3 databases/feed.db 'select * from nope'`)).to.deep.equal({ out: '', err: 'Error: in prepare, no such table: nope\n', code: 1 });
    expect((await sh(`run-as ${PKG} sqlite3 databases/feed.db 'pragma journal_mode'`)).out).to.equal('wal\n');
  });

  it('sqlite3 is absent on a user-build profile (noSqlite3)', async () => {
    const d = await devices.start({ apiLevel: 34, noSqlite3: true });
    await adb.connect(d.serial);
    const r = await sh('sqlite3 /data/local/tmp/x.db "select 1"', d.serial);
    expect(r.code).to.equal(127);
    expect(r.err).to.include('sqlite3: inaccessible or not found');
  });

  it('settings get/put/delete on global, `null` for an unset key', async () => {
    expect(await sh('settings get global auto_time')).to.deep.equal({ out: '1\n', err: '', code: 0 });
    expect(await sh('settings put global auto_time 0')).to.deep.equal({ out: '', err: '', code: 0 });
    expect((await sh('settings get global auto_time')).out).to.equal('0\n');
    expect((await sh('settings get global dedup_verify_unset')).out).to.equal('null\n');
    expect((await sh('settings delete global auto_time')).out).to.equal('Deleted 1 rows\n');
    expect((await sh('cmd settings get global auto_time')).out).to.equal('null\n');
  });

  it('dumpsys and cmd on an unknown service', async () => {
    expect(await sh('dumpsys no_such_service')).to.deep.equal({ out: '', err: "Can't find service: no_such_service\n", code: 0 });
    expect(await sh('cmd no_such_service x')).to.deep.equal({ out: '', err: "Can't find service: no_such_service\n", code: 20 });
    expect((await sh('dumpsys jobscheduler com.example.nope')).out).to.equal('Invalid package: com.example.nope\n');
  });

  it('cmd jobscheduler: run -s in the timing delay is 22, Restricted due to: none., cancel, help and dump exit codes', async () => {
    const NS = 'androidx.work.systemjobscheduler';
    const dump = (await sh(`dumpsys jobscheduler ${PKG}`)).out.split('\n');
    const jobLines = dump.filter((l) => l.startsWith('  JOB '));
    expect(jobLines).to.have.length(1);
    const id = Number(/^ {2}JOB androidx\.work\.systemjobscheduler:u0a190\/(\d+): /.exec(jobLines[0]!)?.[1]);
    expect(Number.isInteger(id)).to.equal(true);
    expect(dump[dump.findIndex((l) => l.startsWith('    Ready: ')) - 1]).to.equal('    Restricted due to: none.');
    // The next period is a day away: -s (OVERRIDE_SORTING) overrides nothing, so the timing delay fails it.
    expect(await sh(`cmd jobscheduler run -s -n ${NS} ${PKG} ${id}`)).to.deep.equal({
      out: '',
      err: `Job ${id} in package ${PKG} / namespace ${NS} / user 0 has functional constraints but --force not specified\n`,
      code: 22,
    });
    expect(await sh(`cmd jobscheduler get-job-state -n ${NS} ${PKG} ${id}`)).to.deep.equal({ out: 'waiting\n', err: '', code: 0 });

    expect(await sh(`cmd jobscheduler cancel -n ${NS} ${PKG} 999999`)).to.deep.equal({ out: `Canceling job ${PKG}/#999999 in user 0\nNo matching job found.\n`, err: '', code: 0 });
    expect(await sh('cmd jobscheduler cancel com.nope')).to.deep.equal({ out: 'Package com.nope not found.\n', err: '', code: 24 });
    expect(await sh(`cmd jobscheduler cancel ${PKG}`)).to.deep.equal({ out: `Canceling all jobs for ${PKG} in user 0\n`, err: '', code: 0 });
    expect(await sh(`cmd jobscheduler cancel ${PKG}`)).to.deep.equal({ out: `Canceling all jobs for ${PKG} in user 0\nNo matching jobs found.\n`, err: '', code: 0 });
    const empty = (await sh('dumpsys jobscheduler')).out.split('\n');
    expect(empty.slice(empty.indexOf('Registered 0 jobs:'), empty.indexOf('Registered 0 jobs:') + 2)).to.deep.equal(['Registered 0 jobs:', '  None.']);
    expect(empty.slice(empty.indexOf('Pending queue:'), empty.indexOf('Pending queue:') + 2)).to.deep.equal(['Pending queue:', '  None']);

    // BasicShellCommandHandler.handleDefaultCommands: the help returns -1 (255); only ShellCommand knows `dump`.
    const help = await sh('cmd jobscheduler help');
    expect([help.out.split('\n')[0], help.err, help.code]).to.deep.equal(['Job scheduler (jobscheduler) commands:', '', 255]);
    const amHelp = await sh('am');
    expect([amHelp.out.split('\n')[0], amHelp.err, amHelp.code]).to.deep.equal(['Activity manager (activity) commands:', '', 255]);
    expect(await sh('cmd jobscheduler dump')).to.deep.equal({ out: 'Unknown command: dump\n', err: '', code: 255 });
    const services = await sh(`dumpsys activity services ${PKG}`);
    expect(services.out).to.match(/^ACTIVITY MANAGER SERVICES \(dumpsys activity services\)\n/);
    expect(await sh(`cmd activity dump services ${PKG}`)).to.deep.equal({ out: services.out, err: '', code: 0 });
  });

  it('pm: list packages, path, install of a pushed file, and clear (data, jobs, notifications, process)', async () => {
    // runClear: an unknown package fails in ActivityManagerService (`Failed` on stderr, 1).
    expect(await sh('pm clear com.nope')).to.deep.equal({ out: '', err: 'Failed\n', code: 1 });
    expect(await sh('pm clear')).to.deep.equal({ out: '', err: 'Error: no package specified\n', code: 1 });
    expect((await sh('pm list packages -3')).out).to.equal(`package:${PKG}\n`);
    expect((await sh('pm list packages -3 -U')).out).to.equal(`package:${PKG} uid:10190\n`);
    expect((await sh('pm list packages -f feednotifier')).out).to.match(/^package:\/data\/app\/~~[\w=-]+\/com\.example\.feednotifier-[\w=-]+\/base\.apk=com\.example\.feednotifier\n$/);
    expect((await sh('pm list packages')).out).to.include('package:android\n');
    expect((await sh(`pm path ${PKG}`)).out).to.match(/^package:\/data\/app\/~~.+\/base\.apk\n$/);
    expect((await sh('pm path com.example.nope')).code).to.equal(1);
    // A file that is not an APK fails as PackageManagerShellCommand does (A14 setParamsSize).
    const junk = join(work, 'junk.apk');
    writeFileSync(junk, 'PK\u0003\u0004 not really an apk');
    expect((await adb.adb(['-s', serial, 'push', junk, '/data/local/tmp/junk.apk'])).code).to.equal(0);
    const refused = await sh('pm install /data/local/tmp/junk.apk');
    expect([refused.out, refused.code]).to.deep.equal(['', 255]);
    expect(refused.err).to.match(/^\nException occurred while executing 'install':\njava\.lang\.IllegalArgumentException: Error: Failed to parse APK file: \/data\/local\/tmp\/junk\.apk: /);
    // A real APK (the UiAutomator2 test server shipped in the driver's npm package) installs.
    const driverDir = dirname(createRequire(import.meta.url).resolve('appium-uiautomator2-driver/package.json'));
    const apkName = join('appium-uiautomator2-server', 'apks', 'appium-uiautomator2-server-debug-androidTest.apk');
    const apk = [join(driverDir, 'node_modules', apkName), join(driverDir, '..', apkName)].find((p) => existsSync(p));
    if (apk === undefined) throw new Error(`no ${apkName} next to appium-uiautomator2-driver (${driverDir}); run npm ci`);
    expect((await adb.adb(['-s', serial, 'push', apk, '/data/local/tmp/app.apk'])).code).to.equal(0);
    expect(await sh('pm install /data/local/tmp/app.apk')).to.deep.equal({ out: 'Success\n', err: '', code: 0 });
    expect((await sh('pm list packages io.appium.uiautomator2.server.test')).out).to.equal('package:io.appium.uiautomator2.server.test\n');
    const dumped = (await sh(`dumpsys package ${PKG}`)).out;
    expect(dumped).to.include('    userId=10190\n');
    expect(dumped).to.match(/^ {4}flags=\[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP \]$/m);

    expect(await sh(`pm clear ${PKG}`)).to.deep.equal({ out: 'Success\n', err: '', code: 0 });
    expect((await sh(`pidof ${PKG}`)).code).to.equal(1);
    expect((await sh('cmd notification list')).out).to.equal('');
    expect((await sh(`dumpsys jobscheduler ${PKG}`)).out).to.not.include('  JOB ');
    expect((await sh(`run-as ${PKG} ls`)).out).to.equal('cache\ncode_cache\n');
    const canceled = (await sh('logcat -b events -d')).out.split('\n').filter((l) => l.includes('notification_canceled'));
    expect(canceled.length).to.be.at.least(1);
  });
});
