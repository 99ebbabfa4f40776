/**
 * A handed-in report.json: validated against schema/dedup-verify.report.schema.json before any
 * of it reaches a page (a value of the wrong type is one line naming the field, exit 2), and
 * every value the page shows escaped whatever its type, so markup hidden in a count or a
 * string of a report that skipped the validation is text, not markup.
 */
import { expect } from 'chai';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from '../../../src/cli/main.js';
import { parseHistoryText } from '../../../src/history/jsonl.js';
import { renderHtmlReport } from '../../../src/report/html/render.js';
import { escapeHtml } from '../../../src/report/html/escape.js';
import { reportProblem } from '../../../src/report/report-schema.js';
import type { RunReport } from '../../../src/report/types.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'reports');
const META = '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">';
const STYLE = '<style>body{display:none}</style>';

async function fixture(name: string): Promise<RunReport> {
  return JSON.parse(await readFile(join(FIXTURES, name, 'report.json'), 'utf8')) as RunReport;
}

function captureIo(): CliIo & { out: string; err: string } {
  const io = { out: '', err: '', stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

/** Every string and number in `value` replaced by `hostile` (the verdict words kept, so the page still renders). */
function poison(value: unknown, hostile: string, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => poison(v, hostile));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, hostile, k)]));
  }
  if (key === 'verdict' || key === 'kind') return value;
  return typeof value === 'string' || typeof value === 'number' ? hostile : value;
}

describe('report.json schema', () => {
  it('accepts every fixture report', async () => {
    for (const name of ['passing', 'failing', 'multi-device']) expect(reportProblem(await fixture(name)), name).to.equal(undefined);
  });

  it('names the field of a count that is not a whole number, with the value found', async () => {
    const r = (await fixture('failing')) as unknown as { scenarios: { counts: Record<string, unknown> }[] };
    r.scenarios[0]!.counts['lostCount'] = META;
    expect(reportProblem(r)).to.equal(`scenarios[0].counts.lostCount must be integer, got ${JSON.stringify(META).slice(0, 57)}...`);
  });

  it('names an item that is not a string, an unknown field, a missing field and a verdict word', async () => {
    const r = (await fixture('failing')) as unknown as Record<string, unknown> & { scenarios: { anomalies: Record<string, unknown>[] }[] };
    r.scenarios[0]!.anomalies[0]!['item'] = 5;
    expect(reportProblem(r)).to.equal('scenarios[0].anomalies[0].item must be string, got 5');
    const extra = { ...(await fixture('passing')), style: STYLE };
    expect(reportProblem(extra)).to.equal('style is not a field of report.json');
    const { device: _device, ...missing } = await fixture('passing');
    expect(reportProblem(missing)).to.equal('device is missing');
    expect(reportProblem({ ...(await fixture('passing')), verdict: 'PASS' })).to.equal('verdict must be one of pass, fail, unknown, got "PASS"');
  });

  it('report DIR refuses such a report.json: exit 2, one line naming the field, no page written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dv-report-schema-'));
    try {
      const r = (await fixture('failing')) as unknown as { scenarios: { anomalies: Record<string, unknown>[] }[] };
      r.scenarios[0]!.anomalies[0]!['item'] = 5;
      await writeFile(join(dir, 'report.json'), JSON.stringify(r));
      await copyFile(join(FIXTURES, 'failing', 'history.jsonl'), join(dir, 'history.jsonl'));
      const io = captureIo();
      expect(await main(['node', 'dedup-verify', 'report', dir], io)).to.equal(2);
      expect(io.err).to.equal(`error: report ${join(dir, 'report.json')} is not a dedup-verify report: scenarios[0].anomalies[0].item must be string, got 5. Fix or replace ${join(dir, 'report.json')} (run --out writes it).\n`);
      expect(io.err).to.not.include('TypeError');
      await readFile(join(dir, 'report.html')).then(
        () => expect.fail('report.html was written'),
        (e: NodeJS.ErrnoException) => expect(e.code).to.equal('ENOENT'),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('report.html from a report that skipped the validation', () => {
  it('escapes a number of any type: the same text for 5 and "5", and markup as text', () => {
    expect(escapeHtml(5)).to.equal('5');
    expect(escapeHtml(META)).to.not.include('<');
  });

  for (const [name, hostile] of [['<meta http-equiv=refresh>', META], ['<style>', STYLE]] as const) {
    it(`holds no ${name} as markup when it is in every string and number field`, async () => {
      for (const fixtureName of ['failing', 'multi-device']) {
        const report = poison(await fixture(fixtureName), hostile) as RunReport;
        const history = parseHistoryText(await readFile(join(FIXTURES, fixtureName, 'history.jsonl'), 'utf8'));
        const html = renderHtmlReport(report, history);
        const clean = renderHtmlReport(await fixture(fixtureName), history);
        // The page's own <style> and <meta> elements are the only ones.
        expect(html.match(/<style\b/gi), fixtureName).to.have.length(1);
        expect(html.match(/<meta\b/gi), fixtureName).to.have.length(clean.match(/<meta\b/gi)?.length ?? 0);
        expect(html, fixtureName).to.not.include('http-equiv="refresh"');
        expect(html, fixtureName).to.include(escapeHtml(hostile));
      }
    });
  }
});
