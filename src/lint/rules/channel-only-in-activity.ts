/**
 * Rule `channel-only-in-activity`: the notification channel is created only from an Activity
 * (or Fragment) while a Worker posts notifications.
 *
 * docs/sources/000: "a fresh process that starts inside the worker (rather than in the launcher
 * activity) still has a channel to post into" only if the channel is created on the worker's
 * path. On API 26+ a notification posted to a channel that does not exist is dropped: AOSP
 * frameworks/base `services/core/java/com/android/server/notification/NotificationManagerService.java`,
 * enqueueNotificationInternal, `Slog.e(TAG, "No Channel found for pkg=" …)` and return without
 * posting. Channel creation reachable
 * from a headless entry point (the Worker itself, Application.onCreate, a Service, a
 * BroadcastReceiver, an App Startup Initializer) is fine.
 */
import type { FunctionRef, Project, Related, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { callsIn, classesAround, functionsOf, isHeadlessEntryClass, isUiClass, isWorkerClass, notifyCallsIn, reachableFunctions } from '../project.js';
import { resolverOf } from '../resolve.js';
import type { Token } from '../tokenizer.js';
import { isIdent } from '../tokenizer.js';

const RULE = RuleId.ChannelOnlyInActivity;
const CREATE_CHANNEL = /^(createNotificationChannel|createNotificationChannels|createNotificationChannelsCompat)$/;

export function checkChannelOnlyInActivity(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const all: FunctionRef[] = [...project.functionsByName.values()].flat();
  // functions that create a channel, directly or through what they call
  const resolver = resolverOf(project);
  const direct = (r: FunctionRef): boolean => r.fn.body !== undefined && callsIn(r.file, CREATE_CHANNEL, r.fn.body).length > 0;
  if (!all.some(direct)) return { findings, unresolved: [] };
  const creates = (r: FunctionRef): boolean => resolver.reaches(r, 'createNotificationChannel', direct);

  const headlessRoots: FunctionRef[] = [];
  const workerRoots: FunctionRef[] = [];
  for (const file of project.files) {
    for (const cls of file.decls.classes) {
      if (cls.name === '') continue;
      if (isHeadlessEntryClass(project, cls)) headlessRoots.push(...functionsOf(project, file, cls));
      if (isWorkerClass(project, cls)) workerRoots.push(...functionsOf(project, file, cls));
    }
  }
  const workerReach = reachableFunctions(project, workerRoots);
  const posts = workerReach.flatMap((r) => notifyCallsIn(r).map((i) => ({ ref: r, i })));
  if (posts.length === 0) return { findings, unresolved: [] };
  if (reachesAny(project, headlessRoots, direct)) return { findings, unresolved: [] };


  const post = posts[0] as { ref: FunctionRef; i: number };
  const postTok = post.ref.file.tokens[post.i] as Token;
  const related: Related[] = [{ file: post.ref.file.path, line: postTok.line, what: `the worker posts here (${post.ref.fn.name})` }];
  for (const r of all) {
    if (!r.fn.body) continue;
    const inUi = classesAround(r.file, r.fn.nameIndex).some((c) => isUiClass(project, c));
    if (!inUi) continue;
    const viaHelpers = resolver.callSites(r).filter((c) => c.targets.some(creates)).map((c) => c.at).filter((i) => !isIdent(r.file.tokens[i - 2], 'super'));
    const sites = [...callsIn(r.file, CREATE_CHANNEL, r.fn.body), ...viaHelpers];
    for (const i of [...new Set(sites)].sort((a, b) => a - b)) {
      const t = r.file.tokens[i] as Token;
      findings.push({
        file: r.file.path,
        line: t.line,
        column: t.column,
        rule: RULE,
        message:
          `the notification channel is created only here, in an Activity (${r.fn.name}), but a Worker posts notifications: when the worker runs in a fresh process ` +
          'no Activity has run and the post goes to a channel that does not exist; create the channel (idempotent) right before posting',
        related,
      });
    }
  }
  return { findings, unresolved: [] };
}

/** True when `pred` holds for a function reachable from `roots` (resolved calls), stopping at the first: a channel created in `Application.onCreate` ends the search there. */
function reachesAny(project: Project, roots: readonly FunctionRef[], pred: (r: FunctionRef) => boolean): boolean {
  const resolver = resolverOf(project);
  const seen = new Set<FunctionRef['fn']>();
  const queue = [...roots];
  for (let q = 0; q < queue.length; q++) {
    const r = queue[q] as FunctionRef;
    if (seen.has(r.fn)) continue;
    seen.add(r.fn);
    if (pred(r)) return true;
    for (const t of resolver.callees(r)) if (!seen.has(t.fn)) queue.push(t);
  }
  return false;
}
