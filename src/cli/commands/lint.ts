/**
 * `dedup-verify lint PATH... [--json]` (docs/design.md §9): static checks on the app's Kotlin and Java
 * sources and Room schema JSON. One line per finding, `path:line: rule-id: message`, sorted;
 * `--json` prints `{ findings, filesScanned, unresolved, notes }`; notes (what could not be checked) go to stderr. Returns 0 without findings, 1 with
 * findings; usage errors (a missing path, nothing to lint) are thrown as UsageError (exit 2).
 */
import { UsageError } from '../../errors.js';
import { lintPaths } from '../../lint/lint.js';
import type { LintResult } from '../../lint/model.js';
import type { CliIo } from '../io.js';

export function formatFindings(result: LintResult): string {
  return result.findings.map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.message}\n`).join('');
}

export async function runLint(paths: readonly string[], opts: Readonly<Record<string, unknown>>, io: CliIo): Promise<number> {
  if (opts['json'] !== undefined && typeof opts['json'] !== 'boolean') throw new UsageError('--json takes no value.');
  const result = await lintPaths(paths);
  if (opts['json'] === true) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    io.stdout(formatFindings(result));
    for (const note of result.notes) io.stderr(`note: ${note.message}\n`);
    const n = result.findings.length;
    const u = result.unresolved.length;
    const notes = u === 0 ? '' : ` (${u} value${u === 1 ? '' : 's'} could not be evaluated; --json lists ${u === 1 ? 'it' : 'them'} under "unresolved")`;
    const k = result.notes.length;
    const notChecked = k === 0 ? '' : `; ${k === 1 ? 'the note above says' : 'the notes above say'} what was not checked`;
    io.stderr(`${n === 0 ? 'no findings' : `${n} finding${n === 1 ? '' : 's'}`} in ${result.filesScanned} file${result.filesScanned === 1 ? '' : 's'}${notes}${notChecked}\n`);
  }
  return result.findings.length > 0 ? 1 : 0;
}
