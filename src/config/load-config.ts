/** Reading `dedup-verify.config.json` from disk. */
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { parseConfig } from './parse-config.js';
import type { Config } from './types.js';

function describeReadError(e: unknown): string {
  switch ((e as { code?: unknown } | null)?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/** Where in the text a JSON.parse error points, as "line L column C", when the message says. */
function locate(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const position = Number(m[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return ` at line ${line} column ${column}`;
}

/** Parses config text (JSON) from `source`; throws ConfigError naming the problem and the fix. */
export function parseConfigText(text: string, source: string): Config {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new ConfigError(`config ${source}: not valid JSON${locate(text, message)} (${message}); fix the syntax (no comments or trailing commas in JSON)`, undefined, { cause: e });
  }
  return parseConfig(json, source);
}

/** Reads and validates a config file; throws ConfigError. */
export async function loadConfig(path: string): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `config ${path}: cannot read it (${describeReadError(e)}); pass --config FILE, or create dedup-verify.config.json (see fixtures/reference-app.config.json, or run dedup-verify init)`,
      undefined,
      { cause: e },
    );
  }
  return parseConfigText(text, path);
}
