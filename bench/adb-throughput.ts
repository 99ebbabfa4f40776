/**
 * Push and pull throughput of a 50 MiB file through a virtual device with the real adb
 * (its own server on a free port), against a plain file copy on the same disk (the device's
 * filesystem lives under os.tmpdir()). Prints a markdown table; each figure is the median of
 * three runs.
 *
 *   node --import tsx bench/adb-throughput.ts
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVirtualDevice } from '../src/virtual-device/server.js';

const SIZE = 50 * 1024 * 1024;
const RUNS = 3;

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'dv-bench-'));
  const source = join(work, 'source.bin');
  const data = randomBytes(SIZE);
  await writeFile(source, data);
  const device = await startVirtualDevice({ port: 0, tmpDir: work });
  const adbPort = await freePort();
  const adb = (...args: string[]): Promise<void> => run('adb', ['-P', String(adbPort), ...args]);
  try {
    await adb('start-server');
    await adb('connect', device.serial);
    await adb('-s', device.serial, 'wait-for-device');

    const copy = await timed(() => copyFile(source, join(work, 'copy.bin')));
    const push = await timed(() => adb('-s', device.serial, 'push', source, '/data/local/tmp/bench.bin'));
    const pull = await timed(() => adb('-s', device.serial, 'pull', '/data/local/tmp/bench.bin', join(work, 'pulled.bin')));
    const back = await readFile(join(work, 'pulled.bin'));
    if (Buffer.compare(back, data) !== 0) throw new Error('the pulled file differs from the pushed one');

    const mb = SIZE / 1e6;
    const row = (what: string, seconds: number): string => `| ${what} | ${(SIZE / 1024 / 1024).toFixed(0)} MiB | ${seconds.toFixed(3)} s | ${(mb / seconds).toFixed(1)} MB/s |`;
    process.stdout.write(
      [
        `Virtual device throughput (${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, median of ${RUNS})`,
        '',
        '| operation | size | time | throughput |',
        '|---|---|---|---|',
        row('plain file copy, same disk (fs.copyFile)', copy),
        row('adb push → virtual device', push),
        row('adb pull ← virtual device', pull),
        '',
      ].join('\n'),
    );
  } finally {
    await adb('kill-server').catch(() => undefined);
    await device.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
