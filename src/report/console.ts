/**
 * The end-of-run console report: a table of scenarios (one row per scenario x device, repeats
 * merged), the verdict, each anomaly with its item, runs and detail, and violations / trials with
 * the 95% interval when scenarios ran more than once.
 */
import { formatDuration } from '../checker/describe.js';
import { aggregateScenarios, collapseScenarios, describeAnomaly, describeTrials, devicesOf, formatPercent } from './merge.js';
import type { RunReport, ScenarioReport } from './types.js';

function table(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function row(s: ScenarioReport, multiDevice: boolean): string[] {
  const c = s.counts;
  const cells = [
    s.name,
    ...(multiDevice ? [s.device] : []),
    s.verdict.toUpperCase(),
    String(c.lostCount),
    String(c.duplicatedCount),
    String(c.unexpectedCount),
    String(c.outOfOrderCount),
    String(c.notifiedCount),
    s.trials !== undefined && s.violations !== undefined ? `${s.violations}/${s.trials}` : '',
    formatDuration(s.durationMs),
  ];
  return cells;
}

/** Renders the end-of-run report as plain text (no colours: it is also written to logs). */
export function renderConsoleReport(report: RunReport): string {
  const cases = collapseScenarios(report.scenarios);
  const devices = devicesOf(report);
  const multiDevice = new Set(cases.map((c) => c.device)).size > 1;
  const header = ['scenario', ...(multiDevice ? ['device'] : []), 'verdict', 'lost', 'dup', 'unexp', 'order', 'notified', 'violated', 'time'];
  const numeric = new Set(header.map((h, i) => (['lost', 'dup', 'unexp', 'order', 'notified', 'violated', 'time'].includes(h) ? i : -1)).filter((i) => i >= 0));
  const lines: string[] = [];
  lines.push(`dedup-verify: ${report.app.package} on ${report.device}`);
  lines.push('');
  lines.push(...table(header, cases.map((c) => row(c, multiDevice)), numeric));
  lines.push('');

  const withAnomalies = cases.filter((c) => c.anomalies.length > 0 || c.error !== undefined);
  if (withAnomalies.length > 0) {
    lines.push('anomalies:');
    for (const c of withAnomalies) {
      lines.push(`  ${c.name}${multiDevice ? ` on ${c.device}` : ''} (${c.verdict}):`);
      if (c.error !== undefined) lines.push(`    error: ${c.error}`);
      for (const a of c.anomalies) {
        lines.push(`    ${describeAnomaly(a)}`);
        for (const e of a.evidence ?? []) lines.push(`      evidence: ${e.trim()}`);
      }
    }
    lines.push('');
  }

  const aggregate = report.aggregate ?? aggregateScenarios(report.scenarios);
  if (aggregate.some((a) => a.trials + a.undecided > 1)) {
    lines.push('per scenario, all devices and repeats:');
    lines.push(...table(
      ['scenario', 'verdict', 'violations', '95% interval', 'devices'],
      aggregate.map((a) => [
        a.name,
        a.verdict.toUpperCase(),
        `${a.violations}/${a.trials}${a.undecided > 0 ? ` (+${a.undecided} undecided)` : ''}`,
        `${formatPercent(a.interval95.low)}-${formatPercent(a.interval95.high)}`,
        String(a.devices.length),
      ]),
      new Set([2, 4]),
    ).map((l) => `  ${l}`));
    lines.push('');
  }

  const badDevices = devices.filter((d) => d.tainted === true || d.error !== undefined);
  for (const d of badDevices) {
    lines.push(`device ${d.serial}: ${d.verdict}${d.tainted === true ? ', TAINTED (could not be restored: run dedup-verify restore --device ' + d.serial + ')' : ''}${d.error !== undefined ? `: ${d.error}` : ''}`);
  }

  const by = (v: string): number => cases.filter((c) => c.verdict === v).length;
  const trialsLine = cases.length === 1 && cases[0] ? describeTrials(cases[0]) : '';
  lines.push(
    `verdict: ${report.verdict.toUpperCase()} (${by('pass')} pass, ${by('fail')} fail, ${by('unknown')} unknown, ${by('skipped')} skipped` +
      `${trialsLine !== '' ? `; ${trialsLine}` : ''}) in ${formatDuration(report.durationMs)}`,
  );
  return `${lines.join('\n')}\n`;
}
