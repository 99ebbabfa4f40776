/**
 * Quoting of values that reach the device shell (docs/design.md §8: no shell injection through
 * config). Android's /system/bin/sh is mksh; inside single quotes mksh treats every byte
 * literally except the closing quote, so a value is wrapped in '…' and each embedded ' is
 * written as '\'' (close, escaped quote, reopen). A NUL byte cannot be carried in a C string
 * argument at all, so it is rejected rather than silently truncated.
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';

/** Words that need no quoting: letters, digits and a few punctuation marks with no meaning to sh. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one argument for the device shell. Throws for a value containing a NUL byte. */
export function quoteShellArg(value: string): string {
  if (value.includes('\0')) {
    throw new DedupVerifyError(
      ErrorCode.Config,
      `A value meant for the device shell contains a NUL byte (${JSON.stringify(value.slice(0, 80))}); ` +
        'remove it from the configuration.',
    );
  }
  if (value === '') return "''";
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Joins argv into one command line, each word quoted. */
export function buildShellCommand(argv: readonly string[]): string {
  if (argv.length === 0) {
    throw new DedupVerifyError(ErrorCode.Internal, 'An empty command cannot be sent to the device shell.');
  }
  return argv.map(quoteShellArg).join(' ');
}

/** The command line for either form the device interface accepts. */
export function toCommandLine(command: string | readonly string[]): string {
  return typeof command === 'string' ? command : buildShellCommand(command);
}
