/**
 * The JSON Schema is the one statement of the config's rules: the loader refuses exactly what
 * the schema refuses, words each problem as before (what the field must be, the schema's
 * example, the value found, the nearest valid key), and finds the schema file from the source
 * tree and from an installed package.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_KEY_PATHS, parseConfig } from '../../../src/config/index.js';
import { CONFIG_SCHEMA_FILE, findConfigSchema, readConfigSchema, type SchemaNode } from '../../../src/config/config-schema.js';
import { EXPECTATION_PATHS, renderExample } from '../../../src/config/validate-config.js';
import { ConfigError } from '../../../src/errors.js';

const SCHEMA_PATH = 'schema/dedup-verify.config.schema.json';
const schema = JSON.parse(await readFile(SCHEMA_PATH, 'utf8')) as SchemaNode & { properties: Record<string, SchemaNode> };
/** The schema on its own, through a validator of its own (default ajv options). */
const schemaAccepts = new Ajv2020().compile(schema);

const MINIMAL = {
  app: { package: 'com.example.app' },
  work: { uniqueName: 'feed-poll' },
  windowMs: 172800000,
  database: { file: 'databases/feed.db', table: 'notifications', keyColumn: 'link' },
};

function withValue(path: string, value: unknown, base: unknown = MINIMAL): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  const keys = path.split('.');
  let target = copy;
  for (const k of keys.slice(0, -1)) target = (target[k] ??= {}) as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

function errorOf(json: unknown): ConfigError {
  try {
    parseConfig(json, 'c.json');
  } catch (e) {
    expect(e).to.be.instanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error(`config ${JSON.stringify(json)} was accepted`);
}

function loaderAccepts(json: unknown): boolean {
  try {
    parseConfig(json, 'c.json');
    return true;
  } catch (e) {
    if (e instanceof ConfigError) return false;
    throw e;
  }
}

function leafPaths(node: SchemaNode, prefix = ''): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([k, child]) => {
    const p = prefix === '' ? k : `${prefix}.${k}`;
    return child.properties === undefined ? [p] : leafPaths(child, p);
  });
}

function nodeAt(path: string): SchemaNode {
  let node: SchemaNode = schema;
  for (const k of path.split('.')) node = node.properties![k]!;
  return node;
}

describe('config schema', () => {
  it('is draft 2020-12 and the reference config is valid against it', async () => {
    expect(schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
    expect(schemaAccepts(JSON.parse(await readFile('fixtures/reference-app.config.json', 'utf8')))).to.equal(true);
  });

  it('refuses windowMs: 1e300, and so does the loader, with the usual message', () => {
    const config = withValue('windowMs', 1e300);
    expect(schemaAccepts(config)).to.equal(false);
    const e = errorOf(config);
    expect(e.message).to.equal('config c.json: "windowMs" must be the app\'s window in milliseconds, a whole number > 0 (e.g. 172800000 for 48 h), got 1e+300');
    expect(e.field).to.equal('windowMs');
  });

  it('holds every rule: schema and loader accept and refuse the same values', () => {
    const MAX = Number.MAX_SAFE_INTEGER;
    const cases: [string, unknown, boolean][] = [
      ['app.package', 'com.example.app', true],
      ['app.package', 'c.d_2', true],
      ['app.package', 'feednotifier', false],
      ['app.package', 'com.1x', false],
      ['app.package', 'com.x; reboot', false],
      ['app.launchActivity', '.MainActivity', true],
      ['app.launchActivity', 'MainActivity', true],
      ['app.launchActivity', 'com.x/.Main', true],
      ['app.launchActivity', 'com.x/com.x.ui.Main$Inner', true],
      ['app.launchActivity', 'com.x/', false],
      ['app.launchActivity', '/.Main', false],
      ['app.launchActivity', 'x/.Main', false],
      ['app.launchActivity', 'com.x/.a/b', false],
      ['app.launchActivity', 'com.x/$(id)', false],
      ['work.uniqueName', 'a'.repeat(200), true],
      ['work.uniqueName', 'a'.repeat(201), false],
      ['work.uniqueName', '', false],
      ['work.uniqueName', 'poll; rm -rf /', false],
      ['work.workerClass', 'com.x.Worker', true],
      ['work.workerClass', 'Worker', false],
      ['windowMs', 1, true],
      ['windowMs', MAX, true],
      ['windowMs', MAX + 1, false],
      ['windowMs', 1e300, false],
      ['windowMs', 0, false],
      ['windowMs', 1.5, false],
      ['windowMs', '48h', false],
      ['allowedDuplicates', 0, true],
      ['allowedDuplicates', -1, false],
      ['allowedDuplicates', 2 ** 60, false],
      ['database.file', 'databases/feed.db', true],
      ['database.file', 'feed.db', true],
      ['database.file', 'databases/../../x', false],
      ['database.file', '..', false],
      ['database.file', './feed.db', false],
      ['database.file', '/data/data/x/feed.db', false],
      ['database.file', 'databases//feed.db', false],
      ['database.table', '_t1', true],
      ['database.table', '1t', false],
      ['database.keyColumn', 'link', true],
      ['database.keyColumn', 'link;', false],
      ['feed.devicePort', 1, true],
      ['feed.devicePort', 65535, true],
      ['feed.devicePort', 0, false],
      ['feed.devicePort', 65536, false],
      ['feed.devicePort', 8765.5, false],
      ['feed.path', '/', true],
      ['feed.path', '/feed.xml?x=1&y=2', true],
      ['feed.path', 'feed.xml', false],
      ['feed.path', '/feed xml', false],
      ['feed.format', 'atom', true],
      ['feed.format', 'RSS', false],
      ['notifications.match', 'title', true],
      ['notifications.match', 'id', false],
      ['notifications.channel', 'feed_items', true],
      ['notifications.channel', '', false],
      ['backend.path', '/receipts', true],
      ['backend.idempotencyHeader', 'X-Op-Id', true],
      ['backend.idempotencyHeader', 'Idempotency Key', false],
      // Node keeps a timer's delay only up to 2^31-1 ms and turns a longer one into 1 ms.
      ['timeouts.runMs', 2 ** 31 - 1, true],
      ['timeouts.runMs', 2 ** 31, false],
      ['timeouts.runMs', 1099511627776, false],
      ['timeouts.runMs', MAX, false],
      ['timeouts.commandMs', 2 ** 31 - 1, true],
      ['timeouts.commandMs', 2 ** 31, false],
      ['timeouts.commandMs', 1e300, false],
      ['$schema', 'https://example.org/s.json', true],
      ['$schema', 5, false],
      ['$comment', 'note', true],
      ['$comment', ['a', 'b'], true],
      ['$comment', ['a', 1], false],
      ['feed', 'rss', false],
      ['timeouts', [], false],
      ['timeouts.zzz', 1, false],
    ];
    for (const [path, value, valid] of cases) {
      const config = withValue(path, value);
      expect([schemaAccepts(config), loaderAccepts(config)], `${path}: ${JSON.stringify(value)}`).to.deep.equal([valid, valid]);
    }
  });

  it('states, for every field, an example and (in the loader) what it must be', () => {
    const leaves = leafPaths(schema);
    expect(leaves.filter((p) => nodeAt(p).examples === undefined)).to.deep.equal([]);
    expect(Object.entries(schema.properties).filter(([, n]) => n.properties !== undefined && n.examples === undefined)).to.deep.equal([]);
    expect([...EXPECTATION_PATHS].sort()).to.deep.equal([...leaves].sort());
    const sections = (node: SchemaNode, prefix: string): string[] =>
      Object.entries(node.properties ?? {}).flatMap(([k, child]) => (child.properties === undefined ? [] : [`${prefix}${k}`, ...sections(child, `${prefix}${k}.`)]));
    expect([...CONFIG_KEY_PATHS].sort()).to.deep.equal([...leaves, ...sections(schema, '')].sort());
  });

  it("shows the schema's first example in the message of every field", () => {
    for (const path of leafPaths(schema)) {
      const example = nodeAt(path).examples![0];
      const shown = renderExample(example);
      // A field of a nested section (database.watermark.key) beside its siblings' examples.
      const parent = path.split('.').slice(0, -1);
      const base = parent.length >= 2 ? withValue(parent.join('.'), nodeAt(parent.join('.')).examples![0]) : MINIMAL;
      const e = errorOf(withValue(path, { wrong: true }, base));
      expect(e.message, path).to.match(new RegExp(`^config c\\.json: "${path.replace(/[.$]/g, '\\$&')}" must be .+ \\(e\\.g\\. ${shown.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}( for 48 h)?\\), got \\{"wrong":true\\}$`));
      expect(e.field).to.equal(path);
    }
  });

  it('words the problems the hand-written checks worded, unchanged', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [withValue('app', undefined), 'app', '"app" is missing; it must be an object with "package" (e.g. "app": {"package": "com.example.app"})'],
      [withValue('app.package', undefined), 'app.package', '"app.package" is missing; it must be an application id of two or more dot-separated parts (letters, digits, _) (e.g. "package": "com.example.app")'],
      [withValue('windowMs', undefined), 'windowMs', '"windowMs" is missing; it must be the app\'s window in milliseconds, a whole number > 0 (e.g. "windowMs": 172800000 for 48 h)'],
      [withValue('$schema', 5), '$schema', '"$schema" must be a string (the path or URL of the JSON Schema) (e.g. "../schema/dedup-verify.config.schema.json"), got 5'],
      [withValue('$comment', ['a', 1]), '$comment', '"$comment" must be a string or an array of strings (notes for people; ignored) (e.g. ["CONFIRM windowMs"]), got ["a",1]'],
      [withValue('work.workerClass', 'Worker'), 'work.workerClass', '"work.workerClass" must be the worker\'s fully qualified class name (e.g. "com.example.app.FeedPollWorker"), got "Worker"'],
      [withValue('notifications.channel', ''), 'notifications.channel', '"notifications.channel" must be the notification channel id the app posts on (1-200 of letters, digits, space and ._:@#/+=-) (e.g. "feed_items"), got ""'],
      [withValue('feed.devicePort', 8765.5), 'feed.devicePort', '"feed.devicePort" must be the TCP port (1-65535) the app fetches the feed on, on the device (e.g. 8765), got 8765.5'],
      [withValue('backend.path', 'receipts'), 'backend.path', '"backend.path" must be a URL path starting with "/" (e.g. "/receipts"), got "receipts"'],
      [withValue('timeouts.commandMs', 'x'.repeat(100)), 'timeouts.commandMs', `"timeouts.commandMs" must be a whole number of milliseconds from 1 to 2147483647 (2^31-1, the longest delay a Node timer keeps; a longer one fires after 1 ms) (e.g. 20000), got "${'x'.repeat(76)}...`],
      [withValue('timeouts', []), 'timeouts', '"timeouts" must be an object (e.g. {"runMs": 30000, "commandMs": 20000}), got []'],
      [withValue('notifications', null), 'notifications', '"notifications" must be an object (e.g. {"match": "hashcode-id", "channel": "feed_items"}), got null'],
      [withValue('backend', 1), 'backend', '"backend" must be an object (e.g. {"path": "/receipts", "idempotencyHeader": "Idempotency-Key"}), got 1'],
    ];
    for (const [config, field, message] of cases) {
      const e = errorOf(config);
      expect(e.message).to.equal(`config c.json: ${message}`);
      expect(e.field).to.equal(field);
    }
    expect(errorOf('x').message).to.equal(
      'config c.json: the config must be a JSON object (e.g. {"app": {"package": "com.example.app"}, "work": {"uniqueName": "feed-poll"}, "windowMs": 172800000, "database": {"file": "databases/feed.db", "table": "notifications", "keyColumn": "link"}}), got "x"',
    );
    expect(errorOf(null).field).to.equal('');
  });

  it('suggests the nearest key for an unknown one, else lists the valid keys', () => {
    const cases: [Record<string, unknown>, string][] = [
      [withValue('windowMS', 1), 'unknown key "windowMS"; did you mean "windowMs"?'],
      [withValue('timeout', {}), 'unknown key "timeout"; did you mean "timeouts"?'],
      [withValue('work.uniquename', 'x'), 'unknown key "work.uniquename"; did you mean "work.uniqueName"?'],
      [withValue('channel', 'x'), 'unknown key "channel"; did you mean "notifications.channel"? (it belongs inside "notifications")'],
      [withValue('backend.format', 'rss'), 'unknown key "backend.format"; did you mean "feed.format"? (it belongs inside "feed")'],
      [withValue('feed.allowedDuplicates', 1), 'unknown key "feed.allowedDuplicates"; did you mean "allowedDuplicates"? (it belongs at the top level)'],
      [withValue('zzzzzzzz', 1), 'unknown key "zzzzzzzz"; valid keys: $schema, $comment, app, work, windowMs, allowedDuplicates, database, feed, notifications, backend, timeouts'],
      [withValue('app.zzzzzzzz', 1), 'unknown key "app.zzzzzzzz"; valid keys in "app": package, launchActivity'],
    ];
    for (const [config, message] of cases) expect(errorOf(config).message).to.equal(`config c.json: ${message}`);
  });

  it('tells the first problem in reading order when there are several', () => {
    // The config's own unknown keys come before its fields.
    expect(errorOf({ ...withValue('work', undefined), wrok: {} }).field).to.equal('wrok');
    // Fields in schema order: app before work, a wrong section before a missing one.
    expect(errorOf({ app: 5 }).field).to.equal('app');
    expect(errorOf(withValue('work.uniqueName', '', withValue('app.package', 'x'))).field).to.equal('app.package');
    expect(errorOf(withValue('timeouts.runMs', 0, withValue('windowMs', 0))).field).to.equal('windowMs');
    // Within a section: its unknown keys (in the order written), then its fields.
    const config = withValue('feed', { path: 'x', zzz: 1, yyy: 2, devicePort: 0 });
    expect(errorOf(config).field).to.equal('feed.zzz');
    expect(errorOf(withValue('feed', { path: 'x', devicePort: 0 })).field).to.equal('feed.devicePort');
  });

  describe('the schema file', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'dv-config-schema-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('is found from the source tree', () => {
      const here = dirname(fileURLToPath(import.meta.url));
      expect(findConfigSchema(resolve(here, '../../../src/config'))).to.equal(resolve(SCHEMA_PATH));
      expect(findConfigSchema()).to.equal(resolve(SCHEMA_PATH));
    });

    it('is found from the built code of an installed package, at the package root', async () => {
      const pkg = join(dir, 'node_modules', 'dedup-verify');
      await mkdir(join(pkg, 'dist', 'src', 'config'), { recursive: true });
      await mkdir(join(pkg, 'schema'), { recursive: true });
      await writeFile(join(dir, 'package.json'), '{"name": "user-project"}');
      await writeFile(join(pkg, 'package.json'), '{"name": "dedup-verify"}');
      await writeFile(join(pkg, ...CONFIG_SCHEMA_FILE.split('/')), await readFile(SCHEMA_PATH, 'utf8'));
      const found = findConfigSchema(join(pkg, 'dist', 'src', 'config'));
      expect(found).to.equal(join(pkg, 'schema', 'dedup-verify.config.schema.json'));
      expect(readConfigSchema(found).schema).to.deep.equal(schema);
    });

    it('missing or broken is a one-line error saying to reinstall', async () => {
      await writeFile(join(dir, 'package.json'), '{}');
      expect(findConfigSchema(dir)).to.equal(undefined);
      expect(() => readConfigSchema(undefined)).to.throw(ConfigError, /^The config schema \(schema\/dedup-verify\.config\.schema\.json\) is missing from this installation; reinstall dedup-verify\.$/);
      const broken = join(dir, 'broken.json');
      await writeFile(broken, '{"type": ');
      expect(() => readConfigSchema(broken)).to.throw(ConfigError, /^The config schema .*broken\.json cannot be read \(.+\); reinstall dedup-verify\.$/);
    });
  });
});
