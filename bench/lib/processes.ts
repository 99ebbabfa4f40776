/** Child processes and ports for the benchmarks. */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (bench/lib/ is two levels down). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit. */
  readonly ms: number;
}

export interface ProcessOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  /** Called with each stderr chunk as it arrives (progress of long runs). */
  readonly onStderr?: (text: string) => void;
}

/** Runs a command to its end; never throws for a non-zero exit (the code is in the result). */
export function runProcess(cmd: string, args: readonly string[], options: ProcessOptions = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      err.push(c);
      options.onStderr?.(c.toString('utf8'));
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`${cmd} ${args.join(' ')} did not finish within ${options.timeoutMs} ms`));
          }, options.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal === null ? -1 : 128),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
  });
}

/** Like runProcess, but a non-zero exit is an error carrying the tail of stderr. */
export async function runChecked(cmd: string, args: readonly string[], options: ProcessOptions = {}): Promise<ProcessResult> {
  const r = await runProcess(cmd, args, options);
  if (r.code !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-8).join('\n')}`);
  }
  return r;
}

/** A TCP port nobody listens on right now (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
