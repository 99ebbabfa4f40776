/**
 * The shape of `report.json` (docs/design.md §9), which the JUnit, console and HTML reporters read.
 * Field names are a contract: `verdict`, `device`, `app`, `scenarios[]` with `name`, `verdict`,
 * `durationMs`, `counts` (`lostCount`, `duplicatedCount`, `unexpectedCount`, `outOfOrderCount`,
 * `notifiedCount`, ...) and `anomalies[]` (`kind`, `item`, `detail`).
 */
import type { CheckCounts, Verdict } from '../checker/types.js';

export type { CheckCounts, Verdict } from '../checker/types.js';

export const ScenarioVerdict = { Pass: 'pass', Fail: 'fail', Unknown: 'unknown', Skipped: 'skipped' } as const;
export type ScenarioVerdict = (typeof ScenarioVerdict)[keyof typeof ScenarioVerdict];

/**
 * A finding in a report: one of the checker's anomalies (kind lost, duplicated, unexpected,
 * out-of-order, recovered, os-shed, refused-run) or one found by a scenario's own checks (its
 * own kind, e.g. a duplicate row or a missing idempotency key).
 */
export interface ReportAnomaly {
  kind: string;
  item: string;
  run?: number;
  runs?: number[];
  epoch?: number;
  detail: string;
  tolerated?: boolean;
  /** The killed run that excuses a tolerated repeat. */
  excusedBy?: number;
  /** The history cannot settle it: the verdict is unknown, not fail. */
  undecided?: boolean;
  /** Reported, but not a property this scenario verifies (e.g. order outside oldest-first). */
  informational?: boolean;
  /** The scenario's history segment, when anomalies of several are listed together. */
  scenario?: string;
  evidence?: string[];
  /** The repeat (1-based) it was found in, once repeats are merged. */
  trial?: number;
}

/** A 95% confidence interval of a proportion (Wilson score). */
export interface Interval {
  low: number;
  high: number;
}

/** One scenario on one device (one trial, or its repeats merged). */
export interface ScenarioReport {
  name: string;
  /** adb serial of the device it ran on. */
  device: string;
  verdict: ScenarioVerdict;
  durationMs: number;
  counts: CheckCounts;
  anomalies: ReportAnomaly[];
  /** Decided trials (pass or fail) when repeats are merged. */
  trials?: number;
  /** Trials that failed. */
  violations?: number;
  /** Trials that could not decide (unknown). */
  undecided?: number;
  /** 95% Wilson interval of violations / trials. */
  interval95?: Interval;
  /** Why it is unknown or skipped (infrastructure failure, missing capability). */
  error?: string;
  /** Evidence lines and files (relative to the report directory). */
  evidence?: string[];
  /** 1-based repeat index under --repeat. */
  repeat?: number;
  /** Infrastructure attempts it took (1: first try). */
  attempts?: number;
}

export interface DeviceReport {
  serial: string;
  verdict: Verdict;
  apiLevel?: number;
  model?: string;
  /** The device could not be put back as it was (docs/design.md §8). */
  tainted?: boolean;
  error?: string;
}

/** One scenario across every device and repeat. */
export interface ScenarioAggregate {
  name: string;
  verdict: Verdict;
  /** Decided trials (pass or fail). */
  trials: number;
  violations: number;
  /** Trials that could not decide. */
  undecided: number;
  skipped: number;
  interval95: Interval;
  devices: string[];
}

export interface RunReport {
  verdict: Verdict;
  /** The device serial (several: joined with ", "; each is in `devices`). */
  device: string;
  app: { package: string; versionName?: string; versionCode?: number };
  /** ISO 8601 host time. */
  startedAt: string;
  durationMs: number;
  scenarios: ScenarioReport[];
  devices?: DeviceReport[];
  /** Per scenario across devices and repeats (several devices or --repeat). */
  aggregate?: ScenarioAggregate[];
  tool?: { name: string; version: string };
}
