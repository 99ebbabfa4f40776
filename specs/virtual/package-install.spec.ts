/**
 * The published package on its own: `npm run build`, `npm pack`, then `npm install <tarball>`
 * into an empty folder with no repository around it (specs/support/installed-package.ts), and
 * the installed `dedup-verify` finds its adb server, its reference config, its fixture feeds and
 * its virtual device: `--version`, `run --virtual` and `check` on the history it wrote. The
 * tarball holds the built JavaScript and types, the JSON Schema and the fixtures, and no specs,
 * bench or sources. Without webdriverio (an optional peer dependency) installed beside it,
 * `run --appium` says which install it needs, and `dedup-verify/wdio` still loads.
 *
 * One install is shared by the `it`s. The CLI runs against this spec's own adb server
 * (ANDROID_ADB_SERVER_PORT). specs/virtual/wdio-run-package.spec.ts installs the package with
 * webdriverio and WebdriverIO's testrunner and runs both farm paths.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { ROOT, cleanEnv, exec, installPackage, type Exec } from '../support/installed-package.js';

const PKG_JSON = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('the npm package, installed from its tarball into an empty folder', function () {
  this.timeout(180_000);
  let adb: AdbServer;
  let work: string;
  let tarball: string;
  let app: string;
  let entries: readonly string[];

  /** `npx --no-install dedup-verify ARGS` in the installed folder, on this spec's adb server. */
  function dv(...args: string[]): Promise<Exec> {
    return exec('npx', ['--no-install', 'dedup-verify', ...args], { cwd: app, env: cleanEnv({ ANDROID_ADB_SERVER_PORT: String(adb.port) }) });
  }

  before(async () => {
    adb = await startAdbServer();
    ({ work, tarball, entries, app } = await installPackage('dv-package-spec-'));
  });

  after(async () => {
    await adb?.stop();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('packs the built JavaScript and types, the schema and the fixtures, and no specs, bench or sources', () => {
    const files = entries.map((e) => e.replace(/^package\//, ''));
    for (const needed of [
      'package.json',
      'bin/dedup-verify.js',
      'dist/src/cli/main.js',
      'dist/src/cli/main.d.ts',
      'dist/src/cli/node-version.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/wdio/index.js',
      'dist/src/wdio/index.d.ts',
      'dist/src/wdio/scenario-suite.js',
      'schema/dedup-verify.config.schema.json',
      'fixtures/reference-app.config.json',
      'fixtures/feeds/fresh-five.json',
    ]) {
      expect(files, needed).to.include(needed);
    }
    expect(files.filter((f) => /(^|\/)(specs|bench|node_modules|\.ci)\//.test(f) || /\.spec\.[jt]s$/.test(f))).to.deep.equal([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).to.deep.equal([]);
    expect(files.filter((f) => f.startsWith('fixtures/') && !f.startsWith('fixtures/feeds/') && f !== 'fixtures/reference-app.config.json')).to.deep.equal([]);
  });

  it('ships no compiled file whose source is gone (a clean build)', () => {
    const stale = entries
      .map((e) => e.replace(/^package\//, ''))
      .filter((f) => f.startsWith('dist/src/') && f.endsWith('.js'))
      .filter((f) => !existsSync(join(ROOT, f.replace(/^dist\//, '').replace(/\.js$/, '.ts'))));
    expect(stale).to.deep.equal([]);
  });

  it('stays small', async () => {
    const { size } = await stat(tarball);
    expect(size).to.be.below(2 * 1024 * 1024);
  });

  it('installs a dedup-verify command that prints the version', async () => {
    expect(existsSync(join(app, 'node_modules', '.bin', 'dedup-verify'))).to.equal(true);
    const r = await dv('--version');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`${PKG_JSON.version}\n`);
    const help = await dv('run', '--help');
    expect(help.code, help.stderr).to.equal(0);
    expect(help.stdout).to.include('Examples:');
  });

  it('runs run --virtual from the installed copy, then check on the history it wrote', async () => {
    const out = join(work, 'out');
    const run = await dv('run', '--virtual', '--scenario', 'back-to-back', '--out', out);
    expect(run.code, run.stderr).to.equal(0);
    // The installed copy used this spec's adb server rather than starting its own.
    expect(run.stderr).to.not.include('starting a private one');
    expect(run.stderr).to.match(/virtual device listening on 127\.0\.0\.1:\d+/);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { verdict: string; app: { package: string }; tool?: { version: string } };
    expect(report.verdict).to.equal('pass');
    expect(report.app.package).to.equal('com.example.feednotifier');
    expect(report.tool?.version).to.equal(PKG_JSON.version);

    const check = await dv('check', join(out, 'history.jsonl'));
    expect(check.code, check.stderr).to.equal(0);
    expect(check.stdout).to.match(/: PASS\n/);
    const json = await dv('check', join(out, 'history.jsonl'), '--json');
    expect((JSON.parse(json.stdout) as { verdict: string }).verdict).to.equal('pass');
  });

  it('run --appium without webdriverio installed: one line naming the install, exit 2, before the config or any server', async () => {
    // No config here, no Appium server on port 1: the missing peer dependency is the first thing said.
    const r = await dv('run', '--appium', 'http://127.0.0.1:1', '--device', 'emulator-5554', '--scenario', 'back-to-back');
    expect(r.code, r.stdout + r.stderr).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trimEnd().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/^error: .*webdriverio.*`npm install webdriverio@9`/);
    expect(existsSync(join(app, 'node_modules', 'webdriverio'))).to.equal(false);
  });

  it('dedup-verify/wdio loads without WebdriverIO installed, and builds a config from the DV_ variables', async () => {
    const script = `
      const wdio = await import('dedup-verify/wdio');
      let refused = '';
      try { wdio.dedupVerifyConfig({}, {}); } catch (e) { refused = e.message; }
      const config = wdio.dedupVerifyConfig({}, { DV_WDIO_UDIDS: 'emulator-5554,127.0.0.1:5555', DV_WDIO_HOSTNAME: 'hub.example', DV_WDIO_PORT: '4723', DV_ADB_PORT: '5038' });
      console.log(JSON.stringify({ refused, suite: wdio.scenarioSuite, config }));`;
    const r = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    expect(r.code, r.stderr).to.equal(0);
    const { refused, suite, config } = JSON.parse(r.stdout) as {
      refused: string;
      suite: string;
      config: { specs: string[]; hostname: string; port: number; framework: string; services?: unknown; capabilities: Record<string, unknown>[] };
    };
    expect(refused).to.match(/^dedup-verify\/wdio: set DV_WDIO_UDIDS /);
    expect(suite).to.equal(join(app, 'node_modules', 'dedup-verify', 'dist', 'src', 'wdio', 'scenario-suite.js'));
    expect(existsSync(suite)).to.equal(true);
    expect(config.specs).to.deep.equal([suite]);
    expect({ hostname: config.hostname, port: config.port, framework: config.framework, services: config.services }).to.deep.equal({ hostname: 'hub.example', port: 4723, framework: 'mocha', services: undefined });
    expect(config.capabilities.map((c) => [c['appium:udid'], c['appium:adbPort'], c['appium:suppressKillServer']])).to.deep.equal([
      ['emulator-5554', 5038, undefined],
      ['127.0.0.1:5555', 5038, true],
    ]);
  });

  it('serves the packaged fixture feeds with serve-feed', async () => {
    // The installed bin itself (not through npx), so SIGTERM reaches serve-feed.
    const child = spawn(join(app, 'node_modules', '.bin', 'dedup-verify'), ['serve-feed', '--port', '0', '--fixture', 'fresh-five'], { cwd: app, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve-feed printed no address: ${stdout} ${stderr}`)), 30_000);
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
        const m = /serving feed on (http:\/\/\S+)/.exec(stdout);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', () => reject(new Error(`serve-feed exited: ${stderr}`)));
    });
    try {
      const response = await fetch(url);
      expect(response.status).to.equal(200);
      expect((await response.text()).match(/<item>/g)).to.have.length(5);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    }
  });
});
