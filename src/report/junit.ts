/**
 * junit.xml: a testsuite per device, a testcase per scenario x device (repeats merged), named
 * after the scenario with classname `dedup-verify.<serial>` and a `device` attribute. A failed
 * scenario carries <failure> listing its anomalies, an undecided one <error>, a skipped one
 * <skipped>. The surefire/Ant shape CI servers read (testsuites > testsuite > testcase).
 */
import { writeFile, rename } from 'node:fs/promises';
import { collapseScenarios, describeAnomaly, describeTrials, devicesOf } from './merge.js';
import type { RunReport, ScenarioReport } from './types.js';

/** Escapes text for XML attributes and content; drops characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function summarize(s: ScenarioReport): string {
  const failing = s.anomalies.filter((a) => a.tolerated !== true && a.kind !== 'recovered' && a.kind !== 'os-shed');
  const byKind = new Map<string, number>();
  for (const a of failing) byKind.set(a.kind, (byKind.get(a.kind) ?? 0) + 1);
  const kinds = [...byKind.entries()].map(([k, n]) => `${n} ${k}`).join(', ');
  const parts = [failing.length > 0 ? `${failing.length} ${failing.length === 1 ? 'anomaly' : 'anomalies'}: ${kinds}` : `${s.name} failed`];
  const trials = describeTrials(s);
  if (trials !== '') parts.push(trials);
  return parts.join('; ');
}

function anomalyLines(s: ScenarioReport): string[] {
  return s.anomalies.flatMap((a) => [describeAnomaly(a), ...(a.evidence ?? []).map((e) => `  evidence: ${e.trim()}`)]);
}

function body(s: ScenarioReport): string {
  const lines = anomalyLines(s);
  const trials = describeTrials(s);
  if (trials !== '') lines.unshift(trials);
  if (s.error !== undefined) lines.push(`error: ${s.error}`);
  return lines.join('\n');
}

function renderTestcase(s: ScenarioReport): string {
  const open = `    <testcase${attrs({ name: s.name, classname: `dedup-verify.${s.device}`, device: s.device, time: seconds(s.durationMs) })}`;
  const children: string[] = [];
  switch (s.verdict) {
    case 'pass':
      break;
    case 'fail':
      children.push(`      <failure${attrs({ message: summarize(s), type: s.anomalies.find((a) => a.tolerated !== true)?.kind ?? 'fail' })}>${escapeXml(body(s))}</failure>`);
      break;
    case 'unknown':
      children.push(`      <error${attrs({ message: s.error ?? `${s.name} could not decide on ${s.device}`, type: 'unknown' })}>${escapeXml(body(s))}</error>`);
      break;
    case 'skipped':
      children.push(`      <skipped${attrs({ message: s.error ?? 'skipped' })}/>`);
      break;
    default: {
      const unreachable: never = s.verdict;
      throw new Error(`unknown verdict ${String(unreachable)}`);
    }
  }
  const out: string[] = [];
  if (s.verdict === 'pass' && s.anomalies.length > 0) out.push(...anomalyLines(s));
  if (s.verdict === 'pass' && describeTrials(s) !== '') out.unshift(describeTrials(s));
  out.push(...(s.evidence ?? []).map((e) => `evidence: ${e}`));
  if (out.length > 0) children.push(`      <system-out>${escapeXml(out.join('\n'))}</system-out>`);
  return children.length === 0 ? `${open}/>` : `${open}>\n${children.join('\n')}\n    </testcase>`;
}

interface Totals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

function totals(cases: readonly ScenarioReport[]): Totals {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.verdict === 'fail').length,
    errors: cases.filter((c) => c.verdict === 'unknown').length,
    skipped: cases.filter((c) => c.verdict === 'skipped').length,
    ms: cases.reduce((sum, c) => sum + c.durationMs, 0),
  };
}

/** Renders junit.xml for a run report (one device or merged). */
export function renderJunit(report: RunReport): string {
  const cases = collapseScenarios(report.scenarios);
  const devices = devicesOf(report);
  const serials = [...new Set([...devices.map((d) => d.serial), ...cases.map((c) => c.device)])];
  const suites = serials.map((serial) => {
    const mine = cases.filter((c) => c.device === serial);
    const t = totals(mine);
    const device = devices.find((d) => d.serial === serial);
    const properties = [
      ['device', serial],
      ['app', report.app.package],
      ['verdict', device?.verdict],
      ['apiLevel', device?.apiLevel],
      ['model', device?.model],
      ['tainted', device?.tainted === true ? 'true' : undefined],
      ['error', device?.error],
    ].filter((p): p is [string, string | number] => p[1] !== undefined)
      .map(([name, value]) => `      <property${attrs({ name, value })}/>`);
    return [
      `  <testsuite${attrs({ name: `dedup-verify.${serial}`, tests: t.tests, failures: t.failures, errors: t.errors, skipped: t.skipped, time: seconds(t.ms), timestamp: report.startedAt, hostname: serial })}>`,
      `    <properties>\n${properties.join('\n')}\n    </properties>`,
      ...mine.map(renderTestcase),
      '  </testsuite>',
    ].join('\n');
  });
  const t = totals(cases);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'dedup-verify', tests: t.tests, failures: t.failures, errors: t.errors, skipped: t.skipped, time: seconds(report.durationMs) })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes junit.xml through a temporary file (created with O_EXCL, so a reader never sees half of it and a symbolic link at the name is replaced by the rename, never followed). */
export async function writeJunit(path: string, report: RunReport): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, renderJunit(report), { encoding: 'utf8', flag: 'wx' });
  await rename(tmp, path);
}
