export * from './events.js';
export * from './history-error.js';
export * from './jsonl.js';
