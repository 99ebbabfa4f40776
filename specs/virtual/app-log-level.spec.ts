/**
 * WorkManager logging below INFO (an app's Configuration.Builder().setMinimumLoggingLevel):
 * the virtual device's reference app logs only at or above its level (androidx Logger.java
 * LogcatLogger), and the harness then reads each run's end from JobScheduler and the workdb.
 * Runs the real CLI (`run --virtual --app-log-level`) through a private adb server.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { runCli } from '../support/cli.js';

interface RunFinished {
  type: 'run-finished';
  run: number;
  outcome: string;
  outcomeFrom?: string;
  evidence?: string[];
}

describe('WorkManager logging below INFO (virtual device, real adb)', function () {
  this.timeout(300_000);
  let adb: AdbServer;
  let work: string;
  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-loglevel-'));
  });
  after(async () => {
    await adb.stop();
    await rm(work, { recursive: true, force: true });
  });

  async function run(name: string, args: string[]): Promise<{ code: number | null; stderr: string; finished: RunFinished[]; logcat: string }> {
    const out = join(work, name);
    const r = await runCli(['run', '--virtual', ...args, '--out', out], { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
    const history = (await readFile(join(out, 'history.jsonl'), 'utf8')).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string });
    const evidence = join(out, 'evidence');
    const [serial] = await readdir(evidence);
    const dir = join(evidence, serial ?? '');
    const logs = (await readdir(dir)).filter((f) => f.endsWith('.logcat.txt'));
    const logcat = (await Promise.all(logs.map((f) => readFile(join(dir, f), 'utf8')))).join('');
    return { code: r.code, stderr: r.stderr, finished: history.filter((e): e is RunFinished => e.type === 'run-finished'), logcat };
  }

  it('at warn no result line is logged, retry-classification passes and each outcome says it came from the workdb', async () => {
    const { code, stderr, finished, logcat } = await run('warn', ['--app-log-level', 'warn', '--scenario', 'retry-classification']);
    expect(code, stderr.slice(-3000)).to.equal(0);
    expect(logcat).to.not.match(/Worker result/);
    expect(logcat).to.not.match(/ [DI] WM-/);
    const decided = finished.filter((e) => e.outcome !== 'killed' && e.outcome !== 'refused');
    expect(decided.length).to.be.greaterThan(2);
    expect(decided.every((e) => e.outcomeFrom === 'workdb'), JSON.stringify(decided)).to.equal(true);
    // The 503/429/408 runs end retry, the others finished (success or failure: one row for both).
    expect(new Set(decided.map((e) => e.outcome))).to.deep.equal(new Set(['retry', 'finished']));
    expect(decided.some((e) => (e.evidence ?? []).some((l) => /run_attempt_count \d+ → \d+/.test(l)))).to.equal(true);
  });

  it('at warn the no-db-check bug still fails back-to-back', async () => {
    const { code } = await run('warn-bug', ['--app-log-level', 'warn', '--bug', 'no-db-check', '--scenario', 'back-to-back']);
    expect(code).to.equal(1);
  });

  it('at info the outcomes come from the result lines; at debug WorkManager\'s DEBUG lines appear too', async () => {
    const info = await run('info', ['--scenario', 'back-to-back']);
    expect(info.code, info.stderr.slice(-3000)).to.equal(0);
    expect(info.logcat).to.match(/ I WM-WorkerWrapper: Worker result SUCCESS for Work \[ id=/);
    expect(info.logcat).to.not.match(/ D WM-/);
    expect(info.finished.filter((e) => e.outcome === 'success').every((e) => e.outcomeFrom === 'result-line')).to.equal(true);
    const debug = await run('debug', ['--app-log-level', 'debug', '--scenario', 'back-to-back']);
    expect(debug.code, debug.stderr.slice(-3000)).to.equal(0);
    expect(debug.logcat).to.match(/ D WM-WorkerWrapper: Starting work for com\.example\.feednotifier\.FeedPollWorker/);
  });

  it('refuses an unknown level in one line, exit 2', async () => {
    const r = await runCli(['virtual-device', '--app-log-level', 'loud']);
    expect(r.code).to.equal(2);
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/--app-log-level takes one of verbose, debug, info, warn, error/);
  });
});
