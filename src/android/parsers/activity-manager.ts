/**
 * `am` output (ActivityManagerShellCommand; framework copies in the index):
 * - `am start`: prints `Starting: <Intent>` then, on failure, lines such as `Error type 3` +
 *   `Error: Activity class {pkg/cls} does not exist.`, `Error: Activity not started, unable to
 *   resolve Intent { … }`, `Error: Activity not started, you do not have permission to access
 *   it.` (to stderr unless -W); success may add `Warning: Activity not started, its current task
 *   has been brought to the front` (still launched).
 * - `am broadcast`: `Broadcasting: <Intent>` then `Broadcast completed: result=<code>[, data="<data>"]`
 *   (ActivityManagerShellCommand @c014fb5c).
 */

export type StartActivityResult =
  | {
      readonly kind: 'started';
      readonly warning: string | null;
      /**
       * With `-W`: the `Activity: PKG/CLS` line, WaitResult.who.flattenToShortString(), the
       * activity that was launched (`android/com.android.internal.app.ResolverActivity` when
       * the intent matched several and the chooser opened); null without it.
       */
      readonly activity: string | null;
    }
  | { readonly kind: 'error'; readonly message: string };

export function parseStartActivity(stdout: string, stderr: string): StartActivityResult {
  const lines = `${stdout}\n${stderr}`.replace(/\r\n/g, '\n').split('\n').map((l) => l.trim());
  const error = lines.find((l) => l.startsWith('Error: ') || l.startsWith('Exception occurred'));
  if (error !== undefined) return { kind: 'error', message: error };
  const warning = lines.find((l) => l.startsWith('Warning: ')) ?? null;
  const activity = lines.find((l) => l.startsWith('Activity: '))?.slice('Activity: '.length).trim() ?? null;
  return { kind: 'started', warning, activity };
}

export interface BroadcastResult {
  readonly resultCode: number;
  readonly data: string | null;
}

export function parseBroadcastResult(stdout: string): BroadcastResult | null {
  const match = /^Broadcast completed: result=(-?\d+)(?:, data="([\s\S]*)")?/m.exec(stdout.replace(/\r\n/g, '\n'));
  if (match === null) return null;
  return { resultCode: Number(match[1]), data: match[2] ?? null };
}
