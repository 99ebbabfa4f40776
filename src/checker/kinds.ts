/**
 * Every anomaly kind the checker reports, declared once: what it means and what it does to the
 * verdict. `fail`: the app broke a property; `unknown`: the history cannot decide (the property
 * could not be exercised or observed); `info`: reported, never changes the verdict.
 *
 * A `duplicated` anomaly marked `tolerated` and an `out-of-order` one marked `informational`
 * are reported without failing (the anomaly says so itself); every other anomaly acts as its
 * kind's effect says.
 */

export type AnomalyEffect = 'fail' | 'unknown' | 'info';

export interface AnomalyKindInfo {
  readonly effect: AnomalyEffect;
  /** The property check that reports it (`notifications`: the checker of every history). */
  readonly property: string;
  /** One sentence: what it means. */
  readonly means: string;
}

export const ANOMALY_KINDS = {
  // The notification checks (every history).
  lost: { effect: 'fail', property: 'notifications', means: 'eligible in an epoch, never notified in that epoch' },
  duplicated: {
    effect: 'fail',
    property: 'notifications',
    means: 'notified more than once in one epoch (posts and alerting updates); tolerated only for one item per killed run that had not stored it',
  },
  unexpected: { effect: 'fail', property: 'notifications', means: 'notified but never eligible (bad date, no link, outside the window, never served)' },
  'out-of-order': { effect: 'fail', property: 'notifications', means: 'within one run, a post older than the post before it' },
  'refused-run': { effect: 'unknown', property: 'notifications', means: 'a forced run that WorkManager did not run' },
  aborted: { effect: 'unknown', property: 'notifications', means: 'the harness failed part-way: the history is incomplete' },
  'unparsed-line': { effect: 'unknown', property: 'notifications', means: 'a notification_enqueue line the parsers did not understand: what it recorded is missing, so nothing can be called lost for sure' },
  recovered: { effect: 'info', property: 'notifications', means: 'notified in a later run than the first run it was eligible in' },
  'os-shed': { effect: 'info', property: 'notifications', means: 'the OS refused the post (notification cap, rate limit): not an app bug' },
  'silent-repost': { effect: 'info', property: 'notifications', means: 'an update of a notification still showing that carries FLAG_ONLY_ALERT_ONCE: the user is not alerted again' },
  'checker-error': { effect: 'unknown', property: 'notifications', means: 'a property check failed inside itself, or the history names one this checker does not know: that property is undecided' },
  'not-observed': { effect: 'unknown', property: 'notifications', means: 'a property check found none of the observations it reads in the history' },
  'no-fetch': { effect: 'unknown', property: 'notifications', means: 'a run went through without fetching the configured feed (no request reached it, or only other paths were asked): not a sign of life' },
  'nothing-checked': { effect: 'unknown', property: 'notifications', means: 'no feed was fetched in a 2xx response and no property check observed anything: nothing was checked' },
  'unfinished-run': { effect: 'unknown', property: 'notifications', means: 'a run with no run-finished: the history ends inside it, so what it would have notified is not known' },

  // Backend effects (idempotency-key).
  'missing-idempotency-key': { effect: 'fail', property: 'idempotency', means: 'a backend request carried no idempotency key' },
  'duplicate-effect': { effect: 'fail', property: 'idempotency', means: 'the backend stored more than one effect for one operation' },
  'receipt-not-retried': { effect: 'fail', property: 'idempotency', means: 'the request whose answer was lost was never sent again' },
  'no-receipt': { effect: 'unknown', property: 'idempotency', means: 'no backend request was dropped: the retry could not be exercised' },

  // The schedule (WorkManager's database).
  'no-schedule': { effect: 'unknown', property: 'schedule', means: 'no unfinished periodic work of the unique name: nothing to measure against' },
  'duplicate-schedule': { effect: 'fail', property: 'unique-work', means: 'more than one unfinished periodic WorkSpec for the unique name or the worker class' },
  'schedule-reset': { effect: 'fail', property: 'unique-work', means: 'relaunching replaced the WorkSpec or moved its last_enqueue_time (KEEP not honoured)' },
  'window-too-narrow': { effect: 'fail', property: 'window', means: 'the window does not cover one missed run (2 × interval, + early flex), configured or as the app behaves' },

  // Retries (retry-classification).
  'misclassified-status': { effect: 'fail', property: 'retry', means: 'a run ended with another result than its HTTP status calls for (503/429/408 retry, 401 failure)' },
  'no-backoff': { effect: 'fail', property: 'retry', means: "after a retry, WorkManager's run_attempt_count did not count it: not a WorkManager backoff" },
  'retry-loop': { effect: 'fail', property: 'retry', means: 'an authorization failure was retried' },

  // The dedup table.
  'duplicate-row': { effect: 'fail', property: 'rows', means: 'two rows of the dedup table carry one key' },
  'no-key-column': { effect: 'unknown', property: 'schema', means: 'the dedup table has no column of the configured key: nothing to inspect' },
  'no-unique-index': { effect: 'fail', property: 'schema', means: 'no UNIQUE, non-partial index holds the key column' },
  'key-not-nullable': { effect: 'fail', property: 'schema', means: 'the key column is NOT NULL with a default (or the history does not say which): legacy rows without an identity cannot coexist' },
  'key-required': { effect: 'info', property: 'schema', means: 'the key column is NOT NULL with no default: every row has a key, and the table never had rows without one to keep' },
  'key-unique-per-columns': { effect: 'info', property: 'schema', means: 'the UNIQUE index holding the key holds other columns too: the key is unique per value of those' },
  'null-keys-collide': { effect: 'fail', property: 'schema', means: 'two rows with a NULL key could not both be stored' },
  'replayed-insert-duplicated': { effect: 'fail', property: 'schema', means: 'inserting an existing key again added a row instead of being ignored' },
} as const satisfies Record<string, AnomalyKindInfo>;

export type AnomalyKind = keyof typeof ANOMALY_KINDS;

export const ANOMALY_KIND_NAMES: readonly AnomalyKind[] = Object.keys(ANOMALY_KINDS) as AnomalyKind[];

/** The effect of a kind; a kind the checker does not know (an older or newer report) is undecided. */
export function effectOf(kind: string): AnomalyEffect {
  return (ANOMALY_KINDS as Record<string, AnomalyKindInfo>)[kind]?.effect ?? 'unknown';
}
