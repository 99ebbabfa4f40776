/**
 * How a command travels through `mobile: shell` and back.
 *
 * The UiAutomator2 driver runs `adb -P <port> -s <udid> shell <command>` on the Appium host
 * (appium-android-driver lib/commands/shell.ts), returns stdout and stderr as UTF-8 text
 * (teen_process exec) and, for a non-zero exit, throws
 * "Cannot execute the '<cmd>' shell command. Original error: Command '<adb …>' exited with code N.
 * StdOut: <stdout>. StdErr: <stderr>" (teen_process lib/exec.ts: `exited with code ${code}`;
 * `timed out after ${timeout}ms` past the timeout). WebdriverIO adds
 * ` when running "execute/sync" with method "POST"` to the server's message.
 *
 * So that stdout survives as bytes, the device encodes it: the command line runs as
 * `set -o pipefail; printf '%s\n' NONCE; { CMD
 * } [< STDIN] | base64` (mksh `pipefail`; toybox base64). The exit status stays the command's,
 * stderr is untouched, stdout is base64 text after a nonce line that proves the device shell ran
 * (an adb-level failure such as "device offline" has no nonce).
 */

/** What a `mobile: shell` call returned or threw, turned back into a shell result. */
export type ShellTransportOutcome =
  | { readonly kind: 'result'; readonly stdout: Buffer; readonly stderr: string; readonly exitCode: number }
  /** The adb layer failed before the device shell ran (device gone, offline, unauthorized). */
  | { readonly kind: 'adb-failure'; readonly detail: string }
  /** The server refused `mobile: shell` (adb_shell insecure feature off). */
  | { readonly kind: 'refused'; readonly detail: string }
  | { readonly kind: 'timeout'; readonly detail: string }
  /** Something else went wrong (session gone, server unreachable). */
  | { readonly kind: 'other'; readonly detail: string };

/** The line sent to the device for `line` (see the module comment). */
export function wrapForMobileShell(line: string, nonce: string, stdinPath?: string): string {
  const input = stdinPath === undefined ? '' : ` < ${stdinPath}`;
  // The newline before `}` ends the command even when it ends in a comment.
  return `set -o pipefail; printf '%s\\n' ${nonce}; { ${line}\n}${input} | base64`;
}

/** Decodes the stdout of a wrapped command; null when the nonce line is missing. */
export function decodeWrappedStdout(stdout: string, nonce: string): Buffer | null {
  const newline = stdout.indexOf('\n');
  const first = newline < 0 ? stdout : stdout.slice(0, newline);
  if (first.trim() !== nonce) return null;
  const body = newline < 0 ? '' : stdout.slice(newline + 1);
  return Buffer.from(body.replace(/\s+/g, ''), 'base64');
}

const INSECURE_REFUSAL = /Potentially insecure feature '?adb_shell'? has not been enabled/;
const EXIT_CODE = /exited with code (\d+|null)\. StdOut: /;
const TIMED_OUT = /timed out after (\d+)\s*ms/;
/** WebdriverIO's suffix on server errors (webdriver/build/node.js, 9.x). */
const WDIO_SUFFIX = /\s?when running "[^"]*" with method "[A-Z]+"\s*$/;

/** Maps a successful `mobile: shell` (includeStderr) value. */
export function outcomeOfValue(value: unknown, nonce: string): ShellTransportOutcome {
  const v = value as { stdout?: unknown; stderr?: unknown } | null;
  const stdout = typeof v?.stdout === 'string' ? v.stdout : typeof value === 'string' ? value : '';
  const stderr = typeof v?.stderr === 'string' ? v.stderr : '';
  const decoded = decodeWrappedStdout(stdout, nonce);
  if (decoded === null) return { kind: 'adb-failure', detail: (stderr || stdout).trim() || 'no output from the device shell' };
  return { kind: 'result', stdout: decoded, stderr, exitCode: 0 };
}

/** Maps the error `mobile: shell` threw (the driver throws on any non-zero exit). */
export function outcomeOfError(message: string, nonce: string): ShellTransportOutcome {
  if (INSECURE_REFUSAL.test(message)) return { kind: 'refused', detail: message };
  const text = message.replace(WDIO_SUFFIX, '');
  const exit = EXIT_CODE.exec(text);
  if (exit === null) {
    if (TIMED_OUT.test(text)) return { kind: 'timeout', detail: text };
    return { kind: 'other', detail: text };
  }
  const after = text.slice(exit.index + exit[0].length);
  // The wrapped stdout is a nonce line and base64 text: it cannot contain ". StdErr: ".
  const split = after.indexOf('. StdErr: ');
  const stdoutText = split < 0 ? after : after.slice(0, split);
  const stderr = split < 0 ? '' : after.slice(split + '. StdErr: '.length);
  const decoded = decodeWrappedStdout(stdoutText, nonce);
  if (decoded === null) return { kind: 'adb-failure', detail: stderr.trim() || text };
  const code = exit[1] === 'null' ? 255 : Number(exit[1]);
  return { kind: 'result', stdout: decoded, stderr, exitCode: code & 0xff };
}
