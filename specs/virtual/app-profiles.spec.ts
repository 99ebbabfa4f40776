/**
 * The app profiles of the reference app on the virtual device (API 34), each driven only with the
 * real adb binary and the fixture server: what each posts (the notification_enqueue lines with
 * their channel, flags and group), the tables and preferences it keeps, its jobs in `dumpsys
 * jobscheduler`, and that `no-db-check` makes each re-post at the next run.
 */
import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import type { AppProfile } from '../../src/virtual-device/apps/feed-notifier/app-profiles.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { javaHash, pullAppDatabase, rfc822 } from '../support/app-data.js';
import { testDevices } from '../support/virtual-devices.js';
import { waitFor } from '../support/wait.js';
import { runCli } from '../support/cli.js';

const PKG = 'com.example.feednotifier';
const NS = 'androidx.work.systemjobscheduler';
const HOUR = 3_600_000;
const FEED_URL = 'http://127.0.0.1:8765/feed.xml';

/** Whole seconds, as an RFC 822 date carries them. */
const seconds = (ms: number): number => Math.floor(ms / 1000) * 1000;

function rss(now: number, count: number): string {
  const items = Array.from({ length: count }, (_, k) => {
    const i = count - k;
    return `<item><title>Item ${i}</title><link>https://example.org/item/${i}</link><pubDate>${rfc822(now - i * HOUR)}</pubDate></item>`;
  }).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Feed</title><link>https://example.org/</link>${items}</channel></rss>`;
}

/** The items of rss() oldest first, as the app posts them. */
const links = (count: number): string[] => Array.from({ length: count }, (_, k) => `https://example.org/item/${count - k}`);

interface Enqueue {
  readonly id: number;
  readonly status: number;
  readonly notification: string;
}

describe('android model: the app profiles of the reference app (adb only)', function () {
  this.timeout(90_000);
  const devices = testDevices();
  let adb: AdbServer;
  let fixture: FixtureServer;
  let work: string;
  let serial: string;

  const sh = async (cmd: string): Promise<{ out: string; err: string; code: number }> => {
    const r = await adb.adb(['-s', serial, 'shell', cmd]);
    return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
  };
  const lines = async (cmd: string): Promise<string[]> => (await sh(cmd)).out.split('\n').filter((l) => l.trim() !== '');
  const enqueues = async (): Promise<Enqueue[]> =>
    (await lines('logcat -b events -d')).flatMap((l) => {
      const m = /notification_enqueue: \[10190,\d+,com\.example\.feednotifier,(-?\d+),NULL,0,(Notification\(.*\)),(\d)\]$/.exec(l);
      return m === null ? [] : [{ id: Number(m[1]), notification: m[2] ?? '', status: Number(m[3]) }];
    });
  const deviceNow = async (): Promise<number> => Number((await sh('date +%s%3N')).out.trim());
  const pull = <T>(rel: string, query: (db: Database.Database) => T): Promise<T> => pullAppDatabase(adb, serial, PKG, work, rel, query);
  const tables = (): Promise<string[]> => pull('databases/feed.db', (db) => (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name));
  let fetchesBefore = 0;
  /** Fetches of the feed since boot(). */
  const fetches = (): number => fixture.journal().filter((e) => e.path === '/feed.xml').length - fetchesBefore;

  /** A fresh device with the profile (and bugs), reverse to the fixture server, the feed of `count` items. */
  const boot = async (profile: AppProfile, bugs: string[] = [], count = 3): Promise<number> => {
    await devices.stopAll();
    const d = await devices.start({ apiLevel: 34, appProfile: profile, bugs });
    serial = d.serial;
    await adb.connect(serial);
    expect((await adb.adb(['-s', serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`])).code).to.equal(0);
    const now = await deviceNow();
    fixture.setFeed({ xml: rss(now, count) });
    fetchesBefore = 0;
    fetchesBefore = fetches();
    return now;
  };
  const workManagerJob = async (): Promise<number | undefined> => {
    for (const l of await lines(`dumpsys jobscheduler ${PKG}`)) {
      const m = /^ {2}JOB androidx\.work\.systemjobscheduler:u0a190\/(\d+): /.exec(l);
      if (m !== null) return Number(m[1]);
    }
    return undefined;
  };
  const workerResults = async (): Promise<number> => (await lines('logcat -d -s WM-WorkerWrapper')).filter((l) => l.includes('Worker result')).length;
  /** Starts the app, waits for WorkManager's first period (it runs at once), and for the next period's job. */
  const startAndFirstRun = async (): Promise<void> => {
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the first period', async () => ((await workerResults()) >= 1 ? true : undefined));
    await waitFor("the next period's job", workManagerJob);
  };
  /** Moves the clock past the interval and forces WorkManager's job; waits for its result line. */
  const forceWorkManagerRun = async (): Promise<void> => {
    const before = await workerResults();
    await sh(`cmd alarm set-time ${(await deviceNow()) + 25 * HOUR}`);
    const id = await waitFor("the period's job", workManagerJob);
    expect((await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${id}`)).out).to.equal('Running job [FORCED]\n');
    await waitFor('the forced run', async () => ((await workerResults()) > before ? true : undefined));
  };

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'dv-profiles-spec-'));
    adb = await startAdbServer();
    fixture = await startFixtureServer({ feed: { xml: rss(Date.now(), 0) } });
  });

  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await fixture.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('grouped: an ongoing sync post on its own channel, a group summary on the items\' channel, then the items in the group; the sync post is cancelled after the run', async () => {
    await boot('grouped');
    await startAndFirstRun();
    const posts = await enqueues();
    const flags = (n: string): string => /flags=0x([0-9a-f]+)/.exec(n)?.[1] ?? '';
    const channel = (n: string): string => /channel=(\S+)/.exec(n)?.[1] ?? '';
    const group = (n: string): string | undefined => /groupKey=(\S+)/.exec(n)?.[1];
    expect(posts.map((p) => [p.id, channel(p.notification), flags(p.notification), group(p.notification), p.status])).to.deep.equal([
      [2, 'feed_sync', 'a', undefined, 0],
      [1, 'feed_items', '200', 'feed_items_group', 0],
      ...links(3).map((l) => [javaHash(l), 'feed_items', '10', 'feed_items_group', 0]),
    ]);
    // The records showing: the summary and the items in the app's group (StatusBarNotification.groupKey).
    const groupKeys = (await lines('dumpsys notification --noredact')).filter((l) => l.trim().startsWith('groupKey='));
    expect(groupKeys.map((l) => l.trim())).to.deep.equal(Array.from({ length: 4 }, () => `groupKey=0|${PKG}|g:feed_items_group`));
    const canceled = (await lines('logcat -b events -d')).filter((l) => l.includes(' notification_canceled: '));
    expect(canceled).to.have.length(1);
    expect(canceled[0]).to.match(/notification_canceled: \[0\|com\.example\.feednotifier\|2\|null\|10190,/);
    // The next run has nothing new: the sync post comes and goes again, no summary, no item.
    await forceWorkManagerRun();
    expect((await enqueues()).slice(posts.length).map((p) => p.id)).to.deep.equal([2]);
  });

  it('row-id: every item is a feed_items row as soon as it is synced, posted with its row id, flagged notified after the post; no notifications table', async () => {
    await boot('row-id');
    await startAndFirstRun();
    const rows = await pull('databases/feed.db', (db) => db.prepare('SELECT id, guid, notified FROM feed_items ORDER BY id').all());
    expect(rows).to.deep.equal(links(3).map((guid, i) => ({ id: i + 1, guid, notified: 1 })));
    expect((await enqueues()).map((p) => p.id)).to.deep.equal([1, 2, 3]);
    expect(await tables()).to.not.include('notifications');
    expect(await tables()).to.include('feed_items');
    await forceWorkManagerRun();
    expect(await enqueues()).to.have.length(3);
  });

  it('subscription: with no feed row the worker fetches nothing; a VIEW intent adds the row, the next run fetches it; pm clear loses it', async () => {
    await boot('subscription');
    await startAndFirstRun();
    expect(fetches()).to.equal(0);
    expect(await lines(`logcat -d -s FeedPollWorker`)).to.satisfy((ls: string[]) => ls.some((l) => l.endsWith('No feeds to sync')));
    const view = await sh(`am start -a android.intent.action.VIEW -d ${FEED_URL} -n ${PKG}/.MainActivity`);
    expect(view.code).to.equal(0);
    expect(await pull('databases/feed.db', (db) => db.prepare('SELECT url, notify FROM feeds').all())).to.deep.equal([{ url: FEED_URL, notify: 1 }]);
    await forceWorkManagerRun();
    expect(fetches()).to.equal(1);
    expect((await enqueues()).map((p) => p.id)).to.deep.equal(links(3).map(javaHash));
    expect((await sh(`pm clear ${PKG}`)).out).to.equal('Success\n');
    await startAndFirstRun();
    expect(await pull('databases/feed.db', (db) => db.prepare('SELECT url FROM feeds').all())).to.deep.equal([]);
    expect(fetches()).to.equal(1);
  });

  it('watermark: the newest notified publication time in shared_prefs/notifier_state.xml, no key table; the next run posts nothing', async () => {
    const now = await boot('watermark');
    await startAndFirstRun();
    expect((await enqueues()).map((p) => p.id)).to.deep.equal(links(3).map(javaHash));
    const prefs = await sh(`run-as ${PKG} cat shared_prefs/notifier_state.xml`);
    expect(prefs.out).to.equal(`<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n    <long name="last_notified_published_at" value="${seconds(now - HOUR)}" />\n</map>\n`);
    expect(await tables()).to.not.include('notifications');
    await forceWorkManagerRun();
    expect(await enqueues()).to.have.length(3);
  });

  it('jobscheduler: a periodic job of its own JobService and no WorkManager; run -f posts, logs the result line and leaves the job registered', async () => {
    await boot('jobscheduler');
    await sh(`am start -n ${PKG}/.MainActivity`);
    const dump = await lines(`dumpsys jobscheduler ${PKG}`);
    expect(dump.find((l) => l.startsWith('  JOB '))).to.match(/^ {2}JOB #u0a190\/2: [0-9a-f]+ com\.example\.feednotifier\/\.FeedSyncJobService$/);
    expect(dump).to.include('      PERIODIC: interval=+1d0h0m0s0ms flex=+1d0h0m0s0ms');
    expect(dump).to.include('      PERSISTED');
    expect(dump.filter((l) => l.includes('androidx.work'))).to.deep.equal([]);
    expect((await sh(`run-as ${PKG} ls no_backup/androidx.work.workdb`)).code).to.not.equal(0);
    // No network state in the model: the job waits until it is forced.
    expect(fetches()).to.equal(0);
    expect((await sh(`cmd jobscheduler run -f ${PKG} 2`)).out).to.equal('Running job [FORCED]\n');
    const line = await waitFor('the job\'s result line', async () => (await lines('logcat -d -s FeedSyncJob')).find((l) => l.includes('Sync job 2 finished:')));
    expect(line).to.match(/ I FeedSyncJob: Sync job 2 finished: success$/);
    expect((await enqueues()).map((p) => p.id)).to.deep.equal(links(3).map(javaHash));
    expect((await sh(`cmd jobscheduler get-job-state ${PKG} 2`)).out).to.equal('waiting\n');
  });

  it('jobscheduler: a process death at the 2nd receipt ends the job with a failure backoff; the forced re-run posts that item again, and the next', async () => {
    await boot('jobscheduler');
    await sh(`am start -n ${PKG}/.MainActivity`);
    fixture.setFault('/receipts', { hold: true, passFirst: 1 });
    await sh(`cmd jobscheduler run -f ${PKG} 2`);
    await fixture.waitForHeld(1, 15_000);
    const pid = (await sh(`pidof ${PKG}`)).out.trim();
    expect((await sh(`run-as ${PKG} kill -9 ${pid}`)).code).to.equal(0);
    await waitFor('the app process to die', async () => ((await sh(`pidof ${PKG}`)).out.trim() === '' ? true : undefined));
    fixture.clearFaults('/receipts');
    fixture.release();
    expect((await enqueues()).map((p) => p.id)).to.deep.equal(links(3).slice(0, 2).map(javaHash));
    // JobServiceContext: a job whose process died is rescheduled as a failure (backoff, still registered).
    const dump = await lines(`dumpsys jobscheduler ${PKG}`);
    expect(dump).to.include('    Num failures: 1');
    expect(await lines('logcat -d -s FeedSyncJob')).to.deep.equal([]);
    expect((await sh(`cmd jobscheduler run -f ${PKG} 2`)).out).to.equal('Running job [FORCED]\n');
    await waitFor('the re-run', async () => (await lines('logcat -d -s FeedSyncJob')).find((l) => l.endsWith('Sync job 2 finished: success')));
    expect((await enqueues()).map((p) => p.id)).to.deep.equal([...links(3).slice(0, 2), ...links(3).slice(1)].map(javaHash));
  });

  for (const profile of ['grouped', 'row-id', 'subscription', 'watermark', 'jobscheduler'] as const) {
    it(`${profile} with no-db-check: the next forced run posts every item again`, async () => {
      await boot(profile, ['no-db-check']);
      const itemPosts = async (): Promise<number> => (await enqueues()).filter((p) => /channel=feed_items /.test(p.notification) && !p.notification.includes('flags=0x200')).length;
      if (profile === 'jobscheduler') {
        await sh(`am start -n ${PKG}/.MainActivity`);
        for (let run = 1; run <= 2; run++) {
          expect((await sh(`cmd jobscheduler run -f ${PKG} 2`)).out).to.equal('Running job [FORCED]\n');
          await waitFor(`run ${run}`, async () => ((await lines('logcat -d -s FeedSyncJob')).filter((l) => l.includes('finished:')).length >= run ? true : undefined));
        }
      } else {
        await startAndFirstRun();
        if (profile === 'subscription') {
          await sh(`am start -a android.intent.action.VIEW -d ${FEED_URL} -n ${PKG}/.MainActivity`);
          // The first fetch comes a period later: items an hour or more older than that run.
          fixture.setFeed({ xml: rss((await deviceNow()) + 25 * HOUR, 3) });
          await forceWorkManagerRun();
        }
        const first = await itemPosts();
        expect(first).to.equal(3);
        await forceWorkManagerRun();
      }
      expect(await itemPosts()).to.equal(6);
    });
  }
});

describe('--app-profile on the command line', function () {
  this.timeout(60_000);

  it('virtual-device refuses an unknown profile in one line naming the profiles, exit 2', async () => {
    const r = await runCli(['virtual-device', '--app-profile', 'feeder']);
    expect(r.code).to.equal(2);
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/--app-profile takes one of reference, grouped, row-id, subscription, watermark, jobscheduler \(got "feeder"\)/);
  });

  it('run refuses --app-profile without --virtual, before any device is touched', async () => {
    const r = await runCli(['run', '--app-profile', 'grouped', '--device', 'emulator-5554']);
    expect(r.code).to.equal(2);
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/--app-profile picks the shape of the virtual device's reference app: use it with --virtual/);
  });
});

describe('run --virtual --app-profile grouped: the posts that are not items', function () {
  this.timeout(300_000);
  let adb: AdbServer;
  let work: string;
  before(async () => {
    adb = await startAdbServer();
    work = mkdtempSync(join(tmpdir(), 'dv-grouped-run-'));
  });
  after(async () => {
    await adb.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('records the group summary and the ongoing sync post as not-an-item events, no post as unexpected, and every scenario passes', async () => {
    const out = join(work, 'run');
    const r = await runCli(['run', '--virtual', '--app-profile', 'grouped', '--out', out], { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
    expect(r.code, r.stderr.slice(-3000)).to.equal(0);
    const history = readFileSync(join(out, 'history.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    const notItems = history.filter((e) => e['type'] === 'not-an-item');
    expect(new Set(notItems.map((e) => `${String(e['reason'])} ${String(e['id'])} ${String(e['channel'])}`))).to.deep.equal(new Set(['group-summary 1 feed_items', 'ongoing 2 feed_sync']));
    expect(history.filter((e) => e['type'] === 'notified' && String(e['item']).startsWith('?'))).to.deep.equal([]);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { scenarios: { name: string; verdict: string; counts: { unexpectedCount: number } }[] };
    expect(report.scenarios.filter((s) => s.verdict !== 'pass' || s.counts.unexpectedCount !== 0).map((s) => s.name)).to.deep.equal([]);
    expect(report.scenarios).to.have.length(15);
  });
});
