/**
 * The JSON Schema of `dedup-verify.config.json` (schema/dedup-verify.config.schema.json), read
 * at run time: it is the one statement of the config's rules, for editors and for the loader.
 * Found from this module upwards, so it resolves from the source tree (src/config/) and from
 * the built package (dist/src/config/, the schema shipped at the package root).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';

/** Where the schema lives, relative to the package root. */
export const CONFIG_SCHEMA_FILE = 'schema/dedup-verify.config.schema.json';

/** The part of JSON Schema the config schema is read through (messages, examples, key paths). */
export interface SchemaNode {
  readonly $schema?: string;
  readonly description?: string;
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  /** An array's items (feed.attach). */
  readonly items?: SchemaNode;
  readonly maxProperties?: number;
  readonly required?: readonly string[];
  readonly examples?: readonly unknown[];
  readonly default?: unknown;
}

/**
 * The file `relativePath` (slash-separated, from the package root) of the package holding
 * `fromDir`: the nearest directory at or above it with a package.json and that file. Undefined
 * when there is none. The report schema (src/report/report-schema.ts) is found the same way.
 */
export function findPackageFile(relativePath: string, fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, ...relativePath.split('/'));
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The config schema file of the package holding `fromDir` (undefined: none). */
export function findConfigSchema(fromDir: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  return findPackageFile(CONFIG_SCHEMA_FILE, fromDir);
}

/** Reads and parses the schema file at `path` (undefined: not found); throws ConfigError naming the fix. */
export function readConfigSchema(path: string | undefined): { readonly path: string; readonly schema: SchemaNode } {
  if (path === undefined) {
    throw new ConfigError(`The config schema (${CONFIG_SCHEMA_FILE}) is missing from this installation; reinstall dedup-verify.`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ConfigError(`The config schema ${path} cannot be read (${why}); reinstall dedup-verify.`, undefined, { cause: e });
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigError(`The config schema ${path} is not a JSON object; reinstall dedup-verify.`);
  }
  return { path, schema };
}

let loaded: { readonly path: string; readonly schema: SchemaNode } | undefined;

/** The package's schema, read on first use and kept. Throws ConfigError when it cannot be read. */
export function configSchema(): { readonly path: string; readonly schema: SchemaNode } {
  loaded ??= readConfigSchema(findConfigSchema());
  return loaded;
}

/** The node of `path` (property names from the root), undefined when the schema has none. */
export function schemaNodeAt(root: SchemaNode, path: readonly string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const key of path) {
    // An index into an array (feed.attach.0) is the array's items.
    if (node?.items !== undefined && /^\d+$/.test(key)) {
      node = node.items;
      continue;
    }
    node = node?.properties !== undefined && Object.hasOwn(node.properties, key) ? node.properties[key] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** Every property path the schema declares ("app", "app.package", ...), in schema order. */
export function schemaKeyPaths(root: SchemaNode): string[] {
  const out: string[] = [];
  const walk = (node: SchemaNode, prefix: string): void => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      out.push(path);
      walk(child, path);
    }
  };
  walk(root, '');
  return out;
}
