/**
 * `dedup-verify run` end to end against virtual devices, through the real adb binary on a
 * private server port: the five checks of seeds/000 pass for the correct app and fail, with the
 * right anomaly, for each bug they target; the device is left as it was found, also after
 * SIGINT; bad input is one line and exit 2.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';
import { runCli, startCli } from '../support/cli.js';

const CONFIG = 'fixtures/reference-app.config.json';
const PKG = 'com.example.feednotifier';
const FIVE = ['back-to-back', 'db-is-truth', 'missed-run', 'window-vs-interval', 'malformed-entries'];

interface DeviceState {
  autoTime: string;
  timeMs: number;
  reverses: string;
  db: string;
}

describe('dedup-verify run (virtual devices, real adb)', function () {
  this.timeout(240_000);
  let adb: AdbServer;
  let work: string;
  const devices = testDevices();

  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-run-spec-'));
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await rm(work, { recursive: true, force: true });
  });

  async function shell(serial: string, command: string): Promise<string> {
    const r = await adb.adb(['-s', serial, 'shell', command]);
    return r.stdout.toString('utf8').trim();
  }

  /**
   * The app database as the app sees it: every row of every table of a pulled copy (main file
   * and WAL). Bytes are not compared: the app checkpoints its WAL whenever it reopens the file.
   */
  async function databaseContent(serial: string): Promise<string> {
    const dir = await mkdtemp(join(work, 'db-'));
    for (const f of ['feed.db', 'feed.db-wal']) {
      const r = await adb.adb(['-s', serial, 'exec-out', 'run-as', PKG, 'cat', `databases/${f}`]);
      if (r.stdout.length > 0 && !r.stdout.toString('utf8').startsWith('cat:')) await writeFile(join(dir, f), r.stdout);
    }
    const db = new Database(join(dir, 'feed.db'));
    try {
      const hash = createHash('sha256');
      const tables = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name`).all() as { name: string; sql: string | null }[];
      for (const t of tables) {
        hash.update(`${t.name}\n${t.sql ?? ''}\n`);
        if (t.sql?.startsWith('CREATE TABLE')) hash.update(JSON.stringify(db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).all()));
      }
      return hash.digest('hex');
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function state(serial: string): Promise<DeviceState> {
    return {
      autoTime: await shell(serial, 'settings get global auto_time'),
      timeMs: Number(await shell(serial, 'date +%s%3N')),
      reverses: (await adb.adb(['-s', serial, 'reverse', '--list'])).stdout.toString('utf8').trim(),
      db: await databaseContent(serial),
    };
  }

  /** A device whose app has already run once and holds rows: the user's data to keep. */
  async function usedDevice(): Promise<RunningVirtualDevice> {
    const d = await devices.start();
    await adb.connect(d.serial);
    await shell(d.serial, `am start -n ${PKG}/.MainActivity`);
    // One row the user already had: the database must come back with it, and without ours.
    await shell(d.serial, `run-as ${PKG} sqlite3 databases/feed.db "INSERT INTO notifications (link, title, published_at, notified_at) VALUES ('https://example.org/mine', 'Mine', 1, 2)"`);
    // The user's own reverse rule, which must survive.
    await adb.adb(['-s', d.serial, 'reverse', 'tcp:9999', 'tcp:9999']);
    return d;
  }

  function expectRestored(before: DeviceState, after: DeviceState): void {
    expect(after.autoTime).to.equal(before.autoTime);
    expect(after.reverses).to.equal(before.reverses);
    expect(after.db).to.equal(before.db);
  }

  it('passes the five checks for the correct app and leaves the device as it was', async () => {
    const d = await usedDevice();
    const before = await state(d.serial);
    const hostBefore = Date.now();
    const out = join(work, 'ok');
    const args = ['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--out', out, ...FIVE.flatMap((s) => ['--scenario', s])];
    const r = await runCli(args);
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { verdict: string; scenarios: { name: string; verdict: string }[] };
    expect(report.verdict).to.equal('pass');
    expect(report.scenarios.map((s) => [s.name, s.verdict])).to.deep.equal(FIVE.map((n) => [n, 'pass']));
    const after = await state(d.serial);
    expectRestored(before, after);
    const expectedNow = before.timeMs + (Date.now() - hostBefore);
    expect(Math.abs(after.timeMs - expectedNow)).to.be.lessThan(2_000);
  });

  const bugCases: [bug: string, scenario: string, kind: string][] = [
    ['no-db-check', 'back-to-back', 'duplicated'],
    ['dedup-elsewhere', 'db-is-truth', 'lost'],
    ['window-equals-interval', 'missed-run', 'lost'],
    ['window-equals-interval', 'window-vs-interval', 'window-too-narrow'],
    ['date-defaults-to-now', 'malformed-entries', 'unexpected'],
    ['empty-link-kept', 'malformed-entries', 'unexpected'],
  ];
  for (const [bug, scenario, kind] of bugCases) {
    it(`--bug ${bug} fails ${scenario} with ${kind} anomalies naming items and runs`, async () => {
      const out = join(work, `${bug}-${scenario}`);
      const r = await runCli(['run', '--virtual', '--bug', bug, '--scenario', scenario, '--out', out], {
        env: { ANDROID_ADB_SERVER_PORT: String(adb.port) },
      });
      expect(r.code, r.stderr).to.equal(1);
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
        scenarios: { name: string; verdict: string; anomalies: { kind: string; item: string; run?: number; runs?: number[]; detail: string }[] }[];
      };
      const s = report.scenarios.find((x) => x.name === scenario);
      expect(s?.verdict).to.equal('fail');
      const anomalies = s?.anomalies.filter((a) => a.kind === kind) ?? [];
      expect(anomalies, JSON.stringify(s?.anomalies)).to.not.be.empty;
      if (kind === 'duplicated') {
        for (const a of anomalies) {
          expect(a.item).to.match(/^https:\/\//);
          expect(a.runs).to.have.length.greaterThan(1);
        }
      }
      if (kind === 'lost') for (const a of anomalies) expect(a.run).to.be.a('number');
    });
  }

  it('restores the device after SIGINT in the middle of a scenario', async () => {
    const d = await usedDevice();
    const before = await state(d.serial);
    const hostBefore = Date.now();
    const run = startCli(['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--scenario', 'db-is-truth']);
    await run.waitForStderr(/delete the recorded rows/);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).to.equal(2);
    const after = await state(d.serial);
    expectRestored(before, after);
    expect(Math.abs(after.timeMs - (before.timeMs + (Date.now() - hostBefore)))).to.be.lessThan(2_000);
  });

  it('rejects bad config and flags with one line and exit 2', async () => {
    const bad = join(work, 'bad.json');
    await writeFile(bad, '{"app": 5}');
    for (const args of [
      ['run', '--config', bad],
      ['run', '--virtual', '--scenario', 'no-such-scenario'],
      ['run', '--device', 'x', '--bug', 'no-db-check'],
      ['run', '--virtual', '--repeat', 'many'],
    ]) {
      const r = await runCli(args, { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(2);
      const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('(run with --help'));
      expect(lines, r.stderr).to.have.length(1);
      expect(r.stderr).to.not.match(/\n\s+at /);
    }
  });
});
