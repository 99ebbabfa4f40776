/**
 * The checker's vocabulary (docs/design.md §5). Every word below is defined once, here, and used
 * with exactly this meaning in code, reports and docs:
 *
 * - eligible: a `published` item with a non-empty key and `publishedAt > 0` that a run fetched
 *   (in a 2xx response) while `deviceTime - publishedAt <= windowMs`, in a run that did not end
 *   `killed`/`refused` before handling it.
 * - lost: eligible in an epoch, never notified in that epoch (and not shed by the OS).
 * - duplicated: notified more than once in one epoch: every `notify()` counts, a post and an
 *   update of a notification still showing alike, unless the update carries
 *   FLAG_ONLY_ALERT_ONCE (a `silent-repost`, informational).
 * - tolerated: a duplicated item whose repeat follows a notification made in a run that ended
 *   `killed` before the item was `stored`, in a later run; at most `allowedDuplicates` items per
 *   killed run. Every other repeat fails.
 * - unexpected: notified but never eligible in that epoch (bad date, no link, outside the
 *   window, never served).
 * - out-of-order: within one run, a post whose `publishedAt` is older than the post before it.
 * - recovered: notified in a later run than the first run in which it was eligible (informational).
 * - os-shed: the OS refused a post (notification cap, rate limit): not an app bug, not lost.
 * - refused-run: a run that did not happen; the history cannot decide (verdict unknown).
 *
 * An epoch is the span between two `forgotten` events covering an item: deleting an item's
 * row starts a new epoch, in which it may legitimately be notified again.
 */

export const Verdict = { Pass: 'pass', Fail: 'fail', Unknown: 'unknown' } as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

export { ANOMALY_KINDS, type AnomalyKind, type AnomalyEffect, effectOf } from './kinds.js';
import type { FeedPlace } from '../history/events.js';
import type { AnomalyKind } from './kinds.js';

export interface CheckOptions {
  /** The app's window in ms: an item is in the window while `deviceTime - publishedAt <= windowMs`. */
  windowMs: number;
  /**
   * Items a killed run may leave to be repeated by a later run (0: no repeat is ever tolerated;
   * 1: the notify-then-record window, one item per kill). It is per killed run, never per item:
   * a repeat no kill excuses fails whatever this is.
   */
  allowedDuplicates: number;
  /**
   * Whether out-of-order posts fail the check (default true). A scenario that does not verify
   * the order (only oldest-first does) still reports them, marked `informational`.
   */
  checkOrder?: boolean;
  /** Where the feed was served (the config line's `feed`): names the fix when a run fetched nothing. */
  feed?: FeedPlace;
}

export interface CheckCounts {
  /** (item, epoch) pairs eligible and never notified. */
  lostCount: number;
  /** (item, epoch) pairs notified more than once, silent updates aside (tolerated ones included). */
  duplicatedCount: number;
  /** (item, epoch) pairs notified but never eligible. */
  unexpectedCount: number;
  /** Posts older than the post before them in the same run. */
  outOfOrderCount: number;
  /** `notified` events (posts and updates). */
  notifiedCount: number;
  /** (item, epoch) pairs notified in a later run than the first run they were eligible in. */
  recoveredCount: number;
  /** (item, epoch) pairs with at least one post refused by the OS. */
  shedCount: number;
  /** (item, epoch) pairs that were eligible. */
  eligibleCount: number;
}

export interface Anomaly {
  kind: AnomalyKind;
  /** The item key ("" for an item without link, and for refused-run). */
  item: string;
  /** The run the anomaly is about (first eligible run for lost, the posting run otherwise). */
  run?: number;
  /** Every run involved, in order (the posting runs of a duplicated item). */
  runs?: number[];
  /** The item's dedup epoch (0 until its row is first forgotten). */
  epoch?: number;
  /** A sentence a QA engineer understands. */
  detail: string;
  /** A duplicated item excused by a kill: reported, does not fail the check. */
  tolerated?: boolean;
  /** The killed run that excuses a tolerated repeat. */
  excusedBy?: number;
  /**
   * The history cannot settle it (a `lost` item while notification lines did not parse): it
   * makes the verdict unknown instead of fail.
   */
  undecided?: boolean;
  /** Reported, but not a property this check verifies (out-of-order with checkOrder false). */
  informational?: boolean;
  /** Raw lines from the history events involved (logcat lines, journal entries). */
  evidence?: string[];
  /** The segment's scenario, when the history holds several (config lines with `scenario`). */
  scenario?: string;
}

export interface CheckResult {
  verdict: Verdict;
  counts: CheckCounts;
  anomalies: Anomaly[];
  /** Set when the checker could not finish (verdict unknown). */
  error?: string;
}

export function emptyCounts(): CheckCounts {
  return {
    lostCount: 0,
    duplicatedCount: 0,
    unexpectedCount: 0,
    outOfOrderCount: 0,
    notifiedCount: 0,
    recoveredCount: 0,
    shedCount: 0,
    eligibleCount: 0,
  };
}

/** The notification checker's kinds that make the verdict fail (duplicated only when not tolerated). */
export const FAILING_KINDS: readonly AnomalyKind[] = ['lost', 'duplicated', 'unexpected', 'out-of-order'];
