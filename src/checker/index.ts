export * from './types.js';
export * from './verdict.js';
export { checkHistory, createChecker, type Checker } from './check-history.js';
export { formatDuration, formatInstant, formatRuns } from './describe.js';
