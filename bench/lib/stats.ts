/** Order statistics for benchmark samples (no averages: a stray slow sample must not move them). */

export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p25: number;
  readonly median: number;
  readonly p75: number;
  readonly max: number;
}

/** Linear interpolation between the two nearest ranks (the "type 7" quantile). */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (pos - lo);
}

export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    min: Math.min(...samples),
    p25: quantile(samples, 0.25),
    median: median(samples),
    p75: quantile(samples, 0.75),
    max: Math.max(...samples),
  };
}

/** Milliseconds as `12.3 ms` / `123 ms` below a second, else `1.23 s` / `12.3 s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms.toFixed(ms < 100 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatRatio(x: number): string {
  return `${x.toFixed(2)}×`;
}

/** `median (p25–p75, min–max)` of a set of milliseconds. */
export function formatSpreadMs(s: Summary): string {
  return `${formatMs(s.median)} (IQR ${formatMs(s.p25)}–${formatMs(s.p75)}, range ${formatMs(s.min)}–${formatMs(s.max)})`;
}

/** Elapsed milliseconds of an async call. */
export async function timeMs<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}
