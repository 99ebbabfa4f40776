import type { Verdict } from './types.js';

const RANK: { readonly [V in Verdict]: number } = { pass: 0, unknown: 1, fail: 2 };

/** Merges verdicts: fail beats unknown beats pass. No verdicts merge to pass. */
export function mergeVerdicts(verdicts: Iterable<Verdict>): Verdict {
  let merged: Verdict = 'pass';
  for (const v of verdicts) if (RANK[v] > RANK[merged]) merged = v;
  return merged;
}

/** The exit code of docs/design.md §9 for a verdict: 0 pass, 1 fail, 2 unknown. */
export function exitCodeFor(verdict: Verdict): 0 | 1 | 2 {
  switch (verdict) {
    case 'pass':
      return 0;
    case 'fail':
      return 1;
    case 'unknown':
      return 2;
    default: {
      const unreachable: never = verdict;
      throw new Error(`unknown verdict ${String(unreachable)}`);
    }
  }
}
