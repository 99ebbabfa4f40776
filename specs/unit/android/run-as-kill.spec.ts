/** The signal the harness's run-as kill sends per API level (src/android/activity.ts runAsKillSignal, sources there). */
import { expect } from 'chai';
import { runAsKillSignal } from '../../../src/android/activity.js';

describe('runAsKillSignal', () => {
  it('SIGTERM where runas_app has signal but not sigkill (API 29-33), SIGKILL before and after', () => {
    expect([28, 29, 30, 31, 32, 33, 34, 35, 36].map((api) => [api, runAsKillSignal(api)])).to.deep.equal([
      [28, '-9'],
      [29, '-15'],
      [30, '-15'],
      [31, '-15'],
      [32, '-15'],
      [33, '-15'],
      [34, '-9'],
      [35, '-9'],
      [36, '-9'],
    ]);
  });
});
