import { expect } from 'chai';
import { processDeathReplay } from '../../../src/scenarios/process-death-replay.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const ITEMS = [1, 2, 3, 4].map((n) => link(`item-${n}`));

describe('scenario process-death-replay (fake harness)', () => {
  it('runs, force-stops, relaunches, runs again, then reads the dedup table', async () => {
    const { h } = await play(processDeathReplay);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'serveFeed item-1@-60m item-2@-120m item-3@-180m item-4@-240m', 'forceRun', 'forceStop', 'startApp', 'forceRun', 'readDatabase',
    ]);
  });

  it('passes one row per item; fails a replay that re-notifies and queues a second row (an in-memory key set)', async () => {
    const correct = await play(processDeathReplay, (h) => {
      h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : {});
      h.onReadDatabase = () => [...ITEMS];
    });
    expect(correct.check.verdict).to.equal('pass');
    const memoryOnly = await play(processDeathReplay, (h) => {
      h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : { posted: ITEMS });
      h.onReadDatabase = () => [...ITEMS, ...ITEMS];
    });
    expect(failing(memoryOnly.check)).to.deep.equal([...ITEMS.map(() => 'duplicated'), ...ITEMS.map(() => 'duplicate-row')]);
  });
});
