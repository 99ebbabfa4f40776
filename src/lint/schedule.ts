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
import { functionAt } from './declarations.js';
import type { PeriodicSite } from './periodic-work.js';
import { findPeriodicSites } from './periodic-work.js';
import { resolverOf } from './resolve.js';
import { isJobClass, workerClasses } from './project.js';
import { chainStart, isCallAt } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

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

/**
 * True when the function around a PeriodicWorkRequest is called: by a resolved call in the
 * sources, or as a framework callback (`override`, `@Override`). A `schedulePeriodicSync()` that
 * nothing calls builds its request for nothing (Droid-ify's WorkManager path beside its
 * JobScheduler `SyncService.Job`).
 */
function siteIsCalled(project: Project, site: PeriodicSite): boolean {
  const fn = functionAt(site.file.decls, site.index);
  if (!fn) return true;
  if (fn.annotations.some((a) => a.name === 'Override')) return true;
  for (let k = fn.nameIndex - 1; k >= Math.max(0, fn.nameIndex - 6); k--) if (isIdent(site.file.tokens[k], 'override')) return true;
  return resolverOf(project).callers(fn).length > 0;
}

/** Notes about the schedule: empty when WorkManager periodic work is found and scheduled. */
export function scheduleNotes(project: Project): LintNote[] {
  if (project.files.length === 0) return [];
  const sites = findPeriodicSites(project);
  const uncalled = sites.filter((s) => !siteIsCalled(project, s));
  if (sites.length > 0 && uncalled.length === 0) return [];
  const found = otherSchedules(project);
  if (sites.length > 0) {
    if (found.length === 0) return [];
    const instead = `found instead: ${found.slice(0, 5).map((f) => `${f.what} (${f.file}:${f.line})`).join(', ')}${found.length > 5 ? ` and ${found.length - 5} more` : ''}`;
    const where = (site: PeriodicSite): string => `${site.file.path}:${(site.file.tokens[site.index] as Token).line}`;
    if (uncalled.length === sites.length) {
      const site = sites[0] as PeriodicSite;
      return [{
        file: found[0]?.file as string,
        line: found[0]?.line as number,
        message: `the PeriodicWorkRequest (${where(site)}) is built in a function nothing calls, so the work is not scheduled by WorkManager; ${instead}: ${RuleId.WindowVsInterval} compared the unused request's interval, not the one that runs`,
      }];
    }
    // other periodic work is scheduled (a cleanup), but this request is not: its worker does not run
    // periodically, and the periodic work that does is the JobScheduler job or alarm (Droid-ify's
    // SyncWorker.schedulePeriodicSync() beside CleanUpWorker's schedule and SyncService.Job)
    return uncalled.map((site) => {
      const fn = functionAt(site.file.decls, site.index);
      const worker = site.worker !== undefined ? `${site.worker}'s PeriodicWorkRequest` : 'a PeriodicWorkRequest';
      return {
        file: site.file.path,
        line: (site.file.tokens[site.index] as Token).line,
        message:
          `${worker} (${where(site)}) is built in ${fn ? `${fn.name}(), ` : ''}a function nothing calls, so WorkManager does not run ${site.worker ?? 'that work'} periodically; ` +
          `${instead}: ${RuleId.WindowVsInterval} read the unused request's interval, not the one that runs`,
      };
    });
  }
  const workers = workerClasses(project).filter((w) => w.cls.name !== '');
  const instead = found.length > 0
    ? `found instead: ${found.slice(0, 5).map((f) => `${f.what} (${f.file}:${f.line})`).join(', ')}${found.length > 5 ? ` and ${found.length - 5} more` : ''}`
    : 'and no JobScheduler setPeriodic, addPeriodicSync or AlarmManager schedule either';
  const notRun = `${RuleId.WindowVsInterval} and ${RuleId.PeriodicWithoutUniqueName} did not run (they read a WorkManager schedule)`;
  // JobScheduler jobs and SyncAdapters are followed as worker paths (paths.ts): say which, so the note stays true
  const jobs = project.files.flatMap((file) => file.decls.classes.filter((cls) => cls.name !== '' && isJobClass(project, cls)).map((cls) => `${cls.name} (${file.path}:${(file.tokens[cls.index] as Token).line})`));
  const pathRules = `${RuleId.NewestFirst}, ${RuleId.DedupOnTitle}, ${RuleId.DateDefaultsToNow}, ${RuleId.ChannelOnlyInActivity} and ${RuleId.NewKeyPerAttempt}`;
  const path = workers.length > 0
    ? ''
    : jobs.length > 0
      ? `; with no WorkManager worker, ${pathRules} followed the path of the JobScheduler job or SyncAdapter instead: ${jobs.slice(0, 3).join(', ')}${jobs.length > 3 ? ` and ${jobs.length - 3} more` : ''}`
      : `; with no WorkManager worker, JobScheduler job or SyncAdapter, ${pathRules} had no worker path to follow and judged only code that nothing scanned calls`;
  const first = found[0];
  return [{
    ...(first ? { file: first.file, line: first.line } : {}),
    message: `no WorkManager periodic work found (no PeriodicWorkRequest); ${instead}: ${notRun}${path}`,
  }];
}
