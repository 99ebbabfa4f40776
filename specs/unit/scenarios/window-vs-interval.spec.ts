import { expect } from 'chai';
import { windowVsInterval } from '../../../src/scenarios/window-vs-interval.js';
import { HOUR, fakeSpec, link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const IN_WINDOW = ['missed-run-edge', 'one-interval', 'fresh'].map(link);

describe('scenario window-vs-interval (fake harness)', () => {
  it('reads the schedule, then probes the window with items at its edges', async () => {
    const { h } = await play(windowVsInterval);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'readWork schedule',
      'serveFeed missed-run-edge@-2820m one-interval@-1500m fresh@-60m beyond-window@-3000m',
      'forceRun',
    ]);
    const probe = h.events.find((e) => e.type === 'published' && e.label === 'missed-run-edge');
    expect(probe).to.include({ item: link('missed-run-edge') });
  });

  it('passes a 48 h window over a 24 h interval; fails a configured 48 h window over a 30 h interval', async () => {
    const correct = await play(windowVsInterval, (h) => (h.onRun = () => ({ posted: IN_WINDOW, stored: IN_WINDOW })));
    expect(correct.check.verdict).to.equal('pass');
    const slow = await play(windowVsInterval, (h) => {
      h.onReadWork = () => {
        const spec = fakeSpec({ intervalDuration: 30 * HOUR, flexDuration: 30 * HOUR });
        return { namedSpecs: [spec], workerSpecs: [spec], primary: spec };
      };
      h.onRun = () => ({ posted: IN_WINDOW, stored: IN_WINDOW });
    });
    expect(failing(slow.check)).to.deep.equal(['window-too-narrow']);
  });

  it('fails an app whose real window is the interval: the edge item is lost and named', async () => {
    const narrow = await play(windowVsInterval, (h) => (h.onRun = () => ({ posted: IN_WINDOW.slice(2), stored: IN_WINDOW.slice(2) })));
    expect(failing(narrow.check)).to.deep.equal(['lost', 'lost', 'window-too-narrow']);
  });
});
