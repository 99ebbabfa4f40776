import { expect } from 'chai';
import { feedProbe } from '../../../src/scenarios/feed-probe.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

describe('scenario feed-probe (doctor\'s probe run, fake harness)', () => {
  it('serves an empty feed and forces one run, noting its outcome and the feed fetches', async () => {
    const { h } = await play(feedProbe, (h) => (h.onRun = () => ({ fetchStatuses: [200] })));
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal(['serveFeed', 'forceRun']);
    expect(h.notes).to.include('the probe run ended success; feed fetches: 200');
  });

  it('notes a run that fetched nothing, and one that fetched with an error status', async () => {
    expect((await play(feedProbe, (h) => (h.onRun = () => ({ fetchStatuses: [] })))).h.notes).to.include('the probe run ended success; feed fetches: none');
    expect((await play(feedProbe, (h) => (h.onRun = () => ({ outcome: 'failure', fetchStatuses: [404] })))).h.notes).to.include('the probe run ended failure; feed fetches: 404');
  });

  it('an empty feed: whatever the app posts is no item of it', async () => {
    const { check } = await play(feedProbe, (h) => (h.onRun = () => ({ posted: [link('stray')] })));
    expect(failing(check)).to.include('unexpected');
  });
});
