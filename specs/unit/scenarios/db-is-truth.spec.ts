import { expect } from 'chai';
import { dbIsTruth } from '../../../src/scenarios/db-is-truth.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const ITEMS = [1, 2, 3, 4].map((n) => link(`item-${n}`));

describe('scenario db-is-truth (fake harness)', () => {
  it('runs, deletes exactly the served rows, runs again', async () => {
    const { h } = await play(dbIsTruth);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal(['serveFeed item-1@-60m item-2@-120m item-3@-180m item-4@-240m', 'forceRun', 'forgetRows 4', 'forceRun']);
    expect(h.events.filter((e) => e.type === 'forgotten')).to.deep.equal([{ type: 'forgotten', t: h.events.find((e) => e.type === 'forgotten')!.t, items: ITEMS }]);
  });

  it('passes an app that re-posts everything after the delete; loses what a second dedup hides', async () => {
    const both = { posted: ITEMS, stored: ITEMS };
    expect((await play(dbIsTruth, (h) => (h.onRun = () => both))).check.verdict).to.equal('pass');
    const elsewhere = await play(dbIsTruth, (h) => (h.onRun = (n) => (n === 1 ? both : {})));
    expect(failing(elsewhere.check)).to.deep.equal(ITEMS.map(() => 'lost'));
  });
});
