import { expect } from 'chai';
import { backToBack } from '../../../src/scenarios/back-to-back.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const ITEMS = [1, 2, 3, 4, 5].map((n) => link(`item-${n}`));

describe('scenario back-to-back (fake harness)', () => {
  it('runs twice on one feed, clearing the notifications (force-stop, relaunch) in between', async () => {
    const { h } = await play(backToBack);
    expect(h.steps).to.deep.equal([
      'serveFeed item-1@-60m item-2@-120m item-3@-180m item-4@-240m item-5@-300m',
      'step: first forced run', 'forceRun',
      'step: clear the notifications (force-stop, relaunch)', 'forceStop', 'startApp',
      'step: second forced run, same feed', 'forceRun',
    ]);
  });

  it('passes an app whose second run posts nothing, fails one that posts everything again', async () => {
    const correct = await play(backToBack, (h) => (h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : {})));
    expect(correct.check.verdict).to.equal('pass');
    const noDbCheck = await play(backToBack, (h) => (h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : { posted: ITEMS })));
    expect(failing(noDbCheck.check)).to.deep.equal(ITEMS.map(() => 'duplicated'));
  });
});
