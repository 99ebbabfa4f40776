/**
 * The dedup-verify scenarios (src/scenarios, docs/design.md §6) on one device, run by WebdriverIO's
 * mocha framework: wdio.conf.ts starts one worker per capability (one device each), and in that
 * worker this file leases the device, runs every selected scenario as a test, and restores the
 * device. A scenario verdict of `fail` fails its test with the anomalies in the message;
 * `unknown` fails it with the reason; a scenario the device cannot run (needs) is reported as
 * pending, as the run report marks it `skipped`.
 */
import { browser } from '@wdio/globals';
import { DeviceRun, failureMessage, readDeviceRunEnv, selectedScenarios } from './device-run.js';

const env = readDeviceRunEnv();
const scenarios = selectedScenarios(env);
const udid = udidOf(browser);

/** The worker's device: `appium:udid` as requested (plain or W3C form), else as the server echoed it. */
function udidOf(b: typeof browser): string {
  const requested = b.requestedCapabilities as Record<string, unknown> & { alwaysMatch?: Record<string, unknown> };
  const returned = b.capabilities as Record<string, unknown>;
  for (const v of [requested['appium:udid'], requested.alwaysMatch?.['appium:udid'], returned['appium:udid'], returned['udid'], returned['deviceUDID']]) {
    if (typeof v === 'string' && v !== '') return v;
  }
  console.log(`no appium:udid in ${JSON.stringify({ requested, returned }).slice(0, 800)}`);
  return '';
}

describe(`dedup-verify on ${udid}`, function () {
  let run: DeviceRun | undefined;
  const disagreements: string[] = [];

  before(async function () {
    if (udid === '') throw new Error('the capability has no appium:udid (set DV_WDIO_UDIDS)');
    run = await DeviceRun.open(browser, udid, env);
  });

  for (const scenario of scenarios) {
    it(`${scenario.name} on ${udid}`, async function () {
      if (run === undefined) throw new Error(`${udid} was not leased`);
      const { report, crossCheck } = await run.runScenario(scenario);
      if (typeof crossCheck === 'string') {
        console.log(`${udid} ${scenario.name}: ${crossCheck}`);
      } else {
        console.log(`${udid} ${scenario.name}: notifications cross-check: ${crossCheck.agree ? 'agree' : 'DISAGREE'}; ${crossCheck.summary}`);
        if (!crossCheck.agree) disagreements.push(`${scenario.name}: ${crossCheck.summary}`);
      }
      const failure = failureMessage(report);
      if (failure !== undefined) throw new Error(failure);
      if (typeof crossCheck !== 'string' && !crossCheck.agree) {
        throw new Error(`${scenario.name} on ${udid}: the notification buffer and the event log disagree (${crossCheck.summary}); the observation cannot be trusted`);
      }
      // A device without what the scenario needs fails loudly, with the reason, rather than skip.
      if (report.verdict === 'skipped') throw new Error(`${scenario.name} could not run on ${udid}: ${report.error ?? 'the device lacks what it needs'}`);
    });
  }

  after(async function () {
    if (run === undefined) return;
    console.log(await run.close());
    if (disagreements.length > 0) console.log(`${udid}: notification observers disagreed in ${disagreements.length} scenario(s)`);
  });
});
