/**
 * The JSON Schema of `report.json` (schema/dedup-verify.report.schema.json): what `run --out`
 * writes and what `dedup-verify report DIR` accepts back. A handed-in report is validated with
 * ajv (draft 2020-12, as the config is: src/config/validate-config.ts) before any of it reaches
 * a page: every field has its type (a count is a whole number, a verdict one of its words), and
 * no other field is allowed. A problem is told on one line naming the field, e.g.
 * `scenarios[0].counts.lostCount must be integer, got "<meta …>"`.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { findPackageFile } from '../config/config-schema.js';
import { DedupVerifyError, ErrorCode } from '../errors.js';

/** Where the schema lives, relative to the package root. */
export const REPORT_SCHEMA_FILE = 'schema/dedup-verify.report.schema.json';

let validator: ValidateFunction | undefined;

function compiledValidator(): ValidateFunction {
  if (validator !== undefined) return validator;
  const path = findPackageFile(REPORT_SCHEMA_FILE, dirname(fileURLToPath(import.meta.url)));
  if (path === undefined) {
    throw new DedupVerifyError(ErrorCode.Internal, `The report schema (${REPORT_SCHEMA_FILE}) is missing from this installation; reinstall dedup-verify.`);
  }
  try {
    validator = new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(path, 'utf8')) as object);
  } catch (e) {
    throw new DedupVerifyError(ErrorCode.Internal, `The report schema ${path} cannot be used (${e instanceof Error ? e.message : String(e)}); reinstall dedup-verify.`, { cause: e });
  }
  return validator;
}

/** `/scenarios/0/counts/lostCount` → `scenarios[0].counts.lostCount`. */
export function fieldName(pointer: string, extra?: string): string {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : `${out === '' ? '' : '.'}${/^[A-Za-z_$][\w$]*$/.test(s) ? s : JSON.stringify(s)}`;
  return out === '' ? 'the report' : out;
}

/** A value as JSON on one line (control characters escaped), cut at 60 characters. */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const s of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = s.replace(/~1/g, '/').replace(/~0/g, '~');
    value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** One ajv error in words: the field, what it must be, what it is. */
function wordError(error: ErrorObject, root: unknown): string {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown; allowedValues?: unknown };
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') return `${fieldName(error.instancePath, params.missingProperty)} is missing`;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${fieldName(error.instancePath, params.additionalProperty)} is not a field of report.json`;
  }
  const must = error.keyword === 'enum' && Array.isArray(params.allowedValues) ? `must be one of ${params.allowedValues.join(', ')}` : (error.message ?? 'is not valid');
  return `${fieldName(error.instancePath)} ${must}, got ${show(valueAt(root, error.instancePath))}`;
}

/** The first problem of `value` against the report schema, in words; undefined when it is valid. */
export function reportProblem(value: unknown): string | undefined {
  const validate = compiledValidator();
  if (validate(value)) return undefined;
  const errors = validate.errors ?? [];
  // The deepest, then the first, error is the one that names the field (a wrong count, not "scenarios[0] is not valid").
  const first = [...errors].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)[0];
  return first === undefined ? 'it does not match the report schema' : wordError(first, value);
}
