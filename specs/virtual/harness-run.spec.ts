/**
 * `dedup-verify run` end to end against virtual devices, through the real adb binary on a
 * private server port: the five checks of docs/sources/000 pass for the correct app and fail, with the
 * right anomaly, for each bug they target; the device is left as it was found, also after
 * SIGINT; bad input is one line and exit 2.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, type AdbServer } from '../support/adb-server.js';
import { virtualLab } from '../support/lab.js';
import { type RunningVirtualDevice } from '../support/virtual-devices.js';
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
  const lab = virtualLab('dv-run-spec-');
  const devices = lab.devices;
  let adb: AdbServer;
  let work: string;
  before(() => ({ adb, work } = lab));

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
    // An earlier run's output in the same directory: its repro script must not outlive it.
    await mkdir(join(out, 'repro'), { recursive: true });
    await writeFile(join(out, 'report.json'), '{}');
    await writeFile(join(out, 'repro', 'back-to-back.sh'), '# from an earlier failing run\n');
    // The earlier run listed what it wrote (src/cli/out-dir.ts): only those files are its own.
    await writeFile(join(out, '.dedup-verify-files.json'), JSON.stringify({ tool: 'dedup-verify', files: ['report.json', 'repro/back-to-back.sh'] }));
    const args = ['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--out', out, ...FIVE.flatMap((s) => ['--scenario', s])];
    const r = await runCli(args);
    expect(r.code, r.stderr).to.equal(0);
    expect(await stat(join(out, 'repro', 'back-to-back.sh')).catch(() => null)).to.equal(null);
    // Evidence per scenario: the logcat lines it observed and the dumpsys outputs at its end.
    const evidence = join(out, 'evidence', d.serial.replace(/[^A-Za-z0-9._-]/g, '_'));
    const logcat = await readFile(join(evidence, 'back-to-back.logcat.txt'), 'utf8');
    expect(logcat).to.match(/^\s*\d+\.\d{3}\s+\d+\s+\d+ I notification_enqueue: \[\d+,\d+,com\.example\.feednotifier,/m);
    expect(logcat).to.match(/ I WM-WorkerWrapper: Worker result SUCCESS for Work \[ id=/);
    expect(await readFile(join(evidence, 'back-to-back.dumpsys-jobscheduler.txt'), 'utf8')).to.match(/^ {2}JOB \S+: \S+ .*SystemJobService$/m);
    expect(await readFile(join(evidence, 'malformed-entries.dumpsys-notification.txt'), 'utf8')).to.match(/NotificationRecord\(/);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { verdict: string; scenarios: { name: string; verdict: string }[] };
    expect(report.verdict).to.equal('pass');
    expect(report.scenarios.map((s) => [s.name, s.verdict])).to.deep.equal(FIVE.map((n) => [n, 'pass']));
    const after = await state(d.serial);
    expectRestored(before, after);
    const expectedNow = before.timeMs + (Date.now() - hostBefore);
    expect(Math.abs(after.timeMs - expectedNow)).to.be.lessThan(2_000);

    // A move of the clock goes out with the command it prepares, in one shell invocation, and the
    // history stays in device-time order (a feed served while the set waited carries its time).
    type Event = { type: string; t?: number; action?: string; argv?: string[]; detail?: string; scenario?: string };
    const events = (await readFile(join(out, 'history.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Event);
    const missed: Event[] = [];
    let scenario = '';
    let latest = 0;
    for (const e of events) {
      if (e.type === 'config') {
        scenario = e.scenario ?? '';
        latest = 0;
        continue;
      }
      if (scenario === 'missed-run') missed.push(e);
      if (e.t === undefined) continue;
      expect(e.t, `${scenario}: ${JSON.stringify(e)} is timed ${latest - e.t} ms before an event it follows`).to.be.greaterThan(latest - 1_000);
      latest = Math.max(latest, e.t);
    }
    const changes = missed.filter((e) => e.type === 'action' && e.action !== 'read');
    const sets = changes.flatMap((e, i) => (e.action === 'set-time' ? [[e, changes[i + 1]] as const] : []));
    expect(sets.length, JSON.stringify(changes.map((e) => e.action))).to.be.greaterThan(1);
    for (const [set, next] of sets) {
      // set-time, then force-run, then (an unkilled run) the wait for the run's end on the device
      // and the reads after the run: each its own event, all in one invocation.
      const size = Number(/\(command 1 of (\d+) sent in one shell invocation\)$/.exec(set.detail ?? '')?.[1]);
      expect(size, set.detail).to.be.greaterThan(1);
      expect([next?.action, next?.detail]).to.deep.equal(['force-run', `command 2 of ${size} sent in one shell invocation`]);
      expect(next?.t).to.equal(set.t);
      // The reads of the invocation (identical reads folded into the first: its place is kept).
      const after = missed.slice(missed.indexOf(next!) + 1);
      const end = after.findIndex((e) => e.action !== 'read' || !(e.detail ?? '').endsWith(` of ${size} sent in one shell invocation`));
      const places = after.slice(0, end < 0 ? after.length : end).map((e) => Number(/^command (\d+) of/.exec(e.detail ?? '')?.[1]));
      expect(places[0], JSON.stringify(after.slice(0, 3))).to.equal(3);
      expect(places).to.deep.equal([...places].sort((a, b) => a - b));
      expect(Math.max(...places)).to.be.at.most(size);
    }
  });

  /** `ls -lRA` of the app's data directory but cache/ and code_cache/: type, mode, size and name. */
  async function appTree(serial: string): Promise<string[]> {
    const listing = await shell(serial, `run-as ${PKG} ls -lRA .`);
    let dir = '';
    const lines: string[] = [];
    for (const line of listing.split('\n')) {
      const header = /^(.*):$/.exec(line);
      if (header) dir = header[1]!;
      const m = /^(\S{10})\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\S+ \S+ (.+)$/.exec(line);
      if (m && !/^\.\/(cache|code_cache)\b/.test(`${dir}/${m[3]!}`) && !/^\.\/(cache|code_cache)$/.test(`${dir}/${m[3]!}`)) {
        // Sizes of SQLite files change with checkpoints; their content is compared below.
        const sqlite = /\.db(-wal|-shm)?$|workdb(-wal|-shm)?$/.test(m[3]!);
        lines.push(`${m[1]!} ${sqlite ? '' : m[2]!} ${dir}/${m[3]!}`);
      }
    }
    return lines;
  }

  /** What WorkManager's own database says of the app's periodic work. */
  async function workSchedule(serial: string): Promise<unknown[]> {
    const dir = await mkdtemp(join(work, 'wm-'));
    try {
      for (const f of ['androidx.work.workdb', 'androidx.work.workdb-wal']) {
        const r = await adb.adb(['-s', serial, 'exec-out', 'run-as', PKG, 'cat', `no_backup/${f}`]);
        if (r.stdout.length > 0 && !r.stdout.toString('utf8').startsWith('cat:')) await writeFile(join(dir, f), r.stdout);
      }
      const db = new Database(join(dir, 'androidx.work.workdb'), { readonly: true });
      try {
        return db.prepare('SELECT id, worker_class_name, state, last_enqueue_time, interval_duration, run_attempt_count FROM workspec ORDER BY id').all();
      } finally {
        db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("keeps every file of the app's data directory and WorkManager's schedule across scenarios that clear the app's data", async () => {
    const d = await usedDevice();
    // The user's own files, in directories the app did not make: a note, preferences (no
    // shared_prefs/ existed), a second database. pm clear (first-install, cold-process) wipes them.
    await shell(d.serial, `run-as ${PKG} sh -c 'mkdir -p files shared_prefs && echo precious > files/user-notes.txt && chmod 600 files/user-notes.txt && echo "<map />" > shared_prefs/user.xml && echo other > databases/other.db && ln -s /system/lib lib'`);
    // A read-only directory with a file in it, an empty directory, a name that looks like an option.
    await shell(d.serial, `run-as ${PKG} sh -c 'mkdir -p files/rodir files/emptydir && echo kept > files/rodir/inside && chmod 555 files/rodir && echo dash > ./-top'`);
    const before = { ...(await state(d.serial)), tree: await appTree(d.serial), work: await workSchedule(d.serial) };
    const note = await shell(d.serial, `run-as ${PKG} cat files/user-notes.txt`);
    expect(note).to.equal('precious');
    expect(before.tree.join('\n')).to.match(/^-rw------- 9 \.\/files\/user-notes\.txt$/m);
    const r = await runCli(['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--scenario', 'first-install', '--scenario', 'cold-process']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.not.match(/TAINTED/);
    const after = { ...(await state(d.serial)), tree: await appTree(d.serial), work: await workSchedule(d.serial) };
    expectRestored(before, after);
    expect(after.tree).to.deep.equal(before.tree);
    expect(await shell(d.serial, `run-as ${PKG} cat files/user-notes.txt`)).to.equal('precious');
    expect(await shell(d.serial, `run-as ${PKG} cat shared_prefs/user.xml`)).to.equal('<map />');
    expect(await shell(d.serial, `run-as ${PKG} cat databases/other.db`)).to.equal('other');
    expect(await shell(d.serial, `run-as ${PKG} cat files/rodir/inside`)).to.equal('kept');
    expect(await shell(d.serial, `run-as ${PKG} cat ./-top`)).to.equal('dash');
    // A symlink (the `lib` link of older releases) is neither copied nor removed.
    expect(await shell(d.serial, `run-as ${PKG} readlink lib`)).to.equal('/system/lib');
    // The schedule is WorkManager's as it was, not the future the scenarios moved it to, and
    // JobScheduler has the app's job again (the app was running before the run). Starting the
    // process for that (WorkManager's diagnostics broadcast) adds one DiagnosticsWorker record.
    const diagnostics = (rows: unknown[]) => rows.filter((w) => (w as { worker_class_name: string }).worker_class_name === 'androidx.work.impl.workers.DiagnosticsWorker');
    const others = (rows: unknown[]) => rows.filter((w) => !diagnostics([w]).length);
    expect(others(after.work)).to.deep.equal(others(before.work));
    expect(others(before.work)).to.have.length.greaterThan(0);
    expect(diagnostics(after.work).length - diagnostics(before.work).length).to.equal(1);
    expect(await shell(d.serial, `dumpsys jobscheduler ${PKG}`)).to.match(/^ {2}JOB \S+: \S+ .*SystemJobService$/m);
    // No state file is left: the run restored everything.
    expect((await runCli(['restore', '--device', d.serial, '--adb-port', String(adb.port)])).stdout).to.not.match(/restored/i);
  });

  it('refuses, changing nothing, an app whose data directory holds a name ls cannot carry (a newline)', async () => {
    const d = await usedDevice();
    await shell(d.serial, `run-as ${PKG} sh -c 'mkdir -p files && echo x > "files/two\nlines"'`);
    const stoppedBefore = /stopped=(\w+)/.exec(await shell(d.serial, `dumpsys package ${PKG}`))?.[1];
    expect(stoppedBefore).to.equal('false');
    const before = { ...(await state(d.serial)), tree: await appTree(d.serial) };
    const r = await runCli(['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--scenario', 'first-install']);
    expect(r.code, r.stderr).to.equal(2);
    // The device's failure, named once with its fix; its trial is reported as not run.
    const lines = r.stderr.split('\n').filter((l) => l.includes('Could not back up'));
    expect(lines, r.stderr).to.have.length(1);
    expect(lines[0]).to.match(/\] 127\.0\.0\.1:\d+: Could not back up "files\/two" of com\.example\.feednotifier on .*: it was listed but cannot be read by that name .* Rename or remove that file, then run again; nothing was changed\.$/);
    const after = { ...(await state(d.serial)), tree: await appTree(d.serial) };
    expectRestored(before, after);
    expect(after.tree).to.deep.equal(before.tree);
    // The save force-stopped the app; it was running, so it is started again, with its job.
    expect(/stopped=(\w+)/.exec(await shell(d.serial, `dumpsys package ${PKG}`))?.[1]).to.equal('false');
    expect(await shell(d.serial, `dumpsys jobscheduler ${PKG}`)).to.match(/^ {2}JOB \S+: \S+ .*SystemJobService$/m);
    expect((await runCli(['restore', '--device', d.serial, '--adb-port', String(adb.port)])).stdout).to.not.match(/restored/i);
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

  it('Ctrl-C under --repeat: every trial is in report.json and junit.xml with its device, numbered from 1', async () => {
    const d = await devices.start();
    await adb.connect(d.serial);
    const out = join(work, 'interrupted-repeat');
    const run = startCli(['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--scenario', 'back-to-back', '--repeat', '3', '--out', out]);
    // The first trial has started (labelled with its number, like the others).
    await run.waitForStderr(/ back-to-back#1 \[\d+\.\ds\] setting up/);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).to.equal(2);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
      scenarios: { name: string; device: string; verdict: string; repeat?: number; error?: string }[];
    };
    expect(report.scenarios.map((s) => [s.name, s.device, s.repeat]), JSON.stringify(report.scenarios)).to.deep.equal([1, 2, 3].map((n) => ['back-to-back', d.serial, n]));
    // The trials after the one the signal came in are not run; the last one at least.
    const notRun = report.scenarios.filter((s) => s.error === 'not run: interrupted');
    expect(notRun.map((s) => s.repeat), r.stderr).to.include(3);
    for (const s of notRun) expect(s.verdict).to.equal('unknown');
    expect(r.stderr).to.include(`] ${notRun.length} trial(s) not run\n`);
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit).to.not.match(/hostname=""|name="dedup-verify\."|classname="dedup-verify\."/);
    expect(junit.match(/<testsuite /g)).to.have.length(1);
    expect(junit).to.include(`<testsuite name="dedup-verify.${d.serial}"`);
    expect(r.stdout).to.not.match(/ on {2}\(/);
  });

  it('a shard that selects no scenario is one line naming the selection, before the device is touched', async () => {
    const d = await devices.start();
    await adb.connect(d.serial);
    const r = await runCli(['run', '--device', d.serial, '--config', CONFIG, '--adb-port', String(adb.port), '--shard', '2/3', '--scenario', 'back-to-back']);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stdout).to.equal('');
    // One line and no progress: the device was not leased, saved or checked.
    expect(r.stderr).to.equal(
      'error: --shard 2/3 selects no scenario: the selection has 1 (back-to-back) and shard I/N takes its scenarios I, I+N, I+2N, …; use --shard I/N with N ≤ 1, or select more scenarios.\n',
    );
  });

  it('refuses an unknown --bug before it starts a private adb server', async () => {
    // Nothing listens on this port: a run --virtual would start its own adb server.
    const closed = await freePort();
    const r = await runCli(['run', '--virtual', '--bug', 'nope'], { env: { ANDROID_ADB_SERVER_PORT: String(closed) } });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.not.match(/private/);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).to.have.length(1);
    expect(r.stderr).to.match(/^error: Unknown bug "nope"\. Bugs: no-db-check, /);
  });

  it('rejects bad config and flags with one line and exit 2', async () => {
    const bad = join(work, 'bad.json');
    await writeFile(bad, '{"app": 5}');
    for (const args of [
      ['run', '--config', bad],
      ['run', '--virtual', '--scenario', 'no-such-scenario'],
      ['run', '--device', 'x', '--bug', 'no-db-check'],
      ['run', '--virtual', '--repeat', 'many'],
      ['run', '--virtual', '--adb-port', '99999'],
      ['run', '--virtual', '--out', bad],
      ['run', '--config', CONFIG, '--shard', '3/2'],
    ]) {
      const r = await runCli(args, { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(2);
      const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('(run with --help'));
      expect(lines, r.stderr).to.have.length(1);
      expect(r.stderr).to.not.match(/\n\s+at /);
    }
  });
});
