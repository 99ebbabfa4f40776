import { expect } from 'chai';
import { uniqueWork } from '../../../src/scenarios/unique-work.js';
import { FAKE_START, fakeSpec } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

describe('scenario unique-work (fake harness)', () => {
  it('runs once, reads the schedule, relaunches three times and after a force-stop, reads it again', async () => {
    const { h } = await play(uniqueWork);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'serveFeed', 'forceRun', 'readWork before-relaunch', 'startApp', 'startApp', 'startApp', 'forceStop', 'startApp', 'readWork after-relaunch',
    ]);
  });

  it('passes KEEP (one WorkSpec, its id and last_enqueue_time kept); fails a second schedule and a reset one', async () => {
    expect((await play(uniqueWork)).check.verdict).to.equal('pass');
    const twice = await play(uniqueWork, (h) => (h.onReadWork = (n) => {
      const specs = n === 1 ? [fakeSpec()] : [fakeSpec(), fakeSpec({ id: 'second', lastEnqueueTime: FAKE_START })];
      return { namedSpecs: specs, workerSpecs: specs, primary: specs[0] };
    }));
    expect(failing(twice.check)).to.deep.equal(['duplicate-schedule', 'duplicate-schedule']);
    const reset = await play(uniqueWork, (h) => (h.onReadWork = (n) => {
      const spec = fakeSpec(n === 1 ? {} : { lastEnqueueTime: FAKE_START + 10 });
      return { namedSpecs: [spec], workerSpecs: [spec], primary: spec };
    }));
    expect(failing(reset.check)).to.deep.equal(['schedule-reset']);
  });
});
