/**
 * Exit codes and stderr for devices without the shell v2 protocol (plain `shell:CMD`).
 *
 * The legacy service gives one raw byte stream and no exit status (aosp-mirror/
 * platform_system_core platform-tools-29.0.6 `adb/client/commandline.cpp`: without shell_v2
 * "the exit status is always 0"), and the command's stdout and stderr share that stream. So
 * the command is wrapped:
 *
 *   ( CMD
 *   ) <IN 2>ERR; r=$?; echo; echo "__DV_EXIT_""<nonce>""_$r"; cat ERR; rm -f ERR IN
 *
 * - CMD runs in a subshell, so an `exit` inside it cannot skip the marker; the newline before
 *   `)` ends a trailing comment or `&`.
 * - stderr goes to a temp file on the device (no `2>&1`: stdout stays byte-exact) and is
 *   printed after the marker, so it comes back separated.
 * - The marker is `\n__DV_EXIT_<nonce>_<status>\n` with a random 128-bit nonce. The command
 *   line spells it in quoted pieces, so even a command that prints its own command line
 *   (`ps -A -o ARGS`) cannot print the contiguous marker; and a match needs the digits.
 * - Stdin, when given, is pushed to a temp file first and redirected (the legacy stream has no
 *   way to signal EOF except closing, which kills the command).
 * Limit: adbd older than Android 7 ran even non-interactive commands on a PTY, which turns
 * `\n` into `\r\n`; the marker tolerates `\r\n` but such output is not byte-exact.
 */

export interface MarkerFiles {
  /** Device path that receives the command's stderr. */
  readonly stderrPath: string;
  /** Device path holding the command's stdin, if any. */
  readonly stdinPath?: string;
}

export interface MarkedResult {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number;
}

const MARKER_PREFIX = '__DV_EXIT_';

/** The wrapped command line for `shell:`. `nonce` must be [0-9a-f]+ (caller makes it random). */
export function wrapWithExitMarker(command: string, nonce: string, files: MarkerFiles): string {
  if (!/^[0-9a-f]{16,}$/.test(nonce)) throw new Error(`exit marker nonce must be 16+ hex digits, got "${nonce}"`);
  const input = files.stdinPath === undefined ? '' : ` <${files.stdinPath}`;
  const cleanup = files.stdinPath === undefined ? files.stderrPath : `${files.stderrPath} ${files.stdinPath}`;
  return (
    `( ${command}\n)${input} 2>${files.stderrPath}; __dv_r=$?; echo; ` +
    `echo "${MARKER_PREFIX}""${nonce}""_$__dv_r"; cat ${files.stderrPath} 2>/dev/null; rm -f ${cleanup} 2>/dev/null`
  );
}

/** Splits the raw stream of a wrapped command; null when the marker never arrived. */
export function parseMarkedOutput(output: Buffer, nonce: string): MarkedResult | null {
  // latin1 maps each byte to one UTF-16 unit, so string indexes are byte offsets.
  const text = output.toString('latin1');
  const marker = new RegExp(`\\r?\\n${MARKER_PREFIX}${nonce}_(\\d{1,3})\\r?\\n`);
  const match = marker.exec(text);
  if (match === null || match[1] === undefined) return null;
  return {
    stdout: Buffer.from(output.subarray(0, match.index)),
    stderr: Buffer.from(output.subarray(match.index + match[0].length)),
    exitCode: Number(match[1]),
  };
}
