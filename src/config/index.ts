export * from './types.js';
export { parseConfig, CONFIG_KEY_PATHS } from './parse-config.js';
export { loadConfig, parseConfigText } from './load-config.js';
