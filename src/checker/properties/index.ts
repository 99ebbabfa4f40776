/** Every property check, by the name scenarios list and config lines carry. */
import { rows, schema } from './dedup-table.js';
import { idempotency } from './idempotency.js';
import type { PropertyDefinition } from './property.js';
import { retry } from './retry.js';
import { schedulePresent, uniqueWork, windowCoversMissedRun } from './schedule.js';

export const PROPERTIES: ReadonlyMap<string, PropertyDefinition> = new Map(
  [idempotency, schedulePresent, windowCoversMissedRun, uniqueWork, retry, rows, schema].map((p) => [p.name, p]),
);

export type { PropertyChecker, PropertyDefinition, PropertyOptions } from './property.js';
export { bodyLink, DEFAULT_IDEMPOTENCY_HEADER } from './idempotency.js';
export { EXPECTED_OUTCOME } from './retry.js';
export { AFTER_RELAUNCH, BEFORE_RELAUNCH, WINDOW_PROBE_LABEL, requiredWindowMs } from './schedule.js';
