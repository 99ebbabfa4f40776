import { expect } from 'chai';
import { firstInstall } from '../../../src/scenarios/first-install.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const RECENT = ['recent-1', 'recent-2'].map(link);
const OLD = ['year-old', 'month-old', 'week-old', 'three-days'].map(link);

describe('scenario first-install (fake harness)', () => {
  it('clears the app data (a first install), relaunches, serves items from a year to two hours old, runs once', async () => {
    const { h } = await play(firstInstall);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'clearAppData', 'startApp', 'openGuard',
      'serveFeed year-old@-525600m month-old@-43200m week-old@-10080m three-days@-4320m recent-1@-300m recent-2@-120m',
      'forceRun',
    ]);
    expect(h.events.some((e) => e.type === 'forgotten' && e.items === 'all')).to.equal(true);
  });

  it('passes an app with a window; fails one without, naming every old item', async () => {
    expect((await play(firstInstall, (h) => (h.onRun = () => ({ posted: RECENT, stored: RECENT })))).check.verdict).to.equal('pass');
    const noWindow = await play(firstInstall, (h) => (h.onRun = () => ({ posted: [...OLD, ...RECENT], stored: [...OLD, ...RECENT] })));
    expect(failing(noWindow.check)).to.deep.equal(OLD.map(() => 'unexpected'));
    expect(noWindow.check.anomalies.map((a) => a.item)).to.deep.equal(OLD);
  });
});
