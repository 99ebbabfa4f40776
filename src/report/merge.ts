/**
 * Merging results: verdicts (fail beats unknown beats pass), repeats of one scenario on one
 * device, and one scenario across devices and repeats as violations / trials with a 95% Wilson
 * interval. Pure.
 */
import { mergeVerdicts } from '../checker/verdict.js';
import { emptyCounts, type CheckCounts, type Verdict } from '../checker/types.js';
import type { DeviceReport, Interval, RunReport, ScenarioAggregate, ScenarioReport, ScenarioVerdict } from './types.js';

export { mergeVerdicts } from '../checker/verdict.js';

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * Wilson score interval of `successes / trials` at 95%. With no trials nothing is known: [0, 1].
 */
export function wilsonInterval(successes: number, trials: number, z = Z95): Interval {
  if (trials <= 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The verdict of a set of scenario results: skipped ones are left out; when nothing was decided
 * or run at all, nothing was verified: unknown.
 */
export function mergeScenarioVerdicts(verdicts: Iterable<ScenarioVerdict>): Verdict {
  const ran: Verdict[] = [];
  for (const v of verdicts) if (v !== 'skipped') ran.push(v);
  return ran.length === 0 ? 'unknown' : mergeVerdicts(ran);
}

export function addCounts(a: CheckCounts, b: CheckCounts): CheckCounts {
  return {
    lostCount: a.lostCount + b.lostCount,
    duplicatedCount: a.duplicatedCount + b.duplicatedCount,
    unexpectedCount: a.unexpectedCount + b.unexpectedCount,
    outOfOrderCount: a.outOfOrderCount + b.outOfOrderCount,
    notifiedCount: a.notifiedCount + b.notifiedCount,
    recoveredCount: a.recoveredCount + b.recoveredCount,
    shedCount: a.shedCount + b.shedCount,
    eligibleCount: a.eligibleCount + b.eligibleCount,
  };
}

interface Tally {
  trials: number;
  violations: number;
  undecided: number;
  skipped: number;
}

function tally(entries: readonly ScenarioReport[]): Tally {
  const t: Tally = { trials: 0, violations: 0, undecided: 0, skipped: 0 };
  for (const e of entries) {
    // An entry that is itself merged carries its own tally.
    if (e.trials !== undefined && e.violations !== undefined) {
      t.trials += e.trials;
      t.violations += e.violations;
      t.undecided += e.undecided ?? 0;
      if (e.verdict === 'skipped') t.skipped += 1;
      continue;
    }
    switch (e.verdict) {
      case 'pass':
        t.trials += 1;
        break;
      case 'fail':
        t.trials += 1;
        t.violations += 1;
        break;
      case 'unknown':
        t.undecided += 1;
        break;
      case 'skipped':
        t.skipped += 1;
        break;
      default: {
        const unreachable: never = e.verdict;
        throw new Error(`unknown verdict ${String(unreachable)}`);
      }
    }
  }
  return t;
}

/**
 * Merges the repeats of one scenario on one device into one entry: verdict merged (skipped
 * only when every repeat was skipped), durations and counts summed, anomalies kept with the
 * repeat they came from, and violations / trials with its 95% interval.
 */
export function mergeScenarioTrials(entries: readonly ScenarioReport[]): ScenarioReport {
  const first = entries[0];
  if (!first) throw new RangeError('mergeScenarioTrials needs at least one scenario result');
  if (entries.length === 1 && first.trials !== undefined) return first;
  const t = tally(entries);
  const allSkipped = entries.every((e) => e.verdict === 'skipped');
  const verdict: ScenarioVerdict = allSkipped ? 'skipped' : mergeScenarioVerdicts(entries.map((e) => e.verdict));
  const anomalies = entries.flatMap((e, i) => e.anomalies.map((a) => (a.trial !== undefined ? a : { ...a, trial: e.repeat ?? i + 1 })));
  const errors = [...new Set(entries.flatMap((e) => (e.error !== undefined ? [e.error] : [])))];
  const evidence = entries.flatMap((e) => e.evidence ?? []);
  return {
    name: first.name,
    device: first.device,
    verdict,
    durationMs: entries.reduce((sum, e) => sum + e.durationMs, 0),
    counts: entries.reduce((sum, e) => addCounts(sum, e.counts), emptyCounts()),
    anomalies,
    trials: t.trials,
    violations: t.violations,
    undecided: t.undecided,
    interval95: wilsonInterval(t.violations, t.trials),
    ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
    ...(evidence.length > 0 ? { evidence } : {}),
  };
}

function groupBy<T>(values: readonly T[], key: (v: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const v of values) {
    const k = key(v);
    const group = groups.get(k);
    if (group) group.push(v);
    else groups.set(k, [v]);
  }
  return groups;
}

/**
 * One entry per (scenario, device), in first-seen order: repeats merged, single runs kept as
 * they are. This is what JUnit shows as testcases.
 */
export function collapseScenarios(scenarios: readonly ScenarioReport[]): ScenarioReport[] {
  const groups = groupBy(scenarios, (s) => JSON.stringify([s.name, s.device]));
  return [...groups.values()].map((g) => (g.length === 1 && g[0] ? g[0] : mergeScenarioTrials(g)));
}

/** Per scenario name, across devices and repeats, in first-seen order. */
export function aggregateScenarios(scenarios: readonly ScenarioReport[]): ScenarioAggregate[] {
  return [...groupBy(scenarios, (s) => s.name).entries()].map(([name, entries]) => {
    const t = tally(entries);
    return {
      name,
      verdict: mergeScenarioVerdicts(entries.map((e) => e.verdict)),
      trials: t.trials,
      violations: t.violations,
      undecided: t.undecided,
      skipped: t.skipped,
      interval95: wilsonInterval(t.violations, t.trials),
      devices: [...new Set(entries.map((e) => e.device))],
    };
  });
}

/** The devices of a report: its `devices`, or one derived from `device` and its scenarios. */
export function devicesOf(report: RunReport): DeviceReport[] {
  if (report.devices && report.devices.length > 0) return report.devices;
  const serials = [...new Set(report.scenarios.map((s) => s.device))];
  if (serials.length === 0) serials.push(report.device);
  return serials.map((serial) => ({
    serial,
    verdict: mergeScenarioVerdicts(report.scenarios.filter((s) => s.device === serial).map((s) => s.verdict)),
  }));
}

/**
 * Merges the reports of several devices (or shards) into one: scenarios concatenated, the
 * devices listed, the verdict merged over scenarios and devices (a tainted or failed device
 * makes it at least unknown), and the aggregate per scenario.
 */
export function mergeRunReports(reports: readonly RunReport[]): RunReport {
  const first = reports[0];
  if (!first) throw new RangeError('mergeRunReports needs at least one report');
  const scenarios = reports.flatMap((r) => r.scenarios);
  const devices = reports.flatMap(devicesOf);
  const starts = reports.map((r) => Date.parse(r.startedAt)).filter((n) => Number.isFinite(n));
  const ends = reports.map((r) => Date.parse(r.startedAt) + r.durationMs).filter((n) => Number.isFinite(n));
  const startedAt = starts.length > 0 ? new Date(Math.min(...starts)).toISOString() : first.startedAt;
  const durationMs = starts.length > 0 && ends.length > 0 ? Math.max(...ends) - Math.min(...starts) : Math.max(...reports.map((r) => r.durationMs));
  const verdict = mergeVerdicts([
    mergeScenarioVerdicts(scenarios.map((s) => s.verdict)),
    ...devices.map((d) => (d.tainted === true && d.verdict === 'pass' ? 'unknown' : d.verdict)),
  ]);
  return {
    verdict,
    device: [...new Set(devices.map((d) => d.serial))].join(', '),
    app: first.app,
    startedAt,
    durationMs,
    scenarios,
    devices,
    aggregate: aggregateScenarios(scenarios),
    ...(first.tool ? { tool: first.tool } : {}),
  };
}

/** "12.5%" with one decimal. */
export function formatPercent(p: number): string {
  return `${(Math.round(p * 1000) / 10).toFixed(1)}%`;
}

/** "1/10 trials violated (95% interval 0.2%-40.4%)", or "" for a single trial. */
export function describeTrials(s: { trials?: number; violations?: number; interval95?: Interval; undecided?: number }): string {
  if (s.trials === undefined || s.violations === undefined) return '';
  const interval = s.interval95 ?? wilsonInterval(s.violations, s.trials);
  const undecided = s.undecided !== undefined && s.undecided > 0 ? `, ${s.undecided} undecided` : '';
  return `${s.violations}/${s.trials} trials violated${undecided} (95% interval ${formatPercent(interval.low)}-${formatPercent(interval.high)})`;
}

/** One line for an anomaly: "duplicated https://e/1 runs 1,2: notified 2 times ...". */
export function describeAnomaly(a: { kind: string; item: string; run?: number; runs?: number[]; trial?: number; tolerated?: boolean; detail: string }): string {
  const where = a.runs && a.runs.length > 0 ? `runs ${a.runs.join(',')}` : a.run !== undefined ? `run ${a.run}` : '';
  const trial = a.trial !== undefined ? `trial ${a.trial}` : '';
  const item = a.item === '' ? (a.kind === 'refused-run' ? '' : '""') : a.item;
  const head = [`${a.kind}${a.tolerated === true ? ' (tolerated)' : ''}`, item, where, trial].filter((p) => p !== '').join(' ');
  return `${head}: ${a.detail}`;
}
