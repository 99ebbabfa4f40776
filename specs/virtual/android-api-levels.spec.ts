/**
 * What differs between the API 30, 33, 34, 35 and 36 profiles, seen through adb: JobScheduler
 * namespaces (34 on), POST_NOTIFICATIONS (a runtime permission from 33; unknown on 30), the
 * NotificationRecord dump (the `vis=` line is A14's), the build fingerprint and the
 * `notification_enqueue` field list (A15 appends app_provided).
 */
import { expect } from 'chai';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices } from '../support/virtual-devices.js';

const PKG = 'com.example.feednotifier';
const HOUR = 3_600_000;

function rfc822(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString().replace('GMT', '+0000');
}

describe('android model: API level profiles (adb only)', function () {
  this.timeout(60_000);
  const devices = testDevices();
  let adb: AdbServer;
  let fixture: FixtureServer;

  before(async () => {
    adb = await startAdbServer();
    fixture = await startFixtureServer();
    const now = Date.now();
    const items = [1, 2].map((i) => `<item><title>Item ${i}</title><link>https://example.org/api/${i}</link><pubDate>${rfc822(now - i * HOUR)}</pubDate></item>`).join('');
    fixture.setFeed({ xml: `<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>https://example.org/</link>${items}</channel></rss>` });
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await fixture.close();
  });

  async function device(apiLevel: 30 | 33 | 34 | 35 | 36): Promise<{ sh: (cmd: string) => Promise<{ out: string; err: string; code: number }>; waitFor: (what: string, ok: () => Promise<boolean>) => Promise<void> }> {
    const d = await devices.start({ apiLevel });
    await adb.connect(d.serial);
    await adb.adb(['-s', d.serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`]);
    const sh = async (cmd: string): Promise<{ out: string; err: string; code: number }> => {
      const r = await adb.adb(['-s', d.serial, 'shell', cmd]);
      return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
    };
    const waitFor = async (what: string, ok: () => Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 15_000;
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`API ${apiLevel}: timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    return { sh, waitFor };
  }

  const resultCount = async (sh: (cmd: string) => Promise<{ out: string }>): Promise<number> => (await sh('logcat -d -s WM-WorkerWrapper')).out.split('\n').filter((l) => l.includes('Worker result')).length;

  it('API 30: jobs without a namespace (#u0a190/N), -n is an unknown option, POST_NOTIFICATIONS is an unknown permission', async () => {
    const { sh, waitFor } = await device(30);
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the first period', async () => (await resultCount(sh)) === 1);
    // Android 11 prints every registered job's JOB line (other apps' too, see android-api30-other-apps.spec.ts).
    const jobLines = (await sh(`dumpsys jobscheduler ${PKG}`)).out.split('\n').filter((l) => l.startsWith('  JOB ') && l.includes(` ${PKG}/`));
    expect(jobLines).to.have.length(1);
    const m = /^ {2}JOB #u0a190\/(\d+): [0-9a-f]+ com\.example\.feednotifier\/androidx\.work\.impl\.background\.systemjob\.SystemJobService$/.exec(jobLines[0]!);
    expect(m).to.not.equal(null);
    const id = m![1]!;
    expect(await sh(`cmd jobscheduler run -f -n androidx.work.systemjobscheduler ${PKG} ${id}`)).to.deep.equal({ out: "Error: unknown option '-n'\n", err: '', code: 255 });
    expect(await sh(`cmd jobscheduler run -f ${PKG} ${id}`)).to.deep.equal({ out: 'Running job [FORCED]\n', err: '', code: 0 });
    const grant = await sh(`pm grant ${PKG} android.permission.POST_NOTIFICATIONS`);
    expect(grant.code).to.equal(255);
    expect(grant.out).to.equal('');
    expect(grant.err).to.match(/^\nException occurred while executing 'grant':\njava\.lang\.IllegalArgumentException: Unknown permission: android\.permission\.POST_NOTIFICATIONS\n\tat /);
    expect((await sh('cmd alarm help')).out).to.not.include('get-config-version');
    const dump = (await sh('dumpsys notification --noredact')).out;
    expect(dump).to.include('                android.title=String (Item 1)\n');
    expect(dump).to.not.match(/^ {12}vis=/m);
    expect((await sh(`dumpsys package ${PKG}`)).out).to.not.include('runtime permissions:');
  });

  it('API 33: no namespace; revoking POST_NOTIFICATIONS makes posts vanish without an event while the app still records them', async () => {
    const { sh, waitFor } = await device(33);
    expect(await sh(`pm revoke ${PKG} android.permission.POST_NOTIFICATIONS`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect((await sh(`dumpsys package ${PKG}`)).out).to.include('        android.permission.POST_NOTIFICATIONS: granted=false');
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the first period', async () => (await resultCount(sh)) === 1);
    expect((await sh('logcat -b events -d')).out).to.not.include('notification_enqueue');
    expect((await sh('cmd notification list')).out).to.equal('');
    expect((await sh(`run-as ${PKG} sqlite3 databases/feed.db 'select count(*) from notifications'`)).out).to.equal('2\n');
    expect((await sh(`dumpsys jobscheduler ${PKG}`)).out).to.match(/^ {2}JOB #u0a190\/\d+: /m);
    expect(await sh(`pm grant ${PKG} android.permission.POST_NOTIFICATIONS`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect((await sh(`dumpsys package ${PKG}`)).out).to.include('        android.permission.POST_NOTIFICATIONS: granted=true');
  });

  it('API 34: POST_NOTIFICATIONS granted at install; the dump has the A14 `vis=` line; INTERNET is not changeable', async () => {
    const { sh, waitFor } = await device(34);
    expect((await sh(`dumpsys package ${PKG}`)).out).to.include('        android.permission.POST_NOTIFICATIONS: granted=true');
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the first period', async () => (await resultCount(sh)) === 1);
    expect((await sh('dumpsys notification --noredact')).out).to.match(/^ {12}vis=0$/m);
    const internet = await sh(`pm revoke ${PKG} android.permission.INTERNET`);
    expect(internet.code).to.equal(255);
    expect(internet.err).to.include(`java.lang.SecurityException: Permission android.permission.INTERNET requested by ${PKG} is not a changeable permission type`);
  });

  const enqueueLines = async (sh: (cmd: string) => Promise<{ out: string }>): Promise<string[]> => (await sh('logcat -b events -d')).out.split('\n').filter((l) => l.includes(' notification_enqueue: '));

  it('API 34: notification_enqueue ends with the status (no app_provided)', async () => {
    const { sh, waitFor } = await device(34);
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the first post', async () => (await enqueueLines(sh)).length > 0);
    expect((await enqueueLines(sh))[0]).to.match(/vis=PRIVATE\),0\]\r?$/);
  });

  for (const [api, fingerprint] of [
    [35, 'google/sdk_gphone64_x86_64/emu64xa:15/AE3A.240806.043/12960925:userdebug/dev-keys'],
    [36, 'google/sdk_gphone64_x86_64/emu64xa:16/BE2A.250530.026.F3/13894323:userdebug/dev-keys'],
  ] as const) {
    it(`API ${api}: the emulator image's fingerprint, namespaced WorkManager jobs, notification_enqueue with app_provided`, async () => {
      const { sh, waitFor } = await device(api);
      expect((await sh('getprop ro.build.fingerprint')).out).to.equal(`${fingerprint}\n`);
      expect((await sh('getprop ro.build.version.sdk')).out).to.equal(`${api}\n`);
      await sh(`am start -n ${PKG}/.MainActivity`);
      await waitFor('the first period', async () => (await resultCount(sh)) === 1);
      expect((await sh(`dumpsys jobscheduler ${PKG}`)).out).to.match(/^ {2}JOB androidx\.work\.systemjobscheduler:u0a190\/\d+: /m);
      const lines = await enqueueLines(sh);
      expect(lines.length).to.be.greaterThan(0);
      // The app's posts are app_provided 1; Android's autogroup summary in its name (GroupHelper:
      // ranker_group, Aggregate_* on 36) is 0.
      for (const l of lines) expect(l).to.match(/,(ranker_group|Aggregate_\w+),0,Notification\(/.test(l) ? /\),[01],0\]\r?$/ : /\),[01],1\]\r?$/);
      expect(lines.filter((l) => !/,(ranker_group|Aggregate_\w+),0,Notification\(/.test(l)).length).to.be.greaterThan(0);
    });
  }
});
