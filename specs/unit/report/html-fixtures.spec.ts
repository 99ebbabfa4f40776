/**
 * The sample run directories of fixtures/reports are what a run writes: each history segment
 * names its scenario and device, and each scenario's counts and anomalies in report.json are
 * exactly what the checker finds in its segment. The HTML specs rely on that.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkSegment } from '../../../src/checker/index.js';
import type { ConfigEvent, HistoryEvent } from '../../../src/history/events.js';
import { parseHistoryText } from '../../../src/history/jsonl.js';
import { readJsonReport } from '../../../src/report/json.js';
import { aggregateScenarios } from '../../../src/report/merge.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'reports');

interface Segment {
  readonly config: ConfigEvent;
  readonly events: HistoryEvent[];
}

async function segmentsOf(name: string): Promise<Segment[]> {
  const path = join(FIXTURES, name, 'history.jsonl');
  const segments: Segment[] = [];
  for (const e of parseHistoryText(await readFile(path, 'utf8'), path)) {
    if (e.type === 'config') segments.push({ config: e, events: [] });
    else {
      const last = segments[segments.length - 1];
      expect(last, `${name}: an event before the first config line`).not.to.equal(undefined);
      last!.events.push(e);
    }
  }
  return segments;
}

describe('fixtures/reports', () => {
  for (const name of ['failing', 'passing', 'multi-device']) {
    it(`${name}: one segment per scenario entry, and the checker finds exactly the reported counts and anomalies`, async () => {
      const report = await readJsonReport(join(FIXTURES, name, 'report.json'));
      const segments = await segmentsOf(name);
      expect(segments.map((s) => [s.config.scenario, s.config.device])).to.deep.equal(report.scenarios.map((s) => [s.name, s.device]));
      for (const [i, s] of report.scenarios.entries()) {
        const seg = segments[i]!;
        const c = seg.config;
        const result = checkSegment(seg.events, {
          windowMs: c.windowMs,
          allowedDuplicates: c.allowedDuplicates ?? 0,
          ...(c.checkOrder === false ? { checkOrder: false } : {}),
          ...(c.properties !== undefined ? { properties: c.properties } : {}),
        });
        expect(s.counts, `${name} ${s.name}`).to.deep.equal(result.counts);
        expect(s.anomalies, `${name} ${s.name}`).to.deep.equal(result.anomalies);
        expect(s.verdict, `${name} ${s.name}`).to.equal(result.verdict);
      }
      if (report.aggregate) expect(report.aggregate).to.deep.equal(aggregateScenarios(report.scenarios));
    });
  }

  it('failing: kill-mid-run loses k2-item-1 in killed run 3 and k3-item-3 in killed run 5', async () => {
    const report = await readJsonReport(join(FIXTURES, 'failing', 'report.json'));
    const segments = await segmentsOf('failing');
    const kill = report.scenarios[0]!;
    expect(kill.anomalies.map((a) => [a.kind, a.item.slice(a.item.lastIndexOf('/') + 1), a.run])).to.deep.equal([['lost', 'k2-item-1', 3], ['lost', 'k3-item-3', 5]]);
    const outcomes = segments[0]!.events.flatMap((e) => (e.type === 'run-finished' ? [[e.run, e.outcome]] : []));
    expect(outcomes).to.deep.equal([[1, 'killed'], [2, 'success'], [3, 'killed'], [4, 'success'], [5, 'killed'], [6, 'success']]);
  });
});
