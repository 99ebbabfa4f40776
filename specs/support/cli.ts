/**
 * The dedup-verify CLI as a child process (real signals, real exit codes, real stdout/stderr),
 * compiled once for the test run (compiled-cli.ts), or from the sources through tsx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { compiledCliEntry } from './compiled-cli.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENTRY = join(ROOT, 'specs', 'support', 'cli-entry.ts');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRun {
  readonly child: ChildProcess;
  /** Resolves when stderr has printed a line matching `pattern` (rejects if the process ends first). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  readonly done: Promise<CliResult>;
}

/** State files of the runs started by the specs go here, not to the user's ~/.local/state. */
const STATE_HOME = mkdtempSync(join(tmpdir(), 'dv-spec-state-'));
process.once('exit', () => rmSync(STATE_HOME, { recursive: true, force: true }));

export function startCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliRun {
  const compiled = compiledCliEntry();
  const child = spawn(process.execPath, compiled !== undefined ? [compiled, ...args] : ['--import', 'tsx', ENTRY, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, XDG_STATE_HOME: STATE_HOME, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
    for (const l of [...listeners]) l();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.once('close', (code, signal) => {
      for (const l of [...listeners]) l();
      resolve({ code, signal, stdout, stderr });
    });
  });
  let ended = false;
  void done.then(() => (ended = true));
  return {
    child,
    done,
    waitForStderr: (pattern, timeoutMs = 60_000) =>
      new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const line = stderr.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            finish();
            resolve(line);
          } else if (ended) {
            finish();
            reject(new Error(`the CLI ended before printing ${pattern}; stderr:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no stderr line matching ${pattern} within ${timeoutMs} ms; stderr:\n${stderr}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, options).done;
}
