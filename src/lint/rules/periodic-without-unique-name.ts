/**
 * Rule `periodic-without-unique-name`: a periodic request is enqueued with `enqueue(…)`.
 *
 * `WorkManager.enqueue(request)` adds a new WorkSpec on every call; only
 * `enqueueUniquePeriodicWork(name, ExistingPeriodicWorkPolicy.KEEP, request)` keeps one
 * schedule per name (androidx/androidx `work/work-runtime/src/main/java/androidx/work/WorkManager.kt`).
 * Scheduling from `Application.onCreate` or an Activity with `enqueue` stacks a new periodic
 * worker on each start, and the copies race each other (docs/sources/001: "Unique work prevents
 * duplicate local schedules").
 */
import { functionAt } from '../declarations.js';
import type { ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { callsIn } from '../project.js';
import type { Range } from '../syntax.js';
import { callOpenParen, splitArgs } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.PeriodicWithoutUniqueName;

function buildsPeriodic(file: ParsedFile, r: Range): boolean {
  for (let k = r.start; k <= r.end; k++) {
    if (isIdent(file.tokens[k], 'PeriodicWorkRequestBuilder')) return true;
    if (isIdent(file.tokens[k], 'PeriodicWorkRequest') && isOp(file.tokens[k + 1], '.') && isIdent(file.tokens[k + 2], 'Builder')) return true;
  }
  return false;
}

function isPeriodicArg(project: Project, file: ParsedFile, r: Range, at: number): boolean {
  if (buildsPeriodic(file, r)) return true;
  if (isIdent(file.tokens[r.start], /^(listOf|arrayListOf|mutableListOf|asList|of)$/) && isOp(file.tokens[r.start + 1], '(')) {
    return splitArgs(file, r.start + 1).some((a) => isPeriodicArg(project, file, a, at));
  }
  if (r.start !== r.end || file.tokens[r.start]?.kind !== TokenKind.Identifier) return false;
  const name = (file.tokens[r.start] as Token).value;
  const decls = project.resolver.lookup(name, file, at);
  if (decls.some((d) => d.typeName === 'PeriodicWorkRequest' || buildsPeriodic(d.file, d.init))) return true;
  const fn = functionAt(file.decls, at);
  return fn?.params.some((p) => p.name === name && p.typeName === 'PeriodicWorkRequest') ?? false;
}

export function checkPeriodicWithoutUniqueName(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  for (const file of project.files) {
    for (const i of callsIn(file, 'enqueue')) {
      if (!isOp(file.tokens[i - 1], '.') && !isOp(file.tokens[i - 1], '?.')) continue;
      const args = splitArgs(file, callOpenParen(file, i));
      if (args.length !== 1) continue;
      if (!isPeriodicArg(project, file, args[0] as Range, i)) continue;
      const t = file.tokens[i] as Token;
      findings.push({
        file: file.path,
        line: t.line,
        column: t.column,
        rule: RULE,
        message:
          'periodic work is scheduled with enqueue(…), without a unique name: every call (each app start) adds another periodic WorkSpec and the copies run and notify side by side; ' +
          'use enqueueUniquePeriodicWork(name, ExistingPeriodicWorkPolicy.KEEP, request)',
      });
    }
  }
  return { findings, unresolved: [] };
}
