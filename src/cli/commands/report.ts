/**
 * `dedup-verify report DIR` (docs/design.md §9): re-renders report.html and junit.xml from the
 * report.json and history.jsonl a run wrote into DIR (for example artefacts downloaded from a
 * device farm). A missing or invalid report.json is a usage error (exit 2); a missing or broken
 * history.jsonl still gives a page, which says what it could not show. `--json` prints
 * `{ dir, html, junit, verdict, warnings }`. The exit code is 0 once the files are written,
 * whatever the run's verdict (re-rendering decides nothing).
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError, isDedupVerifyError } from '../../errors.js';
import { HTML_REPORT_FILE, writeHtmlReport } from '../../report/html/render.js';
import { REPORT_FILE, readJsonReport } from '../../report/json.js';
import { writeJunit } from '../../report/junit.js';
import type { RunReport } from '../../report/types.js';
import type { CliIo } from '../io.js';

export const JUNIT_FILE = 'junit.xml';

async function checkDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new UsageError(`No directory ${dir}. Pass the directory a run wrote with --out (it holds ${REPORT_FILE} and history.jsonl).`);
  if (!info.isDirectory()) throw new UsageError(`${dir} is a file, not a directory. Pass the directory that holds ${REPORT_FILE} (e.g. dedup-verify report out/).`);
}

export interface ReportCommandOptions {
  /** Print `{ dir, html, junit, verdict, warnings }` as JSON instead of the one-line summary. */
  readonly json?: boolean;
}

export async function runReport(dir: string, io: CliIo, opts: Readonly<Record<string, unknown>> & ReportCommandOptions = {}): Promise<number> {
  const root = resolve(dir);
  await checkDirectory(root);
  const reportPath = join(root, REPORT_FILE);
  const exists = await stat(reportPath).then((s) => s.isFile(), () => false);
  if (!exists) {
    throw new UsageError(`No ${REPORT_FILE} in ${root}. Pass a directory written by \`dedup-verify run --out DIR\`, or download the run's ${REPORT_FILE} and history.jsonl into it.`);
  }
  let report: RunReport;
  try {
    report = await readJsonReport(reportPath);
  } catch (e) {
    if (isDedupVerifyError(e)) throw new UsageError(`${e.message}. Fix or replace ${reportPath} (run --out writes it).`, { cause: e });
    throw e;
  }
  const warnings: string[] = [];
  await writeHtmlReport(root, report, {
    onWarning: (text) => {
      warnings.push(text);
      io.stderr(`warning: ${text}\n`);
    },
  });
  const html = join(root, HTML_REPORT_FILE);
  const junit = join(root, JUNIT_FILE);
  await writeJunit(junit, report);
  if (opts.json === true) io.stdout(`${JSON.stringify({ dir: root, html, junit, verdict: report.verdict, warnings }, null, 2)}\n`);
  else io.stdout(`report.html written to ${join(dir, HTML_REPORT_FILE)}\n`);
  return 0;
}
