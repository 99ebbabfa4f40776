/**
 * Several read-only commands in one shell invocation: one adb round trip (one service opened on
 * the device, one `mobile: shell` call) instead of one per command, with each command's stdout,
 * stderr and exit status given back apart, byte for byte.
 *
 * adbd runs the command line of a `shell:` service with `/system/bin/sh -c` (aosp-mirror/
 * platform_system_core platform-tools-29.0.6 `adb/daemon/shell_service.cpp` Subprocess::ForkAndExec:
 * `execle(_PATH_BSHELL, _PATH_BSHELL, "-c", command_.c_str(), …)`), so the batch is one script.
 * For the n-th command CMD it runs:
 *
 *   ( CMD
 *   ) </dev/null; __dv_r=$?; echo; echo "__DV_B_""<nonce>""_<n>_$__dv_r"; echo >&2; echo "__DV_B_""<nonce>""_<n>" >&2
 *
 * - each command runs in a subshell with no input, so an `exit` or a read of stdin inside it
 *   cannot touch the commands after it; the newline before `)` ends a trailing comment;
 * - after its stdout comes one newline and the marker line `__DV_B_<nonce>_<n>_<status>`; after its
 *   stderr, one newline and `__DV_B_<nonce>_<n>`. The added newline is always exactly one, so
 *   output without a trailing newline, or ending in several, comes back as it was;
 * - the nonce is random (128 bits) and the script spells each marker in quoted pieces, so neither
 *   a command's output nor the script itself printed back (`ps -A -o ARGS`) can hold a
 *   contiguous marker; markers are looked for in order, each after the one before.
 *
 * Commands that read all run, in order, whatever an earlier one's status was. Commands that change
 * the device go together only as a sequence (`stopAfterFailure`): each runs only when the one
 * before it exited 0, as if sent one after another by a caller that stops at the first failure;
 * after a failing command the script prints that command's markers and exits, and the results
 * end with it. A sequence may name commands whose failure does not end it (`stopAfterFailure` as
 * one flag per command: reads at its end, whose failure is their result, as a -wal that is not
 * there): the commands after such a one run whatever its status. A caller that records the commands it sends records each of them
 * (RecordingDevice.shellBatch, RecordingDevice.shellSequence).
 */
import { randomBytes } from 'node:crypto';
import type { AndroidDevice, ShellOptions, ShellResult } from './android-device.js';
import { toCommandLine } from './shell-quote.js';
import { DedupVerifyError, DeviceCommandError, ErrorCode } from '../errors.js';

/** One command of a batch: words (quoted one by one) or a command line as typed. */
export type BatchCommand = string | readonly string[];

/** A device that records or sends batches itself (RecordingDevice records each command of one). */
export interface BatchingDevice extends AndroidDevice {
  shellBatch(commands: readonly BatchCommand[], options?: BatchOptions): Promise<ShellResult[]>;
}

export interface BatchOptions {
  readonly timeoutMs?: number;
  /** The marker nonce (hex, 16+ digits); random when not given. */
  readonly nonce?: string;
  /**
   * Each command runs only when the one before it exited 0; the results end at the first that
   * did not (fewer results than commands). For commands that change the device. One flag per
   * command: only a failure of a command whose flag is true ends the sequence.
   */
  readonly stopAfterFailure?: boolean | readonly boolean[];
}

const MARKER_PREFIX = '__DV_B_';

export function isBatchingDevice(device: AndroidDevice): device is BatchingDevice {
  return typeof (device as Partial<BatchingDevice>).shellBatch === 'function';
}

/** The script that runs `commands` in order, each followed by its markers (see the file comment). */
export function buildBatchScript(commands: readonly BatchCommand[], nonce: string, stopAfterFailure: boolean | readonly boolean[] = false): string {
  if (!/^[0-9a-f]{16,}$/.test(nonce)) throw new DedupVerifyError(ErrorCode.Internal, `batch marker nonce must be 16+ hex digits, got "${nonce}"`);
  if (commands.length === 0) throw new DedupVerifyError(ErrorCode.Internal, 'An empty batch cannot be sent to the device shell.');
  return commands
    .map((command, i) => {
      const n = i + 1;
      return (
        `( ${toCommandLine(command)}\n) </dev/null; __dv_r=$?; echo; echo "${MARKER_PREFIX}""${nonce}""_${n}_$__dv_r"; ` +
        `echo >&2; echo "${MARKER_PREFIX}""${nonce}""_${n}" >&2` +
        (stopsAfterFailure(stopAfterFailure, i) && n < commands.length ? '; [ "$__dv_r" = 0 ] || exit 0' : '')
      );
    })
    .join('\n');
}

/** Whether a failure of the command at `index` ends the sequence (see BatchOptions.stopAfterFailure). */
function stopsAfterFailure(stopAfterFailure: boolean | readonly boolean[], index: number): boolean {
  return typeof stopAfterFailure === 'boolean' ? stopAfterFailure : stopAfterFailure[index] === true;
}

/**
 * Splits the stdout and stderr of a batch of `count` commands back into one result per command.
 * Throws when a marker is missing (the invocation ended part-way: the device went away, or the
 * shell was killed).
 */
export function parseBatchOutput(stdout: Buffer, stderr: Buffer | string, nonce: string, count: number, stopAfterFailure: boolean | readonly boolean[] = false): ShellResult[] {
  // latin1 maps each byte to one UTF-16 unit, so string indexes are byte offsets.
  const out = stdout.toString('latin1');
  const errBytes = typeof stderr === 'string' ? Buffer.from(stderr, 'utf8') : stderr;
  const err = errBytes.toString('latin1');
  const results: ShellResult[] = [];
  let outAt = 0;
  let errAt = 0;
  for (let n = 1; n <= count; n++) {
    // A transport that trims its text (stderr of an Appium `mobile: shell`) may have dropped the
    // newline before the first marker or after the last: the ends of the stream stand for them.
    const outMarker = new RegExp(`(?:^|\\n)${MARKER_PREFIX}${nonce}_${n}_(\\d{1,3})(?:\\n|$)`, 'g');
    outMarker.lastIndex = outAt;
    const o = outMarker.exec(out);
    const errMarker = new RegExp(`(?:^|\\n)${MARKER_PREFIX}${nonce}_${n}(?:\\n|$)`, 'g');
    errMarker.lastIndex = errAt;
    const e = errMarker.exec(err);
    if (o === null || o[1] === undefined || e === null) {
      throw new DeviceCommandError(`the batch of ${count} commands ended before the end of command ${n} (no marker ${o === null ? 'on stdout' : 'on stderr'})`, {
        command: `batch command ${n} of ${count}`,
        stderr: err.slice(errAt, errAt + 300),
      });
    }
    results.push({
      stdout: Buffer.from(stdout.subarray(outAt, o.index)),
      stderr: Buffer.from(errBytes.subarray(errAt, e.index)).toString('utf8'),
      exitCode: Number(o[1]),
    });
    outAt = o.index + o[0].length;
    errAt = e.index + e[0].length;
    // A sequence stops after its first failing command: the commands after it did not run.
    if (stopsAfterFailure(stopAfterFailure, n - 1) && results[results.length - 1]!.exitCode !== 0) break;
  }
  return results;
}

/**
 * Runs read-only `commands` in one shell invocation; one result per command, in order. A single
 * command is sent as it is. A device that records batches (BatchingDevice) is asked to run it.
 * With `stopAfterFailure`, the results end at the first command that exited non-zero.
 */
export async function shellBatch(device: AndroidDevice, commands: readonly BatchCommand[], options: BatchOptions = {}): Promise<ShellResult[]> {
  if (isBatchingDevice(device)) return device.shellBatch(commands, options);
  return sendBatch(device, commands, options);
}

/** What shellBatch does on a plain device (RecordingDevice calls it on the device it wraps). */
export async function sendBatch(device: AndroidDevice, commands: readonly BatchCommand[], options: BatchOptions = {}): Promise<ShellResult[]> {
  const shellOptions: ShellOptions = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
  if (commands.length === 1) return [await device.shell(commands[0]!, shellOptions)];
  const nonce = options.nonce ?? randomBytes(16).toString('hex');
  const stop = options.stopAfterFailure ?? false;
  const result = await device.shell(buildBatchScript(commands, nonce, stop), shellOptions);
  return parseBatchOutput(result.stdout, result.stderr, nonce, commands.length, stop);
}
