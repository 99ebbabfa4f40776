/**
 * What the harness did to the device and the fixture server, step by step, in a form a person
 * can replay by hand with plain `adb` and `dedup-verify serve-feed` (repro/<scenario>.sh).
 */
export type ReproStep =
  /** The feed changed: `xml` is the exact document served from then on. */
  | { readonly kind: 'feed'; readonly t: number; readonly xml: string; readonly note: string }
  /** A fault plan on a fixture-server route (described; replayed by hand with the server's options). */
  | { readonly kind: 'fault'; readonly t: number; readonly route: string; readonly plan: string }
  /** A device command, exactly as sent (argv). */
  | { readonly kind: 'adb-shell'; readonly t: number; readonly argv: readonly string[]; readonly note?: string }
  /** A wait for an observable event (what to watch for before the next step). */
  | { readonly kind: 'wait'; readonly t: number; readonly what: string }
  /** A kill while a request is held. */
  | { readonly kind: 'kill'; readonly t: number; readonly argv: readonly string[]; readonly heldRequest: string };
