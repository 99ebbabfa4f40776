/**
 * Endurance: 1,000 stream open/close cycles and 20 concurrent shells leave no stream, link,
 * socket or file handle behind and never hang.
 */
import { expect } from 'chai';
import { AdbCommand } from '../../src/virtual-device/adbd/packet.js';
import { readAll, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { RawAdbHost, testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

/** Counts of this process's libuv handles by type (FileHandle, TCPSocketWrap, …). */
function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

describe('virtual adbd: endurance', () => {
  const devices = testDevices();
  let adb: AdbServer;
  let dev: RunningVirtualDevice;

  before(async () => {
    adb = await startAdbServer();
    dev = await devices.start();
    await adb.connect(dev.serial);
  });

  after(async () => {
    await adb?.stop();
    await devices.stopAll();
  });

  it('survives 1,000 open/close cycles on one link without leaking streams', async () => {
    const host = await RawAdbHost.connect(dev.port);
    try {
      await host.handshake();
      const before = resourceCounts().get('FileHandle') ?? 0;
      for (let i = 1; i <= 1000; i++) {
        const id = i;
        switch (i % 4) {
          case 0: {
            // The device ends the stream: output, then CLSE.
            const { data } = await host.runService(id, `shell:echo ${i}`);
            expect(data.toString()).to.equal(`${i}\n`);
            break;
          }
          case 1: {
            // The host closes a stream whose command waits for stdin.
            host.send(AdbCommand.Open, id, 0, Buffer.from('shell:cat\0'));
            const ok = await host.expect(AdbCommand.Okay);
            host.send(AdbCommand.Clse, id, ok.arg0);
            break;
          }
          case 2: {
            // A sync stream that stats and quits.
            const req = Buffer.alloc(8 + 5);
            req.write('STAT', 0, 'latin1');
            req.writeUInt32LE(5, 4);
            req.write('/data', 8, 'latin1');
            const quit = Buffer.from('QUIT\0\0\0\0', 'latin1');
            const { data } = await host.runService(id, 'sync:', Buffer.concat([req, quit]));
            expect(data.length).to.equal(16);
            break;
          }
          default: {
            // An unknown service.
            const { opened } = await host.runService(id, 'nothing-here:');
            expect(opened).to.equal(false);
          }
        }
      }
      // Let the device finish the host-closed streams.
      await host.runService(5000, 'shell:echo settle');
      expect(dev.daemon.stats().streams).to.equal(0);
      expect(resourceCounts().get('FileHandle') ?? 0).to.equal(before);
    } finally {
      host.close();
    }
  });

  it('survives 1,000 shell streams through the real adb server and adbkit', async () => {
    const device = adb.client.getDevice(dev.serial);
    const batch = 25;
    for (let start = 0; start < 1000; start += batch) {
      const outs = await Promise.all(
        Array.from({ length: batch }, async (_, k) => (await readAll(await device.shell(`echo ${start + k}`))).toString()),
      );
      expect(outs).to.deep.equal(Array.from({ length: batch }, (_, k) => `${start + k}\n`));
    }
    expect(dev.daemon.stats()).to.deep.equal({ transports: 1, streams: 0 });
  });

  it('runs 20 concurrent adb shells, each with its own output and exit code', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => adb.adb(['-s', dev.serial, 'shell', `cat; echo done-${i}; exit ${i}`], { input: `input-${i}\n` })),
    );
    results.forEach((r, i) => {
      expect(r.code).to.equal(i);
      expect(r.stdout.toString()).to.equal(`input-${i}\ndone-${i}\n`);
    });
    expect(dev.daemon.stats()).to.deep.equal({ transports: 1, streams: 0 });
    expect(dev.device.network.stats().sockets).to.equal(0);
  });
});
