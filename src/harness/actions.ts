/**
 * What a repro script (repro/<scenario>.sh) is made from: the scenario's record, in order. The
 * device commands are the history's own `action` events, made from what was really sent to the
 * device (src/harness/command-log.ts), never written down beside the commands; the fixture
 * server's side, which no device command shows, comes as feed and fault steps.
 */
import type { ActionEvent, RunFinishedEvent } from '../history/events.js';

export type ReproStep =
  /** The feed changed: `xml` is the exact document served from then on. */
  | { readonly kind: 'feed'; readonly t: number; readonly xml: string; readonly note: string }
  /** A fault plan on a fixture-server route (described; replayed by hand with the server's options). */
  | { readonly kind: 'fault'; readonly t: number; readonly route: string; readonly plan: string }
  /**
   * An `action` event as the history records it: a device command exactly as sent (it has
   * `via`), or a step of the harness that is not one command. `data`: the bytes the command
   * wrote (its standard input, or the file pushed), needed to send it again.
   */
  | { readonly kind: 'action'; readonly event: ActionEvent; readonly data?: Buffer }
  /** The end of a run as the history records it: the script waits for what happened then. */
  | { readonly kind: 'run-finished'; readonly event: RunFinishedEvent };
