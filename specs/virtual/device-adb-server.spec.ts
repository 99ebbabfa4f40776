/**
 * src/device/adb-server.ts with the real adb binary: probing and starting a server on a private
 * port, `adb connect` to a virtual device, listing, and waiting for a device by tracker events.
 */
import { expect } from 'chai';
import {
  connectTcpDevice,
  createAdbClient,
  ensureAdbServer,
  findAdbBinary,
  listDevices,
  probeAdbServer,
  runAdb,
  waitForDevice,
} from '../../src/device/adb-server.js';
import { DedupVerifyError, TimeoutError } from '../../src/errors.js';
import { freePort } from '../support/adb-server.js';
import { testDevices } from '../support/virtual-devices.js';

describe('adb server handling', () => {
  const devices = testDevices();
  let port: number;
  let adbPath: string;

  before(async () => {
    adbPath = findAdbBinary();
    port = await freePort();
  });

  after(async () => {
    await runAdb(adbPath, ['-P', String(port), 'kill-server'], 10_000).catch(() => undefined);
    await devices.stopAll();
  });

  it('finds adb on PATH and says how to fix a missing one', () => {
    expect(adbPath).to.match(/\/adb$/);
    try {
      findAdbBinary({ PATH: '/nonexistent' });
      expect.fail('found adb');
    } catch (e) {
      expect(e).to.be.instanceOf(DedupVerifyError).with.property('code', 'DV_ADB_NOT_FOUND');
    }
  });

  it('starts a server only when none answers, and reuses it after', async () => {
    expect(await probeAdbServer({ host: '127.0.0.1', port })).to.equal(null);
    const first = await ensureAdbServer({ host: '127.0.0.1', port }, { adbPath });
    expect(first).to.deep.equal({ endpoint: { host: '127.0.0.1', port }, version: 41, started: true });
    const second = await ensureAdbServer({ host: '127.0.0.1', port }, { adbPath });
    expect(second.started).to.equal(false);
  });

  it('never starts a server for a remote host', async () => {
    const unused = await freePort();
    try {
      await ensureAdbServer({ host: '127.0.0.2', port: unused }, { adbPath });
      expect.fail('started or found a server');
    } catch (e) {
      expect(e).to.have.property('code', 'DV_ADB_SERVER');
    }
  });

  it('connects a TCP device, lists it, and waits for it by tracker events', async () => {
    const dev = await devices.start();
    const endpoint = { host: '127.0.0.1', port };
    const client = createAdbClient(endpoint);
    const serial = await connectTcpDevice(endpoint, { host: '127.0.0.1', port: dev.port });
    expect(serial).to.equal(dev.serial);
    await waitForDevice(client, endpoint, serial, { timeoutMs: 10_000 });
    expect(await listDevices(client, endpoint)).to.deep.include({ serial, state: 'device' });
  });

  it('fails a connect to a closed port with the reason adb gives', async () => {
    const closed = await freePort();
    try {
      await connectTcpDevice({ host: '127.0.0.1', port }, { host: '127.0.0.1', port: closed }, 15_000);
      expect.fail('connected');
    } catch (e) {
      expect(e).to.have.property('code', 'DV_DEVICE_NOT_FOUND');
      expect((e as Error).message).to.match(new RegExp(`^adb could not connect to 127\\.0\\.0\\.1:${closed}: failed to connect to`));
    }
  });

  it('times out waiting for a device that never comes', async () => {
    const endpoint = { host: '127.0.0.1', port };
    try {
      await waitForDevice(createAdbClient(endpoint), endpoint, 'emulator-5999', { timeoutMs: 300 });
      expect.fail('device appeared');
    } catch (e) {
      expect(e).to.be.instanceOf(TimeoutError);
      expect((e as Error).message).to.equal('Device "emulator-5999" did not become "device" within 300 ms (last state: absent). Try `adb devices`.');
    }
  });
});
