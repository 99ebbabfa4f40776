/**
 * Benchmark 6: bench/adb-throughput.ts (push and pull of 50 MiB through a virtual device with
 * the real adb, against a plain file copy), run as it is and its table quoted.
 */
import { join } from 'node:path';
import { ROOT, runChecked } from './lib/processes.js';
import { benchCommand, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';

export const adbThroughput: Benchmark = {
  name: 'adb-throughput',
  title: 'adb push/pull throughput against a plain copy',
  summary: 'bench/adb-throughput.ts: 50 MiB push and pull through a virtual device vs fs.copyFile, median of 3',
  run: async (options: BenchOptions): Promise<BenchSection> => {
    options.log('adb-throughput: bench/adb-throughput.ts');
    const r = await runChecked(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'adb-throughput.ts')], { timeoutMs: 600_000 });
    const lines = r.stdout.split('\n');
    const rows = lines.filter((l) => l.startsWith('|'));
    const speed = (what: RegExp): string => rows.find((l) => what.test(l))?.split('|')[4]?.trim() ?? '?';
    return {
      name: 'adb-throughput',
      title: adbThroughput.title,
      command: benchCommand('adb-throughput'),
      body: [
        'The virtual device\'s filesystem lives on the same disk as the copy; each figure is the median of 3.',
        '',
        ...rows,
        '',
        'Direct command: `node --import tsx bench/adb-throughput.ts`.',
      ].join('\n'),
      headline: `adb push ${speed(/push/)}, adb pull ${speed(/pull/)}, plain copy ${speed(/copy/)} (50 MiB)`,
    };
  },
};
