import { expect } from 'chai';
import { killMidRun } from '../../../src/scenarios/kill-mid-run.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const round = (k: number): string[] => [1, 2, 3, 4, 5].map((n) => link(`k${k}-item-${n}`));

describe('scenario kill-mid-run (fake harness)', () => {
  it('kills at four points with methods that kill a running worker, clearing the notifications before each next run', async () => {
    const { h } = await play(killMidRun);
    expect(h.steps.filter((s) => s.startsWith('forceRun') || s === 'forceStop' || s === 'startApp' || s === 'openGuard')).to.deep.equal([
      'forceRun killAt feed#1 signal', 'forceStop', 'startApp', 'forceRun',
      'openGuard', 'forceRun killAt receipts#1 signal', 'forceStop', 'startApp', 'forceRun',
      'openGuard', 'forceRun killAt receipts#2 signal', 'forceStop', 'startApp', 'forceRun',
      'openGuard', 'forceRun killAt receipts#3 force-stop', 'startApp', 'forceRun',
    ]);
    expect(killMidRun.allowedDuplicates).to.equal(1);
  });

  /** Round k: the kill at receipt k - 1 leaves `notifiedBeforeKill` items notified, `storedBeforeKill` stored. */
  const app = (record: 'after-each' | 'after-loop') => (n: number): { posted?: string[]; stored?: string[] } => {
    const k = Math.ceil(n / 2);
    const items = round(k);
    const notifiedBeforeKill = k - 1;
    if (n % 2 === 1) {
      return { posted: items.slice(0, notifiedBeforeKill), stored: record === 'after-each' ? items.slice(0, Math.max(0, notifiedBeforeKill - 1)) : [] };
    }
    const from = record === 'after-each' ? Math.max(0, notifiedBeforeKill - 1) : 0;
    return { posted: items.slice(from), stored: items.slice(from) };
  };

  it('passes notify-then-record: one item repeated after each kill, each excused by its kill', async () => {
    const { check } = await play(killMidRun, (h) => (h.onRun = app('after-each')));
    expect(check.verdict).to.equal('pass');
    expect(check.anomalies.map((a) => [a.kind, a.item, a.tolerated, a.excusedBy])).to.deep.equal([
      ['duplicated', round(2)[0], true, 3],
      ['duplicated', round(3)[1], true, 5],
      ['duplicated', round(4)[2], true, 7],
    ]);
  });

  it('fails rows written after the loop: every item after the first repeated after one kill, each named', async () => {
    const { check } = await play(killMidRun, (h) => (h.onRun = app('after-loop')));
    expect(check.verdict).to.equal('fail');
    expect(check.anomalies.filter((a) => a.tolerated !== true).map((a) => a.item)).to.deep.equal([round(3)[1], round(4)[1], round(4)[2]]);
    expect(failing(check)).to.deep.equal(['duplicated', 'duplicated', 'duplicated']);
  });
});
