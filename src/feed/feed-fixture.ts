/**
 * Named fixture feeds (fixtures/feeds/): `<name>.json` item specs whose dates are relative to
 * the moment the feed is served, or `<name>.xml` served verbatim.
 *
 * JSON shape: `{ "description": string, "format"?: "rss" | "atom", "items": ItemSpec[] }` where
 * an ItemSpec is `{ "title": string, "link": string | null, <date> }` (`null` = no link
 * element, `""` = empty link element) and <date> is exactly one of `"ageHours": number`,
 * `"ageMs": number`, `"at": "RFC 3339 text" | epoch ms`, `"rawDate": "verbatim text"`.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DedupVerifyError, ErrorCode } from '../errors.js';
import { HOUR_MS, publishedAgo, publishedAt, publishedRaw } from './feed-items.js';
import type { FeedItem, Published } from './feed-items.js';
import { parseFeedDate } from './parse-feed.js';
import { FeedFormat, isFeedFormat } from './render-feed.js';

export interface FeedFixture {
  readonly name: string;
  readonly description: string;
  readonly format: FeedFormat;
  /** Items as specified: relative dates stay relative until served. */
  readonly items: readonly FeedItem[];
}

export type LoadedFeedFixture =
  | { readonly kind: 'items'; readonly path: string; readonly fixture: FeedFixture }
  | { readonly kind: 'xml'; readonly path: string; readonly name: string; readonly xml: string };

const FIXTURE_EXTENSIONS = ['.json', '.xml'] as const;

/** fixtures/feeds of this package, found from this module upwards (works from src/ and dist/src/). */
export function findFeedFixturesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'fixtures', 'feeds');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new DedupVerifyError(
        ErrorCode.FixtureServer,
        `No fixtures/feeds directory found above ${dirname(fileURLToPath(import.meta.url))}. Reinstall dedup-verify, or serve a file with --file FEED.xml.`,
      );
    }
    dir = parent;
  }
}

/** Fixture names (file names without extension), sorted. */
export async function listFeedFixtures(dir: string = findFeedFixturesDir()): Promise<string[]> {
  const files = await readdir(dir);
  const names = files.flatMap((f) => FIXTURE_EXTENSIONS.filter((ext) => f.endsWith(ext)).map((ext) => f.slice(0, -ext.length)));
  return [...new Set(names)].sort();
}

function fail(where: string, problem: string): never {
  throw new DedupVerifyError(ErrorCode.FixtureServer, `Invalid feed fixture ${where}: ${problem}.`);
}

function parseDate(spec: Record<string, unknown>, where: string): Published {
  const keys = ['ageHours', 'ageMs', 'at', 'rawDate'].filter((k) => k in spec);
  if (keys.length !== 1) fail(where, `give exactly one of ageHours, ageMs, at, rawDate (found: ${keys.join(', ') || 'none'})`);
  const { ageHours, ageMs, at, rawDate } = spec;
  if (ageHours !== undefined) {
    if (typeof ageHours !== 'number' || !Number.isFinite(ageHours)) fail(where, 'ageHours must be a number');
    return publishedAgo(Math.round(ageHours * HOUR_MS));
  }
  if (ageMs !== undefined) {
    if (typeof ageMs !== 'number' || !Number.isFinite(ageMs)) fail(where, 'ageMs must be a number');
    return publishedAgo(ageMs);
  }
  if (at !== undefined) {
    if (typeof at === 'number' && Number.isFinite(at)) return publishedAt(at);
    const ms = typeof at === 'string' ? parseFeedDate(at) : 0;
    if (ms === 0) fail(where, `at must be epoch ms or an RFC 3339 / RFC 822 date after 1970 (got ${JSON.stringify(at)})`);
    return publishedAt(ms);
  }
  if (typeof rawDate !== 'string') fail(where, 'rawDate must be a string');
  return publishedRaw(rawDate);
}

/** Validates the JSON of a fixture; `name` is used in messages. */
export function parseFeedFixture(name: string, json: unknown): FeedFixture {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(name, 'the file must hold a JSON object');
  const root = json as Record<string, unknown>;
  const description = root['description'] ?? '';
  if (typeof description !== 'string') fail(`${name}.description`, 'must be a string');
  const format = root['format'] ?? FeedFormat.rss;
  if (!isFeedFormat(format)) fail(`${name}.format`, `must be "rss" or "atom" (got ${JSON.stringify(format)})`);
  const items = root['items'];
  if (!Array.isArray(items)) fail(`${name}.items`, 'must be an array of items');
  return {
    name,
    description,
    format,
    items: items.map((raw: unknown, i): FeedItem => {
      const where = `${name}.items[${i}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(where, 'must be an object');
      const spec = raw as Record<string, unknown>;
      const { title, link } = spec;
      if (typeof title !== 'string') fail(`${where}.title`, 'must be a string');
      if (!('link' in spec) || (link !== null && typeof link !== 'string')) fail(`${where}.link`, 'must be a string, "" (empty element) or null (no element)');
      return { title, link, published: parseDate(spec, where) };
    }),
  };
}

/** Loads a fixture by name (`fresh-five` or `fresh-five.json`); unknown names list the available ones. */
export async function loadFeedFixture(name: string, dir: string = findFeedFixturesDir()): Promise<LoadedFeedFixture> {
  const base = FIXTURE_EXTENSIONS.reduce((n, ext) => (n.endsWith(ext) ? n.slice(0, -ext.length) : n), name);
  const available = await listFeedFixtures(dir);
  if (!/^[\w.-]+$/.test(base) || !available.includes(base)) {
    throw new DedupVerifyError(
      ErrorCode.FixtureServer,
      `Unknown feed fixture "${name}". Available: ${available.join(', ') || 'none'} (in ${dir}); or serve your own file with --file FEED.xml.`,
    );
  }
  const jsonPath = join(dir, `${base}.json`);
  if (existsSync(jsonPath)) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(jsonPath, 'utf8'));
    } catch (e) {
      throw new DedupVerifyError(ErrorCode.FixtureServer, `Feed fixture ${jsonPath} is not valid JSON: ${e instanceof Error ? e.message : String(e)}.`, { cause: e });
    }
    return { kind: 'items', path: jsonPath, fixture: parseFeedFixture(base, json) };
  }
  const xmlPath = join(dir, `${base}.xml`);
  return { kind: 'xml', path: xmlPath, name: base, xml: await readFile(xmlPath, 'utf8') };
}
