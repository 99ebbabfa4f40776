/**
 * `--latency MS`: every packet the virtual device sends is written MS milliseconds later, in
 * order (src/virtual-device/adbd/delayed-link.ts). With the real adb on a private server: a
 * shell command pays the delay, a multi-MB pull arrives byte for byte, `run --virtual --latency`
 * hands the delay to its embedded device, and the CLI refuses a bad value with one line, exit 2.
 * Timings are checked from below only: a slow machine may always take longer.
 */
import { expect } from 'chai';
import net from 'node:net';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { AdbEndpointResolver } from '../../src/cli/commands/run-devices.js';
import { DelayedLink } from '../../src/virtual-device/adbd/delayed-link.js';
import { startVirtualDevice } from '../../src/virtual-device/server.js';
import { virtualLab } from '../support/lab.js';

const LATENCY_MS = 100;

function elapsedMs(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

/** A connected pair of loopback sockets: the device's end and the host's. */
async function socketPair(): Promise<{ device: net.Socket; host: net.Socket; close(): void }> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[net.Socket]>;
  const host = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await once(host, 'connect');
  const [device] = await accepted;
  return {
    device,
    host,
    close: () => {
      device.destroy();
      host.destroy();
      server.close();
    },
  };
}

describe('virtual adbd: --latency delays every packet the device sends', () => {
  const lab = virtualLab('dv-adbd-latency-');

  it('DelayedLink writes each packet MS after it was sent, in order, and the FIN after them', async () => {
    const pair = await socketPair();
    try {
      const link = new DelayedLink(pair.device, 50);
      const sentAt: number[] = [];
      const arrivedAt: number[] = [];
      const received: Buffer[] = [];
      pair.host.on('data', (chunk: Buffer) => {
        received.push(chunk);
        // Each packet is 4 bytes (its index): record when each complete one arrived.
        const total = received.reduce((n, c) => n + c.length, 0);
        while (arrivedAt.length < Math.floor(total / 4)) arrivedAt.push(performance.now());
      });
      const ended = once(pair.host, 'end');
      // Packets queued behind delayed ones keep their order, and each still waits its full delay.
      for (let i = 0; i < 30; i++) {
        const b = Buffer.alloc(4);
        b.writeUInt32LE(i);
        sentAt.push(performance.now());
        link.write(b);
        // Bursts of ten, each burst sent on a later turn of the event loop than the one before.
        if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(link.queuedPackets).to.be.greaterThan(0);
      link.end();
      link.write(Buffer.from('late')); // after end(): dropped
      await ended;
      const all = Buffer.concat(received);
      expect(all.length).to.equal(30 * 4);
      for (let i = 0; i < 30; i++) {
        expect(all.readUInt32LE(i * 4), `packet ${i}`).to.equal(i);
        expect(arrivedAt[i]! - sentAt[i]!, `delay of packet ${i}`).to.be.at.least(50);
      }
    } finally {
      pair.close();
    }
  });

  it('DelayedLink with latency 0 writes at once: no queue, no timer', async () => {
    const pair = await socketPair();
    try {
      const link = new DelayedLink(pair.device, 0);
      const writes: number[] = [];
      const write = pair.device.write.bind(pair.device);
      pair.device.write = ((chunk: Buffer, ...rest: never[]) => {
        writes.push(chunk.length);
        return write(chunk, ...rest);
      });
      link.write(Buffer.from('abc'));
      expect(writes).to.deep.equal([3]);
      expect(link.queuedPackets).to.equal(0);
    } finally {
      pair.close();
    }
  });

  it(`\`adb shell echo hi\` takes at least ${LATENCY_MS} ms more with latency ${LATENCY_MS} than with 0, output intact`, async () => {
    const plain = await lab.devices.start({ latencyMs: 0 });
    const slow = await lab.devices.start({ latencyMs: LATENCY_MS });
    expect(slow.daemon.latencyMs).to.equal(LATENCY_MS);
    await lab.adb.connect(plain.serial);
    await lab.adb.connect(slow.serial);
    const timeEcho = async (serial: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const r = await lab.adb.adb(['-s', serial, 'shell', 'echo', 'hi']);
      const ms = elapsedMs(started);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout.toString()).to.equal('hi\n');
      return ms;
    };
    // Interleaved, the fastest of three each: load on the machine slows both alike.
    const plainMs: number[] = [];
    const slowMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      plainMs.push(await timeEcho(plain.serial));
      slowMs.push(await timeEcho(slow.serial));
    }
    expect(Math.min(...slowMs) - Math.min(...plainMs), `latency 0: ${plainMs.join(', ')} ms; latency ${LATENCY_MS}: ${slowMs.join(', ')} ms`).to.be.at.least(LATENCY_MS);
  });

  it('a 4 MiB `adb pull` and `adb exec-out cat` through a delayed link arrive byte for byte, in order', async () => {
    const slow = await lab.devices.start({ latencyMs: LATENCY_MS });
    await lab.adb.connect(slow.serial);
    // Every 4-byte word is its own offset: a reordered, lost or repeated packet shows.
    const bytes = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE(i, i);
    const w = await slow.device.fs.openWrite('/data/local/tmp/ordered.bin', 2000, { mode: 0o644, createParents: false });
    await w.write(bytes);
    await w.close();
    const target = join(lab.work, 'ordered.bin');
    const pull = await lab.adb.adb(['-s', slow.serial, 'pull', '/data/local/tmp/ordered.bin', target], { timeoutMs: 60_000 });
    expect(pull.code, pull.stderr).to.equal(0);
    expect(Buffer.compare(await readFile(target), bytes)).to.equal(0);
    const cat = await lab.adb.adb(['-s', slow.serial, 'exec-out', 'cat', '/data/local/tmp/ordered.bin'], { timeoutMs: 60_000 });
    expect(cat.code, cat.stderr).to.equal(0);
    expect(Buffer.compare(cat.stdout, bytes)).to.equal(0);
  });

  it('streams running at once on a delayed link each get their own output, whole', async () => {
    const slow = await lab.devices.start({ latencyMs: 20 });
    await lab.adb.connect(slow.serial);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => lab.adb.adb(['-s', slow.serial, 'shell', `echo first-${i}; echo second-${i} 1>&2; echo third-${i}; exit ${i}`])),
    );
    results.forEach((r, i) => {
      expect(r.code).to.equal(i);
      expect(r.stdout.toString()).to.equal(`first-${i}\nthird-${i}\n`);
      expect(r.stderr).to.equal(`second-${i}\n`);
    });
  });

  it('`adb root` on a delayed link: the reply arrives before the FIN, the host reconnects, shells run as uid 0', async () => {
    const slow = await lab.devices.start({ latencyMs: LATENCY_MS });
    await lab.adb.connect(slow.serial);
    const reconnected = slow.daemon.nextOnline();
    const r = await lab.adb.adb(['-s', slow.serial, 'root']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout.toString()).to.equal('restarting adbd as root\n');
    await reconnected;
    await lab.adb.waitForDevice(slow.serial);
    expect((await lab.adb.adb(['-s', slow.serial, 'shell', 'id', '-u'])).stdout.toString()).to.equal('0\n');
  });

  it('startVirtualDevice refuses a latency that is not a whole number from 0 to 60000', async () => {
    for (const latencyMs of [-1, 1.5, 60_001, Number.NaN]) {
      let error: unknown;
      await startVirtualDevice({ port: 0, latencyMs }).then(
        (d) => d.close(),
        (e: unknown) => {
          error = e;
        },
      );
      expect(error, String(latencyMs)).to.be.instanceOf(RangeError);
    }
  });

  it('`run --virtual --latency MS` starts its embedded device with that delay', async () => {
    const progress: string[] = [];
    const resolver = new AdbEndpointResolver(
      { device: [], allDevices: false, virtual: true, bug: [], latency: LATENCY_MS, adbHost: '127.0.0.1', adbPort: lab.adb.port },
      (t) => progress.push(t),
    );
    try {
      const resolved = await resolver.resolve();
      expect(progress.join('\n')).to.contain(`latency: ${LATENCY_MS} ms`);
      const device = await resolved.open(resolved.serials[0]!);
      try {
        const started = process.hrtime.bigint();
        const r = await device.shell(['echo', 'hi']);
        const ms = elapsedMs(started);
        expect(r.stdout.toString()).to.equal('hi\n');
        expect(ms).to.be.at.least(LATENCY_MS);
      } finally {
        await device.close();
      }
    } finally {
      await resolver.close();
    }
  });

  describe('the CLI refuses a bad --latency with one line and exit 2', () => {
    for (const command of [['virtual-device'], ['run', '--virtual']]) {
      for (const value of ['-1', 'abc', '60001', '2.5']) {
        it(`dedup-verify ${command.join(' ')} --latency ${value}`, async () => {
          const out: string[] = [];
          const err: string[] = [];
          const code = await main(['node', 'dedup-verify', ...command, '--latency', value], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
          expect(code).to.equal(2);
          expect(out).to.deep.equal([]);
          const lines = err.join('').trim().split('\n');
          expect(lines).to.have.length(1);
          expect(lines[0]).to.contain('--latency').and.to.contain('0 to 60000');
        });
      }
    }

    it('dedup-verify run --latency 100 without --virtual', async () => {
      const err: string[] = [];
      const code = await main(['node', 'dedup-verify', 'run', '--latency', '100'], { stdout: () => undefined, stderr: (t) => err.push(t) });
      expect(code).to.equal(2);
      expect(err.join('').trim().split('\n')).to.have.length(1);
      expect(err.join('')).to.contain('--virtual');
    });
  });
});
