/**
 * Wall time of the suite on 1, 2 and 4 virtual devices: (a) every device runs every scenario
 * (a testcase per scenario × device), (b) `--repeat 4` spread over the devices (four trials of
 * each scenario in all). Median of 3. Writes bench/devices.md.
 *
 *   node --import tsx bench/devices.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startVirtualDevices } from '../src/virtual-device/server.js';

function adb(port: number, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('adb', ['-P', String(port), ...args]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('close', () => resolve(out));
  });
}

function cli(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'specs/support/cli-entry.ts', ...args], { stdio: 'ignore' });
    child.once('close', (code) => resolve(code ?? -1));
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const port = 6000 + Math.floor(Math.random() * 1000);
await adb(port, ['start-server']);
const work = await mkdtemp(join(tmpdir(), 'dv-bench-devices-'));
const rows: string[] = [];
try {
  for (const n of [1, 2, 4]) {
    const devices = await startVirtualDevices({ port: 0, count: n });
    for (const d of devices) await adb(port, ['connect', d.serial]);
    const base = ['run', '--config', 'fixtures/reference-app.config.json', '--adb-port', String(port), ...devices.flatMap((d) => ['--device', d.serial])];
    const times: Record<'each' | 'repeat', number[]> = { each: [], repeat: [] };
    for (let i = 0; i < 3; i++) {
      for (const mode of ['each', 'repeat'] as const) {
        const t0 = performance.now();
        const code = await cli([...base, ...(mode === 'repeat' ? ['--repeat', '4'] : []), '--out', join(work, `${n}-${mode}-${i}`)]);
        if (code !== 0) throw new Error(`run on ${n} device(s) (${mode}) exited ${code}`);
        times[mode].push((performance.now() - t0) / 1000);
      }
    }
    rows.push(`| ${n} | ${15 * n} | ${median(times.each).toFixed(1)} s | ${median(times.repeat).toFixed(1)} s |`);
    process.stdout.write(`${rows[rows.length - 1]}\n`);
    for (const d of devices) await adb(port, ['disconnect', d.serial]);
    await Promise.all(devices.map((d) => d.close()));
  }
} finally {
  await adb(port, ['kill-server']);
  await rm(work, { recursive: true, force: true });
}
await writeFile(
  'bench/devices.md',
  [
    '# The suite on 1, 2 and 4 virtual devices',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, with \`node --import tsx bench/devices.ts\` (median of 3; the virtual devices run in the benchmark's process, the CLI in its own).`,
    '',
    '| devices | trials (every device runs the 15 scenarios) | wall time | `--repeat 4` spread over the devices (60 trials) |',
    '| ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n'),
);
