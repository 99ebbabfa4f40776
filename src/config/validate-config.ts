/**
 * Validation of `dedup-verify.config.json` against its JSON Schema (ajv, draft 2020-12), with
 * each problem told on one line: the JSON path, what the field must be, the schema's example
 * and the value found; an unknown key gets the nearest valid one. Every rule (types, ranges,
 * the character sets that keep config values out of device shells and SQL, unknown keys) is
 * the schema's; this module only words what ajv reports.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { ConfigError } from '../errors.js';
import { configSchema, schemaKeyPaths, schemaNodeAt, type SchemaNode } from './config-schema.js';

interface Expectation {
  /** Completes "must be ...". */
  readonly expect: string;
  /** Said after the schema's example, e.g. "for 48 h". */
  readonly exampleNote?: string;
}

/**
 * What each field must be, in words. Sections (objects) are described from the schema ("an
 * object with" its required keys); a field missing here is described by its schema description.
 */
const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  $schema: { expect: 'a string (the path or URL of the JSON Schema)' },
  $comment: { expect: 'a string or an array of strings (notes for people; ignored)' },
  'app.package': { expect: 'an application id of two or more dot-separated parts (letters, digits, _)' },
  'app.launchActivity': { expect: 'the launcher activity as a component or a class name' },
  'work.scheduler': { expect: '"workmanager" (androidx WorkManager periodic work) or "jobscheduler" (a periodic job of the app\'s own JobService)' },
  'work.uniqueName': { expect: 'the unique name given to enqueueUniquePeriodicWork (1-200 of letters, digits, space and ._:@#/+=-)' },
  'work.workerClass': { expect: "the worker's fully qualified class name" },
  'work.jobId': { expect: 'the job id the app schedules its periodic job with (JobInfo.Builder(jobId, …)), a Java int (or give work.jobService, the JobService\'s class name)' },
  'work.jobService': { expect: "the fully qualified class name of the app's JobService" },
  'work.jobNamespace': { expect: 'the JobScheduler namespace of the job (1-200 of letters, digits and ._:-)' },
  'work.resultLine': { expect: 'a regular expression (1-500 characters) for the line the app logs at the end of each run, with a named group "outcome"' },
  windowMs: { expect: "the app's window in milliseconds, a whole number > 0", exampleNote: 'for 48 h' },
  allowedDuplicates: { expect: 'the items each killed run may leave to be repeated, a whole number >= 0' },
  'database.kind': { expect: '"key" (a row per notified item), "flag" (a row per item and a notified column) or "watermark" (a high-water mark in SharedPreferences)' },
  'database.file': { expect: 'a path relative to the app data dir, without ".." (letters, digits, ._-)' },
  'database.table': { expect: 'an SQL table name (letters, digits, _)' },
  'database.keyColumn': { expect: 'the SQL column holding the dedup key (letters, digits, _)' },
  'database.flagColumn': { expect: 'the SQL column set once the item is notified (letters, digits, _)' },
  'database.watermark.prefs': { expect: 'a SharedPreferences file shared_prefs/NAME.xml (letters, digits, ._-)' },
  'database.watermark.key': { expect: 'the name of the <long> entry holding the mark (1-200 of letters, digits and _.:-)' },
  'feed.devicePort': { expect: 'the TCP port (1-65535) the app fetches the feed on, on the device' },
  'feed.path': { expect: 'a URL path starting with "/"' },
  'feed.format': { expect: '"rss" or "atom"' },
  'feed.attach': { expect: 'a list of 1-20 steps, each an object with exactly one of "intent", "deepLink" or "sql"' },
  'notifications.match': { expect: '"hashcode-id" (notification id = String.hashCode() of the link), "tag" (tag = link), "title" or "row-id" (notification id = a row id of database.table)' },
  'notifications.channel': { expect: 'the notification channel id the app posts on (1-200 of letters, digits, space and ._:@#/+=-)' },
  'notifications.idColumn': { expect: 'the column of database.table holding the notification id (letters, digits, _)' },
  'notifications.tagColumn': { expect: 'the column of database.table holding the notification tag (letters, digits, _)' },
  'backend.path': { expect: 'a URL path starting with "/"' },
  'backend.idempotencyHeader': { expect: 'an HTTP header name' },
  'timeouts.runMs': { expect: 'a whole number of milliseconds from 1 to 2147483647 (2^31-1, the longest delay a Node timer keeps; a longer one fires after 1 ms)' },
  'timeouts.commandMs': { expect: 'a whole number of milliseconds from 1 to 2147483647 (2^31-1, the longest delay a Node timer keeps; a longer one fires after 1 ms)' },
};

/** The fields with a worded expectation (specs check it covers every schema field). */
export const EXPECTATION_PATHS: readonly string[] = Object.keys(EXPECTATIONS);

interface Compiled {
  readonly schema: SchemaNode;
  readonly validate: ValidateFunction;
  readonly keyPaths: readonly string[];
}

let compiled: Compiled | undefined;

/** The schema and its validator, read and compiled on first use. */
function compiledSchema(): Compiled {
  if (compiled === undefined) {
    const { path, schema } = configSchema();
    // allErrors: every problem is collected, and the one reported is chosen in reading order
    // (see firstProblem); ajv alone would stop at its own keyword order (required before
    // additionalProperties), telling "work is missing" before "app must be an object".
    // strictRequired off: the schema's if/then branches require properties (work.jobId,
    // database.flagColumn, ...) that the parent object declares, which that check cannot see.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(schema);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new ConfigError(`The config schema ${path} is not a valid JSON Schema (${why}); reinstall dedup-verify.`, undefined, { cause: e });
    }
    compiled = { schema, validate, keyPaths: schemaKeyPaths(schema) };
  }
  return compiled;
}

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** JSON on one line, spaced as people write it: {"a": 1, "b": [2, 3]}. */
export function renderExample(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(renderExample).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${renderExample(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Levenshtein distance, case-insensitive. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[t.length] ?? 0;
}

/** The suggestion for an unknown key at `parent` ("" for top level). */
function suggest(key: string, parent: string, siblings: readonly string[], keyPaths: readonly string[]): string {
  const at = (k: string): string => (parent === '' ? k : `${parent}.${k}`);
  // A known key in another section: the most common slip.
  const elsewhere = keyPaths.find((p) => p !== at(key) && p.split('.').pop() === key);
  if (elsewhere !== undefined) return `did you mean "${elsewhere}"? (it belongs ${elsewhere.includes('.') ? `inside "${elsewhere.split('.')[0] ?? ''}"` : 'at the top level'})`;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const s of siblings) {
    const d = distance(key, s);
    if (d < bestDistance) {
      best = s;
      bestDistance = d;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))) return `did you mean "${at(best)}"?`;
  return `valid keys${parent === '' ? '' : ` in "${parent}"`}: ${siblings.join(', ')}`;
}

/** One problem ajv found, located at a config field. */
interface Problem {
  readonly kind: 'unknown' | 'missing' | 'invalid';
  /** Property names from the root; [] is the config itself. */
  readonly path: readonly string[];
  /** Reading order: compared element by element (see rankOf). */
  readonly rank: readonly number[];
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(json: unknown, path: readonly string[]): unknown {
  let value = json;
  for (const key of path) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return value;
}

/** Index of each key of `path` among its parent's schema properties. */
function schemaIndexes(schema: SchemaNode, path: readonly string[]): number[] {
  return path.map((key, i) => Object.keys(schemaNodeAt(schema, path.slice(0, i))?.properties ?? {}).indexOf(key));
}

/**
 * Where a problem comes in reading order: at each object, its own type first, then its
 * unknown keys (in the order written), then its fields in schema order, depth first.
 */
function rankOf(schema: SchemaNode, json: unknown, kind: Problem['kind'], path: readonly string[]): number[] {
  if (kind !== 'unknown') return [...schemaIndexes(schema, path), -2];
  const parent = path.slice(0, -1);
  const written = Object.keys(valueAt(json, parent) ?? {});
  return [...schemaIndexes(schema, parent), -1, written.indexOf(path[path.length - 1] ?? '')];
}

function problemOf(schema: SchemaNode, json: unknown, error: ErrorObject): Problem {
  const at = pointerSegments(error.instancePath);
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  let kind: Problem['kind'];
  let path: string[];
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    kind = 'unknown';
    path = [...at, params.additionalProperty];
  } else if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    kind = 'missing';
    path = [...at, params.missingProperty];
  } else {
    kind = 'invalid';
    // Errors inside a field's value (an item of "$comment", a branch of its oneOf) are the field's.
    path = at;
    while (path.length > 0 && schemaNodeAt(schema, path) === undefined) path = path.slice(0, -1);
  }
  return { kind, path, rank: rankOf(schema, json, kind, path) };
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Keywords whose error only says that a branch failed (`if`: "must match "then" schema", `anyOf`:
 * "must match a schema in anyOf"): the errors inside the branch say what is wrong, and are told.
 */
const BRANCH_KEYWORDS: ReadonlySet<string> = new Set(['if', 'anyOf']);

function firstProblem(schema: SchemaNode, json: unknown, errors: readonly ErrorObject[]): Problem | undefined {
  let first: Problem | undefined;
  const told = errors.some((e) => !BRANCH_KEYWORDS.has(e.keyword)) ? errors.filter((e) => !BRANCH_KEYWORDS.has(e.keyword)) : errors;
  for (const error of told) {
    const problem = problemOf(schema, json, error);
    if (first === undefined || compareRanks(problem.rank, first.rank) < 0) first = problem;
  }
  return first;
}

/** "an object with "file", "table" and "keyColumn"", from the schema's required keys. */
function objectShape(node: SchemaNode): string {
  if (node.maxProperties === 1 && node.properties !== undefined) {
    return `an object with exactly one of ${Object.keys(node.properties).map((k) => `"${k}"`).join(', ').replace(/, ([^,]*)$/, ' or $1')}`;
  }
  const required = (node.required ?? []).map((k) => `"${k}"`);
  return required.length > 0 ? `an object with ${required.join(', ').replace(/, ([^,]*)$/, ' and $1')}` : 'an object';
}

function expectationOf(dotted: string, node: SchemaNode | undefined): Expectation {
  if (node?.type === 'object') return { expect: objectShape(node) };
  return EXPECTATIONS[dotted] ?? { expect: `valid per the config schema${node?.description === undefined ? '' : ` (${node.description})`}` };
}

/** The schema's first example of `node`, with the note of `expectation`; undefined when none. */
function exampleOf(node: SchemaNode | undefined, expectation: Expectation): string | undefined {
  if (node?.examples === undefined || node.examples.length === 0) return undefined;
  const text = renderExample(node.examples[0]);
  return expectation.exampleNote === undefined ? text : `${text} ${expectation.exampleNote}`;
}

function wordProblem(problem: Problem, compiledSchema: Compiled, json: unknown): string {
  const { schema, keyPaths } = compiledSchema;
  const dotted = problem.path.join('.');
  const key = problem.path[problem.path.length - 1] ?? '';
  if (problem.kind === 'unknown') {
    const parent = problem.path.slice(0, -1);
    const siblings = Object.keys(schemaNodeAt(schema, parent)?.properties ?? {});
    return `unknown key "${dotted}"; ${suggest(key, parent.join('.'), siblings, keyPaths)}`;
  }
  const node = schemaNodeAt(schema, problem.path);
  if (problem.path.length === 0) {
    const example = exampleOf(node, { expect: '' });
    return `the config must be a JSON object${example === undefined ? '' : ` (e.g. ${example})`}, got ${show(json)}`;
  }
  const expectation = expectationOf(dotted, node);
  const example = exampleOf(node, expectation);
  if (problem.kind === 'missing') {
    return `"${dotted}" is missing; it must be ${expectation.expect}${example === undefined ? '' : ` (e.g. "${key}": ${example})`}`;
  }
  return `"${dotted}" must be ${expectation.expect}${example === undefined ? '' : ` (e.g. ${example})`}, got ${show(valueAt(json, problem.path))}`;
}

/**
 * Checks a parsed config against the schema. `source` names the file in messages. Throws
 * ConfigError (with `field` = the JSON path) for the first problem in reading order: the
 * config itself, then each object's unknown keys, then its fields in schema order.
 */
export function validateConfig(json: unknown, source: string): asserts json is Record<string, unknown> {
  const c = compiledSchema();
  if (c.validate(json)) return;
  const problem = firstProblem(c.schema, json, c.validate.errors ?? []);
  if (problem === undefined) throw new ConfigError(`config ${source}: does not match the config schema`, '');
  throw new ConfigError(`config ${source}: ${wordProblem(problem, c, json)}`, problem.path.join('.'));
}
