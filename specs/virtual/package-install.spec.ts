/**
 * The published package on its own: `npm run build`, `npm pack`, then `npm install <tarball>`
 * into an empty folder with no repository around it, and the installed `dedup-verify` finds its
 * adb server, its reference config, its fixture feeds and its virtual device: `--version`,
 * `run --virtual` and `check` on the history it wrote. The tarball holds the built JavaScript
 * and types, the JSON Schema and the fixtures, and no specs, bench or sources.
 *
 * One install is shared by the `it`s. It uses `--ignore-scripts` and copies the native addon of
 * better-sqlite3 (the same version, built for this Node) from the project's node_modules:
 * without a network that addon is compiled from source, minutes on a small machine, which
 * tests better-sqlite3 rather than this package (the first-hour acceptance check does the full
 * install). The CLI runs against this spec's own adb server (ANDROID_ADB_SERVER_PORT).
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG_JSON = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without npm's per-script variables (this spec may itself run under `npm test`). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

function exec(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Exec> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd: options.cwd, env: options.env ?? cleanEnv(), timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the npm package, installed from its tarball into an empty folder', function () {
  this.timeout(180_000);
  let adb: AdbServer;
  let work: string;
  let tarball: string;
  let app: string;
  let entries: string[];

  /** `npx --no-install dedup-verify ARGS` in the installed folder, on this spec's adb server. */
  function dv(...args: string[]): Promise<Exec> {
    return exec('npx', ['--no-install', 'dedup-verify', ...args], { cwd: app, env: cleanEnv({ ANDROID_ADB_SERVER_PORT: String(adb.port) }) });
  }

  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-package-spec-'));

    const build = await exec('npm', ['run', 'build'], { cwd: ROOT });
    expect(build.code, build.stdout + build.stderr).to.equal(0);
    // The build just ran: pack without running `prepare` (a second build) again.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
    expect(pack.code, pack.stderr).to.equal(0);
    const packed = JSON.parse(pack.stdout) as { filename: string }[];
    tarball = join(work, packed[0]?.filename ?? '');
    const list = await exec('tar', ['tzf', tarball], { cwd: work });
    expect(list.code, list.stderr).to.equal(0);
    entries = list.stdout.split('\n').filter((l) => l !== '');

    app = join(work, 'app');
    await mkdir(app);
    const npmInit = await exec('npm', ['init', '-y'], { cwd: app });
    expect(npmInit.code, npmInit.stderr).to.equal(0);
    const install = await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', tarball], { cwd: app });
    expect(install.code, install.stdout + install.stderr).to.equal(0);
    const addon = 'node_modules/better-sqlite3';
    const versionOf = async (dir: string): Promise<string> => (JSON.parse(await readFile(join(dir, addon, 'package.json'), 'utf8')) as { version: string }).version;
    if ((await versionOf(app)) === (await versionOf(ROOT))) {
      await cp(join(ROOT, addon, 'build', 'Release', 'better_sqlite3.node'), join(app, addon, 'build', 'Release', 'better_sqlite3.node'));
    } else {
      const rebuild = await exec('npm', ['rebuild', 'better-sqlite3'], { cwd: app, timeoutMs: 600_000 });
      expect(rebuild.code, rebuild.stderr).to.equal(0);
    }
  });

  after(async () => {
    await adb.stop();
    await rm(work, { recursive: true, force: true });
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
