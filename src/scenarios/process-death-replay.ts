import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const processDeathReplay: Scenario = {
  name: 'process-death-replay',
  summary: 'Force-stop between runs (in-memory state gone): no re-notification and no second row.',
  seed: {
    file: 'docs/sources/003_abb250718efb355d.txt',
    quote:
      'a 48 h replay after a listener rebind or a process restart — the set starts empty again — queued a second row for a notification already reviewed or dismissed.',
  },
  catches: ['memory-only-dedup'],
  needs: {},
  notApplicable: (config) => (config.database === undefined ? 'the config has no "database": its rows check reads the app\'s record, which the config does not name' : undefined),
  properties: ['rows'],
  async run(h) {
    await h.serveFeed([1, 2, 3, 4].map((n) => ({ label: `item-${n}`, title: `Survives death ${n}`, ageMs: n * HOUR })));
    h.step('first forced run');
    await h.forceRun();
    h.step('process death: force-stop (memory gone, notifications cleared), then relaunch');
    await h.restartApp();
    h.step('forced run in the new process');
    await h.forceRun();
    h.step('read the dedup table');
    await h.readDatabase();
  },
};
