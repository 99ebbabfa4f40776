import { expect } from 'chai';
import { missedRun } from '../../../src/scenarios/missed-run.js';
import { FAKE_START, HOUR, link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const GAP = ['gap-early', 'gap-middle', 'gap-late'].map(link);
const BEFORE = ['before-1', 'before-2'].map(link);

describe('scenario missed-run (fake harness)', () => {
  it('skips the run due one interval later: the clock goes to T0 + 2 × interval − 1 h, the gap items are published inside it', async () => {
    const { h } = await play(missedRun);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'readWork schedule',
      'serveFeed before-1@-120m before-2@-60m',
      'forceRun',
      `advanceClock +${47 * 60}m`,
      'serveFeed before-1@-2940m before-2@-2880m gap-early@-2676m gap-middle@-2100m gap-late@-1524m',
      'forceRun',
    ]);
    const t0 = FAKE_START + 5; // the first run's clock (the fake's run takes 5 ms)
    const gap = h.events.flatMap((e) => (e.type === 'published' && GAP.includes(e.item) ? [e.publishedAt - t0] : []));
    expect(gap.map((ms) => Math.round(ms / HOUR * 10) / 10)).to.deep.equal([2.4, 12, 21.6]);
  });

  it('passes an app whose 48 h window covers the gap, fails one whose 24 h window loses the early gap items', async () => {
    const correct = await play(missedRun, (h) => (h.onRun = (n) => (n === 1 ? { posted: BEFORE, stored: BEFORE } : { posted: GAP, stored: GAP })));
    expect(correct.check.verdict).to.equal('pass');
    const narrow = await play(missedRun, (h) => (h.onRun = (n) => (n === 1 ? { posted: BEFORE, stored: BEFORE } : { posted: GAP.slice(2), stored: GAP.slice(2) })));
    expect(failing(narrow.check)).to.deep.equal(['lost', 'lost']);
  });

  it('is undecided, not passing, without periodic work to skip', async () => {
    const { h, check } = await play(missedRun, (h) => (h.onReadWork = () => ({ namedSpecs: [], workerSpecs: [], primary: undefined })));
    expect(h.steps).to.deep.equal(['readWork schedule']);
    expect(check.verdict).to.equal('unknown');
    expect(check.anomalies.map((a) => a.kind)).to.deep.equal(['no-schedule']);
  });
});
