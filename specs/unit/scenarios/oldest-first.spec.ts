import { expect } from 'chai';
import { oldestFirst } from '../../../src/scenarios/oldest-first.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const OLDEST_FIRST = [6, 5, 4, 3, 2, 1].map((n) => link(`aged-${n}h`));

describe('scenario oldest-first (fake harness)', () => {
  it('serves the items in neither order and runs once; the order is checked (checksOrder)', async () => {
    const { h } = await play(oldestFirst);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal(['serveFeed aged-3h@-180m aged-1h@-60m aged-6h@-360m aged-2h@-120m aged-5h@-300m aged-4h@-240m', 'forceRun']);
    expect(oldestFirst.checksOrder).to.equal(true);
  });

  it('passes posts in publication order, fails newest first', async () => {
    expect((await play(oldestFirst, (h) => (h.onRun = () => ({ posted: OLDEST_FIRST, stored: OLDEST_FIRST })))).check.verdict).to.equal('pass');
    const newest = [...OLDEST_FIRST].reverse();
    const reversed = await play(oldestFirst, (h) => (h.onRun = () => ({ posted: newest, stored: newest })));
    expect(failing(reversed.check)).to.deep.equal(['out-of-order', 'out-of-order', 'out-of-order', 'out-of-order', 'out-of-order']);
  });
});
