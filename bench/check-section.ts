/**
 * Benchmark 3: `check` throughput and peak memory on 10^5, 10^6 and 10^7 events, through
 * bench/check-throughput.ts (each size checked in a fresh child process, through the CLI's
 * code, on histories holding every event type with every property check named), plus 10^6
 * events under a 48 MB V8 heap cap: the check streams, so its memory does not grow with the
 * history. `--quick` skips 10^7 (about a minute here).
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

/** A line of check-throughput.ts's output after the table, found by its start. */
function lineStarting(markdown: string, start: string): string | undefined {
  return markdown.split('\n').find((l) => l.startsWith(start));
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
  const uncapped = rows.find((r) => r.events === cappedRow.events);
  // Peak RSS over the last tenfold step: bounded memory stops growing there.
  const beforeLast = rows.at(-2) ?? first;
  const lastStep = last.peakRssMb / beforeLast.peakRssMb;
  const rssGrowth = lastStep < 1.1 ? 'bounded' : `still growing: ${lastStep.toFixed(2)}× from ${beforeLast.events.toLocaleString('en-US')} to ${last.events.toLocaleString('en-US')} events`;
  const properties = lineStarting(main.stdout, 'property checks run: ')?.slice('property checks run: '.length).replace(/ \(.*\)$/, '') ?? '';
  const mix = lineStarting(main.stdout, 'event mix of the ');
  const body = [
    `Each size in a fresh process through the CLI's \`checkHistoryFile\`, which runs the composed checker: the notification checks and every property check (${properties.split(', ').map((p) => `\`${p}\``).join(', ')}), each named by the config line and each required to decide and pass (no anomaly at all). The histories hold every event type but \`aborted\` and \`unparsed\` (which make the verdict unknown): daily runs of 10 new items, each run with a \`set-time\` action, a feed \`request\`, per new item \`notified\` (\`alertOnce\` false), a receipt \`request\` carrying the item's idempotency key, the backend's \`effect\` and \`stored\`, then a \`rows\` read of the dedup table (the 10 to 20 current keys) and every 10th run a \`schedule\` read; once, the \`schema\` inspection, the \`schedule\` read before and after a relaunch, the window probe (\`label\` missed-run-edge) and a receipt whose answer is dropped and which is sent again. Item keys cycle over 10,000 distinct items (\`forgotten\` before each reuse). The \`idempotency\` check counts effects per item over the whole history, not per epoch, and keeps the requests of each operation, so receipts and effects are written only in each item's first epoch: one effect per item, that check's state bounded by the 10,000 items, and their share of the events falling as the history grows (see the mix below). From ${first.events.toLocaleString('en-US')} to ${last.events.toLocaleString('en-US')} events (${growth.toFixed(0)}×) the time grows ${(last.seconds / first.seconds).toFixed(0)}× (linear) and the peak RSS ${(last.peakRssMb / first.peakRssMb).toFixed(2)}× (${rssGrowth}).`,
    '',
    tableOf(main.stdout),
    '',
    ...(mix !== undefined ? [`${mix.replace(/^event mix/, 'Event mix')}.`, ''] : []),
    `The same 10^6 events with the child's V8 heap capped at ${CAP_MB} MB (\`node --import tsx bench/check-throughput.ts --sizes 1e6 --heap-mb ${CAP_MB}\`): ${cappedRow.seconds.toFixed(2)} s, ${cappedRow.perSecond.toLocaleString('en-US')} events/s, peak heap used ${cappedRow.peakHeapMb} MB, peak RSS ${cappedRow.peakRssMb} MB${uncapped ? ` (${(cappedRow.seconds / uncapped.seconds).toFixed(1)}× the uncapped time)` : ''}.`,
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
