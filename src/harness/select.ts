/**
 * Which scenarios a run executes: `--scenario` names (validated), then `--shard I/N` which
 * splits them deterministically: scenario k of the canonical order goes to shard (k mod N) + 1,
 * so shards are disjoint, together complete, and stable as long as the list is.
 */
import { UsageError } from '../errors.js';
import type { Scenario } from './types.js';

export interface Shard {
  readonly index: number;
  readonly count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard takes I/N with 1 ≤ I ≤ N, e.g. --shard 1/4 (got "${text}").`);
  }
  return { index, count };
}

export function selectScenarios(all: readonly Scenario[], names: readonly string[], shard?: Shard): Scenario[] {
  let chosen: Scenario[];
  if (names.length === 0) {
    chosen = [...all];
  } else {
    const unknown = names.filter((n) => !all.some((s) => s.name === n));
    if (unknown.length > 0) {
      throw new UsageError(`Unknown scenario ${unknown.map((n) => `"${n}"`).join(', ')}. Scenarios: ${all.map((s) => s.name).join(', ')}.`);
    }
    chosen = all.filter((s) => names.includes(s.name));
  }
  if (shard) chosen = chosen.filter((_, k) => k % shard.count === shard.index - 1);
  return chosen;
}
