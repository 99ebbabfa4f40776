/**
 * The spec file of `dedup-verify/wdio` (its `scenarioSuite`): loaded by WebdriverIO's mocha
 * framework in every worker, one worker per device (one capability each). It leases the
 * worker's device, runs every selected scenario (DV_SCENARIOS, else all) as a mocha test and
 * restores the device. A scenario verdict of `fail` fails its test with the anomalies in the
 * message; `unknown` fails it with the reason; so does a scenario the device cannot run (the run
 * report marks it `skipped`), and a notification buffer that disagrees with the event log.
 *
 * The worker's session is WebdriverIO's `browser` global (set by the testrunner; read from
 * `@wdio/globals` when the project turned `injectGlobals` off), and `describe`/`it`/`before`/
 * `after` are the globals of mocha's BDD interface.
 */
import type { AppiumSession } from '../device/appium-device.js';
import { DeviceRun, failureMessage, readDeviceRunEnv, selectedScenarios } from './device-run.js';

/** The part of a wdio worker's `browser` this suite uses. */
interface WorkerBrowser extends AppiumSession {
  readonly requestedCapabilities: unknown;
  readonly capabilities: unknown;
}

/** Mocha's BDD globals, as far as this suite uses them. */
interface MochaBdd {
  describe: (title: string, fn: () => void) => void;
  it: (title: string, fn: () => Promise<void>) => void;
  before: (fn: () => Promise<void>) => void;
  after: (fn: () => Promise<void>) => void;
}

const bdd = globalThis as unknown as Partial<MochaBdd>;
if (typeof bdd.describe !== 'function' || typeof bdd.it !== 'function' || typeof bdd.before !== 'function' || typeof bdd.after !== 'function') {
  throw new Error('dedup-verify/wdio: the scenario suite is a spec file for WebdriverIO\'s mocha framework: list it in `specs` of a config with framework "mocha" (dedupVerifyConfig() does both).');
}
const { describe, it, before, after } = bdd as MochaBdd;
const injected = (): WorkerBrowser | undefined => (globalThis as { browser?: WorkerBrowser }).browser;
// While spec files load, `browser` is a stub with the capabilities only; the session replaces it
// before the first hook runs, so it is looked up at each use.
const imported = injected() === undefined ? ((await import('@wdio/globals')).browser as unknown as WorkerBrowser) : undefined;
const currentBrowser = (): WorkerBrowser => injected() ?? imported!;

const env = readDeviceRunEnv();
const scenarios = selectedScenarios(env);
const udid = udidOf(currentBrowser());

/** The worker's device: `appium:udid` as requested (plain or W3C form), else as the server echoed it. */
function udidOf(b: WorkerBrowser): string {
  const requested = (b.requestedCapabilities ?? {}) as Record<string, unknown> & { alwaysMatch?: Record<string, unknown> };
  const returned = (b.capabilities ?? {}) as Record<string, unknown>;
  for (const v of [requested['appium:udid'], requested.alwaysMatch?.['appium:udid'], returned['appium:udid'], returned['udid'], returned['deviceUDID']]) {
    if (typeof v === 'string' && v !== '') return v;
  }
  return '';
}

describe(`dedup-verify on ${udid || '(no appium:udid)'}`, () => {
  let run: DeviceRun | undefined;
  const disagreements: string[] = [];

  before(async () => {
    if (udid === '') throw new Error('the capability has no appium:udid: set DV_WDIO_UDIDS, or give each capability the adb serial of its device as appium:udid');
    run = await DeviceRun.open(currentBrowser(), udid, env);
  });

  for (const scenario of scenarios) {
    it(`${scenario.name} on ${udid}`, async () => {
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

  after(async () => {
    if (run === undefined) return;
    console.log(await run.close());
    if (disagreements.length > 0) console.log(`${udid}: notification observers disagreed in ${disagreements.length} scenario(s)`);
  });
});
