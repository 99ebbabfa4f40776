/**
 * `dedup-verify lint`: static checks on an app's Kotlin and Java sources and Room schema JSON.
 * `lintSources` is pure (file contents in, findings out); `lintPaths` adds a thin file reader.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';
import type { Finding, LintResult, Project, RuleOutput, SourceText, UnresolvedNote } from './model.js';
import { RuleId } from './model.js';
import { buildProject } from './project.js';
import { scheduleNotes } from './schedule.js';
import { schemaNotes } from './schema-note.js';
import { checkChannelOnlyInActivity } from './rules/channel-only-in-activity.js';
import { checkDateDefaultsToNow } from './rules/date-defaults-to-now.js';
import { checkDedupOnTitle } from './rules/dedup-on-title.js';
import { checkKeyNotUnique } from './rules/key-not-unique.js';
import { checkMemoryOnlyDedup } from './rules/memory-only-dedup.js';
import { checkMigrationBackfill } from './rules/migration-backfill.js';
import { checkNewKeyPerAttempt } from './rules/new-key-per-attempt.js';
import { checkNewestFirst } from './rules/newest-first.js';
import { checkPeriodicWithoutUniqueName } from './rules/periodic-without-unique-name.js';
import { checkRetryOnAuthFailure } from './rules/retry-on-auth-failure.js';
import { checkWindowVsInterval } from './rules/window-vs-interval.js';

/** Every rule, by id. */
export const RULES: Readonly<Record<RuleId, (project: Project) => RuleOutput>> = {
  [RuleId.WindowVsInterval]: checkWindowVsInterval,
  [RuleId.DateDefaultsToNow]: checkDateDefaultsToNow,
  [RuleId.DedupOnTitle]: checkDedupOnTitle,
  [RuleId.NewestFirst]: checkNewestFirst,
  [RuleId.NewKeyPerAttempt]: checkNewKeyPerAttempt,
  [RuleId.RetryOnAuthFailure]: checkRetryOnAuthFailure,
  [RuleId.ChannelOnlyInActivity]: checkChannelOnlyInActivity,
  [RuleId.MemoryOnlyDedup]: checkMemoryOnlyDedup,
  [RuleId.PeriodicWithoutUniqueName]: checkPeriodicWithoutUniqueName,
  [RuleId.KeyNotUnique]: checkKeyNotUnique,
  [RuleId.MigrationBackfill]: checkMigrationBackfill,
};

function compareLocation(a: { file: string; line: number; column?: number; rule: string; message: string }, b: typeof a): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  if ((a.column ?? 0) !== (b.column ?? 0)) return (a.column ?? 0) - (b.column ?? 0);
  if (a.rule !== b.rule) return a.rule < b.rule ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/** Lints file contents. Paths are used as given (display paths). Never throws on source text. */
export function lintSources(sources: readonly SourceText[]): LintResult {
  const { project, scanned } = buildProject(sources);
  const findings: Finding[] = [];
  const unresolved: UnresolvedNote[] = [];
  for (const rule of Object.values(RULES)) {
    const out = rule(project);
    findings.push(...out.findings);
    unresolved.push(...out.unresolved);
  }
  const seen = new Set<string>();
  const unique = findings.filter((f) => {
    const key = `${f.file}:${f.line}:${f.column}:${f.rule}:${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { findings: unique.sort(compareLocation), filesScanned: scanned, unresolved: unresolved.sort(compareLocation), notes: [...scheduleNotes(project), ...schemaNotes(project)] };
}

/**
 * Directories never descended into: build output, VCS and IDE state, dependencies, and test
 * source sets (test code builds fixtures the rules would report). A file given by name is
 * always linted.
 */
const SKIP_DIRS = new Set([
  'build', '.git', '.gradle', '.idea', 'node_modules', 'out', '.cxx', 'intermediates', 'generated',
  'test', 'androidTest', 'testFixtures', 'sharedTest', 'testDebug', 'testRelease',
]);

function isLintable(path: string): boolean {
  return /\.(kt|kts|java|sq|sqm)$/i.test(path) || /(^|[\\/])\d+\.json$/.test(path);
}

async function collect(path: string, out: string[]): Promise<void> {
  const st = await stat(path);
  if (st.isDirectory()) {
    const entries = await readdir(path, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await collect(join(path, e.name), out);
      } else if (e.isFile() && isLintable(e.name)) {
        out.push(join(path, e.name));
      }
    }
  } else if (st.isFile()) {
    out.push(path);
  }
}

function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

/**
 * Reads the given files and directories (recursively: .kt, .kts, .java and Room `<version>.json`)
 * and lints them. Paths in the result are relative to `cwd`. Throws UsageError when a path does
 * not exist or nothing lintable is found.
 */
export async function lintPaths(paths: readonly string[], cwd: string = process.cwd()): Promise<LintResult> {
  if (paths.length === 0) throw new UsageError('lint needs at least one path: dedup-verify lint app/src/main');
  const files: string[] = [];
  for (const p of paths) {
    const abs = resolve(cwd, p);
    try {
      await collect(abs, files);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new UsageError(`No such file or directory: ${p}. Pass the app's source directory, e.g. dedup-verify lint app/src/main app/schemas`, { cause: e });
      }
      throw new UsageError(`Cannot read ${p} (${code ?? String(e)}). Check the path and its permissions.`, { cause: e });
    }
  }
  const unique = [...new Set(files)];
  const sources: SourceText[] = [];
  for (const f of unique) sources.push({ path: displayPath(f, cwd), text: await readFile(f, 'utf8') });
  const result = lintSources(sources);
  if (result.filesScanned === 0) {
    throw new UsageError(
      `Nothing to lint in ${paths.join(', ')}: no .kt, .java or Room schema <version>.json files. Pass the app's source directory, e.g. dedup-verify lint app/src/main app/schemas`,
    );
  }
  return result;
}
