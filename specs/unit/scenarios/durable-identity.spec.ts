import { expect } from 'chai';
import { durableIdentity } from '../../../src/scenarios/durable-identity.js';
import { link } from '../../support/fake-harness.js';
import { play } from './play.js';

const ITEMS = [1, 2, 3].map((n) => link(`item-${n}`));

describe('scenario durable-identity (fake harness)', () => {
  it('runs, replays after a process death, then inspects the table with a stored key as the replay probe', async () => {
    const { h } = await play(durableIdentity, (h) => {
      h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : {});
      h.onReadDatabase = () => [...ITEMS];
    });
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'serveFeed item-1@-60m item-2@-120m item-3@-180m', 'forceRun', 'forceStop', 'startApp', 'forceRun', 'readDatabase', `inspectSchema ${ITEMS[0]!}`,
    ]);
  });

  it('passes the seed\'s table (the fake reports a unique nullable key); without a stored key, probes no replay', async () => {
    const stored = await play(durableIdentity, (h) => {
      h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : {});
      h.onReadDatabase = () => [...ITEMS];
    });
    expect(stored.check.verdict).to.equal('pass');
    const none = await play(durableIdentity);
    expect(none.h.steps.at(-1)).to.equal('inspectSchema (no sample)');
  });
});
