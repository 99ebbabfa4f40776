/** report.json (docs/design.md §9): written whole, read back with a shape check. */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { DedupVerifyError, ErrorCode } from '../errors.js';
import type { RunReport } from './types.js';

export const REPORT_FILE = 'report.json';

export function renderJsonReport(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Writes report.json (through a temporary file, so a reader never sees half of it). */
export async function writeJsonReport(path: string, report: RunReport): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, renderJsonReport(report), 'utf8');
  await rename(tmp, path);
}

function problemOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'it is not a JSON object';
  const r = value as Record<string, unknown>;
  if (!['pass', 'fail', 'unknown'].includes(r['verdict'] as string)) return '"verdict" must be pass, fail or unknown';
  if (typeof r['device'] !== 'string') return '"device" must be a string';
  if (typeof r['app'] !== 'object' || r['app'] === null) return '"app" must be an object';
  if (!Array.isArray(r['scenarios'])) return '"scenarios" must be an array';
  for (const [i, s] of (r['scenarios'] as unknown[]).entries()) {
    const sc = s as Record<string, unknown> | null;
    if (typeof sc !== 'object' || sc === null) return `"scenarios[${i}]" must be an object`;
    if (typeof sc['name'] !== 'string') return `"scenarios[${i}].name" must be a string`;
    if (!['pass', 'fail', 'unknown', 'skipped'].includes(sc['verdict'] as string)) return `"scenarios[${i}].verdict" must be pass, fail, unknown or skipped`;
    if (!Array.isArray(sc['anomalies'])) return `"scenarios[${i}].anomalies" must be an array`;
    if (typeof sc['counts'] !== 'object' || sc['counts'] === null) return `"scenarios[${i}].counts" must be an object`;
  }
  return undefined;
}

/** Reads report.json back; throws DedupVerifyError naming the file and what is wrong. */
export async function readJsonReport(path: string): Promise<RunReport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new DedupVerifyError(ErrorCode.Usage, `cannot read report ${path}: ${e instanceof Error ? e.message : String(e)}; pass a directory written by run --out`, { cause: e });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new DedupVerifyError(ErrorCode.Usage, `report ${path} is not valid JSON (${e instanceof Error ? e.message : String(e)}); re-run with --out to write it again`, { cause: e });
  }
  const problem = problemOf(value);
  if (problem !== undefined) throw new DedupVerifyError(ErrorCode.Usage, `report ${path} is not a dedup-verify report: ${problem}`);
  return value as RunReport;
}
