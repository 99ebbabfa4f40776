/**
 * Reproduction scripts (`repro/<scenario>.sh` in `run --out`): what the harness did in a
 * failing scenario, as plain `adb` and `dedup-verify serve-feed` commands in order, with the
 * clock values and feed files it used, so a QA engineer can replay the missed run or the
 * duplicate by hand on any device and watch it happen.
 *
 * The script serves each recorded feed by copying it over the one file `serve-feed --file`
 * serves (serve-feed re-reads it on every request), reaches the device through `adb reverse`,
 * looks the WorkManager job id up on the device before every forced run (ids differ between
 * devices), waits for WorkManager's result line instead of sleeping, prints the app's
 * `notification_enqueue` lines after each run, and says at each run what to watch for. Steps
 * serve-feed cannot replay (a held request, an injected status) become comments with the manual
 * alternative. On exit it puts back auto_time, the clock and the reverse rule.
 *
 * `renderReproScript` is pure; `writeReproScripts` writes the files (scripts mode 0755).
 */
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { javaStringHashCode } from '../android/notification-mapping.js';
import { formatInstant } from '../checker/describe.js';
import { buildShellCommand, quoteShellArg } from '../device/shell-quote.js';
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
  /** What the harness did, in order. */
  readonly steps: readonly ReproStep[];
  /** What the scenario found (the header and the hints at each run name them). */
  readonly anomalies: readonly ReportAnomaly[];
  /** File base name instead of the scenario name (several devices or trials of one scenario). */
  readonly name?: string;
}

export interface ReproFile {
  /** Path relative to the `repro/` directory, e.g. `feeds/kill-mid-run-step-4.xml`. */
  readonly name: string;
  readonly content: string;
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

function isRunCommand(argv: readonly string[]): boolean {
  return argv[0] === 'cmd' && argv[1] === 'jobscheduler' && argv[2] === 'run';
}

function runNumberOf(note: string | undefined): number | undefined {
  const m = /\bforced run (\d+)\b/.exec(note ?? '');
  return m?.[1] !== undefined ? Number(m[1]) : undefined;
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

const PROLOGUE = String.raw`
say() { printf '\n== %s\n' "$*"; }
watch() { printf '   >> watch: %s\n' "$*"; }
die() { printf 'repro: %s\n' "$*" >&2; exit 1; }

SERVER_PID=""
ORIG_REVERSE=""
REVERSE_SET=""
ORIG_AUTO_TIME=""
CLOCK_OFFSET_MS=""
cleanup() {
  set +e
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
  if [ -n "$REVERSE_SET" ]; then
    if [ -n "$ORIG_REVERSE" ]; then $ADB reverse "tcp:$DEVICE_PORT" "$ORIG_REVERSE" >/dev/null 2>&1
    else $ADB reverse --remove "tcp:$DEVICE_PORT" >/dev/null 2>&1; fi
  fi
  if [ -n "$CLOCK_OFFSET_MS" ]; then
    $ADB shell cmd alarm set-time "$(( $(date +%s) * 1000 + CLOCK_OFFSET_MS ))" >/dev/null 2>&1
  fi
  if [ -n "$ORIG_AUTO_TIME" ]; then $ADB shell settings put global auto_time "$ORIG_AUTO_TIME" >/dev/null 2>&1; fi
  rm -rf "$WORK"
  echo "repro: device clock, auto_time and reverse rule put back; serve-feed stopped."
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Reads the lines a streaming command prints, as it prints them, until more than WANT of them
# match the extended regex PATTERN (returns 0) or SECS seconds pass or the stream ends
# (returns 1). The command runs in the background into a FIFO and is stopped afterwards, so a
# wait ends on the line itself: no polling, no fixed wait.
#   await_lines WANT PATTERN SECS COMMAND...
await_lines() {
  local want=$1 pattern=$2 secs=$3; shift 3
  local fifo="$WORK/stream.fifo" seen=0 line left pid rc=1
  local deadline=$(( SECONDS + secs ))
  rm -f "$fifo"; mkfifo "$fifo"
  "$@" >"$fifo" 2>/dev/null &
  pid=$!
  exec 3<"$fifo"
  while left=$(( deadline - SECONDS )); [ "$left" -gt 0 ] && IFS= read -r -t "$left" -u 3 line; do
    line=${"${"}line%$'\r'}
    if [[ $line =~ $pattern ]]; then
      seen=$(( seen + 1 ))
      if [ "$seen" -gt "$want" ]; then rc=0; break; fi
    fi
  done
  exec 3<&-
  # The stream may have ended by itself; either way its status is not ours (set -e).
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$fifo"
  return "$rc"
}

# Polls a condition that has no stream to watch (dumpsys output) until it holds or WAIT_S
# seconds pass; it returns as soon as the condition holds.
wait_for() {
  local what=$1; shift
  local deadline=$(( SECONDS + WAIT_S ))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || die "no $what within $WAIT_S s"
    sleep 0.2
  done
}

# Follows serve-feed's log from line $1 as it grows (GNU and BSD tail -f: inotify / kqueue); with
# GNU tail the stream also ends when serve-feed exits, so a wait on a dead server ends at once.
# For await_lines only: it execs tail, so the background job await_lines stops is tail itself.
TAIL_PID=""
if tail --pid=$$ -n 0 /dev/null >/dev/null 2>&1; then TAIL_PID=1; fi
follow_log() {
  if [ -n "$TAIL_PID" ]; then exec tail --pid="$SERVER_PID" -n "$1" -f "$WORK/serve-feed.log"
  else exec tail -n "$1" -f "$WORK/serve-feed.log"; fi
}

# serve-feed serves $FEED (an empty feed until the first feed step) and logs each request.
start_server() {
  printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>empty</title></channel></rss>' >"$FEED"
  : >"$WORK/serve-feed.log"
  $DV serve-feed --port "$PORT" --file "$FEED" >>"$WORK/serve-feed.log" 2>&1 &
  SERVER_PID=$!
  await_lines 0 'serving feed on' "$WAIT_S" follow_log +1 || {
    kill -0 "$SERVER_PID" 2>/dev/null || die "serve-feed stopped: $(cat "$WORK/serve-feed.log")"
    die "serve-feed did not listen on port $PORT within $WAIT_S s"
  }
  # A rule the device already had for this port is put back on exit (reverse --list lines are
  # "<transport> <device side> <host side>", adb's reverse:list-forward).
  ORIG_REVERSE=$($ADB reverse --list | tr -d '\r' | awk -v l="tcp:$DEVICE_PORT" '$2 == l { print $3; exit }')
  REVERSE_SET=1
  $ADB reverse "tcp:$DEVICE_PORT" "tcp:$PORT" >/dev/null
  echo "serve-feed on 127.0.0.1:$PORT; device port $DEVICE_PORT reversed to it"
}

# Serves a recorded feed: serve-feed re-reads --file on every request, so the next feed is
# copied over the served file.
use_feed() { cp "$HERE/feeds/$1" "$FEED"; }

set_clock() { $ADB shell cmd alarm set-time "$1" >/dev/null; }

# The app's WorkManager job: the "JOB" header lines of dumpsys jobscheduler PKG, printed by
# JobSchedulerService.dumpInternal with JobStatus.printUniqueId ("<namespace>:" or "#", the
# formatted uid, "/", the job id), then the identity hash and the battery name - aosp-mirror/
# platform_frameworks_base apex/jobscheduler/service/java/com/android/server/job/
# JobSchedulerService.java @f4cdb430 and controllers/JobStatus.java @054fcdf7:
#   JOB #u0a190/42: 1a2b3c4 com.example/androidx.work.impl.background.systemjob.SystemJobService
#   JOB androidx.work.systemjobscheduler:u0a190/0: 8c4f1d2 @androidx.work.systemjobscheduler@com.example/androidx.work...SystemJobService
# (newer platforms put "#<trace tag>#" first in the battery name). WorkManager 2.10+ on API 34+
# uses that namespace (androidx work-runtime systemjob/JobSchedulerExt.kt @a9b06aaf), which
# needs "run -n NAMESPACE". Android 11 (API 30) prints the JOB line of every registered job of
# every app and filters only the details below it (Ankits-lab/frameworks_base, same file,
# @150a9240: the line comes before "if (!predicate.test(job)) continue;"), and each app's
# WorkManager numbers its jobs from 0: only a line whose battery name is PKG's own
# SystemJobService is the app's job.
# Set JOB_ID (and JOB_NAMESPACE) to skip the lookup.
find_job() {
  JOB=""; JOB_NS=""
  if [ -n "${"${"}JOB_ID:-}" ]; then JOB=$JOB_ID; JOB_NS=${"${"}JOB_NAMESPACE:-}; return 0; fi
  local refs
  refs=$($ADB shell dumpsys jobscheduler "$PKG" | tr -d '\r' | job_refs "$PKG" | sort -u || true)
  local count
  count=$(printf '%s\n' "$refs" | grep -c . || true)
  [ "$count" -ge 1 ] || return 1
  if [ "$count" -gt 1 ]; then
    printf 'repro: %s WorkManager jobs of %s (id namespace):\n%s\n' "$count" "$PKG" "$refs" >&2
    die "set JOB_ID (and JOB_NAMESPACE) to the periodic work's job (WorkManager's SystemIdInfo.system_id)"
  fi
  JOB=${"${"}refs%% *}
  JOB_NS=${"${"}refs#* }
  [ "$JOB_NS" != "$refs" ] || JOB_NS=""
}
# "<job id> <namespace>" of each JOB line on stdin whose battery name, less "#<trace tag>#" and
# "@<namespace>@", is exactly $1/androidx.work.impl.background.systemjob.SystemJobService (a
# string comparison: a dot of the package name matches only a dot, and PKG.beta is not PKG).
job_refs() {
  awk -v svc="$1/androidx.work.impl.background.systemjob.SystemJobService" '
    /^ *JOB (#|[^ :#]+:)[^ \/]+\/-?[0-9]+: [0-9a-f]+ / {
      name = $0; sub(/^ *JOB [^ ]+ [0-9a-f]+ /, "", name)
      sub(/^#[^#]*#/, "", name); sub(/^@[^@]*@/, "", name)
      if (name != svc) next
      ref = $2; sub(/:$/, "", ref)
      id = ref; sub(/^.*\//, "", id)
      ns = ""; if (substr(ref, 1, 1) != "#") { ns = ref; sub(/:[^:]*$/, "", ns) }
      print id " " ns
    }'
}
has_job() { find_job && [ -n "$JOB" ]; }
wait_job() { wait_for "WorkManager job of $PKG in dumpsys jobscheduler (does the app schedule its work at start?)" has_job; }

# WorkManager logs one INFO line per finished run: "Worker result SUCCESS for Work [ id=... ]"
# (androidx work-runtime WorkerWrapper, tag WM-WorkerWrapper).
results() { $ADB logcat -d -s WM-WorkerWrapper:I 2>/dev/null | tr -d '\r' | grep 'Worker result' || true; }
result_count() { results | grep -c . || true; }
# notification_enqueue (event log tag 2750; status 0 = post, 1 = update) of the app, as in
# logcat -b events (frameworks/base services/core/java/com/android/server/EventLogTags.logtags).
posts() { $ADB logcat -b events -d 2>/dev/null | tr -d '\r' | grep 'notification_enqueue' | grep -F ",$PKG," || true; }
post_count() { posts | grep -c . || true; }

begin_run() {
  RESULTS_BEFORE=$(result_count)
  POSTS_BEFORE=$(post_count)
  LOG_LINES_BEFORE=$(wc -l <"$WORK/serve-feed.log")
  find_job || { wait_job; find_job; }
  echo "job $JOB${"${"}JOB_NS:+ in namespace $JOB_NS} of $PKG"
  $ADB shell cmd jobscheduler run -f ${"${"}JOB_NS:+-n "$JOB_NS"} "$PKG" "$JOB"
}
# logcat (without -d) prints the whole buffer, then each line as it is logged: the result lines
# it streams are the ones result_count counted, then the new ones.
await_results() { await_lines "$RESULTS_BEFORE" 'Worker result' "$1" $ADB logcat -s WM-WorkerWrapper:I; }
# A step that could not be replayed exactly (a fault serve-feed cannot make, a kill that came
# after its run) leaves this device in another state than the recorded one: a run recorded as
# done may then be refused here (not due yet). The script says so and goes on.
DIVERGED=""
wait_result() {
  if await_results "$WAIT_S"; then results | tail -n 1; return 0; fi
  [ -n "$DIVERGED" ] || die "no WM-WorkerWrapper result line within $WAIT_S s (a run the device refused: WorkManager delays a periodic run before last_enqueue_time + interval; see RESET=1 above)"
  echo "   no WM-WorkerWrapper result line within $WAIT_S s: WorkManager did not run it here, because $DIVERGED was not replayed exactly (see its comment); going on"
}
# The run must not happen: no result line within 5 s (the harness waits as long).
expect_no_run() {
  if await_results 5; then echo "it ran: $(results | tail -n 1)"; else echo "no run within 5 s (refused, as recorded)"; fi
}
show_posts() {
  local lines
  lines=$(posts | tail -n +"$(( POSTS_BEFORE + 1 ))")
  if [ -n "$lines" ]; then printf '%s\n' "$lines"; else echo "(no notification_enqueue line of $PKG in this run)"; fi
}
# A kill the harness made while it held a request: see the step's comment. Without a proxy
# that holds the request, kill as soon as serve-feed has logged it (KILL_AT=request) or when
# Enter is pressed (KILL_AT=enter, interactive).
kill_point() {
  if [ "${"${"}KILL_AT:-request}" = enter ] && [ -t 0 ]; then
    read -r -p "   press Enter to kill the app now > " _
  else
    await_lines "$(( $2 - 1 ))" "$1" "$WAIT_S" follow_log +"$(( LOG_LINES_BEFORE + 1 ))" \
      || die "no request $2 to the held route in the serve-feed log within $WAIT_S s"
  fi
}
# run-as PKG kill -9 on the app's process on this device (the recorded pid was the recorded
# device's).
kill_app_process() {
  local pid
  pid=$($ADB shell pidof "$PKG" | tr -d '\r')
  if [[ $pid =~ ^[0-9]+$ ]]; then $ADB shell run-as "$PKG" kill -9 "$pid"
  else echo "   note: no single process of $PKG to kill (pidof printed \"$pid\")"; fi
}
# After such a kill: its place was approximate, so the device may now be in another state than
# the recorded one. If WorkManager already logged this run's result, the kill came after the run
# (serve-feed answers at once), and WorkManager may refuse the next forced run as not due.
after_kill() {
  DIVERGED="the kill of step $1"
  if [ "$(result_count)" -gt "$RESULTS_BEFORE" ]; then
    echo "   note: the run had finished before the kill ($(results | tail -n 1)); the kill could not interrupt it"
  fi
}
`;

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
 */
function adbShell(argv: readonly string[]): string {
  buildShellCommand(argv); // validates: no empty command, no NUL byte
  return `$ADB shell ${argv.map((a) => quoteBash(quoteShellArg(a))).join(' ')}`;
}

/** `request 3 to /receipts` → route and index. */
function parseHeld(text: string): { nth: number; route: string } | undefined {
  const m = /request (\d+) to (\S+)/.exec(text);
  return m?.[1] !== undefined && m[2] !== undefined ? { nth: Number(m[1]), route: m[2] } : undefined;
}

/** Escapes text for grep -E (not "/": GNU grep 3.8+ warns about a stray backslash before it). */
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Renders `repro/<scenario>.sh` and the feed files it serves. */
export function renderReproScript(input: ReproInput): ReproScript {
  const base = reproBaseName(input.name ?? input.scenario);
  const scriptName = `repro/${base}.sh`;
  const files: ReproFile[] = [];
  const out = emitter();
  const failing = input.anomalies.filter((a) => a.tolerated !== true && a.kind !== 'recovered' && a.kind !== 'os-shed');
  const runsNamed = [...new Set(input.anomalies.flatMap((a) => (a.runs && a.runs.length > 0 ? a.runs : a.run !== undefined ? [a.run] : [])))].sort((a, b) => a - b);
  const clockValues = input.steps.flatMap((s) => (s.kind === 'adb-shell' && s.argv[0] === 'cmd' && s.argv[1] === 'alarm' && s.argv[2] === 'set-time' && s.argv[3] !== undefined ? [Number(s.argv[3])] : [])).filter((n) => Number.isFinite(n));
  const firstClock = clockValues[0];

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
  out.comment('Needs: adb, dedup-verify, a debuggable build of the app installed; changes the clock and auto_time (put back on exit).');
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
  out.line('ADB="adb -s $SERIAL"');
  out.line(`PKG=${quoteBash(input.pkg)}`);
  out.line(`DEVICE_PORT=${input.feedDevicePort}`);
  out.line('HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"');
  out.line('DV=${DEDUP_VERIFY:-dedup-verify}');
  out.line('WAIT_S=${WAIT_S:-60}');
  out.line('WORK="$(mktemp -d)"');
  out.line('FEED="$WORK/feed.xml"');
  out.line(PROLOGUE.trim());
  out.blank();

  out.line('say "device $SERIAL: saving auto_time and the clock offset"');
  out.line("$ADB get-state >/dev/null || die \"device $SERIAL is not reachable (adb devices)\"");
  out.line("ORIG_AUTO_TIME=$($ADB shell settings get global auto_time | tr -d '\\r')");
  out.line("CLOCK_OFFSET_MS=$(( ( $($ADB shell date +%s | tr -d '\\r') - $(date +%s) ) * 1000 ))");
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
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const n = i + 1;
    switch (step.kind) {
      case 'feed': {
        const file = `feeds/${base}-step-${n}.xml`;
        files.push({ name: file, content: step.xml.endsWith('\n') ? step.xml : `${step.xml}\n` });
        out.comment(`Step ${n}: the feed now serves ${step.note !== '' ? step.note : 'the recorded document'} (device clock then: ${formatInstant(step.t)}).`);
        out.say(`step ${n}: serve ${file}`);
        out.line(`use_feed ${quoteBash(`${base}-step-${n}.xml`)}`);
        break;
      }
      case 'fault': {
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
      case 'adb-shell': {
        if (isRunCommand(step.argv)) {
          i = emitRun(out, input, steps, i);
          break;
        }
        const argv = step.argv;
        if (argv[0] === 'cmd' && argv[1] === 'alarm' && argv[2] === 'set-time' && argv[3] !== undefined && /^\d+$/.test(argv[3])) {
          out.comment(`Step ${n}: ${step.note ?? `clock to ${formatInstant(Number(argv[3]))}`} (cmd alarm set-time, no root needed).`);
          out.say(`step ${n}: device clock to ${formatInstant(Number(argv[3]))}`);
          out.line(`set_clock ${argv[3]}`);
          break;
        }
        out.comment(`Step ${n}: ${step.note ?? describeCommand(argv)}`);
        if (argv[0] === 'pm' && argv[1] === 'clear') out.comment("pm clear wipes the app's data (as the harness did, on its own backup).");
        out.say(`step ${n}: ${step.note ?? buildShellCommand(argv)}`);
        out.line(adbShell(argv));
        if ((argv[0] === 'am' && argv[1] === 'start') || (argv[0] === 'am' && argv[1] === 'broadcast')) {
          out.comment('The app schedules its periodic work when its process starts: wait until JobScheduler has the job.');
          out.line('wait_job');
        }
        break;
      }
      case 'wait': {
        out.comment(`Step ${n}: wait for ${step.what}.`);
        out.line('wait_result');
        break;
      }
      case 'kill': {
        emitKill(out, step, n, undefined);
        break;
      }
      default: {
        const unreachable: never = step;
        throw new Error(`unknown repro step ${JSON.stringify(unreachable)}`);
      }
    }
    out.blank();
  }
  out.line('say "done: every recorded step was replayed"');
  return { script: `${out.lines.join('\n')}\n`, files };
}

function describeCommand(argv: readonly string[]): string {
  switch (`${argv[0] ?? ''} ${argv[1] ?? ''}`) {
    case 'am force-stop':
      return 'force-stop the app (its jobs are cancelled until it starts again).';
    case 'am start':
      return 'start the app (it schedules its periodic work).';
    case 'am kill':
      return 'kill the app process.';
    case 'pm clear':
      return "clear the app's data.";
    default:
      return buildShellCommand(argv);
  }
}

/** A forced run and what follows it (the kill or the wait); returns the index of the last step used. */
function emitRun(out: Emitter, input: ReproInput, steps: readonly ReproStep[], i: number): number {
  const step = steps[i];
  if (!step || step.kind !== 'adb-shell') return i;
  const n = i + 1;
  const run = runNumberOf(step.note);
  const probe = /\bprobe\b/.test(step.note ?? '');
  const recorded = step.argv.join(' ');
  out.comment(`Step ${n}: ${run !== undefined ? `forced run ${run}` : probe ? 'a forced run that must be refused' : 'a forced run'} (recorded: ${recorded}).`);
  out.comment('The job id is looked up on this device (ids differ between devices); -f ignores the constraints.');
  out.say(`step ${n}: ${run !== undefined ? `forced run ${run}` : probe ? 'forced run (must be refused)' : 'forced run'}`);
  out.line('begin_run');
  const next = steps[i + 1];
  let used = i;
  if (next?.kind === 'kill') {
    emitKill(out, next, i + 2, run);
    out.line(`after_kill ${i + 2}`);
    used = i + 1;
  } else if (next?.kind === 'wait') {
    out.comment(`Step ${i + 2}: wait for ${next.what}.`);
    out.line('wait_result');
    used = i + 1;
  } else if (probe) {
    out.line('expect_no_run');
  } else {
    out.line('wait_result');
  }
  out.line('show_posts');
  if (run !== undefined) emitHints(out, run, input.anomalies);
  return used;
}

function emitHints(out: Emitter, run: number, anomalies: readonly ReportAnomaly[]): void {
  for (const hint of hintsFor(run, anomalies)) {
    out.comment(hint.text);
    out.line(`watch ${quoteBash(commentText(`run ${run}: ${hint.text}`))}`);
  }
}

function emitKill(out: Emitter, step: Extract<ReproStep, { kind: 'kill' }>, n: number, run: number | undefined): void {
  const held = parseHeld(step.heldRequest);
  out.comment(`Step ${n}: the harness held ${step.heldRequest}${run !== undefined ? ` during run ${run}` : ''} and killed the app there (${step.argv.join(' ')}).`);
  out.comment('serve-feed cannot hold a request, so this kill cannot be placed exactly. To replay it faithfully, put a');
  out.comment('proxy that holds requests between the device and serve-feed (e.g. mitmproxy in reverse mode with an intercept');
  out.comment(`on ${held?.route ?? 'that route'}; adb reverse tcp:DEVICE_PORT to the proxy), run with KILL_AT=enter and press Enter`);
  out.comment('while the request is held. Without a proxy the app is killed as soon as serve-feed has answered that');
  out.comment('request: the app may already be past the point, so compare the notification lines printed below.');
  if (held) out.line(`kill_point ${quoteBash(`^[A-Z]+ ${escapeRegex(held.route)}([? ]|$)`)} ${held.nth}`);
  out.say(`step ${n}: ${step.argv.join(' ')}`);
  const [cmd, sub, , signal] = step.argv;
  if (cmd === 'am' && sub === 'kill') {
    out.comment('am kill (killBackgroundProcesses) spares the top app: the harness went home first.');
    out.line('$ADB shell input keyevent KEYCODE_HOME');
    out.line(adbShell(step.argv));
  } else if (cmd === 'run-as' && step.argv[2] === 'kill' && signal === '-9' && step.argv.length === 5) {
    out.comment(`The recorded pid (${step.argv[4] ?? ''}) was the app's on the recorded device: the app's pid here is looked up.`);
    out.line('kill_app_process');
  } else {
    out.line(adbShell(step.argv));
  }
}

/**
 * Writes `repro/<name>.sh` (mode 0755) and `repro/feeds/*.xml` under `dir` for each input;
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
    for (const file of files) await writeAtomically(join(root, file.name), file.content, 0o644);
    const path = join(root, `${name}.sh`);
    await writeAtomically(path, script, 0o755);
    written.push(path);
  }
  return written;
}

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, content, { encoding: 'utf8', mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}
