/**
 * What `dedup-verify run --out DIR` writes once the trials are over: report.json, junit.xml,
 * history.jsonl, the HTML report, and a repro script for each scenario that did not pass.
 */
import { join, relative } from 'node:path';
import type { Config } from '../../config/types.js';
import { writeHistory, type TrialHistory } from '../../harness/runner.js';
import { writeJsonReport } from '../../report/json.js';
import { writeJunit } from '../../report/junit.js';
import type { RunReport } from '../../report/types.js';

export async function writeRunOutputs(out: string, report: RunReport, history: readonly TrialHistory[], config: Config, progress: (text: string) => void): Promise<void> {
  await writeJsonReport(join(out, 'report.json'), report);
  await writeJunit(join(out, 'junit.xml'), report);
  await writeHistory(join(out, 'history.jsonl'), history);
  const { writeHtmlReport } = await import('../../report/html/render.js');
  await writeHtmlReport(out, report, { onWarning: (t) => progress(`warning: ${t}`) });
  const failing = history.filter((h) => h.verdict !== 'pass' && h.verdict !== 'skipped' && h.repro.length > 0);
  if (failing.length === 0) return;
  const { writeReproScripts } = await import('../../report/repro.js');
  const scripts = await writeReproScripts(
    out,
    failing.map((h) => ({ scenario: h.scenario, device: h.device, pkg: config.app.package, feedDevicePort: config.feed.devicePort, work: config.work, steps: h.repro, anomalies: h.anomalies })),
  );
  progress(`repro scripts: ${scripts.map((p) => relative(out, p)).join(', ')}`);
}
