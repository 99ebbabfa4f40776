/**
 * What goes out in one shell invocation, read from a run's history (each command of a batch is an
 * action event whose detail says "command K of N sent in one shell invocation"): the reads after a
 * killed run go with the kill, once the process is gone; a scenario's schedule is read with the
 * app's start; an edit of the database reads it back once, and the store takes the table from
 * that read; a read of the dedup table right after a run takes the run's own reads; the first
 * scenario's first device time needs no `date` of its own; the grant after `pm clear` and every
 * move of the clock go with the change after them; the session's open sends the logcat stream's
 * start marker and auto_time with the backup's first invocation; a scenario's evidence dumps go
 * first in the next scenario's first invocation (the last one's at the close). Real adb, the
 * embedded virtual device (and one in this process for the session's open).
 */
import { expect } from 'chai';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { AdbDevice } from '../../src/device/adb-device.js';
import { DeviceSession } from '../../src/harness/device-session.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { runCli } from '../support/cli.js';
import { virtualLab } from '../support/lab.js';
import { watchServices } from '../support/virtual-devices.js';

interface Event {
  readonly type: string;
  readonly scenario?: string;
  readonly action?: string;
  readonly argv?: readonly string[];
  readonly command?: string;
  readonly detail?: string;
  readonly label?: string;
}

const PKG = 'com.example.feednotifier';

/** "command K of N sent in one shell invocation" → [K, N]; undefined for a command sent on its own. */
function place(e: Event): [number, number] | undefined {
  const m = /command (\d+) of (\d+) sent in one shell invocation/.exec(e.detail ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function words(e: Event): string {
  return e.argv?.join(' ') ?? e.command ?? '';
}

describe('one shell invocation: what goes together (virtual device, real adb)', function () {
  this.timeout(300_000);
  let adb: AdbServer;
  let work: string;
  const segments = new Map<string, Event[]>();
  let out: string;

  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-invocations-'));
    out = join(work, 'out');
    const scenarios = ['back-to-back', 'db-is-truth', 'missed-run', 'first-install', 'kill-mid-run', 'process-death-replay'];
    const ran = await runCli(['run', '--virtual', ...scenarios.flatMap((s) => ['--scenario', s]), '--out', out], { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
    expect(ran.code, ran.stderr.slice(-3000)).to.equal(0);
    let current: Event[] = [];
    for (const line of (await readFile(join(out, 'history.jsonl'), 'utf8')).trim().split('\n')) {
      const e = JSON.parse(line) as Event;
      if (e.type === 'config') segments.set(e.scenario ?? '', (current = []));
      else current.push(e);
    }
    expect([...segments.keys()]).to.deep.equal(scenarios);
  });
  after(async () => {
    await adb.stop();
    await rm(work, { recursive: true, force: true });
  });

  const actions = (scenario: string): Event[] => (segments.get(scenario) ?? []).filter((e) => e.type === 'action');

  it('the reads after a killed run go in the kill\'s invocation, after a wait until the process is gone', () => {
    const events = actions('kill-mid-run');
    const kills = events.filter((e) => e.action === 'kill');
    expect(kills.map((k) => words(k).startsWith('run-as') ? 'signal' : 'force-stop')).to.deep.equal(['signal', 'signal', 'signal', 'force-stop']);
    for (const kill of kills) {
      const at = events.indexOf(kill);
      const [k, n] = place(kill) ?? [0, 0];
      expect(k, kill.detail).to.equal(1);
      // Every command after the kill up to the next change is a read of the same invocation.
      const after: Event[] = [];
      for (const e of events.slice(at + 1)) {
        if (e.action !== 'read') break;
        after.push(e);
      }
      expect(after.map((e) => place(e)?.[1]), words(kill)).to.deep.equal(after.map(() => n));
      expect(after[0]?.command ?? '', 'the wait comes first').to.match(new RegExp(`^__dv_n=0; while pidof ${PKG.replace(/\./g, '\\.')} `));
      expect(after.map(words)).to.include(`run-as ${PKG} cat databases/feed.db`);
      expect(after.map(words)).to.include(`dumpsys jobscheduler ${PKG}`);
      expect(after.map(words)).to.not.include('date +%s%3N');
    }
  });

  it("a scenario's schedule is the one read with the app's start", () => {
    const events = segments.get('missed-run') ?? [];
    const schedule = events.findIndex((e) => e.type === 'schedule' && e.label === 'schedule');
    expect(schedule).to.be.greaterThan(0);
    const before = events.slice(0, schedule).filter((e) => e.type === 'action');
    const start = before.findLast((e) => e.action === 'start-app');
    expect(start, 'the setup starts the app').to.not.equal(undefined);
    const invocation = place(start!)?.[1];
    for (const e of before.slice(before.indexOf(start!))) expect(place(e)?.[1], words(e)).to.equal(invocation);
  });

  it('an edit of the database is read back once, and the store takes the table from that read', () => {
    const events = segments.get('db-is-truth') ?? [];
    const write = events.findIndex((e) => e.type === 'action' && words(e).startsWith(`run-as ${PKG} sh -c cat > databases/feed.db.dv-`));
    expect(write, 'the edit writes the database').to.be.greaterThan(0);
    const forget = events.findIndex((e, i) => i > write && e.action === 'forget-rows');
    const reads = events.slice(write + 1, forget).filter((e) => e.type === 'action');
    // The check: -wal, main, -wal in one invocation (a read repeated with the same result is one
    // event, command-log.ts); no read of the main file on its own.
    expect(reads.map((e) => [words(e), place(e)])).to.deep.equal([
      [`run-as ${PKG} cat databases/feed.db-wal`, [1, 3]],
      [`run-as ${PKG} cat databases/feed.db`, [2, 3]],
    ]);
    const forgotten = events.findIndex((e) => e.type === 'forgotten');
    const start = events.findIndex((e, i) => i > forgotten && e.action === 'start-app');
    expect(events.slice(forgotten, start).filter((e) => e.action === 'read'), 'no read between the forget and the start').to.deep.equal([]);
  });

  it("a read of the dedup table right after a run takes the run's own reads", () => {
    const events = segments.get('process-death-replay') ?? [];
    const rows = events.findIndex((e) => e.type === 'rows');
    const finished = events.findLastIndex((e, i) => i < rows && e.type === 'run-finished');
    expect(finished).to.be.greaterThan(0);
    expect(events.slice(finished, rows).filter((e) => e.type === 'action')).to.deep.equal([]);
  });

  it("the first scenario's first device time comes from the clock read when the session opened", () => {
    const events = actions('back-to-back');
    const first = events.findIndex((e) => e.action === 'force-stop');
    expect(events.slice(0, first).map(words)).to.not.include('date +%s%3N');
  });

  it("a scenario's dumps go first in the next scenario's first invocation, before its force-stop; every scenario has its evidence files", async () => {
    const names = [...segments.keys()];
    for (const name of names.slice(1)) {
      const [jobs, notifications, stop] = actions(name);
      const n = place(jobs ?? { type: 'action' })?.[1];
      expect([jobs, notifications, stop].map((e) => [words(e ?? { type: 'action' }), place(e ?? { type: 'action' })]), name).to.deep.equal([
        [`dumpsys jobscheduler ${PKG}`, [1, n]],
        ['dumpsys notification --noredact', [2, n]],
        [`am force-stop ${PKG}`, [3, n]],
      ]);
    }
    const [serial] = await readdir(join(out, 'evidence'));
    const dir = join(out, 'evidence', serial ?? '');
    for (const name of names) {
      expect(await readFile(join(dir, `${name}.dumpsys-jobscheduler.txt`), 'utf8'), name).to.match(/^Started users: /);
      expect(await readFile(join(dir, `${name}.dumpsys-notification.txt`), 'utf8'), name).to.match(/^Current Notification Manager state:/);
    }
  });

  it('the grant after `pm clear` goes first in the invocation of the start after it', () => {
    const events = actions('first-install');
    const grant = events.findIndex((e) => e.action === 'grant');
    expect(grant, 'first-install grants POST_NOTIFICATIONS back on API 34').to.be.greaterThan(0);
    expect(words(events[grant]!)).to.equal(`pm grant ${PKG} android.permission.POST_NOTIFICATIONS`);
    const n = place(events[grant]!)?.[1];
    expect(place(events[grant]!)).to.deep.equal([1, n]);
    expect([events[grant + 1]?.action, place(events[grant + 1]!)]).to.deep.equal(['start-app', [2, n]]);
  });

  it("every move of the clock goes first in the invocation of the change after it, the session's first one too", () => {
    const sets = [...segments.values()].flat().filter((e) => e.type === 'action' && e.action === 'set-time');
    expect(sets.length).to.be.greaterThan(10);
    for (const set of sets) expect(place(set)?.[0], `${words(set)}: ${set.detail ?? ''}`).to.equal(1);
  });
});

describe("one shell invocation: the session's open (virtual device in this process, real adb)", function () {
  this.timeout(120_000);
  const lab = virtualLab('dv-invocations-open-');

  it('sends the logcat stream\'s start marker and auto_time off with the backup\'s force-stop and listing', async () => {
    const config = await loadConfig('fixtures/reference-app.config.json');
    const dev = await lab.devices.start();
    await lab.adb.connect(dev.serial);
    const services = watchServices(dev);
    const device = await AdbDevice.open({ serial: dev.serial, port: lab.adb.port });
    try {
      const session = await DeviceSession.open({ device, config, adb: { host: '127.0.0.1', port: lab.adb.port }, progress: () => undefined });
      const atOpen = [...services.opened];
      await session.close();
      const shells = atOpen.filter((n) => n.startsWith('shell'));
      // The logcat stream, the checks with the state they read, the backup's first invocation.
      expect(shells, atOpen.join('\n')).to.have.length(3);
      const backup = shells.find((n) => n.includes('am force-stop')) ?? '';
      for (const part of ['run-as com.example.feednotifier ls -lRA', 'log -p i -t dedup-verify', 'settings put global auto_time 0']) expect(backup, part).to.include(part);
      // auto_time is back as it was after the close.
      expect((await device.shellText(['settings', 'get', 'global', 'auto_time'])).trim()).to.not.equal('0');
    } finally {
      services.stop();
      await device.close();
    }
  });
});
