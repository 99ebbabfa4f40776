/**
 * Reading a config once it is valid: the schema (schema/dedup-verify.config.schema.json,
 * applied by validate-config.ts) holds every rule, including the conservative character sets
 * of the values that reach a device shell or an SQL statement (package, activity, unique work
 * name, database path, table and column, channel; docs/design.md §8: no injection through
 * config). What is left here is what a JSON Schema does not do:
 * - defaults: the schema states them as `default` annotations for editors, but annotations
 *   fill nothing in; they come from CONFIG_DEFAULTS (typed, shared with `init`), and a spec
 *   pins the two equal;
 * - the typed Config built from the checked JSON.
 * There are no cross-field rules to check: the one the schema describes (windowMs at least
 * twice the work interval) needs the interval, which is on the device, not in the config.
 */
import { configSchema, schemaKeyPaths } from './config-schema.js';
import { CONFIG_DEFAULTS, type Config, type FeedFormat, type NotificationMatch } from './types.js';
import { validateConfig } from './validate-config.js';

function keyPathsOrNone(): readonly string[] {
  try {
    return schemaKeyPaths(configSchema().schema);
  } catch {
    // Only when the schema file cannot be read; parseConfig then says so.
    return [];
  }
}

/** Every valid key path, e.g. "app.package", as the schema declares them. */
export const CONFIG_KEY_PATHS: readonly string[] = keyPathsOrNone();

/** The shape the schema guarantees once validateConfig has passed. */
interface ValidJson {
  app: { package: string; launchActivity?: string };
  work: { uniqueName: string; workerClass?: string };
  windowMs: number;
  allowedDuplicates?: number;
  database: { file: string; table: string; keyColumn: string };
  feed?: { devicePort?: number; path?: string; format?: FeedFormat };
  notifications?: { match?: NotificationMatch; channel?: string };
  backend?: { path?: string; idempotencyHeader?: string };
  timeouts?: { runMs?: number; commandMs?: number };
}

/**
 * Validates a parsed config and fills in the defaults. `source` names the file in messages.
 * Throws ConfigError (with `field` = the JSON path) on the first problem.
 */
export function parseConfig(json: unknown, source: string): Config {
  validateConfig(json, source);
  const valid = json as unknown as ValidJson;
  const { app, work, database } = valid;
  const feed = valid.feed ?? {};
  const notifications = valid.notifications ?? {};
  const backend = valid.backend ?? {};
  const timeouts = valid.timeouts ?? {};
  return {
    app: { package: app.package, ...(app.launchActivity !== undefined ? { launchActivity: app.launchActivity } : {}) },
    work: { uniqueName: work.uniqueName, ...(work.workerClass !== undefined ? { workerClass: work.workerClass } : {}) },
    windowMs: valid.windowMs,
    allowedDuplicates: valid.allowedDuplicates ?? CONFIG_DEFAULTS.allowedDuplicates,
    database: { file: database.file, table: database.table, keyColumn: database.keyColumn },
    feed: {
      devicePort: feed.devicePort ?? CONFIG_DEFAULTS.feed.devicePort,
      path: feed.path ?? CONFIG_DEFAULTS.feed.path,
      format: feed.format ?? CONFIG_DEFAULTS.feed.format,
    },
    notifications: {
      match: notifications.match ?? CONFIG_DEFAULTS.notifications.match,
      ...(notifications.channel !== undefined ? { channel: notifications.channel } : {}),
    },
    backend: {
      path: backend.path ?? CONFIG_DEFAULTS.backend.path,
      idempotencyHeader: backend.idempotencyHeader ?? CONFIG_DEFAULTS.backend.idempotencyHeader,
    },
    timeouts: {
      runMs: timeouts.runMs ?? CONFIG_DEFAULTS.timeouts.runMs,
      commandMs: timeouts.commandMs ?? CONFIG_DEFAULTS.timeouts.commandMs,
    },
  };
}
