/**
 * The window between a periodic run's result line and the job WorkManager schedules for the next
 * period. WorkManager cancels the finished job and schedules a new id on its task thread, after
 * the run (androidx work-runtime Schedulers.registerRescheduling, posted to
 * taskExecutor.getSerialTaskExecutor() from Processor.onExecuted); on a busy device that thread
 * takes a while. Between the two the WorkSpec's SystemIdInfo names a job JobScheduler no longer
 * has (a finished job is dropped; SystemJobScheduler.cancel then finds no pending job and keeps
 * the row, so the same id comes back, or a new one after a cancel). Here the virtual device's
 * task thread takes 1.5 s to take a task up (the unit spec of work-manager.ts drives the same
 * executor with an injected timer), so every forced run after the first falls in that window
 * and must wait for the job instead of being refused.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { virtualLab } from '../support/lab.js';
import { runCli } from '../support/cli.js';

const CONFIG = 'fixtures/reference-app.config.json';
const TASK_DELAY_MS = 1_500;

describe('WorkManager re-scheduling on a slow task thread (virtual device, real adb)', function () {
  this.timeout(180_000);
  const lab = virtualLab('dv-resched-spec-');

  /** `run --device SERIAL` of `scenarios` (exit 0 asserted); its history's run-finished events. */
  async function runFinished(serial: string, name: string, scenarios: readonly string[]): Promise<{ type: string; outcome?: string }[]> {
    const out = join(lab.work, name);
    const r = await runCli(['run', '--device', serial, '--config', CONFIG, ...scenarios.flatMap((s) => ['--scenario', s]), '--out', out], {
      env: { ANDROID_ADB_SERVER_PORT: String(lab.adb.port) },
    });
    const report = r.code === 0 ? '' : await readFile(join(out, 'report.json'), 'utf8').catch(() => '');
    expect(r.code, `${r.stderr.slice(-3000)}\n${report.slice(0, 6000)}`).to.equal(0);
    return (await readFile(join(out, 'history.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { type: string; outcome?: string })
      .filter((e) => e.type === 'run-finished');
  }

  it('run: back-to-back and missed-run pass, each forced run waiting for the new job id, none refused', async () => {
    const d = await lab.devices.start({ workManagerTaskDelayMs: TASK_DELAY_MS });
    const finished = await runFinished(d.serial, 'run', ['back-to-back', 'missed-run']);
    // back-to-back forces two runs and missed-run more: every one ran, none was refused.
    expect(finished.length).to.be.at.least(4);
    expect(finished.map((e) => e.outcome)).to.not.include('refused');
    expect(finished.every((e) => e.outcome === 'success')).to.equal(true);
  });

  it('run: retry-classification passes on a slow task thread, none of its runs refused', async () => {
    // After a retry JobScheduler reschedules the same job id itself (jobFinished(params, true));
    // WorkManager's task thread then cancels it and schedules the work under a new id. Every run
    // of the scenario after a retry falls in that window here.
    const d = await lab.devices.start({ workManagerTaskDelayMs: TASK_DELAY_MS });
    const finished = await runFinished(d.serial, 'retry', ['retry-classification']);
    expect(finished.map((e) => e.outcome)).to.not.include('refused');
  });

  it('doctor right after its own probe run: the periodic work check waits for the job the task thread registers', async () => {
    const d = await lab.devices.start({ workManagerTaskDelayMs: TASK_DELAY_MS });
    await lab.adb.connect(d.serial);
    await lab.adb.adb(['-s', d.serial, 'shell', 'am start -n com.example.feednotifier/.MainActivity']);
    const env = { ANDROID_ADB_SERVER_PORT: String(lab.adb.port) };
    for (const pass of [1, 2]) {
      const r = await runCli(['doctor', '--device', d.serial, '--config', CONFIG], { env });
      expect(r.code, `doctor pass ${pass}:\n${r.stdout}${r.stderr}`).to.equal(0);
      expect(r.stdout).to.match(/ok +periodic work scheduled/);
      expect(r.stdout).to.match(/ok +feed fetched by a forced run/);
    }
  });
});
