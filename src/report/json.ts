/** report.json (docs/design.md §9): written whole, read back validated against its JSON Schema (report-schema.ts). */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { DedupVerifyError, ErrorCode } from '../errors.js';
import { reportProblem } from './report-schema.js';
import type { RunReport } from './types.js';

export const REPORT_FILE = 'report.json';

export function renderJsonReport(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Writes report.json through a temporary file (created with O_EXCL, so a reader never sees half of it and a symbolic link at the name is replaced by the rename, never followed). */
export async function writeJsonReport(path: string, report: RunReport): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, renderJsonReport(report), { encoding: 'utf8', flag: 'wx' });
  await rename(tmp, path);
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
  const problem = reportProblem(value);
  if (problem !== undefined) throw new DedupVerifyError(ErrorCode.Usage, `report ${path} is not a dedup-verify report: ${problem}`);
  return value as RunReport;
}
