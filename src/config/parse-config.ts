/**
 * Reading a config once it is valid: the schema (schema/dedup-verify.config.schema.json,
 * applied by validate-config.ts) holds every rule, including the conservative character sets
 * of the values that reach a device shell or an SQL statement (package, activity, unique work
 * name, database path, table and column, channel; docs/design.md §8: no injection through
 * config). What is left here is what a JSON Schema does not do:
 * - defaults: the schema states them as `default` annotations for editors, but annotations
 *   fill nothing in; they come from CONFIG_DEFAULTS (typed, shared with `init`), and a spec
 *   pins the two equal;
 * - the typed Config built from the checked JSON;
 * - the rules across sections, each told on one line with the fix: `notifications.match
 *   "row-id"` and `notifications.tagColumn` join through database.table, so they need a
 *   database of kind key or flag; `work.resultLine` must compile as a JavaScript RegExp with a
 *   named group `outcome`; a feed.attach intent names an activity of app.package, and an sql
 *   step without `file` needs database.file. (The rule the schema describes, windowMs at least twice the work
 *   interval, needs the interval, which is on the device, not in the config.)
 */
import { configSchema, schemaKeyPaths } from './config-schema.js';
import { ConfigError } from '../errors.js';
import { CONFIG_DEFAULTS, type AttachStep, type Config, type DatabaseConfig, type DatabaseKind, type FeedFormat, type NotificationMatch, type Scheduler, type WorkConfig } from './types.js';
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
  work: { scheduler?: Scheduler; uniqueName?: string; workerClass?: string; jobId?: number; jobService?: string; jobNamespace?: string; resultLine?: string };
  windowMs: number;
  allowedDuplicates?: number;
  database?: { kind?: DatabaseKind; file?: string; table?: string; keyColumn?: string; flagColumn?: string; watermark?: { prefs: string; key: string } };
  feed?: { devicePort?: number; path?: string; format?: FeedFormat; attach?: AttachStep[] };
  notifications?: { match?: NotificationMatch; channel?: string; idColumn?: string; tagColumn?: string };
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
  const { app } = valid;
  const work = workOf(valid.work, source);
  const database = databaseOf(valid.database, source);
  const feed = valid.feed ?? {};
  const notifications = valid.notifications ?? {};
  const backend = valid.backend ?? {};
  const timeouts = valid.timeouts ?? {};
  return {
    app: { package: app.package, ...(app.launchActivity !== undefined ? { launchActivity: app.launchActivity } : {}) },
    work,
    windowMs: valid.windowMs,
    allowedDuplicates: valid.allowedDuplicates ?? CONFIG_DEFAULTS.allowedDuplicates,
    ...(database !== undefined ? { database } : {}),
    feed: {
      devicePort: feed.devicePort ?? CONFIG_DEFAULTS.feed.devicePort,
      path: feed.path ?? CONFIG_DEFAULTS.feed.path,
      format: feed.format ?? CONFIG_DEFAULTS.feed.format,
      ...(feed.attach !== undefined ? { attach: attachOf(feed.attach, app.package, database, source) } : {}),
    },
    notifications: notificationsOf(notifications, database, source),
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

/** A field given for another kind than the one in force: one line naming the field and the fix. */
function refuseOthers(source: string, section: string, given: Record<string, unknown>, allowed: readonly string[], kindText: string): void {
  const stray = Object.keys(given).find((k) => !allowed.includes(k) && given[k] !== undefined);
  if (stray === undefined) return;
  throw new ConfigError(`config ${source}: "${section}.${stray}" does not apply to ${kindText}; remove it, or change ${kindText.split(' ')[0] ?? section}`, `${section}.${stray}`);
}

function workOf(work: ValidJson['work'], source: string): WorkConfig {
  if ((work.scheduler ?? CONFIG_DEFAULTS.work.scheduler) === 'workmanager') {
    refuseOthers(source, 'work', work, ['scheduler', 'uniqueName', 'workerClass'], 'work.scheduler "workmanager" (the default)');
    // The schema requires uniqueName when the scheduler is WorkManager.
    return { scheduler: 'workmanager', uniqueName: work.uniqueName ?? '', ...(work.workerClass !== undefined ? { workerClass: work.workerClass } : {}) };
  }
  refuseOthers(source, 'work', work, ['scheduler', 'jobId', 'jobService', 'jobNamespace', 'resultLine'], 'work.scheduler "jobscheduler"');
  if (work.resultLine !== undefined) checkResultLine(work.resultLine, source);
  return {
    scheduler: 'jobscheduler',
    ...(work.jobId !== undefined ? { jobId: work.jobId } : {}),
    ...(work.jobService !== undefined ? { jobService: work.jobService } : {}),
    ...(work.jobNamespace !== undefined ? { jobNamespace: work.jobNamespace } : {}),
    ...(work.resultLine !== undefined ? { resultLine: work.resultLine } : {}),
  };
}

/** work.resultLine compiles and names the group `outcome` (its text: success, retry or failure). */
function checkResultLine(pattern: string, source: string): void {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ConfigError(`config ${source}: "work.resultLine" must be a JavaScript regular expression, got ${JSON.stringify(pattern)} (${why})`, 'work.resultLine');
  }
  if (!/\(\?<outcome>/.test(re.source)) {
    throw new ConfigError(
      `config ${source}: "work.resultLine" must have a named group "outcome" for the run's outcome (success, retry or failure), e.g. "Sync finished: (?<outcome>success|retry|failure)", got ${JSON.stringify(pattern)}`,
      'work.resultLine',
    );
  }
}

function databaseOf(database: ValidJson['database'], source: string): DatabaseConfig | undefined {
  if (database === undefined) return undefined;
  const kind = database.kind ?? CONFIG_DEFAULTS.database.kind;
  const fields: Record<DatabaseKind, readonly string[]> = {
    key: ['kind', 'file', 'table', 'keyColumn'],
    flag: ['kind', 'file', 'table', 'keyColumn', 'flagColumn'],
    watermark: ['kind', 'watermark'],
  };
  refuseOthers(source, 'database', database, fields[kind], `database.kind "${kind}"${database.kind === undefined ? ' (the default)' : ''}`);
  // The schema requires each kind's fields (watermark; file, table, keyColumn; flagColumn).
  switch (kind) {
    case 'watermark':
      return { kind, watermark: { prefs: database.watermark?.prefs ?? '', key: database.watermark?.key ?? '' } };
    case 'key':
      return { kind, file: database.file ?? '', table: database.table ?? '', keyColumn: database.keyColumn ?? '' };
    case 'flag':
      return { kind, file: database.file ?? '', table: database.table ?? '', keyColumn: database.keyColumn ?? '', flagColumn: database.flagColumn ?? '' };
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown database.kind ${String(unreachable)}`);
    }
  }
}

/**
 * feed.attach across sections: an activity step's component is an activity of the app under test
 * (dedup-verify starts nothing of another app), and an sql step without `file` edits
 * database.file, which only a database of kind key or flag has.
 */
function attachOf(attach: readonly AttachStep[], pkg: string, database: DatabaseConfig | undefined, source: string): readonly AttachStep[] {
  attach.forEach((step, i) => {
    if ('intent' in step) {
      const component = step.intent.component;
      const owner = component?.includes('/') === true ? component.slice(0, component.indexOf('/')) : undefined;
      if (owner !== undefined && owner !== pkg) {
        throw new ConfigError(
          `config ${source}: "feed.attach.${i}.intent.component" names an activity of ${owner}, not of app.package ${pkg}; name an activity of the app under test (${pkg}/.Activity, or .Activity alone)`,
          `feed.attach.${i}.intent.component`,
        );
      }
    } else if ('sql' in step && step.sql.file === undefined && (database === undefined || database.kind === 'watermark')) {
      throw new ConfigError(
        `config ${source}: "feed.attach.${i}.sql" edits database.file when it has no "file", but ${database === undefined ? 'there is no "database"' : 'database.kind is "watermark" (no file)'}; give the database with "file" (e.g. "databases/feed.db")`,
        `feed.attach.${i}.sql.file`,
      );
    }
  });
  return attach;
}

function notificationsOf(notifications: NonNullable<ValidJson['notifications']>, database: DatabaseConfig | undefined, source: string): Config['notifications'] {
  const match = notifications.match ?? CONFIG_DEFAULTS.notifications.match;
  const joins = match === 'row-id' ? 'notifications.match "row-id"' : notifications.tagColumn !== undefined ? 'notifications.tagColumn' : undefined;
  if (joins !== undefined && (database === undefined || database.kind === 'watermark')) {
    const field = match === 'row-id' ? 'notifications.match' : 'notifications.tagColumn';
    throw new ConfigError(
      `config ${source}: ${joins} joins a post to its item through a row of database.table, but ${database === undefined ? 'there is no "database"' : 'database.kind is "watermark" (no table)'}; give "database" with kind "key" or "flag" (file, table, keyColumn), or another notifications.match`,
      field,
    );
  }
  if (notifications.tagColumn !== undefined && match !== 'tag') {
    throw new ConfigError(`config ${source}: "notifications.tagColumn" is read only with notifications.match "tag", got match ${JSON.stringify(match)}; remove tagColumn or set match to "tag"`, 'notifications.tagColumn');
  }
  if (notifications.idColumn !== undefined && match !== 'row-id') {
    throw new ConfigError(`config ${source}: "notifications.idColumn" is read only with notifications.match "row-id", got match ${JSON.stringify(match)}; remove idColumn or set match to "row-id"`, 'notifications.idColumn');
  }
  return {
    match,
    ...(notifications.channel !== undefined ? { channel: notifications.channel } : {}),
    ...(notifications.idColumn !== undefined ? { idColumn: notifications.idColumn } : {}),
    ...(notifications.tagColumn !== undefined ? { tagColumn: notifications.tagColumn } : {}),
  };
}
