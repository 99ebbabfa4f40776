/**
 * `dedup-verify init` against virtual devices through the real adb binary on a private server:
 * it finds the reference app's package, launcher, unique periodic work, interval and dedup
 * table, writes a config whose "$comment" says what it found and what to confirm, and `run`
 * passes with that config; the things a newcomer gets wrong (a release build, a typo in the
 * package, an app never launched, an existing file) are one line with the fix and exit 2.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { main, type CliIo } from '../../src/cli/main.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { type AdbServer } from '../support/adb-server.js';
import { virtualLab } from '../support/lab.js';
import { type RunningVirtualDevice } from '../support/virtual-devices.js';
import { runCli } from '../support/cli.js';
import type { StartVirtualDeviceOptions } from '../../src/virtual-device/server.js';

const PKG = 'com.example.feednotifier';
const REFERENCE = JSON.parse(await readFile(new URL('../../fixtures/reference-app.config.json', import.meta.url), 'utf8')) as Record<string, unknown>;

interface Result {
  code: number;
  out: string;
  err: string;
}

describe('dedup-verify init (virtual devices, real adb)', function () {
  this.timeout(120_000);
  const lab = virtualLab('dv-init-spec-');
  const devices = lab.devices;
  let adb: AdbServer;
  let work: string;
  before(() => ({ adb, work } = lab));

  async function device(options: StartVirtualDeviceOptions = {}, launch = true): Promise<RunningVirtualDevice> {
    const d = await devices.start(options);
    await adb.connect(d.serial);
    if (launch) await adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
    return d;
  }

  /** init in this process, against the spec's own adb server. */
  async function init(...args: string[]): Promise<Result> {
    let out = '';
    let err = '';
    const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
    const code = await main(['node', 'dedup-verify', 'init', '--adb-port', String(adb.port), ...args], io);
    return { code, out, err };
  }

  function expectOneLineError(r: Result, pattern: RegExp): void {
    expect(r.code, r.err).to.equal(2);
    expect(r.out).to.equal('');
    expect(r.err.trimEnd().split('\n'), r.err).to.have.length(1);
    expect(r.err).to.match(/^error: /);
    expect(r.err).to.match(pattern);
    expect(r.err).to.not.match(/\n\s+at /);
  }

  it('writes a config with which run --scenario back-to-back passes for the reference app', async () => {
    const d = await device();
    const path = join(work, 'from-init', 'dedup-verify.config.json');
    await mkdir(dirname(path), { recursive: true });
    const r = await init('--device', d.serial, '--package', PKG, '--out', path);
    expect(r.code, r.err).to.equal(0);
    expect(r.out).to.include(`Inspected ${PKG} on ${d.serial}:`);
    expect(r.out).to.match(/found +Unique periodic work "feed-poll" every 24 h/);
    expect(r.out).to.include(`dedup-verify run --device ${d.serial} --config`);

    const written = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown> & { $comment: string[]; $schema: string };
    // What init can read from the device matches the reference app's hand-written config.
    for (const key of ['app', 'work', 'windowMs', 'database']) expect(written[key], key).to.deep.equal(REFERENCE[key]);
    expect(() => parseConfig(written, path)).to.not.throw();
    expect(existsSync(resolve(dirname(path), written.$schema)), written.$schema).to.equal(true);
    // The comment says what was found and what the user must confirm.
    expect(written.$comment.some((l) => /^FOUND .*debuggable/.test(l))).to.equal(true);
    expect(written.$comment.some((l) => /^FOUND Unique periodic work "feed-poll" every 24 h, worker com\.example\.feednotifier\.FeedPollWorker/.test(l))).to.equal(true);
    for (const key of ['windowMs', 'database', 'feed', 'notifications.match']) {
      expect(written.$comment.some((l) => l.startsWith(`CONFIRM ${key}`)), `CONFIRM ${key}`).to.equal(true);
    }

    const run = await runCli(['run', '--device', d.serial, '--config', path, '--scenario', 'back-to-back', '--adb-port', String(adb.port)]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/back-to-back\s+PASS/);
  });

  it('--json prints the path, device, package, findings, guesses and the config it wrote', async () => {
    const d = await device({ apiLevel: 30 });
    const path = join(work, 'json.config.json');
    const r = await init('--device', d.serial, '--package', PKG, '--out', path, '--json');
    expect(r.code, r.err).to.equal(0);
    const printed = JSON.parse(r.out) as { path: string; device: string; package: string; found: string[]; confirm: string[]; config: unknown };
    expect(printed.path).to.equal(path);
    expect(printed.device).to.equal(d.serial);
    expect(printed.package).to.equal(PKG);
    expect(printed.found.length).to.be.greaterThan(0);
    expect(printed.confirm.some((c) => c.startsWith('windowMs'))).to.equal(true);
    expect(printed.config).to.deep.equal(JSON.parse(await readFile(path, 'utf8')));
  });

  it('finds the app by itself without --package, and says it guessed', async () => {
    const d = await device();
    const path = join(work, 'guessed.config.json');
    const r = await init('--device', d.serial, '--out', path, '--json');
    expect(r.code, r.err).to.equal(0);
    const printed = JSON.parse(r.out) as { package: string; confirm: string[] };
    expect(printed.package).to.equal(PKG);
    expect(printed.confirm.some((c) => c.startsWith(`app.package: no --package given; picked ${PKG}`))).to.equal(true);
  });

  it('reports a key column without a UNIQUE index as a guess to confirm', async () => {
    const d = await device({ bugs: ['no-unique-index'] });
    const path = join(work, 'no-unique.config.json');
    const r = await init('--device', d.serial, '--package', PKG, '--out', path, '--json');
    expect(r.code, r.err).to.equal(0);
    const printed = JSON.parse(r.out) as { confirm: string[]; config: { database: unknown } };
    expect(printed.config.database).to.deep.equal(REFERENCE['database']);
    expect(printed.confirm.some((c) => /^database: .*no UNIQUE index/.test(c)), printed.confirm.join('\n')).to.equal(true);
  });

  it('refuses a package that is not debuggable, in one line naming the fix', async () => {
    const d = await device();
    const path = join(work, 'not-debuggable.json');
    const r = await init('--device', d.serial, '--package', 'com.android.systemui', '--out', path);
    expectOneLineError(r, /not debuggable: com\.android\.systemui.*Install a debuggable build/);
    expect(existsSync(path)).to.equal(false);
  });

  it('refuses a package that is not installed, listing the apps that are', async () => {
    const d = await device();
    const path = join(work, 'missing.json');
    const r = await init('--device', d.serial, '--package', 'com.example.feednotifer', '--out', path);
    expectOneLineError(r, new RegExp(`com\\.example\\.feednotifer is not installed on ${d.serial.replace(/\./g, '\\.')} \\(third-party packages there: ${PKG.replace(/\./g, '\\.')}\\)`));
    expect(existsSync(path)).to.equal(false);
  });

  it('says to launch the app first when WorkManager has no database yet', async () => {
    const d = await device({}, false);
    const path = join(work, 'not-launched.json');
    const r = await init('--device', d.serial, '--package', PKG, '--out', path);
    expectOneLineError(r, new RegExp(`no WorkManager database .*launch the app once .*am start -n ${PKG.replace(/\./g, '\\.')}/\\.MainActivity`));
    expect(existsSync(path)).to.equal(false);
  });

  it('does not overwrite an existing config unless --force is given', async () => {
    const d = await device();
    const path = join(work, 'existing.json');
    await writeFile(path, '{"mine": true}\n');
    const refused = await init('--device', d.serial, '--package', PKG, '--out', path);
    expectOneLineError(refused, /exists; pass --force to overwrite it/);
    expect(await readFile(path, 'utf8')).to.equal('{"mine": true}\n');
    const forced = await init('--device', d.serial, '--package', PKG, '--out', path, '--force');
    expect(forced.code, forced.err).to.equal(0);
    expect((JSON.parse(await readFile(path, 'utf8')) as { app: unknown }).app).to.deep.equal(REFERENCE['app']);
  });

  it('checks --out before it inspects the device: a missing directory is one line naming it', async () => {
    const d = await device();
    const dir = join(work, 'no-such-dir');
    const path = join(dir, 'x.json');
    const pattern = new RegExp(`^error: --out ${path}: the directory ${dir} does not exist; create it first \\(mkdir -p ${dir}\\)`);
    // The package is misspelt too: had the device been inspected first, that would be the error.
    expectOneLineError(await init('--device', d.serial, '--package', 'com.example.feednotifer', '--out', path), pattern);
    // With everything else right, the whole inspection would run before the write failed.
    expectOneLineError(await init('--device', d.serial, '--package', PKG, '--out', path), pattern);
    expect(existsSync(dir)).to.equal(false);
  });

  it('names the device to pick when several are online, and a device that is not there', async () => {
    await device({}, false);
    await device({}, false);
    expectOneLineError(await init('--package', PKG, '--out', join(work, 'several.json')), /Several devices are online .*--device SERIAL/);
    expectOneLineError(await init('--device', 'emulator-5554', '--package', PKG, '--out', join(work, 'absent.json')), /No device "emulator-5554" online .*adb devices/);
  });
});
