/** The programmatic API of dedup-verify: config, history, checker, report types, errors, CLI. */
export { main, ExitCode, type CliIo } from './cli/main.js';
export * from './config/index.js';
export { createChecker, checkHistory, type Checker } from './checker/check-history.js';
export * from './checker/types.js';
export * from './history/events.js';
export { readHistory, parseHistoryText, HistoryRecorder, MemoryHistory, type HistorySink } from './history/jsonl.js';
export type * from './report/types.js';
export { DedupVerifyError, ErrorCode, isDedupVerifyError, hasErrorCode, describeError } from './errors.js';
export { VERSION } from './version.js';
