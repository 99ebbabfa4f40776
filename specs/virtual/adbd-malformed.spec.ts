/**
 * Bad input never crashes the device: a bad magic, garbage or an oversize data_length drops
 * only that connection; an unknown service gets CLSE(0, id) (and the adb server's "FAIL closed");
 * packets for unknown stream ids are ignored. After each, the device still serves.
 */
import { expect } from 'chai';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { AdbCommand, encodePacket } from '../../src/virtual-device/adbd/packet.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { RawAdbHost, testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

/**
 * Sends smart-socket requests to the adb server one at a time (each after the previous OKAY:
 * the server discards bytes that arrive with a host:transport request) and returns everything
 * it answers until it closes the connection.
 */
function askAdbServer(port: number, requests: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const pending = [...requests];
    const sendNext = (): void => {
      const r = pending.shift();
      if (r !== undefined) socket.write(r.length.toString(16).padStart(4, '0') + r);
    };
    const socket = net.connect(port, '127.0.0.1', sendNext);
    const chunks: Buffer[] = [];
    let okays = 0;
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const seen = (Buffer.concat(chunks).toString('latin1').match(/OKAY/g) ?? []).length;
      for (; okays < seen; okays++) sendNext();
    });
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.once('error', reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error(`adb server did not answer (got ${Buffer.concat(chunks).toString('latin1')})`));
    });
  });
}

describe('virtual adbd: malformed input', () => {
  const devices = testDevices();
  let dev: RunningVirtualDevice;

  /** A fresh connection still gets a handshake and a working shell. */
  async function expectServing(): Promise<void> {
    const host = await RawAdbHost.connect(dev.port);
    try {
      const cnxn = await host.handshake();
      expect(cnxn.data.toString()).to.match(/^device::ro\.product\.name=/);
      const { opened, data } = await host.runService(1, 'shell:echo still-here');
      expect(opened).to.equal(true);
      expect(data.toString()).to.equal('still-here\n');
    } finally {
      host.close();
    }
  }

  before(async () => {
    dev = await devices.start();
  });

  after(async () => {
    await devices.stopAll();
  });

  it('answers CNXN at once with version 0x01000001, the host\'s max payload and the banner', async () => {
    const host = await RawAdbHost.connect(dev.port);
    try {
      const cnxn = await host.handshake(256 * 1024);
      expect([cnxn.arg0, cnxn.arg1]).to.deep.equal([0x01000001, 256 * 1024]);
      expect(cnxn.data.toString()).to.equal(
        'device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=sdk_gphone64_x86_64;ro.product.device=emu64xa;features=shell_v2,stat_v2,ls_v2,fixed_push_mkdir',
      );
    } finally {
      host.close();
    }
  });

  it('drops a connection that sends a bad magic, and serves the next one', async () => {
    const host = await RawAdbHost.connect(dev.port);
    await host.handshake();
    const bad = encodePacket(AdbCommand.Open, 1, 0, Buffer.from('shell:echo x\0'));
    bad.writeUInt32LE(0x12345678, 20);
    host.sendRaw(bad);
    expect(await host.isClosedWithin(3000)).to.equal(true);
    await expectServing();
  });

  it('drops a connection that sends garbage before any handshake', async () => {
    const host = await RawAdbHost.connect(dev.port);
    host.sendRaw(randomBytes(100));
    expect(await host.isClosedWithin(3000)).to.equal(true);
    await expectServing();
  });

  it('drops a connection whose data_length exceeds the negotiated max payload', async () => {
    const host = await RawAdbHost.connect(dev.port);
    await host.handshake(4096);
    const header = encodePacket(AdbCommand.Wrte, 1, 1).subarray(0, 24);
    header.writeUInt32LE(4097, 12);
    host.sendRaw(header);
    expect(await host.isClosedWithin(3000)).to.equal(true);
    await expectServing();
  });

  it('answers an unknown service with CLSE(0, id) and keeps the connection', async () => {
    const host = await RawAdbHost.connect(dev.port);
    try {
      await host.handshake();
      host.send(AdbCommand.Open, 5, 0, Buffer.from('no-such-service:\0'));
      const reply = await host.expect(AdbCommand.Clse);
      expect([reply.arg0, reply.arg1]).to.deep.equal([0, 5]);
      const { data } = await host.runService(6, 'shell:echo after');
      expect(data.toString()).to.equal('after\n');
    } finally {
      host.close();
    }
  });

  it('ignores WRTE, OKAY and CLSE for unknown stream ids and unknown commands', async () => {
    const host = await RawAdbHost.connect(dev.port);
    try {
      await host.handshake();
      host.send(AdbCommand.Wrte, 9, 4242, Buffer.from('stray'));
      host.send(AdbCommand.Okay, 9, 4243);
      host.send(AdbCommand.Clse, 9, 4244);
      host.send(0x4b4e4a55, 1, 2); // "UJNK" with a valid magic
      const { data } = await host.runService(10, 'shell:echo ignored-them');
      expect(data.toString()).to.equal('ignored-them\n');
    } finally {
      host.close();
    }
  });

  it('the adb server reports an unknown service as FAIL closed, and adb keeps working', async () => {
    const adb: AdbServer = await startAdbServer();
    try {
      await adb.connect(dev.serial);
      const answer = await askAdbServer(adb.port, [`host:transport:${dev.serial}`, 'no-such-service:']);
      expect(answer).to.equal('OKAYFAIL0006closed');
      const r = await adb.adb(['-s', dev.serial, 'shell', 'echo', 'fine']);
      expect(r.stdout.toString()).to.equal('fine\n');
    } finally {
      await adb.stop();
    }
  });

  it('a host that vanishes mid-stream leaves no stream or link behind', async () => {
    const host = await RawAdbHost.connect(dev.port);
    await host.handshake();
    host.send(AdbCommand.Open, 1, 0, Buffer.from('shell:cat\0'));
    await host.expect(AdbCommand.Okay);
    expect(dev.daemon.stats().streams).to.be.greaterThan(0);
    const idle = dev.daemon.whenIdle();
    host.close();
    await idle;
    expect(dev.daemon.stats()).to.deep.equal({ transports: 0, streams: 0 });
  });
});
