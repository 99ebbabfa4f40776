import { expect } from 'chai';
import { parseShard, selectScenarios } from '../../../src/harness/select.js';
import { SCENARIOS } from '../../../src/scenarios/index.js';

describe('scenario selection and --shard', () => {
  it('splits the scenarios into disjoint shards that together are all of them, in canonical order', () => {
    for (const n of [1, 2, 3, 4, 7, 15, 16]) {
      const shards = Array.from({ length: n }, (_, i) => selectScenarios(SCENARIOS, [], parseShard(`${i + 1}/${n}`)).map((s) => s.name));
      const all = shards.flat();
      expect(new Set(all).size, `N=${n}`).to.equal(all.length);
      expect([...all].sort(), `N=${n}`).to.deep.equal(SCENARIOS.map((s) => s.name).sort());
      for (const shard of shards) expect(shard).to.deep.equal(SCENARIOS.map((s) => s.name).filter((name) => shard.includes(name)));
    }
  });

  it('is deterministic: the same shard twice is the same list', () => {
    expect(selectScenarios(SCENARIOS, [], parseShard('2/3'))).to.deep.equal(selectScenarios(SCENARIOS, [], parseShard('2/3')));
  });

  it('shards the --scenario selection, not the whole list', () => {
    const chosen = selectScenarios(SCENARIOS, ['back-to-back', 'missed-run', 'oldest-first'], parseShard('1/2')).map((s) => s.name);
    expect(chosen).to.deep.equal(['back-to-back', 'oldest-first']);
  });

  it('rejects unknown scenarios and malformed shards with the fix', () => {
    expect(() => selectScenarios(SCENARIOS, ['nope'], undefined)).to.throw(/Unknown scenario "nope"\. Scenarios: back-to-back, /);
    for (const bad of ['0/2', '3/2', '1/0', 'a/b', '1-2']) expect(() => parseShard(bad), bad).to.throw(/--shard takes I\/N/);
  });
});
