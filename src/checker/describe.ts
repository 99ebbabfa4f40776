/** Wording helpers for anomaly details: durations, instants and lists of runs. Pure. */

/** A duration for people: "48 h", "90 min", "1.5 h", "12 s", "250 ms". */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? '-' : '';
  const trim = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1).replace(/\.0$/, ''));
  if (abs >= 3_600_000) return `${sign}${trim(abs / 3_600_000)} h`;
  if (abs >= 60_000) return `${sign}${trim(abs / 60_000)} min`;
  if (abs >= 1_000) return `${sign}${trim(abs / 1_000)} s`;
  return `${sign}${trim(abs)} ms`;
}

/** An epoch-ms instant as ISO 8601 UTC, or the raw number when it is out of Date's range. */
export function formatInstant(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? `${ms} ms` : d.toISOString();
}

/** "a", "a and b", "a, b and c". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
}

/**
 * The runs of a list of posts: "run 1", "runs 1 and 2", "run 1 (2 times) and run 2".
 * Order of first appearance is kept.
 */
export function formatRuns(runs: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const r of runs) counts.set(r, (counts.get(r) ?? 0) + 1);
  const distinct = [...counts.keys()];
  if (distinct.every((r) => counts.get(r) === 1)) {
    return `${distinct.length === 1 ? 'run' : 'runs'} ${joinWords(distinct.map(String))}`;
  }
  return joinWords(distinct.map((r) => {
    const n = counts.get(r) ?? 1;
    return n === 1 ? `run ${r}` : `run ${r} (${n} times)`;
  }));
}

/** "1 time", "2 times". */
export function times(n: number): string {
  return n === 1 ? '1 time' : `${n} times`;
}
