/**
 * `npx wdio run wdio.conf.ts` for real: WebdriverIO's testrunner starts a local Appium server
 * (@wdio/appium-service, `--allow-insecure uiautomator2:adb_shell`), one worker per device, and
 * specs/device/ runs the scenarios through the AppiumDevice. Two runs, side by side, each on two
 * virtual devices reached with `adb connect` on a private adb server: the correct app passes
 * (exit 0); a device whose app has the `no-db-check` bug fails back-to-back, and the failing
 * testcase names that device while the correct device's testcase passes.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type AdbServer } from '../support/adb-server.js';
import { virtualLab } from '../support/lab.js';
import { runInGroup } from '../support/process-group.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

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
    const wdio = (env: NodeJS.ProcessEnv) => runInGroup('npx', ['wdio', 'run', 'wdio.conf.ts'], { cwd: ROOT, env: { ...process.env, ...env }, timeoutMs: 110_000 });
    const [correct, mixed] = await Promise.all([wdio(correctEnv), wdio(mixedEnv)]);

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
