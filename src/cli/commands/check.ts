/**
 * `dedup-verify check HISTORY.jsonl [--window MS] [--allowed-duplicates N] [--json]`
 * (docs/design.md §5, §9): streams a history through the checker and prints the verdict, the counts
 * and every anomaly. Returns 0 pass, 1 fail, 2 unknown; an unreadable file or a malformed line
 * throws (main prints it on one line and exits 2).
 */
import { emptyCounts, type CheckCounts, type CheckOptions, type CheckResult } from '../../checker/types.js';
import type { Checker } from '../../checker/check-history.js';
import { createSegmentChecker, segmentOptions } from '../../checker/compose.js';
import { formatDuration } from '../../checker/describe.js';
import { exitCodeFor, mergeVerdicts } from '../../checker/verdict.js';
import { UsageError } from '../../errors.js';
import { readHistory } from '../../history/jsonl.js';
import type { CliIo } from '../io.js';

export interface CheckCommandOptions {
  window?: number;
  allowedDuplicates?: number;
  json?: boolean;
}

export interface CheckSummary {
  result: CheckResult;
  /** The settings of the last segment. */
  options: CheckOptions;
  events: number;
  /** Segments checked (one per config line, at least one). */
  segments: number;
}

function validateFlags(opts: CheckCommandOptions): void {
  if (opts.window !== undefined && (!Number.isFinite(opts.window) || opts.window <= 0)) {
    throw new UsageError(`--window must be a positive number of milliseconds, got ${String(opts.window)} (e.g. --window 172800000 for 48 h)`);
  }
  if (opts.allowedDuplicates !== undefined && (!Number.isSafeInteger(opts.allowedDuplicates) || opts.allowedDuplicates < 0)) {
    throw new UsageError(`--allowed-duplicates must be a whole number >= 0, got ${String(opts.allowedDuplicates)} (e.g. --allowed-duplicates 1)`);
  }
}

/**
 * Streams a history file through the checker. Each `config` line starts a segment checked on
 * its own (flags win over the line's settings); the segments' results merge. With no config
 * line and no --window, a UsageError names `--window`.
 */
export async function checkHistoryFile(historyPath: string, opts: CheckCommandOptions = {}): Promise<CheckSummary> {
  validateFlags(opts);
  const results: { result: CheckResult; scenario: string | undefined }[] = [];
  let checker: Checker | undefined;
  let options: CheckOptions | undefined;
  let scenario: string | undefined;
  let events = 0;
  const noWindow = (): UsageError =>
    new UsageError(
      `history ${historyPath} has no config line ({"type":"config","windowMs":...} on line 1); pass the app's window with --window MS, e.g. --window 172800000 for 48 h`,
    );
  for await (const event of readHistory(historyPath)) {
    events += 1;
    if (event.type === 'config' || !checker) {
      if (checker) results.push({ result: checker.finish(), scenario });
      const fromHistory = event.type === 'config' ? event : undefined;
      const windowMs = opts.window ?? fromHistory?.windowMs;
      if (windowMs === undefined) throw noWindow();
      // The same checker `run` decides with: the notification checks and the segment's properties;
      // the flags win over the line's settings.
      const segment = { ...segmentOptions(fromHistory ?? { type: 'config', windowMs }), windowMs };
      if (opts.allowedDuplicates !== undefined) segment.allowedDuplicates = opts.allowedDuplicates;
      options = segment;
      scenario = fromHistory?.scenario;
      checker = createSegmentChecker(segment);
    }
    checker.add(event);
  }
  if (!checker || !options) {
    if (opts.window === undefined) {
      throw new UsageError(`history ${historyPath} is empty and has no config line; pass the app's window with --window MS, e.g. --window 172800000 for 48 h`);
    }
    options = { windowMs: opts.window, allowedDuplicates: opts.allowedDuplicates ?? 0 };
    checker = createSegmentChecker(options);
  }
  results.push({ result: checker.finish(), scenario });
  return { result: mergeSegments(results), options, events, segments: results.length };
}

/** One result for several segments: verdicts merge, counts add up, anomalies say their scenario. */
export function mergeSegments(results: readonly { result: CheckResult; scenario: string | undefined }[]): CheckResult {
  if (results.length === 1 && results[0]) return results[0].result;
  const errors = results.flatMap((r) => (r.result.error !== undefined ? [`${r.scenario ?? 'segment'}: ${r.result.error}`] : []));
  return {
    verdict: mergeVerdicts(results.map((r) => r.result.verdict)),
    counts: results.reduce((sum, r) => addCounts(sum, r.result.counts), emptyCounts()),
    anomalies: results.flatMap((r) => r.result.anomalies.map((a) => (r.scenario === undefined ? a : { ...a, scenario: r.scenario }))),
    ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
  };
}

function addCounts(a: CheckCounts, b: CheckCounts): CheckCounts {
  const out = { ...a };
  for (const key of Object.keys(b) as (keyof CheckCounts)[]) out[key] = a[key] + b[key];
  return out;
}

/** The human summary: verdict, settings, counts, then one line per anomaly. */
export function renderCheckSummary(historyPath: string, summary: CheckSummary): string {
  const { result, options, events } = summary;
  const c = result.counts;
  const lines = [
    `${historyPath}: ${result.verdict.toUpperCase()}`,
    summary.segments > 1
      ? `  ${summary.segments} segments (one per config line), ${events} events`
      : `  window ${formatDuration(options.windowMs)} (${options.windowMs} ms), allowed duplicates ${options.allowedDuplicates}, ${events} events`,
    `  eligible ${c.eligibleCount}, notified ${c.notifiedCount}, lost ${c.lostCount}, duplicated ${c.duplicatedCount}, ` +
      `unexpected ${c.unexpectedCount}, out-of-order ${c.outOfOrderCount}, recovered ${c.recoveredCount}, os-shed ${c.shedCount}`,
  ];
  if (result.error !== undefined) lines.push(`  could not decide: ${result.error}`);
  if (result.anomalies.length > 0) {
    lines.push(`anomalies (${result.anomalies.length}):`);
    for (const a of result.anomalies) {
      const where = a.runs && a.runs.length > 0 ? `runs ${a.runs.join(',')}` : a.run !== undefined ? `run ${a.run}` : '';
      const item = a.item === '' && a.kind !== 'refused-run' ? '""' : a.item;
      const tolerated = a.tolerated ? ` (tolerated${a.excusedBy !== undefined ? `: killed run ${a.excusedBy}` : ''})` : '';
      lines.push(`  ${a.kind}${tolerated}  ${[a.scenario !== undefined ? `[${a.scenario}]` : '', item, where].filter((s) => s !== '').join('  ')}: ${a.detail}`);
      for (const e of a.evidence ?? []) lines.push(`      evidence: ${e.trim()}`);
    }
  } else if (result.error === undefined) {
    lines.push('no anomalies');
  }
  return `${lines.join('\n')}\n`;
}

export async function runCheck(historyPath: string, opts: CheckCommandOptions, io: CliIo): Promise<number> {
  const summary = await checkHistoryFile(historyPath, opts);
  const { result } = summary;
  if (opts.json === true) {
    io.stdout(`${JSON.stringify({ verdict: result.verdict, counts: result.counts, anomalies: result.anomalies }, null, 2)}\n`);
    if (result.error !== undefined) io.stderr(`error: could not decide: ${result.error}\n`);
  } else {
    io.stdout(renderCheckSummary(historyPath, summary));
  }
  return exitCodeFor(result.verdict);
}
