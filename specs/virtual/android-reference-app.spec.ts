/**
 * The reference app on the virtual Android device (API 34), driven only with the real adb binary
 * and the fixture server, as a person would on an emulator: the first period at app start, a
 * forced run after moving the wall clock, the early-run guard, the database check, force-stop
 * and the job coming back at the next app start, and a process death (run-as kill -9; am kill
 * spares a process running a job) between notify and record.
 */
import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { javaHash, pullAppDatabase, rfc822 } from '../support/app-data.js';
import { testDevices } from '../support/virtual-devices.js';
import { waitFor } from '../support/wait.js';

const PKG = 'com.example.feednotifier';
const NS = 'androidx.work.systemjobscheduler';
const HOUR = 3_600_000;

interface Item {
  title: string;
  link: string | null;
  pubDate: string;
}

function rss(items: readonly Item[]): string {
  const body = items
    .map((i) => `<item><title>${i.title}</title>${i.link === null ? '' : `<link>${i.link}</link>`}<pubDate>${i.pubDate}</pubDate></item>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Feed</title><link>https://example.org/</link>${body}</channel></rss>`;
}

describe('android model: the reference app on API 34 (adb only)', function () {
  this.timeout(60_000);
  const devices = testDevices();
  let adb: AdbServer;
  let fixture: FixtureServer;
  let serial: string;
  let work: string;

  const sh = async (cmd: string): Promise<{ out: string; err: string; code: number }> => {
    const r = await adb.adb(['-s', serial, 'shell', cmd]);
    return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
  };
  const lines = async (cmd: string): Promise<string[]> => (await sh(cmd)).out.split('\n').filter((l) => l.trim() !== '');
  const appEnqueueLines = async (): Promise<string[]> => (await lines('logcat -b events -d')).filter((l) => l.includes(' notification_enqueue: ') && l.includes(PKG));
  /** GroupHelper's autogroup summary in the app's name (API 34: from the second ungrouped post). */
  const isSummary = (l: string): boolean => l.includes(`,${PKG},2147483647,ranker_group,0,`);
  /** The app's own posts: its notification_enqueue lines without Android's summary. */
  const enqueueEvents = async (): Promise<string[]> => (await appEnqueueLines()).filter((l) => !isSummary(l));
  const results = async (): Promise<string[]> => (await lines('logcat -d -s WM-WorkerWrapper')).filter((l) => l.includes('Worker result'));
  const waitResults = (n: number): Promise<string[]> => waitFor(`${n} WM-WorkerWrapper result lines`, async () => ((await results()).length >= n ? results() : undefined));
  const jobIds = async (): Promise<number[]> =>
    (await lines(`dumpsys jobscheduler ${PKG}`)).flatMap((l) => {
      const m = /^ {2}JOB androidx\.work\.systemjobscheduler:u0a190\/(\d+): [0-9a-f]+ @androidx\.work\.systemjobscheduler@com\.example\.feednotifier\/androidx\.work\.impl\.background\.systemjob\.SystemJobService$/.exec(l);
      return m === null ? [] : [Number(m[1])];
    });
  const deviceNow = async (): Promise<number> => Number((await sh('date +%s%3N')).out.trim());
  /** Pulls a database with its -wal and -shm (run-as cat), as the harness does, and queries a copy. */
  const pull = <T>(rel: string, query: (db: Database.Database) => T): Promise<T> => pullAppDatabase(adb, serial, PKG, work, rel, query);

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'dv-android-spec-'));
    adb = await startAdbServer();
    fixture = await startFixtureServer({ feed: { xml: rss([]) } });
    const d = await devices.start({ apiLevel: 34 });
    serial = d.serial;
    await adb.connect(serial);
    const r = await adb.adb(['-s', serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`]);
    expect(r.code).to.equal(0);
  });

  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await fixture.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('am start runs Application.onCreate: unique periodic work, its job in WorkManager\'s namespace, and the first period at once', async () => {
    const start = await sh(`am start -n ${PKG}/.MainActivity`);
    expect(start).to.deep.equal({ out: `Starting: Intent { cmp=${PKG}/.MainActivity }\n`, err: '', code: 0 });
    const first = await waitResults(1);
    expect(first[0]).to.match(/ I WM-WorkerWrapper: Worker result SUCCESS for Work \[ id=[0-9a-f-]{36}, tags=\{ com\.example\.feednotifier\.FeedPollWorker \} \]$/);
    expect(await enqueueEvents()).to.deep.equal([]);
    expect(await waitFor('the next period\'s job', async () => ((await jobIds()).length === 1 ? jobIds() : undefined))).to.have.length(1);
    const spec = await pull('no_backup/androidx.work.workdb', (db) => ({
      version: db.pragma('user_version', { simple: true }),
      rows: db
        .prepare(
          "SELECT w.state, w.interval_duration, w.flex_duration, w.backoff_policy, w.backoff_delay_duration, w.period_count, w.run_attempt_count, n.name, t.tag FROM WorkSpec w JOIN WorkName n ON n.work_spec_id = w.id JOIN WorkTag t ON t.work_spec_id = w.id",
        )
        .all(),
    }));
    expect(spec).to.deep.equal({
      version: 24,
      rows: [
        { state: 0, interval_duration: 86_400_000, flex_duration: 86_400_000, backoff_policy: 0, backoff_delay_duration: 30_000, period_count: 1, run_attempt_count: 0, name: 'feed-poll', tag: 'com.example.feednotifier.FeedPollWorker' },
      ],
    });
  });

  it('a forced run past the interval posts one notification per fresh item, oldest first (events, dumpsys, pulled rows, receipts)', async () => {
    const clockBefore = await deviceNow();
    const target = clockBefore + 25 * HOUR;
    expect(await sh(`cmd alarm set-time ${target}`)).to.deep.equal({ out: '', err: '', code: 0 });
    const now = await deviceNow();
    expect(now).to.be.at.least(target);
    fixture.setFeed({
      xml: rss([
        ...[1, 2, 3, 4, 5].map((i) => ({ title: `Fresh ${i}`, link: `https://example.org/fresh/${i}`, pubDate: rfc822(now - i * HOUR) })),
        { title: 'Bad date', link: 'https://example.org/bad-date', pubDate: 'not a date at all' },
        { title: 'No link', link: '', pubDate: rfc822(now - HOUR / 2) },
        { title: 'Ancient', link: 'https://example.org/ancient', pubDate: rfc822(now - 10 * 24 * HOUR) },
      ]),
    });
    const [id] = await jobIds();
    const run = await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${id}`);
    expect(run).to.deep.equal({ out: 'Running job [FORCED]\n', err: '', code: 0 });
    await waitResults(2);
    const events = await enqueueEvents();
    // The summary follows the second post, once (later children join it without a post).
    const all = await appEnqueueLines();
    expect(all.map((l, i) => (isSummary(l) ? i : -1)).filter((i) => i >= 0)).to.deep.equal([2]);
    expect(all[2]).to.match(/,0,Notification\(channel=feed_items .* flags=0x710 .* groupKey=ranker_group vis=PRIVATE\),0\]$/);
    const links = [5, 4, 3, 2, 1].map((i) => `https://example.org/fresh/${i}`);
    expect(events.map((l) => /notification_enqueue: \[10190,\d+,com\.example\.feednotifier,(-?\d+),NULL,0,Notification\(channel=feed_items .*\),(\d)\]$/.exec(l)?.slice(1))).to.deep.equal(
      links.map((l) => [String(javaHash(l)), '0']),
    );
    const dump = (await sh('dumpsys notification --noredact')).out;
    for (let i = 1; i <= 5; i++) expect(dump).to.include(`                android.title=String (Fresh ${i})\n`);
    expect(dump).to.not.include('Bad date');
    const rows = await pull('databases/feed.db', (db) => db.prepare('SELECT link, title FROM notifications ORDER BY id').all());
    expect(rows).to.deep.equal(links.map((link) => ({ link, title: `Fresh ${link.slice(-1)}` })));
    const receipts = fixture.journal().filter((e) => e.method === 'POST');
    expect(receipts.map((e) => JSON.parse(e.body) as unknown)).to.deep.equal(links.map((link) => ({ link, title: `Fresh ${link.slice(-1)}` })));
    expect(new Set(receipts.map((e) => e.headers['idempotency-key'])).size).to.equal(5);
  });

  it('an immediate second forced run is refused by the early-run guard: no fetch, no post, no result line', async () => {
    const [id] = await jobIds();
    const fetches = fixture.journal().filter((e) => e.path === '/feed.xml').length;
    const run = await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${id}`);
    expect(run.out).to.equal('Running job [FORCED]\n');
    // WorkManager reschedules the refused run under a new job id (Schedulers.registerRescheduling).
    await waitFor('the refused run to be rescheduled', async () => {
      const ids = await jobIds();
      return ids.length === 1 && ids[0] !== id ? ids : undefined;
    });
    expect(await results()).to.have.length(2);
    expect(await enqueueEvents()).to.have.length(5);
    expect(fixture.journal().filter((e) => e.path === '/feed.xml')).to.have.length(fetches);
  });

  it('after cmd alarm set-time past the interval the next forced run runs and posts nothing (the database check holds)', async () => {
    await sh(`cmd alarm set-time ${(await deviceNow()) + 25 * HOUR}`);
    const [id] = await jobIds();
    await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${id}`);
    const all = await waitResults(3);
    expect(all[2]).to.include('Worker result SUCCESS');
    expect(await enqueueEvents()).to.have.length(5);
    const spec = await pull('no_backup/androidx.work.workdb', (db) => db.prepare('SELECT period_count, run_attempt_count, state FROM WorkSpec').get());
    expect(spec).to.deep.equal({ period_count: 3, run_attempt_count: 0, state: 0 });
  });

  it('am force-stop cancels the notifications (reason 5) and the job: run -f says it is gone (23) until am start', async () => {
    const [id] = await jobIds();
    expect(await sh(`am force-stop ${PKG}`)).to.deep.equal({ out: '', err: '', code: 0 });
    expect(await jobIds()).to.deep.equal([]);
    const gone = await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${id}`);
    expect(gone).to.deep.equal({ out: '', err: `Could not find job ${id} in package ${PKG} / namespace ${NS} / user 0\n`, code: 23 });
    const canceled = (await lines('logcat -b events -d')).filter((l) => l.includes(' notification_canceled: '));
    // The five posts and the autogroup summary, all with REASON_PACKAGE_CHANGED.
    expect(canceled).to.have.length(6);
    for (const l of canceled) expect(l).to.match(/notification_canceled: \[0\|com\.example\.feednotifier\|(-?\d+\|null|2147483647\|ranker_group)\|10190,5,\d+,\d+,0,-1,-1,NULL\]$/);
    expect(canceled.filter((l) => l.includes('|2147483647|ranker_group|'))).to.have.length(1);
    expect((await sh('cmd notification list')).out).to.equal('');
    await sh(`am start -n ${PKG}/.MainActivity`);
    expect(await jobIds()).to.deep.equal([id]);
    const systemId = await pull('no_backup/androidx.work.workdb', (db) => db.prepare('SELECT s.system_id FROM WorkSpec w JOIN SystemIdInfo s ON s.work_spec_id = w.id AND s.generation = w.generation').get());
    expect(systemId).to.deep.equal({ system_id: id });
  });

  it('a process death between notify and record re-notifies exactly that item at the next run', async () => {
    const now = (await deviceNow()) + 25 * HOUR;
    await sh(`cmd alarm set-time ${now}`);
    fixture.setFeed({ xml: rss([1, 2, 3].map((i) => ({ title: `Kill ${i}`, link: `https://example.org/kill/${i}`, pubDate: rfc822(now - (4 - i) * HOUR) }))) });
    fixture.setFault('/receipts', { hold: true, passFirst: 1 });
    const before = (await enqueueEvents()).length;
    const [id] = await jobIds();
    await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${id}`);
    await fixture.waitForHeld(1, 15_000);
    // `am kill` only kills background processes: not the top app, and not one running a job
    // (JobService bound, oom_adj 250 < SERVICE_ADJ), even after HOME. A signal kills it.
    const pid = (await sh(`pidof ${PKG}`)).out.trim();
    expect((await sh(`am kill ${PKG}`)).code).to.equal(0);
    expect((await sh(`pidof ${PKG}`)).out.trim()).to.equal(pid);
    await sh('input keyevent KEYCODE_HOME');
    expect((await sh(`am kill ${PKG}`)).code).to.equal(0);
    expect((await sh(`pidof ${PKG}`)).out.trim()).to.equal(pid);
    expect(await sh(`run-as ${PKG} kill -9 ${pid}`)).to.deep.equal({ out: '', err: '', code: 0 });
    await waitFor('the app process to die', async () => ((await sh(`pidof ${PKG}`)).out.trim() === '' ? true : undefined));
    fixture.clearFaults('/receipts');
    fixture.release();
    const posted = (await enqueueEvents()).slice(before);
    expect(posted).to.have.length(2);
    const state = await pull('no_backup/androidx.work.workdb', (db) => db.prepare('SELECT state, run_attempt_count FROM WorkSpec').get());
    expect(state).to.deep.equal({ state: 1, run_attempt_count: 1 });
    const stored = await pull('databases/feed.db', (db) => (db.prepare("SELECT link FROM notifications WHERE link LIKE '%/kill/%' ORDER BY id").all() as { link: string }[]).map((r) => r.link));
    expect(stored).to.deep.equal(['https://example.org/kill/1']);
    const resultCount = (await results()).length;
    await sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${(await jobIds())[0]}`);
    await waitResults(resultCount + 1);
    const after = (await enqueueEvents()).slice(before).map((l) => /,(-?\d+),NULL,0,/.exec(l)?.[1]);
    expect(after).to.deep.equal(['https://example.org/kill/1', 'https://example.org/kill/2', 'https://example.org/kill/2', 'https://example.org/kill/3'].map((l) => String(javaHash(l))));
    const keys = fixture.journal().filter((e) => e.method === 'POST' && e.body.includes('/kill/2')).map((e) => e.headers['idempotency-key']);
    expect(keys.length).to.be.at.least(2);
    expect(new Set(keys).size).to.equal(1);
  });
});
