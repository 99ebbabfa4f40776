/** Plays a scenario against the recording fake harness and checks what it left, as `run` would. */
import { checkSegment, type CheckResult } from '../../../src/checker/index.js';
import type { Scenario } from '../../../src/harness/types.js';
import { FakeHarness } from '../../support/fake-harness.js';

export interface Played {
  readonly h: FakeHarness;
  /** The verdict `run` would give the history the fake left (the same composed checker). */
  readonly check: CheckResult;
}

export async function play(scenario: Scenario, script: (h: FakeHarness) => void = () => undefined): Promise<Played> {
  const h = new FakeHarness();
  script(h);
  await scenario.run(h);
  const check = checkSegment(h.events, {
    windowMs: h.config.windowMs,
    allowedDuplicates: scenario.allowedDuplicates ?? h.config.allowedDuplicates,
    ...(scenario.checksOrder === true ? {} : { checkOrder: false }),
    properties: [...(scenario.properties ?? [])],
    idempotencyHeader: h.config.backend.idempotencyHeader,
  });
  return { h, check };
}

/** The kinds of the anomalies that fail. */
export function failing(check: CheckResult): string[] {
  return check.anomalies.filter((a) => a.tolerated !== true && a.informational !== true).map((a) => a.kind);
}
