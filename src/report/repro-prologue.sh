# The helpers every repro script shares: output, cleanup on exit, serve-feed, the job lookup,
# the waits on WorkManager's result line and on serve-feed's log, and the kill point.
say() { printf '\n== %s\n' "$*"; }
watch() { printf '   >> watch: %s\n' "$*"; }
die() { printf 'repro: %s\n' "$*" >&2; exit 1; }

# adb for the device of SERIAL: a function, so a serial with spaces stays one argument.
adb_dev() { adb -s "$SERIAL" "$@"; }
ADB=adb_dev
# A word quoted for the device's shell: adb shell joins its arguments with spaces and the
# device's sh parses the line again, so a value read from the device goes there single-quoted.
dev_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
# A serial is one field of `adb devices` ("<serial>\t<state>" per line: adb's
# host:devices answer, packages/modules/adb transport.cpp append_transport): no tab, no line
# break, no control character, and not empty. Anything else is refused before adb is run.
check_serial() {
  [ -n "$1" ] || die "empty serial: pass the serial adb devices lists"
  if [[ $1 =~ [[:cntrl:]] ]]; then die "the serial holds a control character: pass the serial adb devices lists"; fi
}
# A job id is a Java int (JobInfo.getId(), android/app/job/JobInfo.java): an optional minus and
# digits, -2147483648 to 2147483647.
check_job_id() {
  [[ $1 =~ ^-?[0-9]{1,10}$ ]] && [ "$1" -ge -2147483648 ] && [ "$1" -le 2147483647 ] \
    || die "job id \"$(printf '%q' "$1")\" is not an int: set JOB_ID to the job's id in dumpsys jobscheduler"
}
# A job namespace is any string JobScheduler.forNamespace accepts: trimmed, not empty (aosp-mirror/
# platform_frameworks_base apex/jobscheduler/framework/java/android/app/job/JobScheduler.java
# @0b70d33a, forNamespace and sanitizeNamespace); it may hold shell characters, so it only ever
# reaches the device through dev_quote. A control character or surrounding blanks are refused.
check_namespace() {
  [ -z "$1" ] && return 0
  if [[ $1 =~ [[:cntrl:]] || $1 =~ ^[[:space:]] || $1 =~ [[:space:]]$ ]]; then
    die "job namespace \"$(printf '%q' "$1")\" is not one JobScheduler.forNamespace gives: set JOB_NAMESPACE to the one in dumpsys jobscheduler"
  fi
}

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
  local data=""
  if [ -n "$APP_DATA_SAVED" ]; then
    if restore_app_data; then data=", the app's data"; else echo "repro: the app's data could not all be put back; its copy is in $WORK/appdata (kept)" >&2; APP_DATA_SAVED=keep; fi
  fi
  [ "$APP_DATA_SAVED" = keep ] || rm -rf "$WORK"
  echo "repro: device clock, auto_time${data} and reverse rule put back; serve-feed stopped."
}

# The app's data directory but cache/ and code_cache/ (which Android may clear at any time,
# Context.getCacheDir), as src/android/app-data.ts saves it for a run: listed with
# `run-as PKG ls -lRA .` (toybox ls: a "DIR:" line, then "MODE LINKS USER GROUP SIZE DATE TIME
# NAME" per entry), each regular file copied with `run-as PKG cat` over `adb shell` (without a
# terminal, adb's shell protocol passes stdout through unchanged). The script replays writes to
# the app's database, `pm clear` (RESET=1, or a recorded clear) and runs that store rows: on exit
# the directory is put back from this copy (the files' modes are not kept; a name with a blank
# is left out and named). adb reads its standard input, so inside a loop over a list each adb
# is given /dev/null or its file.
APP_DATA_SAVED=""
app_tree() {
  $ADB shell run-as "$PKG" ls -lRA . | tr -d '\r' | awk '
    /^\.(\/.*)?:$/ { dir = substr($0, 1, length($0) - 1); sub(/^\.\/?/, "", dir); next }
    NF < 8 || /^total / { next }
    {
      name = $8; for (i = 9; i <= NF; i++) name = name " " $i
      path = (dir == "" ? name : dir "/" name); top = path; sub(/\/.*/, "", top)
      if (top == "cache" || top == "code_cache") next
      t = substr($1, 1, 1)
      if (t == "d") print "d " path; else if (t == "-") print "f " path
    }'
}
save_app_data() {
  local kind path
  mkdir -p "$WORK/appdata"
  app_tree >"$WORK/appdata.list" || { echo "   note: run-as $PKG ls failed: the app's data will not be put back on exit"; return 0; }
  while IFS=' ' read -r kind path; do
    if [[ $path == *' '* ]]; then echo "   note: \"$path\" has a blank in its name and is not saved"; continue; fi
    if [ "$kind" = d ]; then mkdir -p "$WORK/appdata/$path"
    else $ADB shell run-as "$PKG" cat "$(dev_quote "$path")" >"$WORK/appdata/$path" </dev/null; fi
  done <"$WORK/appdata.list"
  APP_DATA_SAVED=1
}
restore_app_data() {
  local kind path mode name ok=0
  $ADB shell am force-stop "$PKG" >/dev/null 2>&1 || ok=1
  # What the data directory holds now, at its top (links, such as lib, and the disposable dirs stay).
  while read -r mode _ _ _ _ _ _ name; do
    case "$mode" in d*|-*) ;; *) continue ;; esac
    case "$name" in cache|code_cache|'') continue ;; esac
    $ADB shell run-as "$PKG" rm -rf "$(dev_quote "$name")" >/dev/null 2>&1 </dev/null || ok=1
  done < <($ADB shell run-as "$PKG" ls -lA . | tr -d '\r' | grep -v '^total ')
  while IFS=' ' read -r kind path; do
    [[ $path == *' '* ]] && continue
    if [ "$kind" = d ]; then $ADB shell run-as "$PKG" mkdir -p "$(dev_quote "$path")" >/dev/null 2>&1 </dev/null || ok=1
    else $ADB shell run-as "$PKG" sh -c "$(dev_quote "cat > $(dev_quote "$path")")" <"$WORK/appdata/$path" >/dev/null 2>&1 || ok=1; fi
  done <"$WORK/appdata.list"
  return "$ok"
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
    line=${line%$'\r'}
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

# The app's job: the "JOB" header lines of dumpsys jobscheduler PKG, printed by
# JobSchedulerService.dumpInternal with JobStatus.printUniqueId ("<namespace>:" or "#", the
# formatted uid, "/", the job id), then the identity hash and the battery name - aosp-mirror/
# platform_frameworks_base apex/jobscheduler/service/java/com/android/server/job/
# JobSchedulerService.java @f4cdb430 and controllers/JobStatus.java @054fcdf7:
#   JOB #u0a190/42: 1a2b3c4 com.example/androidx.work.impl.background.systemjob.SystemJobService
#   JOB androidx.work.systemjobscheduler:u0a190/0: 8c4f1d2 @androidx.work.systemjobscheduler@com.example/androidx.work...SystemJobService
#   JOB #u0a190/2: 5e6f7a8 com.example/.FeedSyncJobService
# (newer platforms put "#<trace tag>#" first in the battery name; the component is printed
# short, ComponentName.flattenToShortString: a class in the package as ".Name"). WorkManager
# 2.10+ on API 34+ uses that namespace (androidx work-runtime systemjob/JobSchedulerExt.kt
# @a9b06aaf), which needs "run -n NAMESPACE". Android 11 (API 30) prints the JOB line of every
# registered job of every app and filters only the details below it (Ankits-lab/
# frameworks_base, same file, @150a9240: the line comes before "if (!predicate.test(job))
# continue;"), and each app's WorkManager numbers its jobs from 0: only a line whose battery
# name is PKG's own JOB_CLASS (WorkManager's SystemJobService, or the app's JobService) is the
# app's job.
# Set JOB_ID (and JOB_NAMESPACE) to skip the lookup.
find_job() {
  JOB=""; JOB_NS=""
  if [ -n "${JOB_ID:-}" ]; then
    check_job_id "$JOB_ID"; check_namespace "${JOB_NAMESPACE:-}"
    JOB=$JOB_ID; JOB_NS=${JOB_NAMESPACE:-}; return 0
  fi
  [ -n "$JOB_CLASS" ] || die "set JOB_ID (and JOB_NAMESPACE) to the app's job: the config names neither its id nor its service"
  local refs
  refs=$($ADB shell dumpsys jobscheduler "$PKG" | tr -d '\r' | job_refs "$PKG" "$JOB_CLASS" | sort -u || true)
  local count
  count=$(printf '%s\n' "$refs" | grep -c . || true)
  [ "$count" -ge 1 ] || return 1
  if [ "$count" -gt 1 ]; then
    printf 'repro: %s jobs of %s/%s (id namespace):\n%s\n' "$count" "$PKG" "$JOB_CLASS" "$refs" >&2
    die "set JOB_ID (and JOB_NAMESPACE) to the periodic job (for WorkManager: its SystemIdInfo.system_id)"
  fi
  JOB=${refs%% *}
  JOB_NS=${refs#* }
  [ "$JOB_NS" != "$refs" ] || JOB_NS=""
  check_job_id "$JOB"; check_namespace "$JOB_NS"
}
# "<job id> <namespace>" of each JOB line on stdin whose battery name, less "#<trace tag>#" and
# "@<namespace>@", is exactly $1/$2 or its short form (a string comparison: a dot of the package
# name matches only a dot, and PKG.beta is not PKG).
job_refs() {
  local short=$2
  case $2 in "$1".*) short=${2#"$1"} ;; esac
  awk -v svc="$1/$2" -v svc_short="$1/$short" '
    /^ *JOB (#|[^ :#]+:)[^ \/]+\/-?[0-9]+: [0-9a-f]+ / {
      name = $0; sub(/^ *JOB [^ ]+ [0-9a-f]+ /, "", name)
      sub(/^#[^#]*#/, "", name); sub(/^@[^@]*@/, "", name)
      if (name != svc && name != svc_short) next
      ref = $2; sub(/:$/, "", ref)
      id = ref; sub(/^.*\//, "", id)
      ns = ""; if (substr(ref, 1, 1) != "#") { ns = ref; sub(/:[^:]*$/, "", ns) }
      print id " " ns
    }'
}
has_job() { find_job && [ -n "$JOB" ]; }
wait_job() { wait_for "the job of $PKG in dumpsys jobscheduler (does the app schedule it at start?)" has_job; }

# WorkManager logs one INFO line per finished run: "Worker result SUCCESS for Work [ id=... ]"
# (androidx work-runtime WorkerWrapper, tag WM-WorkerWrapper). An app's own JobService has no
# such line: its run has ended when JobScheduler has the job neither pending nor active
# (cmd jobscheduler get-job-state, JobSchedulerService.getJobState).
results() { [ "$SCHEDULER" = workmanager ] || return 0; $ADB logcat -d -s WM-WorkerWrapper:I 2>/dev/null | tr -d '\r' | grep 'Worker result' || true; }
result_count() { results | grep -c . || true; }
# notification_enqueue (event log tag 2750; status 0 = post, 1 = update) of the app, as in
# logcat -b events (frameworks/base services/core/java/com/android/server/EventLogTags.logtags).
posts() { $ADB logcat -b events -d 2>/dev/null | tr -d '\r' | grep 'notification_enqueue' | grep -F ",$PKG," || true; }
post_count() { posts | grep -c . || true; }
job_state() {
  if [ -n "$JOB_NS" ]; then $ADB shell cmd jobscheduler get-job-state -n "$(dev_quote "$JOB_NS")" "$PKG" "$JOB" 2>/dev/null | tr -d '\r' || true
  else $ADB shell cmd jobscheduler get-job-state "$PKG" "$JOB" 2>/dev/null | tr -d '\r' || true; fi
}
job_idle() { local s; s=$(job_state); ! [[ $s =~ (^|[[:space:]])(pending|active)([[:space:]]|$) ]]; }

# The run command's exit status (a probe's "run -s" exits non-zero when the job is not due).
# begin_run [-f|-s]: -f (default) runs the job whatever its constraints; -s only when every
# constraint is met (JobSchedulerShellCommand).
RUN_EXIT=0
begin_run() {
  local flag=${1:--f}
  RESULTS_BEFORE=$(result_count)
  POSTS_BEFORE=$(post_count)
  LOG_LINES_BEFORE=$(wc -l <"$WORK/serve-feed.log")
  find_job || { wait_job; find_job; }
  echo "job $JOB${JOB_NS:+ in namespace $JOB_NS} of $PKG"
  RUN_EXIT=0
  # The namespace came from the device: quoted for the device's shell as well as for this one.
  if [ -n "$JOB_NS" ]; then $ADB shell cmd jobscheduler run "$flag" -n "$(dev_quote "$JOB_NS")" "$PKG" "$JOB" || RUN_EXIT=$?
  else $ADB shell cmd jobscheduler run "$flag" "$PKG" "$JOB" || RUN_EXIT=$?; fi
  return "$RUN_EXIT"
}
# logcat (without -d) prints the whole buffer, then each line as it is logged: the result lines
# it streams are the ones result_count counted, then the new ones.
await_results() {
  if [ "$SCHEDULER" = jobscheduler ]; then wait_for "the end of job $JOB of $PKG (neither pending nor active)" job_idle; return; fi
  await_lines "$RESULTS_BEFORE" 'Worker result' "$1" $ADB logcat -s WM-WorkerWrapper:I
}
# A step that could not be replayed exactly (a fault serve-feed cannot make, a kill that came
# after its run) leaves this device in another state than the recorded one: a run recorded as
# done may then be refused here (not due yet). The script says so and goes on.
DIVERGED=""
wait_result() {
  if [ "$SCHEDULER" = jobscheduler ]; then
    wait_for "the end of job $JOB of $PKG (neither pending nor active)" job_idle
    echo "job $JOB of $PKG ended (get-job-state: $(job_state))"; return 0
  fi
  if await_results "$WAIT_S"; then results | tail -n 1; return 0; fi
  [ -n "$DIVERGED" ] || die "no WM-WorkerWrapper result line within $WAIT_S s (a run the device refused: WorkManager delays a periodic run before last_enqueue_time + interval; see RESET=1 above)"
  echo "   no WM-WorkerWrapper result line within $WAIT_S s: WorkManager did not run it here, because $DIVERGED was not replayed exactly (see its comment); going on"
}
# The run must not happen: for WorkManager, no result line within 5 s (the harness waits as
# long); for an app's own job, "run -s" refused it (its exit status).
expect_no_run() {
  if [ "$SCHEDULER" = jobscheduler ]; then
    if [ "$RUN_EXIT" -ne 0 ]; then echo "refused: cmd jobscheduler run exited $RUN_EXIT (not due), as recorded"; else wait_for "the end of job $JOB of $PKG" job_idle; echo "it ran: the run command exited 0"; fi
    return 0
  fi
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
  if [ "${KILL_AT:-request}" = enter ] && [ -t 0 ]; then
    read -r -p "   press Enter to kill the app now > " _
  else
    await_lines "$(( $2 - 1 ))" "$1" "$WAIT_S" follow_log +"$(( LOG_LINES_BEFORE + 1 ))" \
      || die "no request $2 to the held route in the serve-feed log within $WAIT_S s"
  fi
}
# run-as PKG kill -SIG on the app's process on this device (the recorded pid was the recorded
# device's).
kill_app_process() { # the signal as recorded: -9, or -15 where run-as may not send SIGKILL (API 29-33)
  local pid sig=${1:--9}
  pid=$($ADB shell pidof "$PKG" | tr -d '\r')
  if [[ $pid =~ ^[0-9]+$ ]]; then $ADB shell run-as "$PKG" kill "$sig" "$pid"
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
