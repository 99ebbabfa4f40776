/** Every scenario, in the order docs/design.md §6 lists them (the default run order). */
import type { Scenario } from '../harness/types.js';
import { backToBack } from './back-to-back.js';
import { dbIsTruth } from './db-is-truth.js';
import { missedRun } from './missed-run.js';
import { windowVsInterval } from './window-vs-interval.js';
import { malformedEntries } from './malformed-entries.js';
import { firstInstall } from './first-install.js';
import { oldestFirst } from './oldest-first.js';
import { killMidRun } from './kill-mid-run.js';
import { titleEdit } from './title-edit.js';
import { coldProcess } from './cold-process.js';
import { retryClassification } from './retry-classification.js';
import { idempotencyKey } from './idempotency-key.js';
import { uniqueWork } from './unique-work.js';
import { processDeathReplay } from './process-death-replay.js';
import { durableIdentity } from './durable-identity.js';

export const SCENARIOS: readonly Scenario[] = [
  backToBack,
  dbIsTruth,
  missedRun,
  windowVsInterval,
  malformedEntries,
  firstInstall,
  oldestFirst,
  killMidRun,
  titleEdit,
  coldProcess,
  retryClassification,
  idempotencyKey,
  uniqueWork,
  processDeathReplay,
  durableIdentity,
];

export const SCENARIO_NAMES: readonly string[] = SCENARIOS.map((s) => s.name);

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
