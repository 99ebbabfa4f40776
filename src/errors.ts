/**
 * One error type for the harness failing (never for findings: findings are data).
 * Every error carries a stable `code` that scripts and reports can branch on, a message that
 * says what failed, with which values, and what to do, and the underlying `cause` when wrapped.
 */

export const ErrorCode = {
  Usage: 'DV_USAGE',
  Config: 'DV_CONFIG',
  AdbNotFound: 'DV_ADB_NOT_FOUND',
  AdbServer: 'DV_ADB_SERVER',
  DeviceNotFound: 'DV_DEVICE_NOT_FOUND',
  DeviceGone: 'DV_DEVICE_GONE',
  DeviceCommand: 'DV_DEVICE_COMMAND',
  NotDebuggable: 'DV_NOT_DEBUGGABLE',
  Timeout: 'DV_TIMEOUT',
  RefusedRun: 'DV_REFUSED_RUN',
  History: 'DV_HISTORY',
  Restore: 'DV_RESTORE',
  FixtureServer: 'DV_FIXTURE_SERVER',
  Appium: 'DV_APPIUM',
  Internal: 'DV_INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Marks every DedupVerifyError. `instanceof` is not enough: when this module is loaded twice
 * (once through a CommonJS and once through an ESM loader, as test runners can do), each copy
 * has its own classes. The registered symbol is the same in both.
 */
const BRAND = Symbol.for('dedup-verify.error');

export class DedupVerifyError extends Error {
  readonly code: ErrorCode;
  readonly [BRAND] = true;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DedupVerifyError';
    this.code = code;
  }
}

/** Bad flags or arguments: exit code 2, one line, no stack. */
export class UsageError extends DedupVerifyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Usage, message, options);
    this.name = 'UsageError';
  }
}

/** The config file is missing, unreadable or invalid. `field` is the JSON path that is wrong. */
export class ConfigError extends DedupVerifyError {
  readonly field: string | undefined;
  constructor(message: string, field?: string, options?: { cause?: unknown }) {
    super(ErrorCode.Config, message, options);
    this.name = 'ConfigError';
    this.field = field;
  }
}

/** A device command failed in a way the caller cannot treat as a finding. */
export class DeviceCommandError extends DedupVerifyError {
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly stderr: string;
  constructor(
    message: string,
    details: { command: string; exitCode?: number | undefined; stderr?: string },
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.DeviceCommand, message, options);
    this.name = 'DeviceCommandError';
    this.command = details.command;
    this.exitCode = details.exitCode;
    this.stderr = details.stderr ?? '';
  }
}

/** A wait for an event ran past its deadline. */
export class TimeoutError extends DedupVerifyError {
  readonly waitedMs: number;
  constructor(message: string, waitedMs: number, options?: { cause?: unknown }) {
    super(ErrorCode.Timeout, message, options);
    this.name = 'TimeoutError';
    this.waitedMs = waitedMs;
  }
}

export function isDedupVerifyError(e: unknown): e is DedupVerifyError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

/** True for a DedupVerifyError with this code (works across module copies, see BRAND). */
export function hasErrorCode(e: unknown, code: ErrorCode): e is DedupVerifyError {
  return isDedupVerifyError(e) && e.code === code;
}

/** The one-line text shown to a user for any thrown value. */
export function describeError(e: unknown): string {
  if (isDedupVerifyError(e)) return e.message;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
