/**
 * The reference app's bug switches (docs/reference-app.md "Bug switches"); each breaks exactly
 * one property. `dedup-verify virtual-device --bug NAME` passes them in VirtualDeviceOptions.bugs.
 */
export const BUG_SWITCHES = [
  'no-db-check',
  'dedup-elsewhere',
  'memory-only-dedup',
  'no-window',
  'newest-first',
  'date-defaults-to-now',
  'key-on-title',
  'record-before-notify',
  'window-equals-interval',
  'empty-link-kept',
  'retry-on-401',
  'new-key-per-attempt',
  'duplicate-schedule',
  'channel-in-activity',
  'no-unique-index',
  'record-after-loop',
] as const;
export type BugSwitch = (typeof BUG_SWITCHES)[number];

/** The switch names, for the CLI's `--bug` validation. */
export const BUG_NAMES: readonly string[] = BUG_SWITCHES;

export function isBugSwitch(name: string): name is BugSwitch {
  return (BUG_SWITCHES as readonly string[]).includes(name);
}

/** The set of enabled switches; unknown names are ignored (the CLI validates them). */
export class Bugs {
  private readonly enabled: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    this.enabled = new Set(names);
  }

  has(bug: BugSwitch): boolean {
    return this.enabled.has(bug);
  }
}
