/**
 * API 30 (Android 11) `dumpsys jobscheduler PKG` lists the JOB lines of every registered job,
 * other apps' WorkManager jobs included (their details are filtered out), as
 * JobSchedulerService.dumpInternal @150a9240 does; API 33 prints only the package's. The
 * harness (findJob), the repro script's job lookup (find_job, run by bash through real adb) and
 * `dedup-verify run --virtual --api 30` pick the app's own job among them.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findJob, getJobState, runJob, WORKMANAGER_JOB_SERVICE } from '../../src/android/job-scheduler.js';
import { AdbDevice } from '../../src/device/adb-device.js';
import { startFixtureServer, type FixtureServer } from '../../src/feed/fixture-server.js';
import { renderReproScript } from '../../src/report/repro.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { runCli } from '../support/cli.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

const PKG = 'com.example.feednotifier';
const WM = 'androidx.work.impl.background.systemjob.SystemJobService';
const HOUR = 3_600_000;

function rfc822(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString().replace('GMT', '+0000');
}

describe('android model: other apps\' WorkManager jobs on API 30 (adb only)', function () {
  this.timeout(300_000);
  const devices = testDevices();
  let adb: AdbServer;
  let fixture: FixtureServer;
  let work: string;

  before(async () => {
    adb = await startAdbServer();
    fixture = await startFixtureServer();
    work = await mkdtemp(join(tmpdir(), 'dv-api30-'));
    const now = Date.now();
    const items = [1, 2].map((i) => `<item><title>Item ${i}</title><link>https://example.org/o/${i}</link><pubDate>${rfc822(now - i * HOUR)}</pubDate></item>`).join('');
    fixture.setFeed({ xml: `<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>https://example.org/</link>${items}</channel></rss>` });
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await fixture.close();
    await rm(work, { recursive: true, force: true });
  });

  async function device(apiLevel: 30 | 33): Promise<{ d: RunningVirtualDevice; sh: (cmd: string) => Promise<{ out: string; err: string; code: number }> }> {
    const d = await devices.start({ apiLevel });
    await adb.connect(d.serial);
    await adb.adb(['-s', d.serial, 'reverse', 'tcp:8765', `tcp:${fixture.port}`]);
    const sh = async (cmd: string): Promise<{ out: string; err: string; code: number }> => {
      const r = await adb.adb(['-s', d.serial, 'shell', cmd]);
      return { out: r.stdout.toString('utf8'), err: r.stderr, code: r.code };
    };
    return { d, sh };
  }

  async function waitFor(what: string, ok: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const jobLines = (dump: string): string[] => dump.split('\n').filter((l) => l.startsWith('  JOB '));
  /** The JOB lines as `<unique id>: <battery name>`, the hash code left out. */
  const heads = (dump: string): string[] => jobLines(dump).map((l) => l.replace(/^ {2}JOB (\S+) [0-9a-f]+ /, '$1 '));
  /** The app's WorkManager job id in a dump (WorkManager picks it; the first period may take a new one). */
  const appJobId = (dump: string): number => Number(new RegExp(`^ {2}JOB #u0a190/(\\d+): [0-9a-f]+ ${PKG.replace(/\./g, '\\.')}/`, 'm').exec(dump)?.[1]);

  it('API 30: the app\'s dump has the other apps\' JOB lines, sorted by uid and id, without their details', async () => {
    const { sh } = await device(30);
    // Before the app runs: only the other apps' jobs are registered, and none is the app's.
    const before = (await sh(`dumpsys jobscheduler ${PKG}`)).out;
    expect(before).to.include('Registered 3 jobs:\n');
    expect(heads(before)).to.deep.equal([`#u0a153/0: com.example.photobackup/${WM}`, `#u0a153/1: com.example.photobackup/${WM}`, `#u0a176/0: org.example.weather/${WM}`]);
    expect(before).to.not.include('    Source: ');

    await sh(`am start -n ${PKG}/.MainActivity`);
    // WorkManager re-schedules on its own executor after a run (androidx Schedulers.registerRescheduling):
    // between the cancel and the new id a dump has 3 jobs, so the dump checked is one that has 4.
    let dump = '';
    await waitFor('the app\'s job', async () => {
      dump = (await sh(`dumpsys jobscheduler ${PKG}`)).out;
      return jobLines(dump).length === 4;
    });
    expect(dump).to.include('Registered 4 jobs:\n');
    expect(heads(dump)).to.deep.equal([
      `#u0a153/0: com.example.photobackup/${WM}`,
      `#u0a153/1: com.example.photobackup/${WM}`,
      `#u0a176/0: org.example.weather/${WM}`,
      `#u0a190/${appJobId(dump)}: ${PKG}/${WM}`,
    ]);
    // Each other app's JOB line is followed at once by the next one: details only under the app's.
    const lines = dump.split('\n');
    for (const i of [0, 1, 2]) expect(lines[lines.indexOf(jobLines(dump)[i]!) + 1]).to.match(/^ {2}JOB /);
    expect(lines.filter((l) => l.startsWith('    Source: '))).to.deep.equal([`    Source: uid=u0a190 user=0 pkg=${PKG}`]);

    // The other app's own dump: its jobs with details, the others' JOB lines only.
    // The app's first run may have ended since the dump above: its job is then briefly absent
    // (the same re-scheduling), so the dump checked is one taken while it is registered.
    let photo = '';
    await waitFor('a dump of the other app with the app\'s job', async () => {
      photo = (await sh('dumpsys jobscheduler com.example.photobackup')).out;
      return jobLines(photo).length === 4;
    });
    expect(jobLines(photo)).to.have.length(4);
    expect(photo.split('\n').filter((l) => l.startsWith('    Source: '))).to.deep.equal(['    Source: uid=u0a153 user=0 pkg=com.example.photobackup', '    Source: uid=u0a153 user=0 pkg=com.example.photobackup']);
    expect((await sh('pm list packages -3')).out.split('\n').filter((l) => l !== '').sort()).to.deep.equal([
      'package:com.example.feednotifier',
      'package:com.example.photobackup',
      'package:org.example.weather',
    ]);
  });

  it('API 30: run and get-job-state on the other apps\' jobs; the harness and the repro script find the app\'s own job', async () => {
    const { d, sh } = await device(30);
    await sh(`am start -n ${PKG}/.MainActivity`);
    await waitFor('the app\'s job', async () => (await sh(`dumpsys jobscheduler ${PKG}`)).out.includes(` ${PKG}/${WM}\n`));

    expect(await sh('cmd jobscheduler get-job-state com.example.photobackup 1')).to.deep.equal({ out: 'waiting\n', err: '', code: 0 });
    expect(await sh('cmd jobscheduler get-job-state com.example.photobackup 2')).to.deep.equal({ out: 'unknown(u0a153/jid2)\n', err: 'Could not find job 2 in package com.example.photobackup / user 0\n', code: 23 });
    // Its jobs need a network, which the model never has: only -f runs them.
    expect(await sh('cmd jobscheduler run com.example.photobackup 0')).to.deep.equal({ out: '', err: 'Job 0 in package com.example.photobackup / user 0 has functional constraints but --force not specified\n', code: 22 });
    // A forced run starts the app's process; its WorkManager schedules the next period under the same id.
    expect(await sh('cmd jobscheduler run -f org.example.weather 0')).to.deep.equal({ out: 'Running job [FORCED]\n', err: '', code: 0 });
    await waitFor('org.example.weather to run', async () => (await sh('pidof org.example.weather')).code === 0);
    await waitFor('the next period of org.example.weather', async () => (await sh('cmd jobscheduler get-job-state org.example.weather 0')).out === 'waiting\n');
    const weather = (await sh('dumpsys jobscheduler org.example.weather')).out;
    expect(weather).to.include('      Minimum latency: +6h0m0s0ms\n');
    expect(heads(weather)).to.include(`#u0a176/0: org.example.weather/${WM}`);

    // The harness: findJob / runJob / getJobState name the app's job 0, not the other apps' job 0.
    const id = appJobId((await sh(`dumpsys jobscheduler ${PKG}`)).out);
    const other = [0, 1, 2].find((n) => n !== id)!;
    const harness = await AdbDevice.open({ serial: d.serial, port: adb.port });
    try {
      const job = await findJob(harness, { pkg: PKG, serviceClass: WORKMANAGER_JOB_SERVICE });
      expect(job).to.include({ uid: 10190, jobId: id, servicePackage: PKG, namespace: null });
      expect(await findJob(harness, { pkg: PKG, jobId: id, serviceClass: WORKMANAGER_JOB_SERVICE })).to.include({ uid: 10190 });
      // An id the other apps have (0 and 1 each, in their own uids) is not the app's.
      expect(await findJob(harness, { pkg: PKG, jobId: other, serviceClass: WORKMANAGER_JOB_SERVICE })).to.equal(null);
      expect(await findJob(harness, { pkg: PKG, jobId: other })).to.equal(null);
      expect((await getJobState(harness, { pkg: PKG, id })).kind).to.equal('known');
      expect((await runJob(harness, { pkg: PKG, id, force: true })).result).to.deep.equal({ kind: 'running', forced: true });
    } finally {
      await harness.close();
    }

    // The repro script's find_job, run by bash with real adb against this device.
    const { script } = renderReproScript({ scenario: 'back-to-back', device: d.serial, pkg: PKG, feedDevicePort: 8765, steps: [], anomalies: [] });
    const fn = (name: string): string => new RegExp(`^${name}\\(\\) \\{(?:.*\\}$|[\\s\\S]*?^\\})`, 'm').exec(script)![0];
    const body = ['set -euo pipefail', `PKG=${PKG}`, 'JOB_CLASS=androidx.work.impl.background.systemjob.SystemJobService', `SERIAL=${d.serial}`, fn('adb_dev'), 'ADB=adb_dev', fn('die'), fn('check_job_id'), fn('check_namespace'), fn('find_job'), fn('job_refs'), 'find_job; echo "job=$JOB ns=$JOB_NS"'].join('\n');
    // Not spawnSync: the device answers adb from this process's event loop.
    const findJobByScript = (): Promise<{ stdout: string; stderr: string; status: number | null }> => new Promise<{ stdout: string; stderr: string; status: number | null }>((resolve, reject) => {
      const child = spawn('bash', ['-c', body], { env: { ...process.env, ANDROID_ADB_SERVER_PORT: String(adb.port) } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.once('error', reject);
      child.once('close', (status) => resolve({ stdout, stderr, status }));
    });
    // The forced run above ends with WorkManager re-scheduling the next period under a new id
    // (asynchronously, as Schedulers.registerRescheduling does), so the id the script must name
    // is the one registered both before and after it ran: a script that ran across the
    // re-scheduling is run again.
    let r = { stdout: '', stderr: '', status: null as number | null };
    let registered = -1;
    await waitFor('find_job to run while the app\'s job id stays the same', async () => {
      const before = appJobId((await sh(`dumpsys jobscheduler ${PKG}`)).out);
      r = await findJobByScript();
      registered = appJobId((await sh(`dumpsys jobscheduler ${PKG}`)).out);
      return before === registered;
    });
    expect([r.stdout, r.stderr, r.status]).to.deep.equal([`job=${registered} ns=\n`, '', 0]);
  });

  it('API 33: only the app\'s JOB lines, and no other apps installed', async () => {
    const { sh } = await device(33);
    await sh(`am start -n ${PKG}/.MainActivity`);
    // As on API 30: the dump checked is one taken while the job is registered (not between
    // WorkManager's cancel and its new id).
    let dump = '';
    await waitFor('the app\'s job', async () => {
      dump = (await sh(`dumpsys jobscheduler ${PKG}`)).out;
      return jobLines(dump).length === 1;
    });
    expect(dump).to.include('Registered 1 jobs:\n');
    expect(heads(dump)).to.deep.equal([`#u0a190/${appJobId(dump)}: ${PKG}/${WM}`]);
    expect((await sh('pm list packages -3')).out).to.equal(`package:${PKG}\n`);
  });

  it('dedup-verify run --virtual --api 30 --scenario back-to-back passes', async () => {
    const out = join(work, 'run');
    const r = await runCli(['run', '--virtual', '--api', '30', '--scenario', 'back-to-back', '--out', out], { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
    expect(r.code, r.stderr.slice(-3000)).to.equal(0);
    expect(r.stdout).to.match(/back-to-back\s+PASS/);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { scenarios: { name: string; verdict: string }[] };
    expect(report.scenarios.map((s) => [s.name, s.verdict])).to.deep.equal([['back-to-back', 'pass']]);
  });
});
