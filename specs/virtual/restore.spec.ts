/**
 * A run killed with SIGKILL cannot restore anything itself: the state file it wrote before
 * changing the device lets `dedup-verify restore` put the clock, auto_time, reverse rules and the
 * app database back.
 */
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices } from '../support/virtual-devices.js';
import { runCli, startCli } from '../support/cli.js';

const PKG = 'com.example.feednotifier';

describe('dedup-verify restore after a crashed run (virtual device, real adb)', function () {
  this.timeout(120_000);
  let adb: AdbServer;
  let stateHome: string;
  const devices = testDevices();
  before(async () => {
    adb = await startAdbServer();
    stateHome = await mkdtemp(join(tmpdir(), 'dv-state-'));
  });
  after(async () => {
    await devices.stopAll();
    await adb.stop();
    await rm(stateHome, { recursive: true, force: true });
  });

  async function shell(serial: string, command: string): Promise<string> {
    return (await adb.adb(['-s', serial, 'shell', command])).stdout.toString('utf8').trim();
  }
  async function rows(serial: string): Promise<string> {
    return shell(serial, `run-as ${PKG} sqlite3 databases/feed.db "SELECT link FROM notifications ORDER BY id"`);
  }

  it('puts back what a SIGKILLed run changed, from the state file', async () => {
    const d = await devices.start();
    await adb.connect(d.serial);
    await shell(d.serial, `am start -n ${PKG}/.MainActivity`);
    await shell(d.serial, `run-as ${PKG} sqlite3 databases/feed.db "INSERT INTO notifications (link, title, published_at, notified_at) VALUES ('https://example.org/mine', 'Mine', 1, 2)"`);
    const before = { autoTime: await shell(d.serial, 'settings get global auto_time'), rows: await rows(d.serial) };
    const hostBefore = Date.now();
    const deviceBefore = Number(await shell(d.serial, 'date +%s%3N'));
    const env = { XDG_STATE_HOME: stateHome };
    // Killed in the second scenario: a move of the clock goes out with the next command that
    // changes the device, so by then missed-run's moves (two days and more) have reached it.
    const run = startCli(
      ['run', '--device', d.serial, '--config', 'fixtures/reference-app.config.json', '--adb-port', String(adb.port), '--scenario', 'missed-run', '--scenario', 'window-vs-interval'],
      { env },
    );
    await run.waitForStderr(/forced run with items at the edges of the window/);
    run.child.kill('SIGKILL');
    await run.done;
    // The device is in the run's state: clock moved, auto_time off, rows changed, state file left.
    expect(await shell(d.serial, 'settings get global auto_time')).to.equal('0');
    expect(Number(await shell(d.serial, 'date +%s%3N')) - (deviceBefore + (Date.now() - hostBefore))).to.be.greaterThan(3_600_000);
    expect(await readdir(join(stateHome, 'dedup-verify'))).to.have.length(1);

    const refused = await runCli(['run', '--device', d.serial, '--config', 'fixtures/reference-app.config.json', '--adb-port', String(adb.port), '--scenario', 'back-to-back'], { env });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/^error: Run `dedup-verify restore --device 127\.0\.0\.1:\d+` first, then this command again: 127\.0\.0\.1:\d+ was not restored after an earlier run /m);
    expect(refused.stderr.split('\n').filter((l) => l.startsWith('error:'))).to.have.length(1);

    const restored = await runCli(['restore', '--device', d.serial, '--adb-port', String(adb.port)], { env });
    expect(restored.code, restored.stderr).to.equal(0);
    expect(restored.stdout).to.match(/^Restored 127\.0\.0\.1:\d+: clock, auto_time, reverse rules/);
    expect(await shell(d.serial, 'settings get global auto_time')).to.equal(before.autoTime);
    expect(await rows(d.serial)).to.equal(before.rows);
    expect(Math.abs(Number(await shell(d.serial, 'date +%s%3N')) - (deviceBefore + (Date.now() - hostBefore)))).to.be.lessThan(2_000);
    expect(await readdir(join(stateHome, 'dedup-verify'))).to.deep.equal([]);
    expect((await adb.adb(['-s', d.serial, 'reverse', '--list'])).stdout.toString('utf8').trim()).to.equal('');

    const again = await runCli(['restore', '--device', d.serial, '--adb-port', String(adb.port)], { env });
    expect(again.code).to.equal(0);
    expect(again.stdout).to.match(/Nothing to restore on 127\.0\.0\.1:\d+/);
  });
});
