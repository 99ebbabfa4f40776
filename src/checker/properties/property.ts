/**
 * A property check: one property a scenario verifies beyond the notification checks, decided
 * from the history alone (Jepsen's `compose`: each property its own checker). It reads the
 * events it needs as they stream by, keeping only what its decision needs, and returns its
 * anomalies at the end. It never does I/O.
 */
import type { HistoryEvent } from '../../history/events.js';
import type { Anomaly, CheckOptions } from '../types.js';

export interface PropertyChecker {
  add(event: HistoryEvent): void;
  finish(): Anomaly[];
}

/** What a property check is created with: the segment's settings from its config line. */
export interface PropertyOptions extends CheckOptions {
  /** The backend's idempotency header (default `Idempotency-Key`). */
  readonly idempotencyHeader?: string;
}

export interface PropertyDefinition {
  /** The name a scenario lists and the config line carries. */
  readonly name: string;
  /** One sentence: what it verifies. */
  readonly verifies: string;
  create(options: PropertyOptions): PropertyChecker;
}

/** The anomaly of a property whose observations are missing from the history (verdict unknown). */
export function notObserved(property: string, what: string): Anomaly {
  return { kind: 'not-observed', item: '', detail: `the history holds no ${what}: the ${property} check could not decide` };
}
