/**
 * Child processes in their own process group, so that a command that starts others (npx wdio,
 * its workers, the Appium server a service starts) is waited for, and stopped, as a whole.
 */
import { spawn } from 'node:child_process';

export interface GroupResult {
  readonly code: number | null;
  /** stdout and stderr, interleaved as they arrived. */
  readonly output: string;
}

/** True while any process of the group `pgid` is alive (kill(2) with signal 0). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a command in its own process group and resolves once it exited and every process it
 * started is gone (waited for up to 20 s, then killed). Past `timeoutMs` the group is killed and
 * the promise rejects with the output so far.
 */
export async function runInGroup(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<GroupResult> {
  const { result, pgid } = await new Promise<{ result: GroupResult; pgid: number }>((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${options.timeoutMs} ms:\n${output.slice(-3000)}`));
    }, options.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ result: { code, output }, pgid: child.pid ?? 0 });
    });
  });
  const deadline = Date.now() + 20_000;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      process.kill(-pgid, 'SIGKILL');
      throw new Error(`processes of \`${command} ${args.join(' ')}\` (group ${pgid}) were still running 20 s after it exited`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return result;
}
