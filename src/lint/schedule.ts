/**
 * What schedules the app's background work, when it is not WorkManager periodic work. The rules
 * that read a WorkManager schedule (window-vs-interval, periodic-without-unique-name) have
 * nothing to read then, and the rules that follow a worker's path have no worker to start from:
 * the result says so instead of a silent "no findings".
 *
 * Recognised: JobScheduler `JobInfo.Builder.setPeriodic(…)`, SyncAdapter
 * `ContentResolver.addPeriodicSync(…)`, AlarmManager `setRepeating`/`setInexactRepeating` and the
 * one-shot alarms apps re-arm (`setExactAndAllowWhileIdle`, `setAndAllowWhileIdle`, `setExact`,
 * `setWindow`) on an alarm manager receiver.
 */
import type { LintNote, Project } from './model.js';
import { RuleId } from './model.js';
import { findPeriodicSites } from './periodic-work.js';
import { workerClasses } from './project.js';
import { chainStart, isCallAt } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isOp } from './tokenizer.js';

const ALARM_CALLS = /^(setRepeating|setInexactRepeating|setExactAndAllowWhileIdle|setAndAllowWhileIdle|setExact|setWindow)$/;

interface Found {
  readonly what: string;
  readonly file: string;
  readonly line: number;
}

function otherSchedules(project: Project): Found[] {
  const out: Found[] = [];
  for (const file of project.files) {
    const toks = file.tokens;
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i] as Token;
      if (t.kind !== TokenKind.Identifier || !isOp(toks[i - 1], '.') || !isCallAt(file, i)) continue;
      if (t.value === 'setPeriodic') out.push({ what: 'JobScheduler setPeriodic', file: file.path, line: t.line });
      else if (t.value === 'addPeriodicSync') out.push({ what: 'SyncAdapter addPeriodicSync', file: file.path, line: t.line });
      else if (ALARM_CALLS.test(t.value)) {
        let alarm = false;
        for (let k = chainStart(file, i); k < i; k++) if (/alarm/i.test((toks[k] as Token).value)) alarm = true;
        if (alarm) out.push({ what: `AlarmManager ${t.value}`, file: file.path, line: t.line });
      }
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
}

/** Notes about the schedule: empty when WorkManager periodic work is found. */
export function scheduleNotes(project: Project): LintNote[] {
  if (project.files.length === 0 || findPeriodicSites(project).length > 0) return [];
  const found = otherSchedules(project);
  const workers = workerClasses(project).filter((w) => w.cls.name !== '');
  const instead = found.length > 0
    ? `found instead: ${found.slice(0, 5).map((f) => `${f.what} (${f.file}:${f.line})`).join(', ')}${found.length > 5 ? ` and ${found.length - 5} more` : ''}`
    : 'and no JobScheduler setPeriodic, addPeriodicSync or AlarmManager schedule either';
  const notRun = `${RuleId.WindowVsInterval} and ${RuleId.PeriodicWithoutUniqueName} did not run (they read a WorkManager schedule)`;
  const path = workers.length === 0
    ? `; with no WorkManager worker, ${RuleId.NewestFirst}, ${RuleId.DedupOnTitle}, ${RuleId.DateDefaultsToNow}, ${RuleId.ChannelOnlyInActivity} and ${RuleId.NewKeyPerAttempt} had no worker path to follow and judged only code that nothing scanned calls`
    : '';
  const first = found[0];
  return [{
    ...(first ? { file: first.file, line: first.line } : {}),
    message: `no WorkManager periodic work found (no PeriodicWorkRequest); ${instead}: ${notRun}${path}`,
  }];
}
