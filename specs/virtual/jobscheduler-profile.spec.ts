/**
 * Apps scheduled by JobScheduler directly (`work.scheduler: "jobscheduler"`), through the harness
 * by the real CLI (real adb on a private server, virtual devices with `--app-profile jobscheduler`,
 * Feeder's FeederJobService shape): forced runs are `cmd jobscheduler run -f`, a probe `run -s`,
 * a run's end the app's own line (work.resultLine) or, without one, JobScheduler letting the job
 * go with its failure count; the scenarios that need WorkManager are skipped with the reason; each
 * bug switch that applies fails the scenario that catches it.
 */
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCENARIOS } from '../../src/scenarios/index.js';
import { runAndRead, segment, runBash } from '../support/run-output.js';
import { virtualLab } from '../support/lab.js';
import { freePort } from '../support/adb-server.js';

const PKG = 'com.example.feednotifier';
const ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = new URL('../../fixtures/profiles/jobscheduler.config.json', import.meta.url);

interface Report {
  verdict: string;
  scenarios: { name: string; verdict: string; error?: string; anomalies: { kind: string; detail: string }[] }[];
}

/** Bug switches whose catching scenario does not run with JobScheduler (skipped), so nothing fails. */
const SKIPPED_HERE: Readonly<Record<string, string>> = { 'channel-in-activity': 'cold-process' };

describe('apps scheduled by JobScheduler: the jobscheduler profile through the harness (virtual devices, real adb)', function () {
  this.timeout(600_000);
  const lab = virtualLab('dv-jobscheduler-');
  const env = (): NodeJS.ProcessEnv => ({ ANDROID_ADB_SERVER_PORT: String(lab.adb.port) });

  const run = (name: string, args: string[]): ReturnType<typeof runAndRead<Report>> => runAndRead<Report>(join(lab.work, name), args, env());


  it('every scenario but cold-process passes (skipped with the reason); runs are cmd jobscheduler run -f and end on the app line', async () => {
    const { code, report, history, stderr } = await run('all', ['--virtual', '--app-profile', 'jobscheduler']);
    const expected = SCENARIOS.map((s) => [s.name, s.name === 'cold-process' ? 'skipped' : 'pass']);
    expect(report.scenarios.map((s) => [s.name, s.verdict]), stderr.slice(-3000)).to.deep.equal(expected);
    expect(code).to.equal(0);
    expect(report.scenarios.find((s) => s.name === 'cold-process')?.error).to.match(/DiagnosticsReceiver/);
    // unique-work compares the job before and after three launches: the same JobStatus (id and identity hash).
    const unique = segment(history, 'unique-work').flatMap((e) => (e.type === 'schedule' ? [e] : []));
    expect(unique.map((e) => e.label)).to.deep.equal(['before-relaunch', 'after-relaunch']);
    expect(unique[1]?.primary).to.match(/^#u0a190\/2 [0-9a-f]+$/).and.equal(unique[0]?.primary);

    const back = segment(history, 'back-to-back');
    const runs = back.flatMap((e) => (e.type === 'action' && e.action === 'force-run' ? [e.argv?.join(' ')] : []));
    expect(runs).to.deep.equal([`cmd jobscheduler run -f ${PKG} 2`, `cmd jobscheduler run -f ${PKG} 2`]);
    const finished = back.filter((e) => e.type === 'run-finished');
    expect(finished.map((e) => (e.type === 'run-finished' ? [e.outcome, e.outcomeFrom] : []))).to.deep.equal([
      ['success', 'result-line'],
      ['success', 'result-line'],
    ]);
    // No clock is moved for a JobScheduler run: -f ignores the job's timing (elapsed realtime).
    expect(back.filter((e) => e.type === 'action' && e.action === 'set-time')).to.deep.equal([]);

    // The schedule read from dumpsys jobscheduler: the job's unique id, period, and its failures
    // as the run attempt count, one more after each retry (JobScheduler's backoff).
    const retry = segment(history, 'retry-classification');
    const reads = retry.flatMap((e) => (e.type === 'schedule' ? [e] : []));
    expect(reads.every((e) => e.scheduler === 'jobscheduler' && /^#u0a190\/2 [0-9a-f]+$/.test(e.primary ?? ''))).to.equal(true);
    // Each run's end replaces the JobStatus (a new identity), as Android's reschedule does.
    expect(new Set(reads.map((e) => e.primary)).size).to.equal(reads.length);
    expect(reads.map((e) => e.specs.find((s) => s.id === e.primary)?.runAttemptCount)).to.deep.equal([1, 2, 3, 0]);
    expect(reads[0]?.specs[0]).to.include({ workerClass: `${PKG}.FeedSyncJobService`, intervalMs: 86_400_000, systemId: 2 });
    const probe = retry.find((e) => e.type === 'action' && e.action === 'force-run' && e.argv?.includes('-s'));
    expect(probe?.type === 'action' ? probe.argv : undefined).to.deep.equal(['cmd', 'jobscheduler', 'run', '-s', PKG, '2']);
    expect(retry.find((e) => e.type === 'action' && e.action === 'probe-run')).to.include({ outcome: 'refused' });
  });

  for (const scenario of SCENARIOS) {
    for (const bug of scenario.catches) {
      if (SKIPPED_HERE[bug] === scenario.name) continue;
      it(`${bug} fails ${scenario.name}`, async () => {
        const { code, report, stderr } = await run(`${bug}-${scenario.name}`, ['--virtual', '--app-profile', 'jobscheduler', '--bug', bug, '--scenario', scenario.name]);
        expect(report.scenarios.map((s) => [s.name, s.verdict]), stderr.slice(-2000)).to.deep.equal([[scenario.name, 'fail']]);
        expect(code).to.equal(1);
      });
    }
  }

  for (const [bug, scenario] of Object.entries(SKIPPED_HERE)) {
    it(`${bug}: its scenario ${scenario} is skipped, so it is not caught (said, not passed)`, async () => {
      const { code, report } = await run(`${bug}-skipped`, ['--virtual', '--app-profile', 'jobscheduler', '--bug', bug, '--scenario', scenario]);
      expect(report.scenarios.map((s) => [s.name, s.verdict])).to.deep.equal([[scenario, 'skipped']]);
      expect(report.verdict).to.not.equal('pass');
      expect(code).to.not.equal(1);
    });
  }

  describe('with no work.resultLine: the end and outcome from JobScheduler', () => {
    async function configWithout(name: string, edit: (work: Record<string, unknown>) => void): Promise<string> {
      const config = JSON.parse(await readFile(CONFIG, 'utf8')) as Record<string, Record<string, unknown>>;
      const work = { ...config['work'] };
      edit(work);
      const file = join(lab.work, `${name}.config.json`);
      await writeFile(file, JSON.stringify({ ...config, work, timeouts: { runMs: 5_000, commandMs: 10_000 } }));
      return file;
    }

    it('runs end when the job is let go; a retry is one more Num failures; retry-on-401 still fails retry-classification', async () => {
      const file = await configWithout('no-line', (w) => delete w['resultLine']);
      const ok = await lab.devices.start({ appProfile: 'jobscheduler' });
      await lab.adb.connect(ok.serial);
      const good = await run('no-line', ['--device', ok.serial, '--config', file, '--scenario', 'back-to-back', '--scenario', 'retry-classification']);
      expect(good.report.scenarios.map((s) => [s.name, s.verdict]), good.stderr.slice(-2000)).to.deep.equal([
        ['back-to-back', 'pass'],
        ['retry-classification', 'pass'],
      ]);
      const ends = good.history.flatMap((e) => (e.type === 'run-finished' ? [[e.outcome, e.outcomeFrom]] : []));
      expect(ends.every(([, from]) => from === 'job-state'), JSON.stringify(ends)).to.equal(true);
      expect(ends.filter(([o]) => o === 'retry')).to.have.length(3);
      expect(good.code).to.equal(0);

      const bad = await lab.devices.start({ appProfile: 'jobscheduler', bugs: ['retry-on-401'] });
      await lab.adb.connect(bad.serial);
      const caught = await run('no-line-401', ['--device', bad.serial, '--config', file, '--scenario', 'retry-classification']);
      expect(caught.report.scenarios.map((s) => s.verdict)).to.deep.equal(['fail']);
      expect(caught.report.scenarios[0]?.anomalies.map((a) => a.kind)).to.include('misclassified-status');
    });

    it('a job id the app never schedules is one error naming work.jobId, and nothing passes', async () => {
      const file = await configWithout('wrong-id', (w) => {
        w['jobId'] = 99;
      });
      const d = await lab.devices.start({ appProfile: 'jobscheduler' });
      await lab.adb.connect(d.serial);
      const r = await run('wrong-id', ['--device', d.serial, '--config', file, '--scenario', 'back-to-back']);
      expect(r.report.scenarios[0]?.verdict).to.not.equal('pass');
      expect(r.report.scenarios[0]?.error).to.match(/did not schedule job 99 within 5000 ms of starting \(not in dumpsys jobscheduler com\.example\.feednotifier\)\. Check work\.jobId/);
      expect(r.code).to.not.equal(0);
    });
  });

  describe('the repro script of a JobScheduler app, replayed with bash and real adb on a fresh device', () => {
    async function recordAndReplay(bug: string, scenario: string): Promise<{ script: string; code: number | null; out: string }> {
      const recorded = await lab.devices.start({ appProfile: 'jobscheduler', bugs: [bug] });
      await lab.adb.connect(recorded.serial);
      const r = await run(`repro-${bug}`, ['--device', recorded.serial, '--config', CONFIG.pathname, '--scenario', scenario]);
      expect(r.code, r.stderr.slice(-2000)).to.equal(1);
      const script = join(lab.work, `repro-${bug}`, 'repro', `${scenario}.sh`);
      const fresh = await lab.devices.start({ appProfile: 'jobscheduler', bugs: [bug] });
      await lab.adb.connect(fresh.serial);
      await lab.adb.adb(['-s', fresh.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
      const replayed = await runBash([script, fresh.serial, String(await freePort())], {
        ANDROID_ADB_SERVER_PORT: String(lab.adb.port),
        DEDUP_VERIFY: `${process.execPath} --import tsx ${join(ROOT, 'specs', 'support', 'cli-entry.ts')}`,
        WAIT_S: '20',
      }, ROOT);
      return { script: await readFile(script, 'utf8'), ...replayed };
    }

    it('back-to-back with no-db-check: the app\'s job 2 is forced twice, each run ends by its job state, and the second posts the same ids again', async () => {
      const { script, code, out } = await recordAndReplay('no-db-check', 'back-to-back');
      expect(script).to.include('SCHEDULER=jobscheduler');
      // The config names the job by id: the script forces that id (JOB_ID in the environment still wins).
      expect(script).to.include("JOB_CLASS=''");
      expect(script).to.include('JOB_ID=${JOB_ID:-2}');
      expect(code, out).to.equal(0);
      expect(out).to.match(new RegExp(`^job 2 of ${PKG.replaceAll('.', '\\.')}$`, 'm'));
      expect(out).to.match(/^job 2 of com\.example\.feednotifier ended \(get-job-state: waiting\)$/m);
      const runs = out.split(/^== step \d+: forced run \d+$/m).slice(1);
      expect(runs).to.have.length(2);
      const posted = runs.map((r) => [...r.matchAll(/notification_enqueue: \[\d+,\d+,com\.example\.feednotifier,(-?\d+),NULL,0,.*\),0\]$/gm)].map((m) => m[1]).sort());
      expect(posted[0]).to.have.length(5);
      expect(posted[1]).to.deep.equal(posted[0]);
    });

    it('retry-classification with retry-on-401: the probe is run -s, and JobScheduler refuses it as recorded', async () => {
      const { script, code, out } = await recordAndReplay('retry-on-401', 'retry-classification');
      expect(script).to.include('begin_run -s || true');
      expect(code, out).to.equal(0);
      expect(out).to.include('refused: cmd jobscheduler run exited 22 (not due), as recorded');
      expect(out).to.include('== done: every recorded step was replayed');
    });
  });
});
