/**
 * Both device-farm paths from the installed package, as a user gets them: the tarball installed
 * into an empty folder, with webdriverio and WebdriverIO's testrunner (@wdio/cli, local
 * runner, mocha framework, spec reporter) beside it as the user's own packages, a real Appium 3 server with the UiAutomator2 driver
 * started here (the project's own), the real adb on a private port and virtual devices reached
 * with `adb connect`.
 * - `dedup-verify run --appium URL` opens one WebDriver session per device itself, with the
 *   adb server as companion, and writes every output `run` has; without an adb server, or with
 *   bad input, it stops with one line before any session is asked for.
 * - a minimal user `wdio.conf.ts` (`dedupVerifyConfig()` of `dedup-verify/wdio`) runs the
 *   scenarios as mocha tests, one worker per device.
 * Each path runs twice, side by side, on two devices each: the correct app passes (exit 0); a
 * device whose app has the `no-db-check` bug fails back-to-back, and the failure names it while
 * the correct device beside it passes.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';
import { startLocalAppiumServer, type LocalAppiumServer } from '../../src/device/appium-server.js';
import { ROOT, cleanEnv, exec, installPackage, runInGroup, type Exec, type InstalledPackage } from '../support/installed-package.js';

const CONFIG = join(ROOT, 'fixtures', 'reference-app.config.json');

interface Report {
  verdict: string;
  scenarios: { name: string; device: string; verdict: string }[];
}

/** Session requests the Appium server received so far (its log, `--log-no-colors`). */
function sessionRequests(server: LocalAppiumServer): number {
  return server.log().split('\n').filter((l) => l.includes('--> POST /session {')).length;
}

describe('the installed package on a device farm: run --appium and dedup-verify/wdio through a real Appium server', function () {
  this.timeout(240_000);
  const devices = testDevices();
  let pkg: InstalledPackage | undefined;
  let adb: AdbServer | undefined;
  let server: LocalAppiumServer | undefined;
  let work: string | undefined;
  let good: RunningVirtualDevice[] = [];
  let bad: RunningVirtualDevice;

  const app = (): string => pkg!.app;
  const serial = (d: RunningVirtualDevice): string => d.serial;
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => cleanEnv({ XDG_STATE_HOME: join(work!, 'state'), ANDROID_ADB_SERVER_PORT: String(adb!.port), ...extra });
  /** The installed bin itself, in the user's folder. */
  const dv = (args: readonly string[], timeoutMs = 180_000): Promise<Exec> =>
    exec(join(app(), 'node_modules', '.bin', 'dedup-verify'), args, { cwd: app(), env: env(), timeoutMs });
  const appiumUrl = (): string => `http://127.0.0.1:${server!.port}`;

  before(async function () {
    this.timeout(900_000);
    // WebdriverIO and its testrunner are the user's own packages: linked from the project's
    // node_modules rather than installed again (the farm-from-package acceptance check does the
    // full `npm install TGZ webdriverio`).
    pkg = await installPackage('dv-farm-package-', [], ['webdriverio', '@wdio/cli', '@wdio/local-runner', '@wdio/mocha-framework', '@wdio/spec-reporter']);
    work = await mkdtemp(join(tmpdir(), 'dv-farm-package-out-'));
    adb = await startAdbServer();
    good = await devices.startMany(3);
    bad = await devices.start({ bugs: ['no-db-check'] });
    for (const d of [...good, bad]) await adb.connect(d.serial);
    server = await startLocalAppiumServer({ port: await freePort() });
  });

  after(async () => {
    // The Appium server goes first: it talks to the adb server until it stops.
    await server?.stop();
    await devices.stopAll();
    await adb?.stop();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
    if (pkg !== undefined) await rm(pkg.work, { recursive: true, force: true });
  });

  it('run --appium refuses bad input and a missing adb companion with one line and exit 2, before asking for a session', async () => {
    const before = sessionRequests(server!);
    const device = ['--device', serial(good[0]!)];
    const cases: [readonly string[], RegExp][] = [
      [['--appium', '127.0.0.1 4723'], /--appium takes the URL of an Appium server or WebDriver hub \(got "127\.0\.0\.1 4723"\), e\.g\. --appium http:\/\/127\.0\.0\.1:4723/],
      [['--appium', 'localhost:4723'], /--appium takes an http:\/\/ or https:\/\/ URL \(got "localhost:4723"\)/],
      [['--appium', appiumUrl(), '--caps', '{"appium:options":'], /--caps value is not JSON .*give a JSON object of capabilities/],
      [['--appium', appiumUrl(), '--caps', join(work!, 'no-such-caps.json')], /cannot read the file \(ENOENT\)/],
      [['--appium', appiumUrl(), '--caps', '{"appium:udid":"emulator-5554"}'], /--caps must not set appium:udid/],
      [['--caps', '{}'], /--caps gives the capabilities of the Appium sessions: use it with --appium URL/],
      [['--appium', appiumUrl(), '--virtual'], /--virtual starts an embedded device over adb: use one of them/],
      [['--appium', `http://127.0.0.1:${await freePort()}`], /No Appium server answers at http:\/\/127\.0\.0\.1:\d+ \(GET \/status: ECONNREFUSED\)/],
      [
        ['--appium', appiumUrl(), '--adb-port', String(await freePort())],
        /run --appium also needs an adb server that sees the devices, .*the logcat stream .*adb reverse.*none answers on 127\.0\.0\.1:\d+: start it/,
      ],
    ];
    for (const [extra, message] of cases) {
      const r = await dv(['run', '--config', CONFIG, '--scenario', 'back-to-back', ...(extra.includes('--virtual') ? [] : device), ...extra]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stdout, extra.join(' ')).to.equal('');
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
      expect(errors, `${extra.join(' ')}: ${r.stderr}`).to.have.length(1);
      expect(errors[0], extra.join(' ')).to.match(message);
    }
    expect(sessionRequests(server!), 'session requests').to.equal(before);
  });

  it('run --appium from the installed copy: green on two correct devices, and a no-db-check device fails with its serial named, with every output of run', async () => {
    const [g1, g2, g3] = good;
    const runOn = (name: string, ds: RunningVirtualDevice[]): Promise<Exec> =>
      dv(['run', '--appium', appiumUrl(), ...ds.flatMap((d) => ['--device', d.serial]), '--adb-port', String(adb!.port), '--config', CONFIG, '--scenario', 'back-to-back', '--out', join(work!, name)]);
    const [correct, mixed] = await Promise.all([runOn('appium-correct', [g1!, g2!]), runOn('appium-mixed', [g3!, bad])]);

    expect(correct.code, correct.stdout + correct.stderr).to.equal(0);
    const correctReport = JSON.parse(await readFile(join(work!, 'appium-correct', 'report.json'), 'utf8')) as Report;
    expect(correctReport.verdict).to.equal('pass');
    expect(correctReport.scenarios.map((s) => [s.name, s.device, s.verdict]).sort()).to.deep.equal(
      [g1!, g2!].map((d) => ['back-to-back', d.serial, 'pass']).sort(),
    );
    for (const d of [g1!, g2!]) {
      // The shell went over WebDriver, the stream and the reverse rule over the adb companion.
      expect(correct.stderr).to.match(new RegExp(`${d.serial.replace(/\./g, '\\.')}: over WebDriver: mobile: shell ×[1-9]\\d*, .*; over adb 127\\.0\\.0\\.1:${adb!.port}: logcat stream ×1, reverse rules ×[1-9]`));
    }

    expect(mixed.code, mixed.stdout + mixed.stderr).to.equal(1);
    const dir = join(work!, 'appium-mixed');
    for (const file of ['report.json', 'junit.xml', 'history.jsonl', 'report.html', join('repro', 'back-to-back.sh')]) {
      expect(existsSync(join(dir, file)), file).to.equal(true);
    }
    const mixedReport = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    expect(mixedReport.verdict).to.equal('fail');
    expect(mixedReport.scenarios.map((s) => [s.device, s.verdict]).sort()).to.deep.equal([[bad.serial, 'fail'], [g3!.serial, 'pass']].sort());
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    const cases = [...junit.matchAll(/<testcase\b[^>]*\/>|<testcase\b[^>]*[^/]>[\s\S]*?<\/testcase>/g)].map((m) => m[0]);
    expect(cases).to.have.length(2);
    const failing = cases.filter((c) => /<failure\b/.test(c));
    expect(failing).to.have.length(1);
    expect(failing[0]).to.include(bad.serial);
    expect(failing[0]).to.match(/duplicated/);
    expect(mixed.stdout).to.match(new RegExp(`back-to-back\\s+${bad.serial.replace(/\./g, '\\.')}\\s+FAIL`));
    // The history it wrote checks to the same verdict.
    const check = await dv(['check', join(dir, 'history.jsonl')]);
    expect(check.code, check.stderr).to.equal(1);
  });

  it("a user's own wdio.conf.ts with dedup-verify/wdio: green on two correct devices, and a no-db-check device fails with its serial named", async () => {
    await writeFile(join(app(), 'wdio.conf.ts'), "import { dedupVerifyConfig } from 'dedup-verify/wdio';\n\nexport const config = dedupVerifyConfig();\n");
    const [g1, g2, g3] = good;
    const wdio = (name: string, ds: RunningVirtualDevice[]) =>
      runInGroup('npx', ['--no-install', 'wdio', 'run', 'wdio.conf.ts'], {
        cwd: app(),
        env: env({
          DV_WDIO_UDIDS: ds.map(serial).join(','),
          DV_WDIO_HOSTNAME: '127.0.0.1',
          DV_WDIO_PORT: String(server!.port),
          DV_ADB_PORT: String(adb!.port),
          DV_CONFIG: CONFIG,
          DV_SCENARIOS: 'back-to-back',
          DV_OUT: join(work!, name),
        }),
        timeoutMs: 200_000,
      });
    const [correct, mixed] = await Promise.all([wdio('wdio-correct', [g1!, g2!]), wdio('wdio-mixed', [g3!, bad])]);

    expect(correct.code, correct.output.slice(-3000)).to.equal(0);
    for (const d of [g1!, g2!]) {
      expect(correct.output).to.include(`✓ back-to-back on ${d.serial}`);
      const report = JSON.parse(await readFile(join(work!, 'wdio-correct', d.serial.replace(/:/g, '_'), 'report.json'), 'utf8')) as Report;
      expect(report.scenarios.map((s) => [s.name, s.device, s.verdict])).to.deep.equal([['back-to-back', d.serial, 'pass']]);
    }
    // The spec file is the package's own, from node_modules.
    expect(correct.output).to.include('node_modules/dedup-verify/dist/src/wdio/scenario-suite.js');

    expect(mixed.code, mixed.output.slice(-3000)).to.not.equal(0);
    expect(mixed.code).to.not.equal(null);
    expect(mixed.output).to.include(`✓ back-to-back on ${g3!.serial}`);
    expect(mixed.output).to.include(`✖ back-to-back on ${bad.serial}`);
    expect(mixed.output).to.include(`back-to-back FAILED on ${bad.serial}`);
    expect(mixed.output).not.to.include(`✖ back-to-back on ${g3!.serial}`);
    const junit = await readFile(join(work!, 'wdio-mixed', bad.serial.replace(/:/g, '_'), 'junit.xml'), 'utf8');
    expect(junit).to.match(/<failure /);
  });
});
