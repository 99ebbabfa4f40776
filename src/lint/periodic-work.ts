/**
 * Periodic work request sites and their repeat interval. The overloads are WorkManager's
 * (androidx/androidx `work/work-runtime/src/main/java/androidx/work/PeriodicWorkRequest.kt`):
 *
 *   PeriodicWorkRequestBuilder<W>(repeatInterval: Long, repeatIntervalTimeUnit: TimeUnit)
 *   PeriodicWorkRequestBuilder<W>(repeatInterval: Duration)
 *   PeriodicWorkRequestBuilder<W>(repeatInterval, repeatIntervalTimeUnit, flexTimeInterval, flexTimeIntervalUnit)
 *   PeriodicWorkRequestBuilder<W>(repeatInterval: Duration, flexTimeInterval: Duration)
 *   PeriodicWorkRequest.Builder(workerClass, …the same four shapes…)   // Class<> or KClass<>
 *
 * The flex interval is the window at the end of each period in which the run may happen.
 */
import type { Evaluation } from './constants.js';
import { toMillis } from './constants.js';
import type { ParsedFile, Project } from './model.js';
import type { Argument, Range } from './syntax.js';
import { callOpenParen, skipAngles, splitArgs } from './syntax.js';
import type { Token } from './tokenizer.js';
import { TokenKind, isIdent, isOp } from './tokenizer.js';

export interface PeriodicSite {
  readonly file: ParsedFile;
  /** The `PeriodicWorkRequestBuilder` / `Builder` token. */
  readonly index: number;
  /** First token of the site (`new` or `PeriodicWorkRequest` for the Builder form). */
  readonly start: number;
  /** The `(` of the call. */
  readonly open: number;
  /** Simple name of the worker class, when written. */
  readonly worker: string | undefined;
  /** Interval arguments (the worker-class argument of `Builder` removed). */
  readonly args: readonly Argument[];
}

export function findPeriodicSites(project: Project): PeriodicSite[] {
  const out: PeriodicSite[] = [];
  for (const file of project.files) {
    const t = file.tokens;
    for (let i = 0; i < t.length; i++) {
      if (isIdent(t[i], 'PeriodicWorkRequestBuilder')) {
        const open = callOpenParen(file, i);
        if (open < 0) continue;
        let worker: string | undefined;
        if (isOp(t[i + 1], '<')) {
          const close = skipAngles(file, i + 1) - 1;
          for (let k = i + 2; k < close; k++) if (t[k]?.kind === TokenKind.Identifier) worker = (t[k] as Token).value;
        }
        out.push({ file, index: i, start: i, open, worker, args: splitArgs(file, open) });
      } else if (isIdent(t[i], 'Builder') && isOp(t[i - 1], '.') && isIdent(t[i - 2], 'PeriodicWorkRequest')) {
        const open = callOpenParen(file, i);
        if (open < 0) continue;
        const all = splitArgs(file, open);
        const first = all[0];
        let worker: string | undefined;
        if (first) worker = workerClassName(file, first);
        const start = isIdent(t[i - 3], 'new') ? i - 3 : i - 2;
        out.push({ file, index: i, start, open, worker, args: all.slice(1) });
      }
    }
  }
  return out;
}

/** `W::class.java`, `W::class`, `W.class`, `com.example.W.class` → `W`. */
function workerClassName(file: ParsedFile, arg: Range): string | undefined {
  let name: string | undefined;
  for (let k = arg.start; k <= arg.end; k++) {
    const tk = file.tokens[k] as Token;
    if (tk.kind === TokenKind.Identifier && !['class', 'java', 'kotlin'].includes(tk.value)) name = tk.value;
    if (isIdent(tk, 'class')) break;
  }
  return name;
}

export interface IntervalReading {
  readonly intervalMs: number | undefined;
  readonly flexMs: number | undefined;
  /** The interval evaluation (for the declarations it came through). */
  readonly interval: Evaluation | undefined;
  readonly flex: Evaluation | undefined;
  readonly unresolved: readonly string[];
}

const REPEAT_NAMES = ['repeatInterval'];
const REPEAT_UNIT_NAMES = ['repeatIntervalTimeUnit'];
const FLEX_NAMES = ['flexTimeInterval', 'flexInterval'];
const FLEX_UNIT_NAMES = ['flexTimeIntervalUnit', 'flexIntervalTimeUnit'];

/** Evaluates the repeat interval (and flex, when given) of a site, in milliseconds. */
export function readInterval(project: Project, site: PeriodicSite): IntervalReading {
  const ev = (a: Argument | undefined): Evaluation | undefined => (a ? project.resolver.evaluate(site.file, a) : undefined);
  const args = site.args;
  let repeat: Argument | undefined;
  let repeatUnit: Argument | undefined;
  let flex: Argument | undefined;
  let flexUnit: Argument | undefined;
  if (args.some((a) => a.name !== undefined)) {
    const byName = (names: string[]): Argument | undefined => args.find((a) => a.name !== undefined && names.includes(a.name));
    const positional = args.filter((a) => a.name === undefined);
    repeat = byName(REPEAT_NAMES) ?? positional[0];
    repeatUnit = byName(REPEAT_UNIT_NAMES);
    flex = byName(FLEX_NAMES);
    flexUnit = byName(FLEX_UNIT_NAMES);
  } else {
    [repeat] = args;
    if (args.length === 2) {
      // (Long, TimeUnit) or (Duration, Duration)
      const second = ev(args[1]);
      if (second?.value?.kind === 'unit') repeatUnit = args[1];
      else flex = args[1];
    } else if (args.length >= 4) {
      [, repeatUnit, flex, flexUnit] = args;
    }
  }
  const unresolved: string[] = [];
  const amount = (value: Argument | undefined, unit: Argument | undefined): { ms: number | undefined; ev: Evaluation | undefined } => {
    const v = ev(value);
    if (!v) return { ms: undefined, ev: v };
    if (v.value === undefined) {
      unresolved.push(...v.unresolved);
      return { ms: undefined, ev: v };
    }
    if (v.value.kind === 'duration') return { ms: v.value.ms, ev: v };
    if (v.value.kind !== 'number') return { ms: undefined, ev: v };
    if (!unit) return { ms: undefined, ev: v };
    const u = ev(unit);
    if (u?.value?.kind !== 'unit') {
      unresolved.push(...(u?.unresolved ?? []));
      return { ms: undefined, ev: v };
    }
    return { ms: (toMillis(v.value) as number) * u.value.ms, ev: { ...v, refs: [...v.refs, ...u.refs] } };
  };
  const r = amount(repeat, repeatUnit);
  const f = flex ? amount(flex, flexUnit) : { ms: undefined, ev: undefined };
  return { intervalMs: r.ms, flexMs: f.ms, interval: r.ev, flex: f.ev, unresolved };
}
