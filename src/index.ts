/** The programmatic API of dedup-verify: config, history, checker, report types, errors, CLI. */
export { main, ExitCode, type CliIo } from './cli/main.js';
export * from './config/index.js';
export { createChecker, checkHistory, verdictOf, type Checker } from './checker/check-history.js';
export { checkSegment, createSegmentChecker, type SegmentOptions } from './checker/compose.js';
export { ANOMALY_KINDS, ANOMALY_KIND_NAMES, effectOf, type AnomalyEffect, type AnomalyKindInfo } from './checker/kinds.js';
export { PROPERTIES } from './checker/properties/index.js';
export * from './checker/types.js';
export * from './history/events.js';
export { readHistory, parseHistoryText, HistoryRecorder, MemoryHistory, type HistorySink } from './history/jsonl.js';
export type * from './report/types.js';
export { DedupVerifyError, ErrorCode, isDedupVerifyError, hasErrorCode, describeError } from './errors.js';
export { VERSION } from './version.js';
