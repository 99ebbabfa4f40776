import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIG_DEFAULTS, CONFIG_KEY_PATHS, loadConfig, parseConfig, type Config } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors.js';

const REFERENCE = 'fixtures/reference-app.config.json';
const SCHEMA = 'schema/dedup-verify.config.schema.json';

const MINIMAL = {
  app: { package: 'com.example.app' },
  work: { uniqueName: 'feed-poll' },
  windowMs: 172800000,
  database: { file: 'databases/feed.db', table: 'notifications', keyColumn: 'link' },
};

function errorOf(json: unknown, source = 'dedup-verify.config.json'): ConfigError {
  try {
    parseConfig(json, source);
  } catch (e) {
    expect(e).to.be.instanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error(`config ${JSON.stringify(json)} was accepted`);
}

/** A copy of MINIMAL with `path` (a.b) set to `value` (undefined deletes it). */
function withValue(path: string, value: unknown): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(MINIMAL)) as Record<string, unknown>;
  const keys = path.split('.');
  let target = copy;
  for (const k of keys.slice(0, -1)) target = (target[k] ??= {}) as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean;
  pattern?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
}

/** Checks a value against the subset of JSON Schema the config schema uses. */
function schemaProblems(node: SchemaNode, value: unknown, path = ''): string[] {
  const problems: string[] = [];
  if (node.properties) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: not an object`];
    const o = value as Record<string, unknown>;
    for (const r of node.required ?? []) if (!(r in o)) problems.push(`${path}.${r}: missing`);
    for (const [k, v] of Object.entries(o)) {
      const child = node.properties[k];
      if (!child) {
        if (node.additionalProperties === false) problems.push(`${path}.${k}: not allowed`);
        continue;
      }
      problems.push(...schemaProblems(child, v, `${path}.${k}`));
    }
    return problems;
  }
  if (node.type === 'string' && typeof value !== 'string') problems.push(`${path}: not a string`);
  if (node.type === 'integer' && !Number.isInteger(value)) problems.push(`${path}: not an integer`);
  if (node.pattern !== undefined && (typeof value !== 'string' || !new RegExp(node.pattern).test(value))) problems.push(`${path}: does not match ${node.pattern}`);
  if (node.enum && !node.enum.includes(value as string)) problems.push(`${path}: not one of ${node.enum.join(', ')}`);
  if (node.minimum !== undefined && (value as number) < node.minimum) problems.push(`${path}: below ${node.minimum}`);
  if (node.maximum !== undefined && (value as number) > node.maximum) problems.push(`${path}: above ${node.maximum}`);
  return problems;
}

describe('config', () => {
  describe('the reference app config', () => {
    it('loads, with every value of docs/reference-app.md', async () => {
      const expected: Config = {
        app: { package: 'com.example.feednotifier', launchActivity: 'com.example.feednotifier/.MainActivity' },
        work: { scheduler: 'workmanager', uniqueName: 'feed-poll', workerClass: 'com.example.feednotifier.FeedPollWorker' },
        windowMs: 48 * 3_600_000,
        allowedDuplicates: 0,
        database: { kind: 'key', file: 'databases/feed.db', table: 'notifications', keyColumn: 'link' },
        feed: { devicePort: 8765, path: '/feed.xml', format: 'rss' },
        notifications: { match: 'hashcode-id', channel: 'feed_items' },
        backend: { path: '/receipts', idempotencyHeader: 'Idempotency-Key' },
        timeouts: { runMs: 30000, commandMs: 20000 },
      };
      expect(await loadConfig(REFERENCE)).to.deep.equal(expected);
    });

    it('points at the schema and is valid against it', async () => {
      const json = JSON.parse(await readFile(REFERENCE, 'utf8')) as Record<string, unknown>;
      const schema = JSON.parse(await readFile(SCHEMA, 'utf8')) as SchemaNode & { $schema: string };
      expect(json['$schema']).to.equal('../schema/dedup-verify.config.schema.json');
      expect(schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
      expect(schemaProblems(schema, json)).to.deep.equal([]);
    });
  });

  describe('the JSON Schema', () => {
    it('describes exactly the keys the loader accepts, each with a description', async () => {
      const schema = JSON.parse(await readFile(SCHEMA, 'utf8')) as SchemaNode;
      const paths: string[] = [];
      const undescribed: string[] = [];
      const walk = (node: SchemaNode, prefix: string): void => {
        for (const [k, child] of Object.entries(node.properties ?? {})) {
          const p = prefix === '' ? k : `${prefix}.${k}`;
          paths.push(p);
          if (!child.description) undescribed.push(p);
          walk(child, p);
        }
      };
      walk(schema, '');
      expect([...paths].sort()).to.deep.equal([...CONFIG_KEY_PATHS].sort());
      expect(undescribed).to.deep.equal([]);
    });

    it('states the loader\'s defaults', async () => {
      const schema = JSON.parse(await readFile(SCHEMA, 'utf8')) as SchemaNode;
      const p = schema.properties!;
      expect(p['allowedDuplicates']!.default).to.equal(CONFIG_DEFAULTS.allowedDuplicates);
      expect(p['feed']!.properties!['devicePort']!.default).to.equal(CONFIG_DEFAULTS.feed.devicePort);
      expect(p['feed']!.properties!['path']!.default).to.equal(CONFIG_DEFAULTS.feed.path);
      expect(p['feed']!.properties!['format']!.default).to.equal(CONFIG_DEFAULTS.feed.format);
      expect(p['notifications']!.properties!['match']!.default).to.equal(CONFIG_DEFAULTS.notifications.match);
      expect(p['backend']!.properties!['path']!.default).to.equal(CONFIG_DEFAULTS.backend.path);
      expect(p['backend']!.properties!['idempotencyHeader']!.default).to.equal(CONFIG_DEFAULTS.backend.idempotencyHeader);
      expect(p['timeouts']!.properties!['runMs']!.default).to.equal(CONFIG_DEFAULTS.timeouts.runMs);
      expect(p['timeouts']!.properties!['commandMs']!.default).to.equal(CONFIG_DEFAULTS.timeouts.commandMs);
      expect(p['work']!.properties!['scheduler']!.default).to.equal(CONFIG_DEFAULTS.work.scheduler);
      expect(p['database']!.properties!['kind']!.default).to.equal(CONFIG_DEFAULTS.database.kind);
      expect(schema.required).to.deep.equal(['app', 'work', 'windowMs']);
    });
  });

  describe('parseConfig', () => {
    it('fills the defaults into a minimal config', () => {
      expect(parseConfig(MINIMAL, 'x.json')).to.deep.equal({
        ...MINIMAL,
        work: { scheduler: 'workmanager', ...MINIMAL.work },
        database: { kind: 'key', ...MINIMAL.database },
        allowedDuplicates: 0,
        feed: { devicePort: 8765, path: '/feed.xml', format: 'rss' },
        notifications: { match: 'hashcode-id' },
        backend: { path: '/receipts', idempotencyHeader: 'Idempotency-Key' },
        timeouts: { runMs: 30000, commandMs: 20000 },
      });
    });

    it('explains a section of the wrong type (the issue\'s example)', () => {
      const e = errorOf({ app: 5 });
      expect(e.message).to.equal('config dedup-verify.config.json: "app" must be an object with "package" (e.g. {"package": "com.example.app"}), got 5');
      expect(e.field).to.equal('app');
      expect(e.code).to.equal('DV_CONFIG');
    });

    it('explains a config that is not an object', () => {
      expect(errorOf([]).message).to.match(/^config dedup-verify\.config\.json: the config must be a JSON object \(e\.g\. \{"app": .+\), got \[\]$/);
    });

    it('names a missing required field with an example', () => {
      expect(errorOf(withValue('work.uniqueName', undefined)).message).to.equal(
        'config dedup-verify.config.json: "work.uniqueName" is missing; it must be the unique name given to enqueueUniquePeriodicWork (1-200 of letters, digits, space and ._:@#/+=-) (e.g. "uniqueName": "feed-poll")',
      );
      expect(errorOf(withValue('database', {})).message).to.equal(
        'config dedup-verify.config.json: "database.file" is missing; it must be a path relative to the app data dir, without ".." (letters, digits, ._-) (e.g. "file": "databases/feed.db")',
      );
      expect(errorOf(withValue('work', { scheduler: 'jobscheduler' })).message).to.equal(
        'config dedup-verify.config.json: "work.jobId" is missing; it must be the job id the app schedules its periodic job with (JobInfo.Builder(jobId, …)), a Java int (or give work.jobService, the JobService\'s class name) (e.g. "jobId": 2)',
      );
      expect(errorOf(withValue('windowMs', undefined)).field).to.equal('windowMs');
    });

    it('names a bad value, the value found and the fix', () => {
      const cases: [string, unknown, string][] = [
        ['app.package', 'feednotifier', '"app.package" must be an application id of two or more dot-separated parts (letters, digits, _) (e.g. "com.example.app"), got "feednotifier"'],
        ['app.package', 'com.x; reboot', '"app.package" must be an application id of two or more dot-separated parts (letters, digits, _) (e.g. "com.example.app"), got "com.x; reboot"'],
        ['app.launchActivity', 'com.x/$(id)', '"app.launchActivity" must be the launcher activity as a component or a class name (e.g. "com.example.app/.MainActivity"), got "com.x/$(id)"'],
        ['windowMs', -1, '"windowMs" must be the app\'s window in milliseconds, a whole number > 0 (e.g. 172800000 for 48 h), got -1'],
        ['windowMs', '48h', '"windowMs" must be the app\'s window in milliseconds, a whole number > 0 (e.g. 172800000 for 48 h), got "48h"'],
        ['allowedDuplicates', 0.5, '"allowedDuplicates" must be the items each killed run may leave to be repeated, a whole number >= 0 (e.g. 0), got 0.5'],
        ['database.file', '/data/data/x/databases/feed.db', '"database.file" must be a path relative to the app data dir, without ".." (letters, digits, ._-) (e.g. "databases/feed.db"), got "/data/data/x/databases/feed.db"'],
        ['database.file', 'databases/../../x', '"database.file" must be a path relative to the app data dir, without ".." (letters, digits, ._-) (e.g. "databases/feed.db"), got "databases/../../x"'],
        ['database.table', 'notifications; DROP TABLE x', '"database.table" must be an SQL table name (letters, digits, _) (e.g. "notifications"), got "notifications; DROP TABLE x"'],
        ['feed.devicePort', 70000, '"feed.devicePort" must be the TCP port (1-65535) the app fetches the feed on, on the device (e.g. 8765), got 70000'],
        ['feed.path', 'feed.xml', '"feed.path" must be a URL path starting with "/" (e.g. "/feed.xml"), got "feed.xml"'],
        ['feed.format', 'json', '"feed.format" must be "rss" or "atom" (e.g. "rss"), got "json"'],
        ['notifications.match', 'id', '"notifications.match" must be "hashcode-id" (notification id = String.hashCode() of the link), "tag" (tag = link), "title" or "row-id" (notification id = a row id of database.table) (e.g. "hashcode-id"), got "id"'],
        ['backend.idempotencyHeader', 'Idempotency Key', '"backend.idempotencyHeader" must be an HTTP header name (e.g. "Idempotency-Key"), got "Idempotency Key"'],
        ['timeouts.runMs', 0, '"timeouts.runMs" must be a whole number of milliseconds from 1 to 2147483647 (2^31-1, the longest delay a Node timer keeps; a longer one fires after 1 ms) (e.g. 30000), got 0'],
        ['timeouts.runMs', 1099511627776, '"timeouts.runMs" must be a whole number of milliseconds from 1 to 2147483647 (2^31-1, the longest delay a Node timer keeps; a longer one fires after 1 ms) (e.g. 30000), got 1099511627776'],
        ['timeouts.commandMs', 2 ** 31, '"timeouts.commandMs" must be a whole number of milliseconds from 1 to 2147483647 (2^31-1, the longest delay a Node timer keeps; a longer one fires after 1 ms) (e.g. 20000), got 2147483648'],
        ['feed', 'rss', '"feed" must be an object (e.g. {"devicePort": 8765, "path": "/feed.xml", "format": "rss"}), got "rss"'],
      ];
      for (const [path, value, message] of cases) {
        const e = errorOf(withValue(path, value));
        expect(e.message).to.equal(`config dedup-verify.config.json: ${message}`);
        expect(e.field).to.equal(path);
      }
    });

    it('rejects unknown keys and suggests the nearest valid one', () => {
      expect(errorOf(withValue('windowMS', 1)).message).to.equal('config dedup-verify.config.json: unknown key "windowMS"; did you mean "windowMs"?');
      expect(errorOf(withValue('app.packge', 'x')).message).to.equal('config dedup-verify.config.json: unknown key "app.packge"; did you mean "app.package"?');
      expect(errorOf(withValue('database.keyColum', 'link')).message).to.equal('config dedup-verify.config.json: unknown key "database.keyColum"; did you mean "database.keyColumn"?');
      expect(errorOf(withValue('devicePort', 8765)).message).to.equal('config dedup-verify.config.json: unknown key "devicePort"; did you mean "feed.devicePort"? (it belongs inside "feed")');
      expect(errorOf(withValue('feed.windowMs', 1)).message).to.equal('config dedup-verify.config.json: unknown key "feed.windowMs"; did you mean "windowMs"? (it belongs at the top level)');
      const far = errorOf(withValue('timeouts.zzzzzzzz', 1));
      expect(far.message).to.equal('config dedup-verify.config.json: unknown key "timeouts.zzzzzzzz"; valid keys in "timeouts": runMs, commandMs');
      expect(far.field).to.equal('timeouts.zzzzzzzz');
    });
  });

  describe('loadConfig', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'dv-config-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('names a missing file and where to start', async () => {
      const path = join(dir, 'dedup-verify.config.json');
      let error: unknown;
      try {
        await loadConfig(path);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.equal(
        `config ${path}: cannot read it (no such file); pass --config FILE, or create dedup-verify.config.json (see fixtures/reference-app.config.json, or run dedup-verify init)`,
      );
    });

    it('names the line and column of a JSON syntax error', async () => {
      const path = join(dir, 'c.json');
      await writeFile(path, '{\n  "app": {"package": "com.example.app"},\n}\n');
      let error: unknown;
      try {
        await loadConfig(path);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.match(new RegExp(`^config ${path}: not valid JSON at line 3 column 1 \\(.+\\); fix the syntax \\(no comments or trailing commas in JSON\\)$`));
    });

    it('uses the path as given in validation messages', async () => {
      const path = join(dir, 'c.json');
      await writeFile(path, JSON.stringify({ app: 5 }));
      let error: unknown;
      try {
        await loadConfig(path);
      } catch (e) {
        error = e;
      }
      expect((error as Error).message).to.equal(`config ${path}: "app" must be an object with "package" (e.g. {"package": "com.example.app"}), got 5`);
    });
  });
});
