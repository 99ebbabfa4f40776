/**
 * Benchmark 3: `check` throughput and peak memory on 10^5, 10^6 and 10^7 events, through
 * bench/check-throughput.ts (each size checked in a fresh child process, through the CLI's
 * code), plus 10^6 events under a 48 MB V8 heap cap: the check streams, so its memory does not
 * grow with the history. `--quick` skips 10^7 (about a minute and a half here).
 */
import { join } from 'node:path';
import { ROOT, runChecked } from './lib/processes.js';
import { benchCommand, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';

const SCRIPT = join(ROOT, 'bench', 'check-throughput.ts');
const CAP_MB = 48;

export const check: Benchmark = {
  name: 'check',
  title: '`check` throughput and peak memory',
  summary: 'check-throughput.ts on 1e5, 1e6, 1e7 events (1e7 skipped by --quick), and 1e6 under a 48 MB heap cap',
  run: runCheck,
};

interface Row {
  readonly events: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly peakRssMb: number;
  readonly peakHeapMb: number;
}

/** The data rows of check-throughput.ts's table. */
function parseRows(markdown: string): Row[] {
  return markdown
    .split('\n')
    .filter((l) => /^\| [\d,]+ \|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim().replace(/,/g, ''));
      // | events | distinct | file | check (s) | events/s | peak RSS | RSS before | peak heap | verdict |
      return { events: Number(cells[1]), seconds: Number(cells[4]), perSecond: Number(cells[5]), peakRssMb: Number(cells[6]), peakHeapMb: Number(cells[8]) };
    });
}

function tableOf(markdown: string): string {
  return markdown
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .join('\n');
}

async function runCheck(options: BenchOptions): Promise<BenchSection> {
  const sizes = options.quick ? '1e5,1e6' : '1e5,1e6,1e7';
  options.log(`check: sizes ${sizes}`);
  const main = await runChecked(process.execPath, ['--import', 'tsx', SCRIPT, '--sizes', sizes], { timeoutMs: 900_000 });
  options.log(`check: 1e6 events under a ${CAP_MB} MB heap cap`);
  const capped = await runChecked(process.execPath, ['--import', 'tsx', SCRIPT, '--sizes', '1e6', '--heap-mb', String(CAP_MB)], { timeoutMs: 600_000 });
  const rows = parseRows(main.stdout);
  const cappedRow = parseRows(capped.stdout)[0];
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last || !cappedRow) throw new Error(`check-throughput.ts printed no table:\n${main.stdout}\n${capped.stdout}`);
  const growth = last.events / first.events;
  const body = [
    `Each size in a fresh process through the CLI's \`checkHistoryFile\` (daily runs of 10 new items, keys cycling over 10,000 distinct items). From ${first.events.toLocaleString('en-US')} to ${last.events.toLocaleString('en-US')} events (${growth.toFixed(0)}×) the time grows ${(last.seconds / first.seconds).toFixed(0)}× (linear) and the peak RSS ${(last.peakRssMb / first.peakRssMb).toFixed(2)}× (bounded).`,
    '',
    tableOf(main.stdout),
    '',
    `The same 10^6 events with the child's V8 heap capped at ${CAP_MB} MB (\`node --import tsx bench/check-throughput.ts --sizes 1e6 --heap-mb ${CAP_MB}\`): ${cappedRow.seconds.toFixed(2)} s, ${cappedRow.perSecond.toLocaleString('en-US')} events/s, peak heap used ${cappedRow.peakHeapMb} MB, peak RSS ${cappedRow.peakRssMb} MB.`,
    '',
    `Direct command: \`node --import tsx bench/check-throughput.ts --sizes ${sizes}\`.`,
  ].join('\n');
  return {
    name: check.name,
    title: check.title,
    command: benchCommand(check.name),
    body,
    headline: `${rows.map((r) => `${r.events.toLocaleString('en-US')} events in ${r.seconds.toFixed(2)} s`).join(', ')} (${Math.round(last.perSecond).toLocaleString('en-US')} events/s at the largest); peak RSS ${rows.map((r) => `${r.peakRssMb}`).join(' / ')} MB`,
  };
}
