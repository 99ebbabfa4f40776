/**
 * A segment's checker (Jepsen's `compose`): the notification checks every history gets, plus
 * the property checks its config line names, each fed the same events and each deciding on its
 * own. A property that fails inside itself (or that this checker does not know) becomes one
 * `checker-error` anomaly, so that property is undecided (unknown) while the others still count.
 * The verdict then follows every anomaly's declared effect (src/checker/kinds.ts).
 */
import type { ConfigEvent, HistoryEvent } from '../history/events.js';
import { createChecker, runChecker, verdictOf, type Checker } from './check-history.js';
import { PROPERTIES, type PropertyChecker, type PropertyOptions } from './properties/index.js';
import type { Anomaly, CheckResult } from './types.js';

export interface SegmentOptions extends PropertyOptions {
  /** Property checks to run besides the notification checks (names of src/checker/properties). */
  readonly properties?: readonly string[];
}

interface Slot {
  readonly name: string;
  readonly checker: PropertyChecker | undefined;
  failure: string | undefined;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The settings a segment's config line gives its checker (`run` and `check` alike). */
export function segmentOptions(config: ConfigEvent): SegmentOptions {
  return {
    windowMs: config.windowMs,
    allowedDuplicates: config.allowedDuplicates ?? 0,
    ...(config.checkOrder === false ? { checkOrder: false } : {}),
    ...(config.properties !== undefined ? { properties: config.properties } : {}),
    ...(config.idempotencyHeader !== undefined ? { idempotencyHeader: config.idempotencyHeader } : {}),
    ...(config.feed !== undefined ? { feed: config.feed } : {}),
  };
}

class SegmentChecker implements Checker {
  private readonly core: Checker;
  private readonly slots: Slot[];
  /** A feed was fetched in a 2xx response: the notification checks had something to check. */
  private fetchedOk = false;

  constructor(options: SegmentOptions) {
    this.core = createChecker(options);
    this.slots = [...new Set(options.properties ?? [])].map((name) => {
      const definition = PROPERTIES.get(name);
      if (!definition) return { name, checker: undefined, failure: `the history names the property check "${name}", which this version does not know (known: ${[...PROPERTIES.keys()].join(', ')})` };
      try {
        return { name, checker: definition.create(options), failure: undefined };
      } catch (e) {
        return { name, checker: undefined, failure: describe(e) };
      }
    });
  }

  add(event: HistoryEvent): void {
    if (event.type === 'fetched' && event.status >= 200 && event.status <= 299) this.fetchedOk = true;
    this.core.add(event);
    for (const slot of this.slots) {
      if (slot.failure !== undefined || !slot.checker) continue;
      try {
        slot.checker.add(event);
      } catch (e) {
        slot.failure = describe(e);
      }
    }
  }

  finish(): CheckResult {
    const core = this.core.finish();
    const anomalies: Anomaly[] = [...core.anomalies];
    let observed = false;
    for (const slot of this.slots) {
      let found: Anomaly[] = [];
      if (slot.failure === undefined && slot.checker) {
        try {
          found = slot.checker.finish();
        } catch (e) {
          slot.failure = describe(e);
        }
      }
      if (slot.failure !== undefined) {
        anomalies.push({ kind: 'checker-error', item: '', detail: `the ${slot.name} check could not decide: ${slot.failure}` });
      } else {
        anomalies.push(...found);
        if (!found.some((a) => a.kind === 'not-observed')) observed = true;
      }
    }
    if (!this.fetchedOk && !observed && verdictOf(anomalies, core.error) === 'pass') {
      // Elle gives :unknown for an empty history: a pass needs something that was checked.
      anomalies.push({
        kind: 'nothing-checked',
        item: '',
        detail: 'the segment holds no feed fetched in a 2xx response and no observation a property check reads: nothing was checked, so it cannot pass',
      });
    }
    return {
      verdict: verdictOf(anomalies, core.error),
      counts: core.counts,
      anomalies,
      ...(core.error !== undefined ? { error: core.error } : {}),
    };
  }
}

/** The checker of one history segment: notification checks plus the named property checks. */
export function createSegmentChecker(options: SegmentOptions): Checker {
  return new SegmentChecker(options);
}

/** Checks a whole segment in memory. Never throws. */
export function checkSegment(events: Iterable<HistoryEvent>, options: SegmentOptions): CheckResult {
  return runChecker(createSegmentChecker(options), events);
}
