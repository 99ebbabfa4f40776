/**
 * `dedup-verify capture` and `doctor --capture` against virtual devices through the real adb
 * binary: a capture changes nothing on the device and every line of it is understood offline;
 * and every device-output fixture at an API level the virtual device models is replayed: the
 * virtual device's answer to the same command, at the same API level, read by the same parsers,
 * has the fields the fixture has (errors: the same text and exit code).
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main, type CliIo } from '../../src/cli/main.js';
import { readDeviceOutput } from '../../src/android/capture/provenance.js';
import { deviceCommand, kindOfCommand } from '../../src/android/capture/understand.js';
import { jobsOfPackage } from '../../src/android/job-scheduler.js';
import { parseDumpsysJobs } from '../../src/android/parsers/job-scheduler.js';
import { parseLogLine } from '../../src/android/parsers/logcat.js';
import { parseNotificationEnqueue } from '../../src/android/parsers/notification-events.js';
import { parseNotificationRecords, splitKey } from '../../src/android/parsers/notification-records.js';
import { parseDumpsysPackage } from '../../src/android/parsers/packages.js';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices } from '../support/virtual-devices.js';
import { waitFor } from '../support/wait.js';

const PKG = 'com.example.feednotifier';
const HOUR = 3_600_000;
const FIXTURES = fileURLToPath(new URL('../../fixtures/device-output/', import.meta.url));
const MODELLED = ['30', '33', '34'] as const;

function rfc822(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString().replace('GMT', '+0000');
}

function rss(now: number): string {
  const items = [1, 2, 3]
    .map((i) => `<item><title>Fresh ${i}</title><link>https://example.org/fresh/${i}</link><pubDate>${rfc822(now - i * HOUR)}</pubDate></item>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Feed</title><link>https://example.org/</link>${items}</channel></rss>`;
}

interface Shell {
  readonly out: string;
  readonly err: string;
  readonly code: number;
}

describe('capture and doctor --capture (virtual devices, real adb)', function () {
  this.timeout(120_000);
  const devices = testDevices();
  let adb: AdbServer;
  let fixture: FixtureServer;
  let work: string;
  /** One device per modelled API level, with the app launched and one forced run behind it. */
  const serials = new Map<string, string>();

  const sh = async (serial: string, cmd: string): Promise<Shell> => {
    const r = await adb.adb(['-s', serial, 'shell', cmd]);
    return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
  };
  const results = async (serial: string): Promise<number> => (await sh(serial, 'logcat -d -s WM-WorkerWrapper')).out.split('\n').filter((l) => l.includes('Worker result')).length;
  const cli = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    let out = '';
    let err = '';
    const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
    const code = await main(['node', 'dedup-verify', ...args], io);
    return { code, out, err };
  };

  /** A device at `api` where the app has run twice: its job, a notification, the result lines. */
  async function preparedDevice(api: (typeof MODELLED)[number]): Promise<string> {
    const known = serials.get(api);
    if (known !== undefined) return known;
    const d = await devices.start({ apiLevel: Number(api) as 30 | 33 | 34 });
    await adb.connect(d.serial);
    expect((await adb.adb(['-s', d.serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`])).code).to.equal(0);
    expect((await sh(d.serial, `am start -n ${PKG}/.MainActivity`)).code).to.equal(0);
    await waitFor('the first period', async () => ((await results(d.serial)) >= 1 ? true : undefined), 30_000);
    const job = await waitFor('the next period\'s job', async () => jobsOfPackage(parseDumpsysJobs((await sh(d.serial, `dumpsys jobscheduler ${PKG}`)).out), PKG)[0], 30_000);
    const now = Number((await sh(d.serial, 'date +%s%3N')).out.trim()) + 25 * HOUR;
    expect((await sh(d.serial, `cmd alarm set-time ${now}`)).code).to.equal(0);
    fixture.setFeed({ xml: rss(now) });
    const ns = job.namespace !== null ? `-n ${job.namespace} ` : '';
    expect((await sh(d.serial, `cmd jobscheduler run -f ${ns}${PKG} ${job.jobId}`)).out).to.equal('Running job [FORCED]\n');
    await waitFor('the forced run\'s result', async () => ((await results(d.serial)) >= 2 ? true : undefined), 30_000);
    serials.set(api, d.serial);
    return d.serial;
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'dv-capture-spec-'));
    adb = await startAdbServer();
    fixture = await startFixtureServer({ feed: { xml: rss(Date.now()) } });
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await fixture.close();
    rmSync(work, { recursive: true, force: true });
  });

  describe('capture', () => {
    /** What a capture must not change, read through adb. */
    const snapshot = async (serial: string): Promise<Record<string, string>> => {
      const jobs = jobsOfPackage(parseDumpsysJobs((await sh(serial, `dumpsys jobscheduler ${PKG}`)).out), PKG);
      return {
        jobs: JSON.stringify(jobs.map((j) => [j.namespace, j.jobId])),
        jobState: (await Promise.all(jobs.map((j) => sh(serial, `cmd jobscheduler get-job-state ${j.namespace !== null ? `-n ${j.namespace} ` : ''}${PKG} ${j.jobId}`)))).map((s) => s.out).join('|'),
        notifications: (await sh(serial, 'cmd notification list')).out,
        autoTime: (await sh(serial, 'settings get global auto_time')).out,
        appFiles: (await sh(serial, `run-as ${PKG} ls -lRA .`)).out,
        pid: (await sh(serial, `pidof ${PKG}`)).out,
        permissions: (await sh(serial, `dumpsys package ${PKG}`)).out.split('\n').filter((l) => l.includes('granted=')).join('\n'),
        reverse: (await adb.adb(['-s', serial, 'reverse', '--list'])).stdout.toString('utf8'),
        firstEvents: (await sh(serial, 'logcat -d -v epoch -b events')).out.split('\n').slice(0, 20).join('\n'),
      };
    };

    it('writes every output with its provenance header and device.json, changing nothing; doctor --capture understands every line', async () => {
      const serial = await preparedDevice('34');
      const before = await snapshot(serial);
      const out = join(work, 'cap34');
      const r = await cli('capture', '--adb-port', String(adb.port), '--device', serial, '--package', PKG, '--out', out);
      expect(r.code, r.out + r.err).to.equal(0);
      expect(r.out).to.match(new RegExp(`^Captured \\d+ outputs from ${serial.replace(/[.]/g, '\\.')} \\(API 34, `));
      expect(await snapshot(serial)).to.deep.equal(before);

      const device = JSON.parse(readFileSync(join(out, 'device.json'), 'utf8')) as Record<string, unknown> & { files: { file: string; command: string }[] };
      expect(device).to.include({ serial, package: PKG, apiLevel: 34, release: '14' });
      expect(device['fingerprint']).to.be.a('string').and.match(/\/sdk_gphone64_x86_64\//);
      expect(Date.parse(String(device['date']))).to.be.closeTo(Date.now(), 120_000);
      const files = readdirSync(out).sort();
      for (const name of [
        'getprop.txt',
        'settings-get-global-auto_time.txt',
        'dumpsys-package.txt',
        'run-as-id.txt',
        'dumpsys-jobscheduler-pkg.txt',
        'dumpsys-notification-noredact.txt',
        'logcat-events.txt',
        'logcat-main-system.txt',
        'workdb-schema.sql',
      ]) {
        expect(files, name).to.include(name);
      }
      expect(files.some((f) => /^cmd-jobscheduler-get-job-state-androidx\.work\.systemjobscheduler-\d+\.txt$/.test(f)), files.join(' ')).to.equal(true);
      expect(device.files.map((f) => f.file).sort()).to.deep.equal(files.filter((f) => f !== 'device.json'));
      for (const f of device.files) {
        const { header } = readDeviceOutput(readFileSync(join(out, f.file), 'utf8'));
        expect(header, f.file).to.include({ provenance: 'captured', apiLevel: '34', command: f.command });
        expect(kindOfCommand(f.command), f.file).to.not.equal(null);
      }
      expect(readFileSync(join(out, 'workdb-schema.sql'), 'utf8')).to.match(/^PRAGMA user_version = 24;$/m);

      const doctor = await cli('doctor', '--capture', out, '--json');
      expect(doctor.code, doctor.out + doctor.err).to.equal(0);
      const report = JSON.parse(doctor.out) as { ok: boolean; files: { file: string; kind: string; understood: number; notUnderstood: string[] }[] };
      expect(report.ok).to.equal(true);
      expect(report.files.map((f) => f.file).sort()).to.deep.equal(device.files.map((f) => f.file).sort());
      for (const f of report.files) expect(f.notUnderstood, f.file).to.deep.equal([]);
      const understood = (file: string): number => report.files.find((f) => f.file === file)?.understood ?? -1;
      // the job, three notification records and GroupHelper's autogroup summary, the result
      // lines, WorkSpec/WorkName/SystemIdInfo
      expect(understood('dumpsys-jobscheduler-pkg.txt')).to.equal(1);
      expect(understood('dumpsys-notification-noredact.txt')).to.equal(4);
      expect(understood('workdb-schema.sql')).to.be.greaterThan(3);
      const events = readFileSync(join(out, 'logcat-events.txt'), 'utf8').split('\n').filter((l) => l.includes(' notification_enqueue: '));
      expect(events).to.have.length(4);
      expect(events.filter((l) => l.includes(',2147483647,ranker_group,'))).to.have.length(1);
    });

    it('on API 30 the dump lists other apps\' jobs, and those are understood too', async () => {
      const serial = await preparedDevice('30');
      const out = join(work, 'cap30');
      expect((await cli('capture', '--adb-port', String(adb.port), '--device', serial, '--package', PKG, '--out', out)).code).to.equal(0);
      const doctor = await cli('doctor', '--capture', out, '--json');
      expect(doctor.code, doctor.out).to.equal(0);
      const files = (JSON.parse(doctor.out) as { files: { file: string; understood: number }[] }).files;
      expect(files.find((f) => f.file === 'dumpsys-jobscheduler-pkg.txt')?.understood).to.be.greaterThan(1);
      expect(files.some((f) => f.file.startsWith('cmd-jobscheduler-get-job-state-'))).to.equal(true);
    });

    it('refuses a non-empty --out with a one-line error and exit 2, before touching the device', async () => {
      const out = mkdtempSync(join(work, 'not-empty-'));
      writeFileSync(join(out, 'marker.txt'), 'mine');
      const r = await cli('capture', '--adb-port', String(adb.port), '--device', 'nowhere:1', '--out', out);
      expect(r.code).to.equal(2);
      expect(r.err.trim().split('\n')).to.have.length(1);
      expect(r.err).to.match(/is not empty: pass a new directory/);
      expect(readdirSync(out)).to.deep.equal(['marker.txt']);
    });

    it('doctor --capture: a line it cannot read makes exit 1 and is listed; a missing directory is exit 2', async () => {
      const dir = mkdtempSync(join(work, 'pasted-'));
      const good = '08-10 11:20:03.820  1508  1508 I notification_enqueue: [1000,7214,com.x,1337,NULL,0,Notification(channel=c shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x18 color=0x00000000 vis=PRIVATE),0]';
      const bad = '08-10 11:20:03.830  1508  1508 I notification_enqueue: [1000;7214;com.x]';
      writeFileSync(join(dir, 'logcat-events.txt'), `${good}\n${bad}\n`);
      const json = await cli('doctor', '--capture', dir, '--json');
      expect(json.code).to.equal(1);
      expect((JSON.parse(json.out) as { files: unknown[] }).files).to.deep.equal([{ file: 'logcat-events.txt', kind: 'logcat', command: null, understood: 1, notUnderstood: [bad] }]);
      const text = await cli('doctor', '--capture', dir);
      expect(text.code).to.equal(1);
      expect(text.out).to.include(`FAIL logcat-events.txt  (logcat) 1 record understood, 1 line not\n       | ${bad}\n`);
      const missing = await cli('doctor', '--capture', join(work, 'nothing-here'));
      expect(missing.code).to.equal(2);
      expect(missing.err.trim()).to.match(/^.*--capture .*nothing-here does not exist: pass the directory `dedup-verify capture --out DIR` wrote\.$/);
    });
  });

  describe('replay: each fixture at a modelled API level against the virtual device', () => {
    interface Fixture {
      readonly file: string;
      readonly api: (typeof MODELLED)[number];
      readonly command: string;
      readonly exitCode: number | undefined;
      readonly stream: 'stdout' | 'stderr';
      readonly body: string;
    }
    const fixtures: Fixture[] = MODELLED.flatMap((api) =>
      readdirSync(join(FIXTURES, api)).map((name) => {
        const { header, body } = readDeviceOutput(readFileSync(join(FIXTURES, api, name), 'utf8'));
        if (header === null) throw new Error(`${api}/${name} has no provenance header`);
        return { file: `${api}/${name}`, api, command: deviceCommand(header.command), exitCode: header.exitCode, stream: header.stream, body };
      }),
    );

    /** Field-by-field comparisons, by the kind of output. */
    const compare: Record<string, (f: Fixture, live: Shell) => void> = {
      'dumpsys-jobscheduler': (f, live) => {
        const shape = (text: string) =>
          parseDumpsysJobs(text).map((j) => ({
            own: j.servicePackage === PKG || j.details.some((d) => d.endsWith(`pkg=${PKG}`)),
            namespace: j.namespace,
            uid: /^u\d+a\d+$/.test(j.uidText) ? 'u<user>a<app>' : j.uidText,
            serviceClass: j.serviceClass,
            traceTag: j.traceTag !== null,
            labels: [...new Set(j.details.map((d) => /^[A-Za-z][A-Za-z ]*?(?=[:=])/.exec(d)?.[0]).filter((l) => l !== undefined))].sort(),
          }));
        const expected = shape(f.body);
        const actual = shape(live.out);
        const mine = (list: ReturnType<typeof shape>) => list.filter((j) => j.own);
        expect(mine(actual).map(({ labels: _l, ...rest }) => rest), f.file).to.deep.equal(mine(expected).map(({ labels: _l, ...rest }) => rest));
        for (const [i, job] of mine(expected).entries()) expect(mine(actual)[i]?.labels, `${f.file}: detail lines of the app's job`).to.include.members(job.labels);
        expect(actual.filter((j) => !j.own).length > 0, `${f.file}: other apps' JOB headers`).to.equal(expected.some((j) => !j.own));
      },
      'dumpsys-notification': (f, live) => {
        const fields = (text: string) =>
          parseNotificationRecords(text)
            // The app's own posts: GroupHelper's autogroup summary (tag ranker_group) has no title
            // or text; its record is checked in the autogroup unit spec.
            .filter((r) => r.pkg === PKG && r.tag !== 'ranker_group')
            .map((r) => Object.entries(r).filter(([k, v]) => v !== null && k !== 'extras').map(([k]) => k).sort());
        const expected = fields(f.body)[0];
        expect(expected, `${f.file}: the fixture has a record of the app`).to.not.equal(undefined);
        for (const record of fields(live.out)) expect(record, f.file).to.include.members(expected ?? []);
        expect(fields(live.out), f.file).to.have.length.greaterThan(0);
      },
      'dumpsys-package': (f, live) => {
        const shape = (text: string) => {
          const p = parseDumpsysPackage(text, PKG);
          return p === null ? null : { uid: p.uid !== null, debuggable: p.debuggable, runtime: p.users.map((u) => Object.keys(u.runtimePermissions).sort()), install: Object.keys(p.installPermissions).length > 0 };
        };
        expect(shape(live.out), f.file).to.deep.equal(shape(f.body));
      },
      getprop: (f, live) => {
        const keys = (text: string) => new Map(text.split('\n').flatMap((l) => { const m = /^\[([^\]]+)\]: \[(.*)\]$/.exec(l); return m ? [[m[1] ?? '', m[2] ?? ''] as const] : []; }));
        const expected = keys(f.body);
        const actual = keys(live.out);
        for (const key of expected.keys()) expect(actual.has(key), `${f.file}: ${key}`).to.equal(true);
        expect(actual.get('ro.build.version.sdk')).to.equal(expected.get('ro.build.version.sdk'));
      },
      'notification-list': (f, live) => {
        const keys = (text: string) => text.split('\n').filter((l) => l.trim() !== '').map((l) => splitKey(l.trim()));
        expect(keys(live.out).every((k) => k !== null && k.pkg === PKG), f.file).to.equal(true);
        expect(keys(live.out).length, f.file).to.equal(keys(f.body).length);
      },
      'package-list': (f, live) => {
        expect(live.out.split('\n').filter((l) => l.trim() !== '').every((l) => l.startsWith('package:')), f.file).to.equal(true);
        expect(live.out).to.include(`package:${PKG}`);
      },
      logcat: (f, live) => {
        const enqueues = (text: string) =>
          text.split('\n').flatMap((l) => {
            const line = parseLogLine(l);
            const e = line?.tag === 'notification_enqueue' ? parseNotificationEnqueue(line.message) : null;
            return e === null ? [] : [Object.entries(e).filter(([, v]) => v !== null && v !== undefined).map(([k]) => k).sort()];
          });
        const expected = enqueues(f.body)[0];
        if (expected === undefined) return;
        expect(enqueues(live.out), f.file).to.have.length.greaterThan(0);
        for (const e of enqueues(live.out)) expect(e, f.file).to.include.members(expected);
      },
    };
    /** Outputs that do not depend on the device's state: same text, same exit code. */
    const EXACT = new Set([
      '34/cmd-jobscheduler-run-no-package.txt',
      '34/cmd-jobscheduler-run-no-job-namespace.txt',
      '34/cmd-jobscheduler-get-job-state-unknown.txt',
      '34/cmd-notification-get-missing.txt',
      '34/am-start-missing-activity.txt',
    ]);
    /** Fixtures of a state the prepared device is not in, or of another app: read by the parser specs only. */
    const NOT_REPLAYED: Record<string, string> = {
      '34/cmd-jobscheduler-run-constraints.txt': 'a job in the default namespace with unmet constraints (the app\'s job is namespaced on 34)',
      '34/cmd-jobscheduler-run-forced.txt': 'forces a run: not read-only',
      '34/cmd-jobscheduler-run-no-job.txt': 'job 0 of the default namespace: whether it exists depends on what ran before',
      '34/cmd-jobscheduler-get-job-state-pending-ready.txt': 'a pending job: a moment, not a state',
      '34/cmd-jobscheduler-get-job-state-ready.txt': 'a ready job: a moment, not a state',
      '34/cmd-jobscheduler-get-job-state-waiting.txt': 'a waiting job: depends on the clock',
      '34/cmd-notification-get.txt': 'names one notification by its id',
      '34/am-broadcast-diagnostics.txt': 'sends a broadcast: not read-only',
      '34/logcat-nms-warnings.txt': 'NotificationService rate-limit warnings: only after a burst of updates',
      '34/run-as-not-debuggable.txt': 'another (release) app',
      '34/shared-prefs-feed_prefs.txt': 'the app\'s prefs after a run with a server key; parsed by the shared-prefs spec',
    };

    it('every fixture at a modelled level is replayed, or says why not', () => {
      for (const f of fixtures) {
        const kind = kindOfCommand(f.command);
        const replayed = EXACT.has(f.file) || (kind !== null && compare[kind] !== undefined && NOT_REPLAYED[f.file] === undefined);
        expect(replayed || NOT_REPLAYED[f.file] !== undefined, `${f.file}: replay it, or say in NOT_REPLAYED why not`).to.equal(true);
      }
    });

    for (const api of MODELLED) {
      it(`API ${api}: the virtual device answers each command as the fixture shows`, async function () {
        const serial = await preparedDevice(api);
        const mine = fixtures.filter((f) => f.api === api && NOT_REPLAYED[f.file] === undefined);
        expect(mine.length, `fixtures at API ${api}`).to.be.greaterThan(0);
        for (const f of mine) {
          // A logcat fixture names a -T start time of its own: replay it as a dump of the same buffers.
          const command = f.command.startsWith('logcat ') ? `logcat -d -v epoch -b ${/-b (\S+)/.exec(f.command)?.[1] ?? 'main'}` : f.command;
          const live = await sh(serial, command);
          if (EXACT.has(f.file)) {
            const text = f.stream === 'stderr' ? live.err : live.out;
            expect({ text: text.trim(), code: live.code }, f.file).to.deep.equal({ text: f.body.trim(), code: f.exitCode ?? 0 });
            continue;
          }
          const kind = kindOfCommand(f.command);
          const check = kind === null ? undefined : compare[kind];
          expect(check, `${f.file}: no comparison for ${kind}`).to.not.equal(undefined);
          check?.(f, live);
        }
      });
    }
  });
});
