/**
 * The scenario contract. A scenario is a module in src/scenarios/ (docs/design.md §6) that drives a
 * device only through the Harness (which speaks adb and the fixture server) and leaves its
 * observations in the history. It names the property checks it exercises; the verdict comes
 * from the checker over that history alone (src/checker/compose.ts), the same one
 * `dedup-verify check` runs.
 */
import type { Config } from '../config/types.js';
import type { Harness } from './harness.js';

/** What a scenario needs from the device; the runner reports `skipped` when it is not there. */
export interface ScenarioNeeds {
  /** `adb root` must work (e.g. to set the clock with `date` when `cmd alarm` is missing). */
  readonly root?: boolean;
  /** A sqlite3 binary on the device. */
  readonly sqlite3?: boolean;
  readonly minApi?: number;
}

export interface Scenario {
  /** Stable name (docs/design.md §6); also the file name in src/scenarios/. */
  readonly name: string;
  /** One line: what the scenario proves. */
  readonly summary: string;
  /** The sentence of the source document the scenario comes from. */
  readonly seed: { readonly file: string; readonly quote: string };
  /** The reference-app bug switches this scenario must catch. */
  readonly catches: readonly string[];
  readonly needs: ScenarioNeeds;
  /** Duplicates tolerated per item for this scenario's history (kill-mid-run: 1). */
  readonly allowedDuplicates?: number;
  /**
   * Whether posting out of publication order fails this scenario. Only oldest-first verifies the
   * order; elsewhere out-of-order posts are reported as informational.
   */
  readonly checksOrder?: boolean;
  /**
   * Property checks (src/checker/properties) this scenario exercises besides the notification
   * checks; written into the segment's config line.
   */
  readonly properties?: readonly string[];
  /**
   * Why the scenario does not apply to an app of this config's shape (its scheduler, its dedup
   * store, how it gets its feed), or undefined when it does. The runner reports `skipped` with
   * that reason and touches nothing.
   */
  readonly notApplicable?: (config: Config) => string | undefined;
  run(h: Harness): Promise<void>;
}
