import { DedupVerifyError, ErrorCode } from '../errors.js';

/** A history file that cannot be read, parsed or written. `line` is 1-based when known. */
export class HistoryError extends DedupVerifyError {
  readonly path: string;
  readonly line: number | undefined;
  constructor(message: string, details: { path: string; line?: number }, options?: { cause?: unknown }) {
    super(ErrorCode.History, message, options);
    this.name = 'HistoryError';
    this.path = details.path;
    this.line = details.line;
  }
}
