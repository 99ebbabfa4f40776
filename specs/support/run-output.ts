/**
 * What `dedup-verify run` wrote, read back for specs that drive it through the real CLI, and a
 * bash runner for the repro scripts it writes.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryEvent } from '../../src/history/events.js';
import { runCli } from './cli.js';

/** `dedup-verify run ARGS --out DIR`, then its report.json (as `R`) and history.jsonl. */
export async function runAndRead<R>(dir: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; report: R; history: HistoryEvent[]; stderr: string }> {
  const r = await runCli(['run', ...args, '--out', dir], { env });
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as R;
  const history = (await readFile(join(dir, 'history.jsonl'), 'utf8')).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as HistoryEvent);
  return { code: r.code, report, history, stderr: r.stderr };
}

/** The events of one scenario's segment (from its `config` line to the next). */
export function segment(history: readonly HistoryEvent[], scenario: string): HistoryEvent[] {
  const start = history.findIndex((e) => e.type === 'config' && e.scenario === scenario);
  const end = history.findIndex((e, i) => i > start && e.type === 'config');
  return history.slice(start, end < 0 ? undefined : end);
}

/** Runs a script with bash, asynchronously (virtual devices answer adb from this process's event loop). */
export function runBash(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
  });
}
