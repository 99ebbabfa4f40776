/** `npm run build` once per benchmark process, for the benchmarks that run the built CLI. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runProcess } from './processes.js';

export const BUILT_CLI = join(ROOT, 'bin', 'dedup-verify.js');

let building: Promise<void> | undefined;

export function ensureBuilt(log: (text: string) => void): Promise<void> {
  building ??= (async () => {
    log('npm run build');
    const r = await runProcess('npm', ['run', '-s', 'build'], { timeoutMs: 300_000 });
    if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) {
      throw new Error(`npm run build produced no dist/src/cli/main.js (exit ${r.code}): ${(r.stdout + r.stderr).trim().split('\n').slice(-10).join('\n')}`);
    }
    // tsc emits even when it reports type errors; the figures are then of what was emitted.
    if (r.code !== 0) log(`warning: npm run build exited ${r.code} (type errors); benchmarking the emitted dist/: ${(r.stdout + r.stderr).trim().split('\n').slice(0, 3).join(' / ')}`);
  })();
  return building;
}
