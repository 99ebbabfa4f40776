import { expect } from 'chai';
import { coldProcess } from '../../../src/scenarios/cold-process.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const ITEMS = [1, 2, 3].map((n) => link(`cold-${n}`));

describe('scenario cold-process (fake harness)', () => {
  it('wipes the data, starts the process with no activity, and runs in it', async () => {
    const { h } = await play(coldProcess);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'clearAppData', 'startProcessWithoutActivity', 'openGuard', 'serveFeed cold-1@-60m cold-2@-120m cold-3@-180m', 'forceRun',
    ]);
    expect(h.steps).to.not.include('startApp');
  });

  it('passes an app that posts from the cold process; loses every item when it has no channel there', async () => {
    expect((await play(coldProcess, (h) => (h.onRun = () => ({ posted: ITEMS, stored: ITEMS })))).check.verdict).to.equal('pass');
    const noChannel = await play(coldProcess, (h) => (h.onRun = () => ({ stored: ITEMS })));
    expect(failing(noChannel.check)).to.deep.equal(['lost', 'lost', 'lost']);
  });
});
