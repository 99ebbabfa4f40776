import { expect } from 'chai';
import { exitCodeFor } from '../../../src/checker/verdict.js';
import {
  aggregateScenarios, collapseScenarios, describeTrials, mergeRunReports, mergeScenarioTrials, mergeScenarioVerdicts,
  mergeVerdicts, wilsonInterval,
} from '../../../src/report/merge.js';
import type { RunReport, ScenarioReport } from '../../../src/report/types.js';

const ZERO = { lostCount: 0, duplicatedCount: 0, unexpectedCount: 0, outOfOrderCount: 0, notifiedCount: 0, recoveredCount: 0, shedCount: 0, eligibleCount: 0 };

function scenario(name: string, device: string, verdict: ScenarioReport['verdict'], extra: Partial<ScenarioReport> = {}): ScenarioReport {
  return { name, device, verdict, durationMs: 1000, counts: { ...ZERO, notifiedCount: 2, eligibleCount: 2 }, anomalies: [], ...extra };
}

function runReport(device: string, scenarios: ScenarioReport[], startedAt: string, durationMs: number): RunReport {
  return { verdict: mergeScenarioVerdicts(scenarios.map((s) => s.verdict)), device, app: { package: 'com.example.feednotifier' }, startedAt, durationMs, scenarios };
}

describe('report merging', () => {
  describe('verdicts', () => {
    it('fail beats unknown beats pass; nothing merges to pass', () => {
      expect(mergeVerdicts([])).to.equal('pass');
      expect(mergeVerdicts(['pass', 'pass'])).to.equal('pass');
      expect(mergeVerdicts(['pass', 'unknown', 'pass'])).to.equal('unknown');
      expect(mergeVerdicts(['unknown', 'fail', 'pass'])).to.equal('fail');
      expect(mergeVerdicts(['fail', 'unknown'])).to.equal('fail');
    });

    it('leaves skipped scenarios out; a run where nothing ran verified nothing (unknown)', () => {
      expect(mergeScenarioVerdicts(['pass', 'skipped'])).to.equal('pass');
      expect(mergeScenarioVerdicts(['skipped', 'skipped'])).to.equal('unknown');
      expect(mergeScenarioVerdicts([])).to.equal('unknown');
    });

    it('maps verdicts to the exit codes of docs/design.md §9', () => {
      expect([exitCodeFor('pass'), exitCodeFor('fail'), exitCodeFor('unknown')]).to.deep.equal([0, 1, 2]);
    });
  });

  describe('wilsonInterval', () => {
    const close = (actual: { low: number; high: number }, low: number, high: number): void => {
      expect(actual.low).to.be.closeTo(low, 1e-4);
      expect(actual.high).to.be.closeTo(high, 1e-4);
    };

    it('matches the textbook 95% Wilson intervals', () => {
      close(wilsonInterval(0, 10), 0, 0.2775);
      close(wilsonInterval(1, 10), 0.0179, 0.4042);
      close(wilsonInterval(5, 10), 0.2366, 0.7634);
      close(wilsonInterval(10, 10), 0.7225, 1);
      close(wilsonInterval(0, 100), 0, 0.0370);
    });

    it('knows nothing without trials', () => {
      expect(wilsonInterval(0, 0)).to.deep.equal({ low: 0, high: 1 });
    });
  });

  describe('repeats and devices', () => {
    const lost = { kind: 'lost', item: 'https://e/a', run: 1, epoch: 0, detail: 'never notified in epoch 0' };

    it('merges the repeats of a scenario on a device into violations / trials', () => {
      const merged = mergeScenarioTrials([
        scenario('kill-mid-run', 'D1', 'pass', { repeat: 1 }),
        scenario('kill-mid-run', 'D1', 'fail', { repeat: 2, anomalies: [lost], counts: { ...ZERO, lostCount: 1, notifiedCount: 1, eligibleCount: 2 } }),
        scenario('kill-mid-run', 'D1', 'unknown', { repeat: 3, error: 'adb: device offline', counts: ZERO }),
        scenario('kill-mid-run', 'D1', 'pass', { repeat: 4 }),
      ]);
      expect(merged).to.deep.equal({
        name: 'kill-mid-run',
        device: 'D1',
        verdict: 'fail',
        durationMs: 4000,
        counts: { ...ZERO, lostCount: 1, notifiedCount: 5, eligibleCount: 6 },
        anomalies: [{ ...lost, trial: 2 }],
        trials: 3,
        violations: 1,
        undecided: 1,
        interval95: wilsonInterval(1, 3),
        error: 'adb: device offline',
      });
      expect(describeTrials(merged)).to.equal('1/3 trials violated, 1 undecided (95% interval 6.1%-79.2%)');
    });

    it('keeps a scenario skipped only when every repeat was skipped', () => {
      expect(mergeScenarioTrials([scenario('x', 'D1', 'skipped'), scenario('x', 'D1', 'skipped')]).verdict).to.equal('skipped');
      expect(mergeScenarioTrials([scenario('x', 'D1', 'skipped'), scenario('x', 'D1', 'pass')]).verdict).to.equal('pass');
    });

    it('collapses to one entry per scenario x device, in first-seen order', () => {
      const collapsed = collapseScenarios([
        scenario('a', 'D1', 'pass'), scenario('b', 'D1', 'pass'), scenario('a', 'D2', 'fail'), scenario('a', 'D1', 'pass'),
      ]);
      expect(collapsed.map((s) => [s.name, s.device, s.verdict, s.trials])).to.deep.equal([
        ['a', 'D1', 'pass', 2], ['b', 'D1', 'pass', undefined], ['a', 'D2', 'fail', undefined],
      ]);
    });

    it('aggregates a scenario across devices and repeats', () => {
      const scenarios = [
        scenario('a', 'D1', 'pass'), scenario('a', 'D2', 'fail'), scenario('a', 'D3', 'pass'), scenario('a', 'D3', 'unknown'),
        scenario('b', 'D1', 'skipped'),
      ];
      expect(aggregateScenarios(scenarios)).to.deep.equal([
        { name: 'a', verdict: 'fail', trials: 3, violations: 1, undecided: 1, skipped: 0, interval95: wilsonInterval(1, 3), devices: ['D1', 'D2', 'D3'] },
        { name: 'b', verdict: 'unknown', trials: 0, violations: 0, undecided: 0, skipped: 1, interval95: { low: 0, high: 1 }, devices: ['D1'] },
      ]);
      // Aggregating already-merged entries gives the same tally.
      const again = aggregateScenarios(collapseScenarios(scenarios));
      expect(again.map((a) => [a.trials, a.violations, a.undecided, a.skipped])).to.deep.equal([[3, 1, 1, 0], [0, 0, 0, 1]]);
    });

    it('merges device reports: scenarios, devices, verdict, time span and aggregate', () => {
      const r1 = runReport('D1', [scenario('back-to-back', 'D1', 'pass')], '2024-06-01T12:00:00.000Z', 10_000);
      const r2 = runReport('D2', [scenario('back-to-back', 'D2', 'fail', { anomalies: [lost] })], '2024-06-01T12:00:05.000Z', 10_000);
      const merged = mergeRunReports([r1, r2]);
      expect(merged).to.deep.equal({
        verdict: 'fail',
        device: 'D1, D2',
        app: { package: 'com.example.feednotifier' },
        startedAt: '2024-06-01T12:00:00.000Z',
        durationMs: 15_000,
        scenarios: [...r1.scenarios, ...r2.scenarios],
        devices: [{ serial: 'D1', verdict: 'pass' }, { serial: 'D2', verdict: 'fail' }],
        aggregate: [{ name: 'back-to-back', verdict: 'fail', trials: 2, violations: 1, undecided: 0, skipped: 0, interval95: wilsonInterval(1, 2), devices: ['D1', 'D2'] }],
      });
    });

    it('makes a merged run at least unknown when a device was left tainted', () => {
      const r1 = { ...runReport('D1', [scenario('a', 'D1', 'pass')], '2024-06-01T12:00:00.000Z', 1000), devices: [{ serial: 'D1', verdict: 'pass' as const, tainted: true }] };
      expect(mergeRunReports([r1]).verdict).to.equal('unknown');
    });
  });
});
