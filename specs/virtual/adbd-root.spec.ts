/**
 * root:/unroot:/reboot: restarts seen by the real adb and adbkit, the --no-root refusal, and
 * two devices addressed with -s.
 */
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

describe('virtual adbd: root, reboot and several devices', () => {
  const devices = testDevices();
  let adb: AdbServer;

  before(async () => {
    adb = await startAdbServer();
  });

  after(async () => {
    await adb?.stop();
    await devices.stopAll();
  });

  describe('a userdebug device', () => {
    let dev: RunningVirtualDevice;
    before(async () => {
      dev = await devices.start();
      await adb.connect(dev.serial);
    });

    it('`adb root` restarts adbd as root: the link drops, the host reconnects, shells run as uid 0', async () => {
      expect((await adb.adb(['-s', dev.serial, 'shell', 'id', '-u'])).stdout.toString()).to.equal('2000\n');
      await adb.adb(['-s', dev.serial, 'reverse', 'tcp:7000', 'tcp:7001']);
      const reconnected = dev.daemon.nextOnline();
      const r = await adb.adb(['-s', dev.serial, 'root']);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout.toString()).to.equal('restarting adbd as root\n');
      await reconnected;
      await adb.waitForDevice(dev.serial);
      expect(dev.device.adbdIsRoot).to.equal(true);
      expect(dev.device.props.get('service.adb.root')).to.equal('1');
      expect((await adb.adb(['-s', dev.serial, 'shell', 'id', '-u'])).stdout.toString()).to.equal('0\n');
      // Rules survive the restart for the reconnecting host (net/device-network.ts).
      expect((await adb.adb(['-s', dev.serial, 'reverse', '--list'])).stdout.toString()).to.match(/^host-\d+ tcp:7000 tcp:7001$/m);
    });

    it('a second `adb root` says adbd already runs as root and keeps the link', async () => {
      const r = await adb.adb(['-s', dev.serial, 'root']);
      expect(r.stdout.toString()).to.equal('adbd is already running as root\n');
      expect(dev.daemon.stats().transports).to.equal(1);
    });

    it('`adb unroot` restarts adbd as the shell user', async () => {
      const reconnected = dev.daemon.nextOnline();
      const r = await adb.adb(['-s', dev.serial, 'unroot']);
      expect(r.stdout.toString()).to.equal('restarting adbd as non root\n');
      await reconnected;
      await adb.waitForDevice(dev.serial);
      expect(dev.device.adbdIsRoot).to.equal(false);
    });

    it('adbkit root() resolves true and the device comes back as root', async () => {
      const reconnected = dev.daemon.nextOnline();
      expect(await adb.client.getDevice(dev.serial).root()).to.equal(true);
      await reconnected;
      await adb.waitForDevice(dev.serial);
      expect(dev.device.adbdIsRoot).to.equal(true);
    });

    it('`adb reboot` drops the link; the device comes back unrooted without reverse rules', async () => {
      const reconnected = dev.daemon.nextOnline();
      const r = await adb.adb(['-s', dev.serial, 'reboot']);
      expect(r.code, r.stderr).to.equal(0);
      await reconnected;
      await adb.waitForDevice(dev.serial);
      expect(dev.device.adbdIsRoot).to.equal(false);
      expect(dev.device.network.stats().reverseRules).to.equal(0);
      expect((await adb.adb(['-s', dev.serial, 'shell', 'echo', 'back'])).stdout.toString()).to.equal('back\n');
    });
  });

  describe('a --no-root (user build) device', () => {
    let dev: RunningVirtualDevice;
    before(async () => {
      dev = await devices.start({ noRoot: true });
      await adb.connect(dev.serial);
    });

    it('refuses `adb root` as a production build does and keeps the link', async () => {
      const r = await adb.adb(['-s', dev.serial, 'root']);
      expect(r.stdout.toString()).to.equal('adbd cannot run as root in production builds\n');
      expect(dev.device.adbdIsRoot).to.equal(false);
      expect(dev.daemon.stats().transports).to.equal(1);
    });

    it('adbkit root() rejects with the device\'s text', async () => {
      let error: unknown;
      await Promise.resolve(adb.client.getDevice(dev.serial).root()).catch((e: unknown) => (error = e));
      expect((error as Error).message).to.contain('adbd cannot run as root in production builds');
    });
  });

  describe('two devices at once', () => {
    let pair: RunningVirtualDevice[];
    let work: string;
    before(async () => {
      pair = await devices.startMany(2);
      for (const d of pair) await adb.connect(d.serial);
      work = await mkdtemp(join(tmpdir(), 'dv-adbd-two-'));
    });
    after(async () => {
      await rm(work, { recursive: true, force: true });
    });

    it('listen on consecutive ports and are addressed separately with -s', async () => {
      const [a, b] = pair as [RunningVirtualDevice, RunningVirtualDevice];
      expect(b.port).to.equal(a.port + 1);
      const listed = (await adb.adb(['devices'])).stdout.toString();
      expect(listed).to.contain(`${a.serial}\tdevice`).and.to.contain(`${b.serial}\tdevice`);
      await writeFile(join(work, 'only-a.txt'), 'a\n');
      expect((await adb.adb(['-s', a.serial, 'push', join(work, 'only-a.txt'), '/data/local/tmp/only-a.txt'])).code).to.equal(0);
      expect((await adb.adb(['-s', a.serial, 'shell', 'cat', '/data/local/tmp/only-a.txt'])).stdout.toString()).to.equal('a\n');
      const onB = await adb.adb(['-s', b.serial, 'shell', 'cat', '/data/local/tmp/only-a.txt']);
      expect(onB.code).to.equal(1);
      expect(onB.stderr).to.contain('No such file or directory');
    });
  });
});
