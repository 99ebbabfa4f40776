/**
 * adb reverse (device → host through a device-opened stream) and adb forward (host → a
 * device-local listener through tcp:PORT), with the real adb CLI and adbkit.
 */
import { expect } from 'chai';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { freePort, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

/** Reads a socket until it ends; rejects after `timeoutMs`. */
function readToEnd(socket: Duplex, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error(`no end within ${timeoutMs} ms (got ${Buffer.concat(chunks).toString()})`)), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString());
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** Resolves with the first `n` bytes read. */
function readBytes(socket: Duplex, n: number, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${n} bytes within ${timeoutMs} ms`)), timeoutMs);
    const onData = (c: Buffer): void => {
      got = Buffer.concat([got, c]);
      if (got.length >= n) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve(got.toString());
      }
    };
    socket.on('data', onData);
  });
}

/** A host TCP listener that records what each connection sent and answers "pong\n". */
async function hostListener(): Promise<{ port: number; received: Promise<string>[]; accepted: Promise<net.Socket>; close(): Promise<void> }> {
  const received: Promise<string>[] = [];
  let onAccept!: (s: net.Socket) => void;
  const accepted = new Promise<net.Socket>((resolve) => (onAccept = resolve));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    received.push(readToEnd(socket));
    onAccept(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    accepted,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('virtual adbd: reverse and forward', () => {
  const devices = testDevices();
  let adb: AdbServer;
  let dev: RunningVirtualDevice;
  const adbS = (...args: string[]): ReturnType<AdbServer['adb']> => adb.adb(['-s', dev.serial, ...args]);

  before(async () => {
    adb = await startAdbServer();
    dev = await devices.start();
    await adb.connect(dev.serial);
  });

  after(async () => {
    await adb?.stop();
    await devices.stopAll();
  });

  it('carries a device-side connection over `adb reverse` to a host listener, both ways, and closes both ways', async () => {
    const host = await hostListener();
    try {
      const r = await adbS('reverse', 'tcp:7100', `tcp:${host.port}`);
      expect(r.code, r.stderr).to.equal(0);
      const socket = await dev.device.network.connect(7100);
      socket.write('ping\n');
      const hostSide = await host.accepted;
      expect(await readBytes(hostSide, 5)).to.equal('ping\n');
      hostSide.write('pong\n');
      expect(await readBytes(socket, 5)).to.equal('pong\n');
      // Device closes: the host connection ends.
      socket.end();
      expect(await host.received[0]).to.equal('ping\n');
    } finally {
      await host.close();
    }
  });

  it('ends the device-side connection when the host side closes', async () => {
    const host = await hostListener();
    try {
      await adbS('reverse', 'tcp:7101', `tcp:${host.port}`);
      const socket = await dev.device.network.connect(7101);
      const ended = readToEnd(socket);
      (await host.accepted).end('bye\n');
      expect(await ended).to.equal('bye\n');
    } finally {
      await host.close();
    }
  });

  it('carries `echo ping | nc 127.0.0.1 X` from the device shell to the host', async () => {
    const host = await hostListener();
    try {
      await adbS('reverse', 'tcp:7102', `tcp:${host.port}`);
      const r = await adbS('shell', 'echo ping | nc 127.0.0.1 7102');
      expect(r.code, r.stderr).to.equal(0);
      await host.accepted;
      expect(await host.received[0]).to.equal('ping\n');
    } finally {
      await host.close();
    }
  });

  it('refuses a device-side connection to a port without listener or rule', async () => {
    let error: unknown;
    await dev.device.network.connect(1).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal('Connection refused');
    expect((error as { code?: string }).code).to.equal('ECONNREFUSED');
  });

  it('closes the device-side connection when the host cannot reach its end of the rule', async () => {
    const closedPort = await freePort();
    await adbS('reverse', 'tcp:7103', `tcp:${closedPort}`);
    const socket = await dev.device.network.connect(7103);
    expect(await readToEnd(socket)).to.equal('');
  });

  it('lists and removes rules with the adb CLI, with adbd\'s error texts', async () => {
    await adbS('reverse', '--remove-all');
    expect((await adbS('reverse', 'tcp:7200', 'tcp:7300')).code).to.equal(0);
    const zero = await adbS('reverse', 'tcp:0', 'tcp:7301');
    expect(zero.stdout.toString()).to.match(/^\d+\n$/);
    const resolved = zero.stdout.toString().trim();
    const list = await adbS('reverse', '--list');
    expect(list.stdout.toString()).to.match(new RegExp(`^host-\\d+ tcp:7200 tcp:7300\\nhost-\\d+ tcp:${resolved} tcp:7301\\n`));
    const noRebind = await adbS('reverse', '--no-rebind', 'tcp:7200', 'tcp:7400');
    expect(noRebind.code).to.equal(1);
    expect(noRebind.stderr).to.contain('cannot rebind existing socket');
    const missing = await adbS('reverse', '--remove', 'tcp:7999');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain("listener 'tcp:7999' not found");
    expect((await adbS('reverse', '--remove', 'tcp:7200')).code).to.equal(0);
    expect((await adbS('reverse', '--list')).stdout.toString()).to.not.contain('tcp:7200');
    expect((await adbS('reverse', '--remove-all')).code).to.equal(0);
    expect((await adbS('reverse', '--list')).stdout.toString().trim()).to.equal('');
    expect(dev.device.network.stats().reverseRules).to.equal(0);
  });

  it('adds and lists rules with adbkit', async () => {
    const device = adb.client.getDevice(dev.serial);
    expect(await device.reverse('tcp:7500', 'tcp:7600')).to.equal(true);
    expect(await device.listReverses()).to.deep.equal([{ remote: 'tcp:7500', local: 'tcp:7600' }]);
    await adbS('reverse', '--remove-all');
  });

  it('forwards a host port to a device-local listener (`adb forward`, tcp:PORT)', async () => {
    const listener = dev.device.network.listen(8080, (socket) => {
      socket.on('data', (c: Buffer) => socket.write(c.toString().toUpperCase()));
      socket.on('end', () => socket.end());
    });
    try {
      const local = await freePort();
      const r = await adb.adb(['-s', dev.serial, 'forward', `tcp:${local}`, 'tcp:8080']);
      expect(r.code, r.stderr).to.equal(0);
      const client = net.connect(local, '127.0.0.1');
      client.write('hello');
      expect(await readBytes(client, 5)).to.equal('HELLO');
      const done = readToEnd(client);
      client.end();
      expect(await done).to.equal('');
      const viaAdbkit = await adb.client.getDevice(dev.serial).openTcp(8080);
      viaAdbkit.write('abc');
      expect(await readBytes(viaAdbkit, 3)).to.equal('ABC');
      viaAdbkit.end();
      await adb.adb(['-s', dev.serial, 'forward', '--remove-all']);
    } finally {
      listener.close();
    }
  });

  it('closes a forwarded connection when nothing listens on the device port', async () => {
    const local = await freePort();
    await adb.adb(['-s', dev.serial, 'forward', `tcp:${local}`, 'tcp:8081']);
    const client = net.connect(local, '127.0.0.1');
    expect(await readToEnd(client)).to.equal('');
    await adb.adb(['-s', dev.serial, 'forward', '--remove-all']);
  });

  it('drops the rules of a transport that disconnects', async () => {
    await adbS('reverse', 'tcp:7700', 'tcp:7800');
    expect(dev.device.network.stats().reverseRules).to.equal(1);
    const idle = dev.daemon.whenIdle();
    await adb.adb(['disconnect', dev.serial]);
    await idle;
    expect(dev.daemon.stats().transports).to.equal(0);
    expect(dev.device.network.stats().reverseRules).to.equal(0);
    await adb.connect(dev.serial);
  });
});
