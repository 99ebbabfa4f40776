import { expect } from 'chai';
import { idempotencyKey } from '../../../src/scenarios/idempotency-key.js';
import { link } from '../../support/fake-harness.js';
import { play } from './play.js';

const ITEMS = [3, 2, 1].map((n) => link(`receipt-${n}`));

describe('scenario idempotency-key (fake harness)', () => {
  it('drops the first receipt after processing, fails the rest, kills the process, retries', async () => {
    const { h } = await play(idempotencyKey);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal([
      'serveFeed receipt-1@-60m receipt-2@-120m receipt-3@-180m',
      `fault receipts {"sequence":["drop-after-processing",${Array<string>(20).fill('503').join(',')}]}`,
      'forceRun', 'clearFaults', 'forceStop', 'startApp', 'forceRun',
    ]);
    expect(idempotencyKey.properties).to.deep.equal(['idempotency']);
  });

  it('leaves the property undecided when the fake backend saw no receipt (nothing was exercised)', async () => {
    // The fake serves no backend: the app's receipts never reach the history.
    const { check } = await play(idempotencyKey, (h) => (h.onRun = (n) => (n === 1 ? { outcome: 'retry', posted: ITEMS, stored: ITEMS } : {})));
    expect(check.verdict).to.equal('unknown');
    expect(check.anomalies.map((a) => a.kind)).to.deep.equal(['no-receipt']);
  });
});
