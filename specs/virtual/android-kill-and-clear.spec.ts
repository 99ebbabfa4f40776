/**
 * Through the real adb binary: which kill reaches the reference app's process, and what `pm clear`
 * does to POST_NOTIFICATIONS.
 * - `am kill` (killBackgroundProcesses) spares a process whose worker is running (JobService bound:
 *   oom_adj 250 < SERVICE_ADJ), on top and after HOME; `run-as PKG kill -9 PID` kills it. Once
 *   the run is over and the user went HOME, `am kill` kills the idle background process.
 * - `pm clear` on API 34 revokes POST_NOTIFICATIONS (`granted=false`): every later notify() is
 *   dropped before notification_enqueue until `pm grant`. On API 30 notifications keep working.
 * Sources: activity-manager.ts (oomAdj, killBackground), android-system.ts (clearData),
 * package-manager.ts (resetRuntimePermissions).
 */
import { expect } from 'chai';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices } from '../support/virtual-devices.js';
import { waitFor as waitUntil } from '../support/wait.js';

const PKG = 'com.example.feednotifier';
const NS = 'androidx.work.systemjobscheduler';
const HOUR = 3_600_000;
const POST_NOTIFICATIONS = 'android.permission.POST_NOTIFICATIONS';

function rfc822(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString().replace('GMT', '+0000');
}

function rss(items: readonly { title: string; link: string; pubMs: number }[]): string {
  const body = items.map((i) => `<item><title>${i.title}</title><link>${i.link}</link><pubDate>${rfc822(i.pubMs)}</pubDate></item>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Feed</title><link>https://example.org/</link>${body}</channel></rss>`;
}

interface Dev {
  sh(cmd: string): Promise<{ out: string; err: string; code: number }>;
  lines(cmd: string): Promise<string[]>;
  waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T>;
  now(): Promise<number>;
  pid(): Promise<string>;
  results(): Promise<number>;
  waitResults(n: number): Promise<void>;
  enqueues(): Promise<string[]>;
  fixture: FixtureServer;
}

describe('android model: am kill spares a running worker; pm clear revokes POST_NOTIFICATIONS (adb only)', function () {
  this.timeout(60_000);
  const devices = testDevices();
  const fixtures: FixtureServer[] = [];
  let adb: AdbServer;

  before(async () => {
    adb = await startAdbServer();
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await Promise.all(fixtures.map((f) => f.close()));
  });

  /** A fresh device of `apiLevel` with its own fixture server reversed to the app's port. */
  async function device(apiLevel: 30 | 34): Promise<Dev> {
    const fixture = await startFixtureServer({ feed: { xml: rss([]) } });
    fixtures.push(fixture);
    const d = await devices.start({ apiLevel });
    await adb.connect(d.serial);
    const r = await adb.adb(['-s', d.serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`]);
    expect(r.code).to.equal(0);
    const sh = async (cmd: string): Promise<{ out: string; err: string; code: number }> => {
      const res = await adb.adb(['-s', d.serial, 'shell', cmd]);
      return { out: res.stdout.toString('utf8'), err: res.stderr, code: res.code };
    };
    const lines = async (cmd: string): Promise<string[]> => (await sh(cmd)).out.split('\n').filter((l) => l.trim() !== '');
    const waitFor = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => waitUntil(`API ${apiLevel}: ${what}`, probe);
    const results = async (): Promise<number> => (await lines('logcat -d -s WM-WorkerWrapper')).filter((l) => l.includes('Worker result')).length;
    return {
      sh,
      lines,
      waitFor,
      fixture,
      now: async () => Number((await sh('date +%s%3N')).out.trim()),
      pid: async () => (await sh(`pidof ${PKG}`)).out.trim(),
      results,
      waitResults: async (n) => {
        await waitFor(`${n} worker results`, async () => ((await results()) >= n ? true : undefined));
      },
      // The app's own posts; GroupHelper's autogroup summary in its name (tag ranker_group) is left out.
      enqueues: async () => (await lines('logcat -b events -d')).filter((l) => l.includes(' notification_enqueue: ') && l.includes(PKG) && !l.includes(',ranker_group,')),
    };
  }

  /** The WorkManager job's id (API 34: in WorkManager's namespace). */
  const jobId = (d: Dev): Promise<number> =>
    d.waitFor('the feed-poll job', async () => {
      const m = /^ {2}JOB androidx\.work\.systemjobscheduler:u0a190\/(\d+): /m.exec((await d.sh(`dumpsys jobscheduler ${PKG}`)).out);
      return m === null ? undefined : Number(m[1]);
    });

  /** Moves the clock a period on, serves one item fresh for that time and forces the job. */
  async function forcedRun(d: Dev, n: number): Promise<void> {
    const target = (await d.now()) + 25 * HOUR;
    await d.sh(`cmd alarm set-time ${target}`);
    d.fixture.setFeed({ xml: rss([{ title: `Later ${n}`, link: `https://example.org/later/${n}`, pubMs: target - HOUR }]) });
    const before = await d.results();
    expect(await d.sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${await jobId(d)}`)).to.deep.equal({ out: 'Running job [FORCED]\n', err: '', code: 0 });
    await d.waitResults(before + 1);
  }

  it('API 34: am kill spares the process while its worker runs (top, then after HOME); run-as kill -9 kills it', async () => {
    const d = await device(34);
    d.fixture.setFault('/feed.xml', { hold: true });
    await d.sh(`am start -n ${PKG}/.MainActivity`);
    await d.fixture.waitForHeld(1, 15_000);
    const pid = await d.pid();
    expect(pid).to.match(/^\d+$/);
    expect(await d.sh(`am kill ${PKG}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await d.pid()).to.equal(pid);
    await d.sh('input keyevent KEYCODE_HOME');
    expect(await d.sh(`am kill ${PKG}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await d.pid()).to.equal(pid);
    expect((await d.sh('logcat -d -s ActivityManager')).out).to.not.include('kill background');
    expect(await d.sh(`run-as ${PKG} kill -9 ${pid}`)).to.deep.equal({ out: '', err: '', code: 0 });
    // JobScheduler retries the interrupted job in a new process (when is not what this checks).
    await d.waitFor('the app process to die', async () => ((await d.pid()) !== pid ? true : undefined));
    expect((await d.sh('logcat -d -s ActivityManager')).out).to.include(`Process ${PKG} (pid ${pid}) has died`);
    d.fixture.clearFaults('/feed.xml');
    d.fixture.release();
  });

  it('API 34: after the run ends and HOME, am kill kills the idle background process (adj 700)', async () => {
    const d = await device(34);
    await d.sh(`am start -n ${PKG}/.MainActivity`);
    await d.waitResults(1);
    // The finished run's job is replaced by the next period's, which waits (not active).
    const id = await jobId(d);
    await d.waitFor('the next period to wait', async () => ((await d.sh(`cmd jobscheduler get-job-state -n ${NS} ${PKG} ${id}`)).out === 'waiting\n' ? true : undefined));
    const pid = await d.pid();
    expect(await d.sh(`am kill ${PKG}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await d.pid()).to.equal(pid);
    await d.sh('input keyevent KEYCODE_HOME');
    expect(await d.sh(`am kill ${PKG}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await d.pid()).to.equal('');
    expect((await d.sh('logcat -d -s ActivityManager')).out).to.include(`Killing ${pid}:${PKG}/u0a190 (adj 700): kill background`);
  });

  it('API 34: pm clear revokes POST_NOTIFICATIONS; runs post nothing (no notification_enqueue) until pm grant', async () => {
    const d = await device(34);
    const now = await d.now();
    d.fixture.setFeed({ xml: rss([1, 2].map((i) => ({ title: `Item ${i}`, link: `https://example.org/item/${i}`, pubMs: now - i * HOUR }))) });
    await d.sh(`am start -n ${PKG}/.MainActivity`);
    await d.waitResults(1);
    expect(await d.enqueues()).to.have.length(2);
    // Two ungrouped posts reach API 34's config_autoGroupAtCount: one summary in the app's name.
    expect((await d.sh('logcat -b events -d')).out.split('\n').filter((l) => l.includes(`${PKG},2147483647,ranker_group,0,`))).to.have.length(1);
    const perm = `        ${POST_NOTIFICATIONS}: granted=`;
    expect((await d.sh(`dumpsys package ${PKG}`)).out).to.include(`${perm}true`);

    expect(await d.sh(`pm clear ${PKG}`)).to.deep.equal({ out: 'Success\n', err: '', code: 0 });
    expect((await d.sh(`dumpsys package ${PKG}`)).out).to.include(`${perm}false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]\n`);
    // The data is gone, so the first period after the next start sees both items as new again.
    await d.sh(`am start -n ${PKG}/.MainActivity`);
    await d.waitResults(2);
    await forcedRun(d, 1);
    expect(await d.enqueues()).to.have.length(2);
    expect((await d.sh('cmd notification list')).out).to.equal('');

    expect(await d.sh(`pm grant ${PKG} ${POST_NOTIFICATIONS}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect((await d.sh(`dumpsys package ${PKG}`)).out).to.include(`${perm}true`);
    await forcedRun(d, 2);
    const events = await d.enqueues();
    expect(events).to.have.length(3);
    expect(events[2]).to.match(/ notification_enqueue: \[10190,\d+,com\.example\.feednotifier,-?\d+,NULL,0,Notification\(channel=feed_items .*\),0\]$/);
  });

  it('API 30: pm clear leaves notifications working (POST_NOTIFICATIONS is no runtime permission there)', async () => {
    const d = await device(30);
    const now = await d.now();
    d.fixture.setFeed({ xml: rss([1, 2].map((i) => ({ title: `Item ${i}`, link: `https://example.org/item/${i}`, pubMs: now - i * HOUR }))) });
    await d.sh(`am start -n ${PKG}/.MainActivity`);
    await d.waitResults(1);
    expect(await d.enqueues()).to.have.length(2);
    expect(await d.sh(`pm clear ${PKG}`)).to.deep.equal({ out: 'Success\n', err: '', code: 0 });
    expect((await d.sh(`dumpsys package ${PKG}`)).out).to.not.include('runtime permissions:');
    await d.sh(`am start -n ${PKG}/.MainActivity`);
    await d.waitResults(2);
    expect(await d.enqueues()).to.have.length(4);
  });
});
