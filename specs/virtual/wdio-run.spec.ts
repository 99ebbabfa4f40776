/**
 * `npx wdio run wdio.conf.ts` for real: WebdriverIO's testrunner starts a local Appium server
 * (@wdio/appium-service, `--allow-insecure uiautomator2:adb_shell`), one worker per device, and
 * specs/device/ runs the scenarios through the AppiumDevice. Two runs, side by side, each on two
 * virtual devices reached with `adb connect` on a private adb server: the correct app passes
 * (exit 0); a device whose app has the `no-db-check` bug fails back-to-back, and the failing
 * testcase names that device while the correct device's testcase passes.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type AdbServer } from '../support/adb-server.js';
import { virtualLab } from '../support/lab.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface WdioResult {
  readonly code: number | null;
  readonly output: string;
}

/** True while any process of the group `pgid` is alive (kill(2) with signal 0). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until every process of the wdio run's group is gone: the Appium server @wdio/appium-service
 * started goes on deleting its sessions (adb commands) for a moment after wdio exits, and the adb
 * server must outlive that or an adb client would start a new one.
 */
async function waitForGroupExit(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      process.kill(-pgid, 'SIGKILL');
      throw new Error(`processes of the wdio run (group ${pgid}) were still running ${timeoutMs} ms after it exited`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `npx wdio run wdio.conf.ts` in its own process group (stopped as a group if it hangs). */
async function runWdio(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<WdioResult> {
  const { result, pgid } = await startWdio(env, timeoutMs);
  await waitForGroupExit(pgid, 20_000);
  return result;
}

function startWdio(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ result: WdioResult; pgid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['wdio', 'run', 'wdio.conf.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`npx wdio run did not finish within ${timeoutMs} ms:\n${output.slice(-3000)}`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ result: { code, output }, pgid: child.pid ?? 0 });
    });
  });
}

interface Report {
  verdict: string;
  scenarios: { name: string; device: string; verdict: string }[];
}

describe('npx wdio run wdio.conf.ts on two virtual devices through a real Appium server', function () {
  this.timeout(120_000);
  const lab = virtualLab('dv-wdio-');
  const devices = lab.devices;
  let adb: AdbServer;
  let work: string;
  before(() => ({ adb, work } = lab));

  it('passes for the correct app (exit 0) and fails only the no-db-check device, naming it (non-zero exit)', async () => {
    const good = await devices.startMany(3);
    const bad = await devices.start({ bugs: ['no-db-check'] });
    for (const d of [...good, bad]) await adb.connect(d.serial);
    const [g1, g2, g3] = good;
    const envFor = async (name: string, serials: string[]): Promise<NodeJS.ProcessEnv> => ({
      DV_WDIO_UDIDS: serials.join(','),
      DV_ADB_PORT: String(adb.port),
      DV_APPIUM_PORT: String(await freePort()),
      DV_CONFIG: 'fixtures/reference-app.config.json',
      DV_SCENARIOS: 'back-to-back',
      DV_OUT: join(work, name),
      XDG_STATE_HOME: join(work, `${name}-state`),
    });
    const correctEnv = await envFor('correct', [g1!.serial, g2!.serial]);
    const mixedEnv = await envFor('mixed', [g3!.serial, bad.serial]);
    const [correct, mixed] = await Promise.all([runWdio(correctEnv, 110_000), runWdio(mixedEnv, 110_000)]);

    expect(correct.code, correct.output.slice(-3000)).to.equal(0);
    for (const d of [g1!, g2!]) {
      expect(correct.output).to.include(`✓ back-to-back on ${d.serial}`);
      const report = JSON.parse(await readFile(join(work, 'correct', d.serial.replace(/:/g, '_'), 'report.json'), 'utf8')) as Report;
      expect(report.scenarios.map((s) => [s.name, s.device, s.verdict])).to.deep.equal([['back-to-back', d.serial, 'pass']]);
    }

    expect(mixed.code, mixed.output.slice(-3000)).to.not.equal(0);
    expect(mixed.code).to.not.equal(null);
    expect(mixed.output).to.include(`✓ back-to-back on ${g3!.serial}`);
    expect(mixed.output).to.include(`✖ back-to-back on ${bad.serial}`);
    expect(mixed.output).to.include(`back-to-back FAILED on ${bad.serial}`);
    expect(mixed.output).to.match(/duplicated https:\/\/feed\.dedup-verify\.test\/\S+\/back-to-back\/item-1/);
    expect(mixed.output).not.to.include(`✖ back-to-back on ${g3!.serial}`);
    const junit = await readFile(join(work, 'mixed', bad.serial.replace(/:/g, '_'), 'junit.xml'), 'utf8');
    expect(junit).to.match(/<failure /);
  });
});
