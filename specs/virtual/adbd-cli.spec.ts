/**
 * `dedup-verify virtual-device`: the listening line per device, usage errors, and a clean stop
 * on SIGTERM when run as a process.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { runVirtualDevice } from '../../src/cli/commands/virtual-device.js';
import { freePort, startAdbServer } from '../support/adb-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function captureIo(): { io: { stdout: (t: string) => void; stderr: (t: string) => void }; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) }, out, err };
}

describe('dedup-verify virtual-device', () => {
  it('prints one listening line per device on consecutive ports, serves adb, and returns 0 when stopped', async () => {
    const out: string[] = [];
    let twoLines!: () => void;
    const printed = new Promise<void>((resolve) => (twoLines = resolve));
    const io = {
      stdout: (t: string): void => {
        out.push(t);
        if (out.length === 2) twoLines();
      },
      stderr: (): void => {},
    };
    const stop = new AbortController();
    const running = runVirtualDevice({ port: 0, count: 2, api: 33, bug: [], root: true, sqlite3: true }, io, { signal: stop.signal });
    const adb = await startAdbServer();
    try {
      await printed;
      expect(out).to.have.length(2);
      const ports = out.map((line) => {
        const m = /^virtual device listening on 127\.0\.0\.1:(\d+)\n$/.exec(line);
        expect(m, line).to.not.equal(null);
        return Number(m![1]);
      });
      expect(ports[1]).to.equal(ports[0]! + 1);
      await adb.connect(`127.0.0.1:${ports[0]}`);
      const r = await adb.adb(['-s', `127.0.0.1:${ports[0]}`, 'shell', 'echo', 'cli']);
      expect(r.stdout.toString()).to.equal('cli\n');
    } finally {
      await adb.stop();
      stop.abort();
    }
    expect(await running).to.equal(0);
  });

  it('rejects a bad --api or --count with one line and exit code 2', async () => {
    for (const args of [
      ['--api', '29'],
      ['--count', '0'],
    ]) {
      const { io, out, err } = captureIo();
      const code = await main(['node', 'dedup-verify', 'virtual-device', ...args], io);
      expect(code).to.equal(2);
      expect(out).to.deep.equal([]);
      expect(err.join('').trim().split('\n')).to.have.length(1);
    }
  });

  it('reports a port in use as a usage error naming the fix', async () => {
    const port = await freePort();
    const blocker = (await import('node:net')).createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const { io, err } = captureIo();
      const code = await main(['node', 'dedup-verify', 'virtual-device', '--port', String(port)], io);
      expect(code).to.equal(2);
      expect(err.join('')).to.contain(`127.0.0.1:${port}`).and.to.contain('--port');
    } finally {
      blocker.close();
    }
  });

  it('runs as a process until SIGTERM, then exits 0', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "import { main } from './src/cli/main.ts'; process.exit(await main(process.argv));", 'dedup-verify', 'virtual-device', '--port', '0', '--no-root'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 20_000);
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (stdout.includes('\n')) {
          clearTimeout(timer);
          resolve(stdout);
        }
      });
    });
    expect(line).to.match(/^virtual device listening on 127\.0\.0\.1:\d+\n$/);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
