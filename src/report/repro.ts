/**
 * Reproduction scripts (`repro/<scenario>.sh` in `run --out`): what the harness did in a
 * failing scenario, as plain `adb` and `dedup-verify serve-feed` commands in order, with the
 * clock values and feed files it used, so a QA engineer can replay the missed run or the
 * duplicate by hand on any device and watch it happen.
 *
 * The script is made from the scenario's record: the history's `action` events of the device
 * commands the harness really sent (src/harness/command-log.ts), and the feed and fault steps of
 * the fixture server. Every command that changed the device is in the script, in the recorded
 * order, exactly as it was sent, with two lookups in place of recorded values that belong to the
 * recorded device: the WorkManager job id of a forced run (looked up before every run) and the
 * pid of a `run-as PKG kill -9 PID`. A command that wrote bytes (a database written through
 * standard input) sends the recorded bytes again, kept beside the script in `files/`. Reads
 * (the harness's polls of dumpsys, the workdb, the clock) are left out: the script makes its own.
 *
 * The script serves each recorded feed by copying it over the one file `serve-feed --file`
 * serves (serve-feed re-reads it on every request), reaches the device through `adb reverse`,
 * waits for WorkManager's result line instead of sleeping, prints the app's
 * `notification_enqueue` lines after each run, and says at each run what to watch for. Steps
 * serve-feed cannot replay (a held request, an injected status) become comments with the manual
 * alternative. On exit it puts back auto_time, the clock, the reverse rule and the app's data
 * directory (saved through run-as at the start). Values it reads from the device (the job id
 * and namespace, the app's pid) are checked and quoted for the device's shell. Its helpers are
 * the shell file `repro-prologue.sh` beside this module, read when a script is first rendered.
 *
 * `renderReproScript` is pure but for that one read; `writeReproScripts` writes the files
 * (scripts mode 0755).
 */
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaStringHashCode } from '../android/notification-mapping.js';
import { formatInstant } from '../checker/describe.js';
import { buildShellCommand, quoteShellArg } from '../device/shell-quote.js';
import { DedupVerifyError, ErrorCode } from '../errors.js';
import type { ActionEvent } from '../history/events.js';
import type { WorkConfig } from '../config/types.js';
import type { ReproStep } from '../harness/actions.js';
import { describeAnomaly } from './merge.js';
import type { ReportAnomaly } from './types.js';

export interface ReproInput {
  /** Scenario name (stable, kebab-case): the script is `repro/<scenario>.sh`. */
  readonly scenario: string;
  /** adb serial the scenario ran on (named in the header; the script takes any serial). */
  readonly device: string;
  /** Application package. */
  readonly pkg: string;
  /** Port the app fetches its feed from on the device (config feed.devicePort): `adb reverse tcp:PORT`. */
  readonly feedDevicePort: number;
  /** The scenario's record, in order (src/harness/actions.ts). */
  readonly steps: readonly ReproStep[];
  /** What the scenario found (the header and the hints at each run name them). */
  readonly anomalies: readonly ReportAnomaly[];
  /** File base name instead of the scenario name (several devices or trials of one scenario). */
  readonly name?: string;
  /** The config's `work`: how the app is scheduled (absent: WorkManager, the default). */
  readonly work?: WorkConfig;
}

export interface ReproFile {
  /** Path relative to the `repro/` directory, e.g. `feeds/kill-mid-run-step-4.xml`. */
  readonly name: string;
  /** Text (a feed) or bytes (what a command wrote). */
  readonly content: string | Buffer;
  /** File mode (default 0644): a pushed file keeps the mode it was pushed with. */
  readonly mode?: number;
}

export interface ReproScript {
  readonly script: string;
  readonly files: ReproFile[];
}

/** Words the shell reads as themselves. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes a word for bash (and for the device's mksh: the same single-quote rule). */
export function quoteBash(value: string): string {
  if (value === '') return "''";
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A value inside a comment: one line, no control characters. */
function commentText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001F\u007F\u2028\u2029]+/g, ' ');
}

/** A safe file base name from a scenario name (and device). */
export function reproBaseName(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[.-]+/, '');
  return cleaned === '' ? 'scenario' : cleaned;
}

const PROLOGUE_FILE = 'repro-prologue.sh';
let prologueText: string | undefined;

/**
 * Where the script helpers are: beside this module (the source tree, or a build that copies the
 * file next to the compiled module), else in `src/report/` of an ancestor directory (an installed
 * package that ships the file at its source path and runs `dist/src/report/`).
 */
export function reproProloguePaths(moduleDir: string = dirname(fileURLToPath(import.meta.url))): string[] {
  const here = moduleDir;
  const paths = [join(here, PROLOGUE_FILE)];
  // dist/src/report → dist/src, dist, the package root.
  let dir = here;
  for (let i = 0; i < 3; i++) {
    dir = dirname(dir);
    const candidate = join(dir, 'src', 'report', PROLOGUE_FILE);
    if (!paths.includes(candidate)) paths.push(candidate);
  }
  return paths;
}

/** The helpers every script starts with (read once). */
export function reproPrologue(): string {
  if (prologueText !== undefined) return prologueText;
  const paths = reproProloguePaths();
  const found = paths.find((p) => existsSync(p));
  if (found === undefined) {
    throw new DedupVerifyError(
      ErrorCode.Internal,
      `The repro script helpers (${PROLOGUE_FILE}) are missing from this installation: looked in ${paths.join(', ')}. Reinstall dedup-verify.`,
    );
  }
  prologueText = readFileSync(found, 'utf8').trim();
  return prologueText;
}

/**
 * The variables the prologue's job lookup and waits read: WorkManager's SystemJobService job and
 * its result line, or the app's own JobService job (work.scheduler "jobscheduler"), whose id and
 * namespace the config may give (JOB_ID and JOB_NAMESPACE in the environment still win).
 */
function emitScheduler(out: Emitter, work: WorkConfig | undefined): void {
  if (work?.scheduler !== 'jobscheduler') {
    out.line('SCHEDULER=workmanager');
    out.line("JOB_CLASS='androidx.work.impl.background.systemjob.SystemJobService'");
    return;
  }
  out.line('SCHEDULER=jobscheduler');
  out.line(`JOB_CLASS=${quoteBash(work.jobService ?? '')}`);
  if (work.jobId !== undefined) out.line(`JOB_ID=\${JOB_ID:-${Math.trunc(work.jobId)}}`);
  if (work.jobNamespace !== undefined) out.line(`JOB_NAMESPACE=\${JOB_NAMESPACE:-${quoteBash(work.jobNamespace)}}`);
}

function isRunCommand(argv: readonly string[] | undefined): boolean {
  return argv !== undefined && argv[0] === 'cmd' && argv[1] === 'jobscheduler' && argv[2] === 'run';
}

/** A `run-as PKG kill -SIG PID` (-9, or -15 where SELinux refuses run-as a SIGKILL): the pid was the recorded device's. */
function isPidKill(argv: readonly string[] | undefined): argv is readonly string[] {
  return argv !== undefined && argv[0] === 'run-as' && argv[2] === 'kill' && /^-\d+$/.test(argv[3] ?? '') && argv.length === 5 && /^\d+$/.test(argv[4] ?? '');
}

/** The prologue's kill of the app's current process with the recorded signal. */
function killAppProcessLine(argv: readonly string[]): string {
  return `kill_app_process ${argv[3] ?? '-9'}`;
}

/** A device command that only read. */
function isRead(step: ReproStep | undefined): boolean {
  return step?.kind === 'action' && step.event.via !== undefined && step.event.action === 'read';
}

/** A device command (it has `via`) that changed the device (not a read). */
function isChange(event: ActionEvent): boolean {
  return event.via !== undefined && event.action !== 'read';
}

interface Hint {
  readonly text: string;
}

/** What to watch for in run `run`, from the anomalies that name it. */
function hintsFor(run: number, anomalies: readonly ReportAnomaly[]): Hint[] {
  const hints: Hint[] = [];
  for (const a of anomalies) {
    const runs = a.runs && a.runs.length > 0 ? a.runs : a.run !== undefined ? [a.run] : [];
    if (!runs.includes(run)) continue;
    const item = a.item === '' ? '(an item without link)' : a.item;
    const id = a.item !== '' ? ` (notification id ${javaStringHashCode(a.item)} if the app uses the link's String.hashCode() as id)` : '';
    switch (a.kind) {
      case 'lost':
        hints.push({ text: `here ${item} should be posted and is not: it is lost${id}` });
        break;
      case 'duplicated': {
        const first = runs[0];
        if (first !== undefined && run !== first) hints.push({ text: `here ${item} is posted again, already posted in run ${first}: duplicated${a.tolerated === true ? ' (tolerated)' : ''}${id}` });
        else hints.push({ text: `here ${item} is posted for the first time${id}; watch for it again later` });
        break;
      }
      case 'out-of-order':
        hints.push({ text: `here ${item} is posted out of order: ${a.detail}` });
        break;
      case 'unexpected':
        hints.push({ text: `here ${item} is posted although it was never eligible: ${a.detail}` });
        break;
      case 'refused-run':
        hints.push({ text: 'this run was refused on the recorded device: WorkManager did not run the worker' });
        break;
      case 'recovered':
        break;
      default:
        hints.push({ text: `${a.kind} ${item}: ${a.detail}` });
    }
  }
  return hints;
}

/** What a fault plan did, and how to do it by hand. */
function describeFault(route: string, plan: string): string[] {
  if (plan === 'none') return [`The harness cleared every fault: serve-feed answers normally again.`];
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(plan);
    if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>;
  } catch {
    // described from the raw text below
  }
  const lines = [`The harness made the fixture server answer ${route} with the fault plan ${plan}.`];
  if ('status' in parsed || 'statuses' in parsed || 'sequence' in parsed) {
    lines.push('serve-feed cannot answer with an error status. By hand: put a proxy that can rewrite responses');
    lines.push(`between the device and serve-feed (adb reverse tcp:DEVICE_PORT to the proxy) and answer ${route} as planned,`);
    lines.push('or stop serve-feed for that run (the app then gets a connection error, which it retries like a 5xx).');
  } else if ('hold' in parsed) {
    lines.push(`serve-feed cannot hold a request. By hand: a proxy that can hold requests (e.g. mitmproxy with an intercept on ${route}).`);
  } else if ('dropAfterProcessing' in parsed) {
    lines.push(`serve-feed cannot drop a connection after handling it. By hand: a proxy that closes the connection after forwarding ${route}.`);
  } else if ('delayMs' in parsed) {
    lines.push(`serve-feed answers at once. By hand: a proxy that delays ${route}.`);
  } else {
    lines.push('serve-feed cannot replay it; use a proxy between the device and serve-feed.');
  }
  lines.push('Without that, the next run sees a normal answer and the script goes on.');
  return lines;
}


interface Emitter {
  readonly lines: string[];
  comment(text: string): void;
  line(text: string): void;
  /** A progress line the script prints (one line, quoted). */
  say(text: string): void;
  blank(): void;
}

function emitter(): Emitter {
  const lines: string[] = [];
  return {
    lines,
    comment: (text) => lines.push(`# ${commentText(text)}`.trimEnd()),
    line: (text) => lines.push(text),
    say: (text) => lines.push(`say ${quoteBash(commentText(text))}`),
    blank: () => lines.push(''),
  };
}

/**
 * `$ADB shell WORD...`: each argument quoted for the device shell (mksh), then that word
 * quoted for bash, so adb joins exactly the device command line (`'a b'` stays one argument).
 * A command recorded as one line goes as that line, one bash word.
 */
function adbCommand(event: ActionEvent): string {
  const service = event.via === 'exec-out' ? 'exec-out' : 'shell';
  if (event.argv !== undefined) {
    buildShellCommand(event.argv); // validates: no empty command, no NUL byte
    return `$ADB ${service} ${event.argv.map((a) => quoteBash(quoteShellArg(a))).join(' ')}`;
  }
  return `$ADB ${service} ${quoteBash(event.command ?? '')}`;
}

/** The command as the device got it, for comments and progress lines. */
function commandText(event: ActionEvent): string {
  return event.argv !== undefined ? buildShellCommand(event.argv) : (event.command ?? event.action);
}

/** Escapes text for grep -E (not "/": GNU grep 3.8+ warns about a stray backslash before it). */
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Renders `repro/<scenario>.sh` and the files it uses (feeds, bytes written). */
export function renderReproScript(input: ReproInput): ReproScript {
  const base = reproBaseName(input.name ?? input.scenario);
  const scriptName = `repro/${base}.sh`;
  const files: ReproFile[] = [];
  const out = emitter();
  const failing = input.anomalies.filter((a) => a.tolerated !== true && a.informational !== true && a.kind !== 'recovered' && a.kind !== 'os-shed');
  const runsNamed = [...new Set(input.anomalies.flatMap((a) => (a.runs && a.runs.length > 0 ? a.runs : a.run !== undefined ? [a.run] : [])))].sort((a, b) => a - b);
  const firstClock = input.steps.map((s) => (s.kind === 'action' && isChange(s.event) ? setTimeValue(s.event.argv) : undefined)).find((v) => v !== undefined);

  out.line('#!/usr/bin/env bash');
  out.comment(`Replays the ${input.scenario} scenario of ${input.pkg} by hand, step by step, as dedup-verify ran it on ${input.device}.`);
  if (failing.length > 0) {
    out.comment('What it found there (runs numbered as in report.html):');
    for (const a of failing.slice(0, 20)) out.comment(`  - ${describeAnomaly(a)}`);
    if (failing.length > 20) out.comment(`  - ... ${failing.length - 20} more (report.json)`);
  } else {
    out.comment('It found no failing anomaly; the script replays what was done.');
  }
  if (runsNamed.length > 0) out.comment(`The runs to watch: ${runsNamed.map((r) => `run ${r}`).join(', ')} (the script says "watch:" there).`);
  out.comment('');
  out.comment(`Usage: ${scriptName} SERIAL [HOST_PORT]`);
  out.comment('  SERIAL     adb serial of the device (adb devices)');
  out.comment(`  HOST_PORT  free TCP port here for serve-feed (default ${input.feedDevicePort}); the device reaches it through adb reverse`);
  out.comment('Environment: DEDUP_VERIFY  the dedup-verify command (default: dedup-verify; e.g. "npx dedup-verify")');
  out.comment('             JOB_ID, JOB_NAMESPACE  the job to force (default: looked up in dumpsys jobscheduler before each run)');
  out.comment('             WAIT_S  deadline of each wait in seconds (default 60)');
  out.comment('             KILL_AT  request (default) or enter: when to kill at a kill point (see those steps)');
  out.comment('             RESET=1  first clear the app data with the clock before the recorded values (see below)');
  out.comment("Needs: adb, dedup-verify, a debuggable build of the app installed; changes the clock, auto_time and the app's data (put back on exit).");
  out.comment('');
  out.comment('The clock values are the recorded ones (absolute). WorkManager refuses a periodic run before');
  out.comment("last_enqueue_time + interval, so on a device whose app was scheduled later than those values the runs are");
  out.comment('refused: use RESET=1, which clears the app data (pm clear) with the clock set a week before the first value.');
  out.comment('The item links are unique to the recorded run; on a second replay on the same device the rows already exist:');
  out.comment('use RESET=1 again.');
  out.comment('Watch the notifications live in another terminal:');
  out.comment('  adb -s SERIAL logcat -b events -v epoch | grep notification_enqueue');
  out.comment('In those lines the 4th field is the notification id and the last one the status: 0 a post, 1 an update of');
  out.comment('a notification still showing (not a second post).');
  out.line('set -euo pipefail');
  out.blank();
  out.line(`SERIAL=\${1:?usage: ${scriptName} SERIAL [HOST_PORT]}`);
  out.line(`PORT=\${2:-${input.feedDevicePort}}`);
  out.line(`PKG=${quoteBash(input.pkg)}`);
  emitScheduler(out, input.work);
  out.line(`DEVICE_PORT=${input.feedDevicePort}`);
  out.line('HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"');
  out.line('DV=${DEDUP_VERIFY:-dedup-verify}');
  out.line('WAIT_S=${WAIT_S:-60}');
  out.line('WORK="$(mktemp -d)"');
  out.line('FEED="$WORK/feed.xml"');
  out.line(reproPrologue());
  out.line('check_serial "$SERIAL"');
  out.blank();

  out.line('say "device $SERIAL: saving auto_time and the clock offset"');
  out.line("$ADB get-state >/dev/null || die \"device $SERIAL is not reachable (adb devices)\"");
  out.line("ORIG_AUTO_TIME=$($ADB shell settings get global auto_time | tr -d '\\r')");
  out.line("CLOCK_OFFSET_MS=$(( ( $($ADB shell date +%s | tr -d '\\r') - $(date +%s) ) * 1000 ))");
  out.line('say "device $SERIAL: saving the app\'s data (put back on exit)"');
  out.line('save_app_data');
  out.comment('The clock is moved by hand below: stop network time from moving it back.');
  out.line('$ADB shell settings put global auto_time 0');
  out.line('start_server');
  out.blank();
  if (firstClock !== undefined) {
    out.line('if [ "${RESET:-0}" = 1 ]; then');
    out.line('  say "RESET=1: clearing the app data with the clock a week before the recorded values"');
    out.line('  $ADB shell am force-stop "$PKG"');
    out.line(`  set_clock ${firstClock - 7 * 86_400_000}`);
    out.line('  $ADB shell pm clear "$PKG"');
    out.comment('  pm clear also resets runtime permissions; POST_NOTIFICATIONS is one on API 33+ (a no-op error before).');
    out.line('  $ADB shell pm grant "$PKG" android.permission.POST_NOTIFICATIONS >/dev/null 2>&1 || true');
    out.line('fi');
    out.blank();
  }

  const steps = input.steps;
  const ctx: RenderContext = { out, input, base, files, n: 0 };
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    let emitted = true;
    switch (step.kind) {
      case 'feed': {
        const n = ++ctx.n;
        const file = `feeds/${base}-step-${n}.xml`;
        files.push({ name: file, content: step.xml.endsWith('\n') ? step.xml : `${step.xml}\n` });
        out.comment(`Step ${n}: the feed now serves ${step.note !== '' ? step.note : 'the recorded document'} (device clock then: ${formatInstant(step.t)}).`);
        out.say(`step ${n}: serve ${file}`);
        out.line(`use_feed ${quoteBash(`${base}-step-${n}.xml`)}`);
        break;
      }
      case 'fault': {
        const n = ++ctx.n;
        out.comment(`Step ${n}: fault on ${step.route}.`);
        for (const line of describeFault(step.route, step.plan)) out.comment(line);
        if (step.plan === 'none') {
          out.say(`step ${n}: faults cleared (serve-feed answers normally)`);
        } else {
          out.say(`step ${n}: not replayed: fault plan ${step.plan} on ${step.route} (see the comment in the script)`);
          out.line(`DIVERGED=${quoteBash(`the fault of step ${n}`)}`);
        }
        break;
      }
      case 'run-finished':
        // Read by the forced run it ends.
        emitted = false;
        break;
      case 'action': {
        const event = step.event;
        if (!isChange(event)) {
          emitted = emitHarnessStep(out, event);
        } else if (isRunCommand(event.argv)) {
          i = emitRun(ctx, steps, i);
        } else {
          emitCommand(ctx, step);
        }
        break;
      }
      default: {
        const unreachable: never = step;
        throw new Error(`unknown repro step ${JSON.stringify(unreachable)}`);
      }
    }
    if (emitted) out.blank();
  }
  out.line('say "done: every recorded step was replayed"');
  return { script: `${out.lines.join('\n')}\n`, files };
}

interface RenderContext {
  readonly out: Emitter;
  readonly input: ReproInput;
  readonly base: string;
  readonly files: ReproFile[];
  /** The last step number given. */
  n: number;
}

/** The clock value of a recorded `cmd alarm set-time MS`. */
function setTimeValue(argv: readonly string[] | undefined): number | undefined {
  if (argv === undefined || argv[0] !== 'cmd' || argv[1] !== 'alarm' || argv[2] !== 'set-time' || !/^\d+$/.test(argv[3] ?? '')) return undefined;
  return Number(argv[3]);
}

/** What a kind of command does, for the comment above it. */
const ACTION_TEXT: Readonly<Record<string, string>> = {
  'force-stop': 'force-stop the app (its jobs are cancelled until it starts again)',
  'start-app': 'start the app (it schedules its periodic work)',
  'start-process': 'start the app process',
  'clear-app-data': "clear the app's data (as the harness did, on its own backup)",
  attach: 'point the app at the fixture feed (feed.attach)',
  grant: 'grant a runtime permission',
  revoke: 'revoke a runtime permission',
  'set-time': 'set the device clock',
  'write-app-file': "write a file of the app's data",
  kill: 'kill the app process',
  setting: 'change a setting',
};

/** A step of the harness that is not one device command: a comment; reads are left out. */
function emitHarnessStep(out: Emitter, event: ActionEvent): boolean {
  if (event.via !== undefined || event.action === 'probe-run' || event.action === 'fault') return false;
  out.comment(`The harness (${event.action}): ${event.detail ?? 'no detail recorded'}.`);
  return true;
}

/** A recorded command that changed the device, sent again as it was sent. */
function emitCommand(ctx: RenderContext, step: Extract<ReproStep, { kind: 'action' }>): void {
  const { out } = ctx;
  const event = step.event;
  const n = ++ctx.n;
  const what = ACTION_TEXT[event.action] ?? `${event.action}: ${commandText(event)}`;
  const detail = event.detail !== undefined && event.action !== 'clear-app-data' ? ` (${event.detail})` : '';
  out.comment(`Step ${n}: ${what}${detail}.${setTimeValue(event.argv) !== undefined ? ' cmd alarm set-time needs no root.' : ''}`);
  const failed = event.error !== undefined || (event.exitCode !== undefined && event.exitCode !== 0);
  if (failed) out.comment(`When recorded it ${event.exitCode !== undefined && event.exitCode !== 0 ? `exited ${event.exitCode}` : 'failed'}${event.result !== undefined ? ` ("${event.result}")` : event.error !== undefined ? ` (${event.error})` : ''}; the script goes on whatever it does here.`);
  const orTrue = failed ? ' || true' : '';
  switch (event.via) {
    case 'shell':
    case 'exec-out': {
      const ms = setTimeValue(event.argv);
      if (isPidKill(event.argv)) {
        out.say(`step ${n}: ${event.argv.join(' ')}`);
        out.comment(`The recorded pid (${event.argv[4] ?? ''}) was the app's on the recorded device: the app's pid here is looked up.`);
        out.line(killAppProcessLine(event.argv));
      } else if (event.stdinBytes !== undefined || step.data !== undefined) {
        emitWrite(ctx, step, n, orTrue);
      } else {
        out.say(`step ${n}: ${ms !== undefined ? `device clock to ${formatInstant(ms)}` : commandText(event)}`);
        out.line(`${adbCommand(event)}${orTrue}`);
      }
      const [first, second] = event.argv ?? [];
      if (first === 'am' && (second === 'start' || second === 'broadcast')) {
        out.comment('The app schedules its periodic work when its process starts: wait until JobScheduler has the job.');
        out.line('wait_job');
      }
      return;
    }
    case 'push': {
      if (step.data === undefined || event.path === undefined) {
        out.say(`step ${n}: not replayed: ${commandText(event)} (the bytes pushed were not kept)`);
        out.line(`DIVERGED=${quoteBash(`the push of step ${n}`)}`);
        return;
      }
      const file = `files/${ctx.base}-step-${n}.bin`;
      ctx.files.push({ name: file, content: step.data, ...(event.mode !== undefined ? { mode: event.mode & 0o777 } : {}) });
      out.comment(`The ${step.data.length} bytes pushed are ${file}${event.mode !== undefined ? `, with the mode they were pushed with (${(event.mode & 0o7777).toString(8)})` : ''}.`);
      out.say(`step ${n}: adb push ${file} ${event.path}`);
      out.line(`$ADB push "$HERE/${file}" ${quoteBash(event.path)} >/dev/null${orTrue}`);
      return;
    }
    case 'reverse':
    case 'remove-reverse':
      out.comment(`The harness changed a reverse rule: adb ${event.command ?? event.action}. Not replayed: the script keeps its own rule for the`);
      out.comment('feed port (start_server) and puts the device\'s back on exit.');
      out.say(`step ${n}: not replayed: adb ${event.command ?? event.action}`);
      return;
    case undefined:
    default:
      out.comment(`The harness sent it as ${event.via ?? 'unknown'}, which the script does not replay: ${commandText(event)}.`);
      out.say(`step ${n}: not replayed: ${commandText(event)}`);
      out.line(`DIVERGED=${quoteBash(`step ${n}`)}`);
  }
}

/** A command that was given bytes on its standard input: the same bytes, from a file beside the script. */
function emitWrite(ctx: RenderContext, step: Extract<ReproStep, { kind: 'action' }>, n: number, orTrue: string): void {
  const { out } = ctx;
  const event = step.event;
  if (step.data === undefined) {
    out.comment(`It was given ${event.stdinBytes ?? 0} bytes on its standard input, which were not kept: not replayed.`);
    out.say(`step ${n}: not replayed: ${event.action} (its input was not kept)`);
    out.line(`DIVERGED=${quoteBash(`the ${event.action} of step ${n}`)}`);
    return;
  }
  const file = `files/${ctx.base}-step-${n}.bin`;
  ctx.files.push({ name: file, content: step.data });
  out.comment(`It was given ${step.data.length} bytes on its standard input: the recorded bytes are ${file}.`);
  if (event.action === 'write-app-file') {
    out.comment("They are the app's file as the harness wrote it (after a row deletion or a cleared flag: the recorded");
    out.comment('database without those records; after a moved mark: the preferences file with the mark moved back;');
    out.comment('they hold the same items as the feeds this script serves).');
  }
  out.say(`step ${n}: ${event.action === 'write-app-file' ? "write into the app's data" : event.action}: ${file} on the standard input of ${event.argv?.slice(0, 3).join(' ') ?? 'the recorded command'} ...`);
  out.line(`${adbCommand(event)} <"$HERE/${file}"${orTrue}`);
}

/** A forced run and what follows it (the kill, or the wait); returns the index of the last step used. */
function emitRun(ctx: RenderContext, steps: readonly ReproStep[], i: number): number {
  const { out, input } = ctx;
  const step = steps[i];
  if (step?.kind !== 'action') return i;
  const event = step.event;
  const n = ++ctx.n;
  const run = event.probe === true ? undefined : event.run;
  const probe = event.probe === true;
  const recorded = commandText(event);
  // The next change after the run command (reads between are skipped): a kill of this run is part of it.
  let next = i + 1;
  while (isRead(steps[next])) next++;
  const following = steps[next];
  const kill = following?.kind === 'action' && following.event.action === 'kill' && following.event.run === run && run !== undefined ? following.event : undefined;
  const outcome = run === undefined ? undefined : outcomeOf(steps, i, run);

  const jobs = input.work?.scheduler === 'jobscheduler';
  // A probe of an app's own job is `run -s` (only when due): its refusal is the command's exit status.
  const satisfied = event.argv?.includes('-s') === true;
  out.comment(`Step ${n}: ${run !== undefined ? `forced run ${run}` : probe ? 'a forced run that must be refused' : 'a forced run'} (recorded: ${recorded}).`);
  out.comment(
    satisfied
      ? 'The job id is looked up on this device unless JOB_ID is set; -s runs the job only when all its constraints (its timing among them) are met.'
      : 'The job id is looked up on this device unless JOB_ID is set (ids differ between devices); -f ignores the constraints.',
  );
  out.say(`step ${n}: ${run !== undefined ? `forced run ${run}` : probe ? 'forced run (must be refused)' : 'forced run'}`);
  const begin = satisfied ? 'begin_run -s' : 'begin_run';
  if (satisfied) {
    out.line(`${begin} || true`);
  } else if (event.exitCode !== undefined && event.exitCode !== 0) {
    out.comment(`When recorded the run command exited ${event.exitCode}${event.result !== undefined ? ` ("${event.result}")` : ''}: ${jobs ? "the app's job" : "WorkManager's job"} did not start.`);
    out.line(`${begin} || echo ${quoteBash(`   the run command failed here too (it exited ${event.exitCode} when recorded)`)}`);
  } else {
    out.line(begin);
  }
  let used = i;
  if (kill !== undefined) {
    const k = ++ctx.n;
    emitKill(out, kill, k, run);
    out.line(`after_kill ${k}`);
    used = next;
  } else if (probe || outcome === 'refused') {
    if (outcome === 'refused') out.comment(`Recorded outcome: refused (${jobs ? 'JobScheduler did not run the job' : 'WorkManager did not run the worker'}).`);
    out.line('expect_no_run');
  } else {
    out.comment(
      jobs
        ? `Wait for the end of the job: JobScheduler has it neither pending nor active (cmd jobscheduler get-job-state)${outcome !== undefined ? `; recorded: ${outcome}` : ''}.`
        : `Wait for WorkManager's result line (WM-WorkerWrapper "Worker result"${outcome !== undefined ? `; recorded: ${outcome}` : ''}).`,
    );
    out.line('wait_result');
  }
  out.line('show_posts');
  if (run !== undefined) emitHints(out, run, input.anomalies);
  return used;
}

/** The recorded outcome of run `run`: its run-finished step after the run command. */
function outcomeOf(steps: readonly ReproStep[], from: number, run: number): string | undefined {
  for (let j = from + 1; j < steps.length; j++) {
    const s = steps[j];
    if (s?.kind === 'run-finished' && s.event.run === run) return s.event.outcome;
  }
  return undefined;
}

function emitHints(out: Emitter, run: number, anomalies: readonly ReportAnomaly[]): void {
  for (const hint of hintsFor(run, anomalies)) {
    out.comment(hint.text);
    out.line(`watch ${quoteBash(commentText(`run ${run}: ${hint.text}`))}`);
  }
}

function emitKill(out: Emitter, event: ActionEvent, n: number, run: number | undefined): void {
  const held = event.heldRequest;
  const argv = event.argv ?? [];
  const heldText = held !== undefined ? `request ${held.nth} to ${held.path}` : 'a request';
  out.comment(`Step ${n}: the harness held ${heldText}${run !== undefined ? ` during run ${run}` : ''} and killed the app there (${commandText(event)}).`);
  out.comment('serve-feed cannot hold a request, so this kill cannot be placed exactly. To replay it faithfully, put a');
  out.comment('proxy that holds requests between the device and serve-feed (e.g. mitmproxy in reverse mode with an intercept');
  out.comment(`on ${held?.path ?? 'that route'}; adb reverse tcp:DEVICE_PORT to the proxy), run with KILL_AT=enter and press Enter`);
  out.comment('while the request is held. Without a proxy the app is killed as soon as serve-feed has answered that');
  out.comment('request: the app may already be past the point, so compare the notification lines printed below.');
  if (held) out.line(`kill_point ${quoteBash(`^[A-Z]+ ${escapeRegex(held.path)}([? ]|$)`)} ${held.nth}`);
  out.say(`step ${n}: ${argv.length > 0 ? argv.join(' ') : commandText(event)}`);
  if (isPidKill(event.argv)) {
    out.comment(`The recorded pid (${argv[4] ?? ''}) was the app's on the recorded device: the app's pid here is looked up.`);
    out.line(killAppProcessLine(argv));
  } else {
    out.line(adbCommand(event));
  }
}

/**
 * Writes `repro/<name>.sh` (mode 0755), `repro/feeds/*.xml` and `repro/files/*` under `dir` for each input;
 * names clash-free (the device, then a counter, is added to a repeated scenario name).
 * Returns the paths of the scripts written.
 */
export async function writeReproScripts(dir: string, inputs: readonly ReproInput[]): Promise<string[]> {
  const root = join(dir, 'repro');
  await mkdir(join(root, 'feeds'), { recursive: true });
  const taken = new Set<string>();
  const written: string[] = [];
  const counts = new Map<string, number>();
  for (const input of inputs) counts.set(input.name ?? input.scenario, (counts.get(input.name ?? input.scenario) ?? 0) + 1);
  for (const input of inputs) {
    const wanted = input.name ?? input.scenario;
    let name = reproBaseName((counts.get(wanted) ?? 0) > 1 ? `${wanted}--${input.device}` : wanted);
    for (let k = 2; taken.has(name); k++) name = reproBaseName(`${wanted}--${input.device}-${k}`);
    taken.add(name);
    const { script, files } = renderReproScript({ ...input, name });
    for (const file of files) {
      await mkdir(dirname(join(root, file.name)), { recursive: true });
      await writeAtomically(join(root, file.name), file.content, file.mode ?? 0o644);
    }
    const path = join(root, `${name}.sh`);
    await writeAtomically(path, script, 0o755);
    written.push(path);
  }
  return written;
}

async function writeAtomically(path: string, content: string | Buffer, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, content, typeof content === 'string' ? { encoding: 'utf8', mode, flag: 'wx' } : { mode, flag: 'wx' });
  await chmod(tmp, mode);
  await rename(tmp, path);
}
