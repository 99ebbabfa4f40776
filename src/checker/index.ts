export * from './types.js';
export * from './verdict.js';
export { checkHistory, createChecker, verdictOf, type Checker } from './check-history.js';
export { checkSegment, createSegmentChecker, type SegmentOptions } from './compose.js';
export { ANOMALY_KIND_NAMES, ANOMALY_KINDS, effectOf, type AnomalyEffect, type AnomalyKindInfo } from './kinds.js';
export { PROPERTIES } from './properties/index.js';
export { formatDuration, formatInstant, formatRuns } from './describe.js';
