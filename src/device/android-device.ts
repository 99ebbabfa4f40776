/**
 * The one interface the harness uses to talk to a device (docs/design.md §1, §2). Implementations
 * are named after their mechanism: `AdbDevice` (adb server + @devicefarmer/adbkit) and, later,
 * `AppiumDevice`. Everything in src/android/ is written against this interface only.
 *
 * Contract shared by every implementation:
 * - `shell` returns the command's real exit status and its stderr apart from stdout; stdout is
 *   raw bytes (binary-safe: no PTY, no CRLF translation).
 * - Failures of the transport (no device, device gone, adb server down) are thrown as
 *   DedupVerifyError with a stable code. A command that runs and exits non-zero is not an
 *   exception for `shell`: its exit code is data. `shellText` is the convenience that throws.
 */
import { DeviceCommandError } from '../errors.js';

export interface ShellOptions {
  /** Kill the command and throw a TimeoutError after this many ms. */
  readonly timeoutMs?: number;
  /** Bytes fed to the command's standard input, then EOF. */
  readonly stdin?: Buffer | string;
}

export interface ShellResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  /** 0..255 as the device shell reports it (a signal-killed command reports 128 + signal). */
  readonly exitCode: number;
}

export interface ShellTextOptions extends ShellOptions {
  /** Exit codes that are not an error (0 is always allowed). */
  readonly allowExitCodes?: readonly number[];
}

/** What a streaming command delivers. `onLine` gets text lines without the line terminator. */
export interface StreamListener {
  readonly onLine?: (line: string) => void;
  readonly onChunk?: (chunk: Buffer) => void;
  readonly onStderr?: (text: string) => void;
}

export type StreamEndReason = 'stopped' | 'exited' | 'disconnected';

export interface StreamEnd {
  readonly reason: StreamEndReason;
  /** Known when the command exited on its own and the mechanism reports exit codes. */
  readonly exitCode: number | undefined;
}

export interface StreamHandle {
  /** Ends the command (closes its stream); resolves once the stream is closed. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when the stream ended, for whatever reason. Never rejects. */
  readonly done: Promise<StreamEnd>;
}

/** One `adb reverse` rule: `remote` is the device side, `local` the host side (`tcp:8765`). */
export interface ReverseRule {
  readonly remote: string;
  readonly local: string;
}

export interface AndroidDevice {
  readonly serial: string;
  /** Runs a command in the device shell. A string runs as typed; an array is quoted word by word. */
  shell(command: string | readonly string[], options?: ShellOptions): Promise<ShellResult>;
  /** `shell` returning stdout as UTF-8 text; throws DeviceCommandError on a non-allowed exit code. */
  shellText(command: string | readonly string[], options?: ShellTextOptions): Promise<string>;
  /**
   * Raw bytes of a command's output without any shell protocol framing (`adb exec-out`).
   * No exit status travels back and anything the command prints on stderr is mixed into the
   * bytes: use `shell` when errors matter.
   */
  execOut(command: string | readonly string[], options?: { readonly timeoutMs?: number }): Promise<Buffer>;
  /** Reads a file the shell user can read (`adb pull`). */
  pull(path: string): Promise<Buffer>;
  /** Writes a file where the shell user can write (`adb push`); mode defaults to 0o644. */
  push(data: Buffer | string, path: string, mode?: number): Promise<void>;
  /** Starts a long-running command (e.g. `logcat`), delivering its output as it arrives. */
  streamShell(command: string | readonly string[], listener: StreamListener, signal?: AbortSignal): Promise<StreamHandle>;
  /** `adb reverse tcp:devicePort tcp:hostPort`. */
  reverse(devicePort: number, hostPort: number): Promise<void>;
  listReverses(): Promise<ReverseRule[]>;
  /** `adb reverse --remove tcp:devicePort`. */
  removeReverse(devicePort: number): Promise<void>;
  /** All system properties (`getprop`). */
  getProperties(): Promise<Record<string, string>>;
  /** Releases host resources (streams still open are stopped). The device is left as it is. */
  close(): Promise<void>;
}

/** The text of a command as it will be sent (arrays quoted word by word). */
export type CommandText = string;

/**
 * The shared `shellText` behaviour: any AndroidDevice implementation can delegate to this so
 * that every mechanism throws the same error for the same failure.
 */
export async function runShellText(
  device: Pick<AndroidDevice, 'shell'>,
  commandText: CommandText,
  command: string | readonly string[],
  options: ShellTextOptions = {},
): Promise<string> {
  const result = await device.shell(command, options);
  const allowed = result.exitCode === 0 || (options.allowExitCodes ?? []).includes(result.exitCode);
  if (!allowed) throw commandFailed(commandText, result);
  return result.stdout.toString('utf8');
}

/** The DeviceCommandError for a command that exited with a status the caller did not allow. */
export function commandFailed(commandText: string, result: ShellResult): DeviceCommandError {
  const detail = firstLine(result.stderr) || firstLine(result.stdout.toString('utf8'));
  return new DeviceCommandError(
    `Device command \`${commandText}\` exited with ${result.exitCode}${detail ? `: ${detail}` : ''}.`,
    { command: commandText, exitCode: result.exitCode, stderr: result.stderr },
  );
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? '' : line.trim().slice(0, 300);
}
