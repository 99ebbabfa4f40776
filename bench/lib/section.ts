/** What each benchmark hands to bench/run.ts: one section of bench/results.md. */

export interface BenchOptions {
  /** `--quick`: skip the slowest sizes (10^7 events) and use fewer repetitions where noted. */
  readonly quick: boolean;
  /** Progress on stderr. */
  readonly log: (text: string) => void;
}

export interface BenchSection {
  /** `--only NAME`. */
  readonly name: string;
  readonly title: string;
  /** The exact command that reproduces the figures. */
  readonly command: string;
  /** Markdown body (tables and notes). */
  readonly body: string;
  /** One line for the README summary. */
  readonly headline: string;
}

export interface Benchmark {
  readonly name: string;
  readonly title: string;
  /** What the benchmark measures, for `--help`. */
  readonly summary: string;
  run(options: BenchOptions): Promise<BenchSection>;
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], align?: readonly ('l' | 'r')[]): string {
  const sep = header.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [header, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

export function benchCommand(name: string, extra = ''): string {
  return `npm run bench -- --only ${name}${extra ? ` ${extra}` : ''}`;
}
