/**
 * Each bug switch of the reference app (docs/reference-app.md "Bug switches") changes the
 * observable behaviour it names: every case runs the same steps on a correct device and on a
 * device started with that one switch, both driven only with adb and the fixture server, and
 * compares what they show.
 */
import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, type FaultPlan, type FixtureServer } from '../../src/feed/fixture-server.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { pullAppDatabase } from '../support/app-data.js';
import { testDevices, type TestDevices } from '../support/virtual-devices.js';

const PKG = 'com.example.feednotifier';
const NS = 'androidx.work.systemjobscheduler';
const HOUR = 3_600_000;

function javaHash(s: string): number {
  let h = 0n;
  for (let i = 0; i < s.length; i++) h = BigInt.asIntN(32, h * 31n + BigInt(s.charCodeAt(i)));
  return Number(h);
}

function rfc822(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString().replace('GMT', '+0000');
}

interface Item {
  title: string;
  link: string;
  /** Hours before the device's time when the feed is served; a string is served verbatim. */
  age: number | string;
}

/** One device (correct or with bugs), its fixture server and the adb steps the cases use. */
class Session {
  serial = '';
  fixture!: FixtureServer;
  private dir = '';

  constructor(
    private readonly adb: AdbServer,
    private readonly devices: TestDevices,
    readonly bugs: readonly string[],
  ) {}

  async start(): Promise<this> {
    this.dir = mkdtempSync(join(tmpdir(), 'dv-bugs-'));
    this.fixture = await startFixtureServer();
    const d = await this.devices.start({ apiLevel: 34, bugs: this.bugs });
    this.serial = d.serial;
    await this.adb.connect(this.serial);
    const r = await this.adb.adb(['-s', this.serial, 'reverse', 'tcp:8765', `tcp:${this.fixture.port}`]);
    if (r.code !== 0) throw new Error(`adb reverse failed: ${r.stderr}`);
    return this;
  }

  async stop(): Promise<void> {
    await this.fixture.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async sh(cmd: string): Promise<{ out: string; err: string; code: number }> {
    const r = await this.adb.adb(['-s', this.serial, 'shell', cmd]);
    return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
  }

  async lines(cmd: string): Promise<string[]> {
    return (await this.sh(cmd)).out.split('\n').filter((l) => l.trim() !== '');
  }

  async now(): Promise<number> {
    return Number((await this.sh('date +%s%3N')).out.trim());
  }

  async serve(items: readonly Item[]): Promise<void> {
    const now = await this.now();
    const xml = items
      .map((i) => `<item><title>${i.title}</title><link>${i.link}</link><pubDate>${typeof i.age === 'string' ? i.age : rfc822(now - i.age * HOUR)}</pubDate></item>`)
      .join('');
    this.fixture.setFeed({ xml: `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>F</title><link>https://example.org/</link>${xml}</channel></rss>` });
  }

  fault(route: string, plan: FaultPlan): void {
    this.fixture.setFault(route, plan);
  }

  /** notification_enqueue lines of the app: [id, status]. */
  async posts(): Promise<[number, number][]> {
    return (await this.lines('logcat -b events -d')).flatMap((l) => {
      const m = /notification_enqueue: \[10190,\d+,com\.example\.feednotifier,(-?\d+),NULL,0,Notification\(.*\),(\d)\]$/.exec(l);
      return m === null ? [] : [[Number(m[1]), Number(m[2])] as [number, number]];
    });
  }

  async results(): Promise<string[]> {
    return (await this.lines('logcat -d -s WM-WorkerWrapper')).filter((l) => l.includes('Worker result')).map((l) => /Worker result (\w+)/.exec(l)![1]!);
  }

  async waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`${this.bugs.join(',') || 'correct app'}: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async waitResults(n: number): Promise<string[]> {
    return this.waitFor(`${n} worker results`, async () => {
      const r = await this.results();
      return r.length >= n ? r : undefined;
    });
  }

  async jobId(): Promise<number> {
    return this.waitFor('a registered job', async () => {
      const m = /JOB androidx\.work\.systemjobscheduler:u0a190\/(\d+):/.exec((await this.sh(`dumpsys jobscheduler ${PKG}`)).out);
      return m === null ? undefined : Number(m[1]);
    });
  }

  /** `am start` and the first period, which runs at once. */
  async launch(): Promise<void> {
    const before = (await this.results()).length;
    await this.sh(`am start -n ${PKG}/.MainActivity`);
    await this.waitResults(before + 1);
  }

  /** Moves the wall clock past the interval (or `advanceMs`) and forces the job, waiting for its result. */
  async nextPeriod(advanceMs = 25 * HOUR): Promise<void> {
    const before = (await this.results()).length;
    await this.sh(`cmd alarm set-time ${(await this.now()) + advanceMs}`);
    await this.sh(`cmd jobscheduler run -f -n ${NS} ${PKG} ${await this.jobId()}`);
    await this.waitResults(before + 1);
  }

  pull<T>(rel: string, query: (db: Database.Database) => T): Promise<T> {
    return pullAppDatabase(this.adb, this.serial, PKG, this.dir, rel, query);
  }
}

describe('android model: each bug switch changes exactly its property (correct app vs switch)', function () {
  this.timeout(60_000);
  let adb: AdbServer;
  const devices = testDevices();
  const sessions: Session[] = [];

  before(async () => {
    adb = await startAdbServer();
  });
  after(async () => {
    await Promise.all(sessions.map((s) => s.stop()));
    await devices.stopAll();
    await adb.stop();
  });

  /** Runs `steps` on a correct device and on one with `bug`, in parallel; returns both results. */
  async function compare<T>(bug: string, steps: (s: Session) => Promise<T>): Promise<{ good: T; bad: T }> {
    const good = new Session(adb, devices, []);
    const bad = new Session(adb, devices, [bug]);
    sessions.push(good, bad);
    await Promise.all([good.start(), bad.start()]);
    const [g, b] = await Promise.all([steps(good), steps(bad)]);
    return { good: g, bad: b };
  }

  const fresh = (n: number): Item => ({ title: `Item ${n}`, link: `https://example.org/item/${n}`, age: n });
  const id = (n: number): number => javaHash(`https://example.org/item/${n}`);

  it('no-db-check: the next period re-notifies everything still in the window', async () => {
    const { good, bad } = await compare('no-db-check', async (s) => {
      await s.serve([fresh(1), fresh(2)]);
      await s.launch();
      await s.nextPeriod();
      return s.posts();
    });
    expect(good).to.deep.equal([[id(2), 0], [id(1), 0]]);
    expect(bad).to.deep.equal([[id(2), 0], [id(1), 0], [id(2), 1], [id(1), 1]]);
  });

  it('dedup-elsewhere: deleted rows are not re-posted because a high-water mark also suppresses', async () => {
    const { good, bad } = await compare('dedup-elsewhere', async (s) => {
      await s.serve([fresh(1), fresh(2)]);
      await s.launch();
      await s.sh(`run-as ${PKG} sqlite3 databases/feed.db 'DELETE FROM notifications'`);
      await s.nextPeriod();
      const prefs = (await s.sh(`run-as ${PKG} cat shared_prefs/feed_prefs.xml`)).out;
      return { posts: (await s.posts()).length, prefs: /<long name="last_seen_published_at" value="\d+" \/>/.test(prefs) };
    });
    expect(good).to.deep.equal({ posts: 4, prefs: false });
    expect(bad).to.deep.equal({ posts: 2, prefs: true });
  });

  it('memory-only-dedup: a new process forgets what the old one notified', async () => {
    const { good, bad } = await compare('memory-only-dedup', async (s) => {
      await s.serve([fresh(1), fresh(2)]);
      await s.launch();
      await s.nextPeriod();
      const sameProcess = (await s.posts()).length;
      await s.sh(`am force-stop ${PKG}`);
      await s.sh(`am start -n ${PKG}/.MainActivity`);
      await s.serve([fresh(1), fresh(2)]);
      await s.nextPeriod();
      return { sameProcess, afterRestart: (await s.posts()).length };
    });
    expect(good).to.deep.equal({ sameProcess: 2, afterRestart: 2 });
    expect(bad).to.deep.equal({ sameProcess: 2, afterRestart: 4 });
  });

  it('no-window: a first install notifies items older than the window', async () => {
    const { good, bad } = await compare('no-window', async (s) => {
      await s.serve([fresh(1), { title: 'Old', link: 'https://example.org/old', age: 24 * 10 }]);
      await s.launch();
      return s.posts();
    });
    expect(good).to.deep.equal([[id(1), 0]]);
    expect(bad).to.deep.equal([[javaHash('https://example.org/old'), 0], [id(1), 0]]);
  });

  it('newest-first: posts come newest first', async () => {
    const { good, bad } = await compare('newest-first', async (s) => {
      await s.serve([fresh(2), fresh(1), fresh(3)]);
      await s.launch();
      return (await s.posts()).map(([n]) => n);
    });
    expect(good).to.deep.equal([id(3), id(2), id(1)]);
    expect(bad).to.deep.equal([id(1), id(2), id(3)]);
  });

  it('date-defaults-to-now: an unparseable date notifies (on every run)', async () => {
    const { good, bad } = await compare('date-defaults-to-now', async (s) => {
      await s.serve([{ title: 'Bad', link: 'https://example.org/bad', age: 'yesterday-ish' }]);
      await s.launch();
      return s.posts();
    });
    expect(good).to.deep.equal([]);
    expect(bad).to.deep.equal([[javaHash('https://example.org/bad'), 0]]);
  });

  it('key-on-title: an edited title notifies the same link again', async () => {
    const { good, bad } = await compare('key-on-title', async (s) => {
      await s.serve([{ title: 'First title', link: 'https://example.org/edit', age: 2 }]);
      await s.launch();
      await s.serve([{ title: 'Edited title', link: 'https://example.org/edit', age: 2 }]);
      await s.nextPeriod();
      return s.posts();
    });
    expect(good).to.deep.equal([[javaHash('https://example.org/edit'), 0]]);
    expect(bad).to.deep.equal([
      [javaHash('First title'), 0],
      [javaHash('Edited title'), 0],
    ]);
  });

  it('record-before-notify: a kill between the two steps loses the item instead of repeating it', async () => {
    const { good, bad } = await compare('record-before-notify', async (s) => {
      await s.serve([fresh(1)]);
      s.fault('/receipts', { hold: true });
      await s.sh(`am start -n ${PKG}/.MainActivity`);
      await s.fixture.waitForHeld(1, 15_000);
      await s.sh(`am force-stop ${PKG}`);
      s.fixture.clearFaults('/receipts');
      s.fixture.release();
      // The next app start reschedules the interrupted attempt, backed off by 30 s
      // (WorkSpec.isBackedOff: ENQUEUED with run_attempt_count 1): move the clock past it and force.
      await s.sh(`am start -n ${PKG}/.MainActivity`);
      await s.nextPeriod(60_000);
      return s.posts();
    });
    expect(good).to.deep.equal([[id(1), 0], [id(1), 0]]);
    expect(bad).to.deep.equal([]);
  });

  it('window-equals-interval: an item from a missed period (30 h old) is never notified', async () => {
    const { good, bad } = await compare('window-equals-interval', async (s) => {
      await s.serve([{ title: 'Missed', link: 'https://example.org/missed', age: 30 }]);
      await s.launch();
      return s.posts();
    });
    expect(good).to.deep.equal([[javaHash('https://example.org/missed'), 0]]);
    expect(bad).to.deep.equal([]);
  });

  it('empty-link-kept: an entry with an empty link is notified with key ""', async () => {
    const { good, bad } = await compare('empty-link-kept', async (s) => {
      await s.serve([{ title: 'No link', link: '', age: 1 }]);
      await s.launch();
      return s.posts();
    });
    expect(good).to.deep.equal([]);
    expect(bad).to.deep.equal([[0, 0]]);
  });

  it('retry-on-401: HTTP 401 is retried instead of failing', async () => {
    const { good, bad } = await compare('retry-on-401', async (s) => {
      s.fault('/feed.xml', { status: 401 });
      await s.launch();
      const attempts = await s.pull('no_backup/androidx.work.workdb', (db) => db.prepare('SELECT run_attempt_count AS n FROM WorkSpec').get());
      return { results: await s.results(), attempts };
    });
    expect(good).to.deep.equal({ results: ['FAILURE'], attempts: { n: 0 } });
    expect(bad).to.deep.equal({ results: ['RETRY'], attempts: { n: 1 } });
  });

  it('new-key-per-attempt: the re-sent receipt carries a new Idempotency-Key (two effects)', async () => {
    const { good, bad } = await compare('new-key-per-attempt', async (s) => {
      await s.serve([fresh(1)]);
      // Two drops: the first POST goes out on the connection the feed's GET left in the pool, and
      // OkHttp re-sends a request that failed on a pooled connection once, silently, with the same
      // headers (http-client.ts); only the second drop fails the attempt, so the worker's next
      // attempt is the re-sent receipt, with its own key under the bug.
      s.fault('/receipts', { dropAfterProcessing: true, times: 2 });
      await s.launch();
      const keys = s.fixture
        .journal()
        .filter((e) => e.method === 'POST')
        .map((e) => e.headers['idempotency-key']);
      return { posts: keys.length, distinctKeys: new Set(keys).size, effects: s.fixture.effects().length };
    });
    expect(good).to.deep.equal({ posts: 3, distinctKeys: 1, effects: 1 });
    expect(bad).to.deep.equal({ posts: 3, distinctKeys: 2, effects: 2 });
  });

  it('duplicate-schedule: every app start enqueues another periodic WorkSpec, none named feed-poll', async () => {
    const { good, bad } = await compare('duplicate-schedule', async (s) => {
      await s.launch();
      await s.sh(`am force-stop ${PKG}`);
      await s.sh(`am start -n ${PKG}/.MainActivity`);
      return s.pull('no_backup/androidx.work.workdb', (db) => ({
        specs: (db.prepare("SELECT COUNT(*) AS n FROM WorkSpec WHERE worker_class_name = 'com.example.feednotifier.FeedPollWorker'").get() as { n: number }).n,
        named: (db.prepare("SELECT COUNT(*) AS n FROM WorkName WHERE name = 'feed-poll'").get() as { n: number }).n,
      }));
    });
    expect(good).to.deep.equal({ specs: 1, named: 1 });
    expect(bad).to.deep.equal({ specs: 2, named: 0 });
  });

  it('channel-in-activity: a cold process started without the activity has no channel to post into', async () => {
    const { good, bad } = await compare('channel-in-activity', async (s) => {
      await s.serve([fresh(1)]);
      const b = await s.sh(`am broadcast -a androidx.work.diagnostics.REQUEST_DIAGNOSTICS -p ${PKG} --include-stopped-packages`);
      expect(b.out).to.equal(
        `Broadcasting: Intent { act=androidx.work.diagnostics.REQUEST_DIAGNOSTICS flg=0x400020 pkg=${PKG} }\nBroadcast completed: result=0\n`,
      );
      await s.waitFor('the feed-poll result', async () => ((await s.lines('logcat -d -s WM-WorkerWrapper')).some((l) => l.includes('FeedPollWorker')) ? true : undefined));
      const noChannel = (await s.lines('logcat -b system -d -s NotificationService')).filter((l) => l.includes('No Channel found for pkg=com.example.feednotifier, channelId=feed_items'));
      return { posts: await s.posts(), noChannelLines: noChannel.length };
    });
    expect(good).to.deep.equal({ posts: [[id(1), 0]], noChannelLines: 0 });
    expect(bad).to.deep.equal({ posts: [], noChannelLines: 1 });
  });

  it('no-unique-index: the key index is not UNIQUE (and a replayed insert adds a row)', async () => {
    const { good, bad } = await compare('no-unique-index', async (s) => {
      await s.serve([fresh(1)]);
      await s.launch();
      return s.pull('databases/feed.db', (db) => {
        const index = db.prepare("SELECT name, \"unique\" FROM pragma_index_list('notifications')").all();
        const replay = db.prepare('INSERT OR IGNORE INTO notifications (link, title, published_at, notified_at) VALUES (?, ?, 1, 1)').run('https://example.org/item/1', 'again').changes;
        const nulls = db.prepare('INSERT INTO notifications (link, title, published_at, notified_at) VALUES (NULL, ?, 1, 1)');
        nulls.run('legacy a');
        nulls.run('legacy b');
        return { index, replay };
      });
    });
    expect(good).to.deep.equal({ index: [{ name: 'index_notifications_link', unique: 1 }], replay: 0 });
    expect(bad).to.deep.equal({ index: [{ name: 'index_notifications_link', unique: 0 }], replay: 1 });
  });

  it('record-after-loop: a kill at the 3rd receipt leaves 3 items notified and no row, so all 3 repeat', async () => {
    const { good, bad } = await compare('record-after-loop', async (s) => {
      const links = (db: Database.Database): string[] => (db.prepare('SELECT link FROM notifications ORDER BY id').all() as { link: string }[]).map((r) => r.link);
      await s.serve([fresh(1), fresh(2), fresh(3), fresh(4)]);
      s.fault('/receipts', { hold: true, passFirst: 2 });
      await s.sh(`am start -n ${PKG}/.MainActivity`);
      await s.fixture.waitForHeld(1, 15_000);
      await s.sh(`am force-stop ${PKG}`);
      s.fixture.clearFaults('/receipts');
      s.fixture.release();
      const killed = { posts: await s.posts(), rows: await s.pull('databases/feed.db', links) };
      // As for record-before-notify: the interrupted attempt is backed off by 30 s.
      await s.sh(`am start -n ${PKG}/.MainActivity`);
      await s.nextPeriod(60_000);
      const next = { posts: (await s.posts()).slice(killed.posts.length), rows: await s.pull('databases/feed.db', links) };
      return { killed, next };
    });
    const link = (n: number): string => `https://example.org/item/${n}`;
    expect(good).to.deep.equal({
      killed: { posts: [[id(4), 0], [id(3), 0], [id(2), 0]], rows: [link(4), link(3)] },
      next: { posts: [[id(2), 0], [id(1), 0]], rows: [link(4), link(3), link(2), link(1)] },
    });
    expect(bad).to.deep.equal({
      killed: { posts: [[id(4), 0], [id(3), 0], [id(2), 0]], rows: [] },
      next: { posts: [[id(4), 0], [id(3), 0], [id(2), 0], [id(1), 0]], rows: [link(4), link(3), link(2), link(1)] },
    });
  });
});
