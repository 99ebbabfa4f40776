#!/usr/bin/env bash
# One forced run of the reference app's periodic work with nothing but raw `adb` commands
# (docs/design.md §3), as a person would script it: the job id from dumpsys, the clock past the
# schedule guard, `cmd jobscheduler run -f`, WorkManager's result line, then the rows (run-as cat
# of the database and its -wal, read with the host's sqlite3) and the posts
# (`notification_enqueue` in the events buffer).
#
#   ADB_PORT=PORT SERIAL=HOST:PORT bench/scripts/forced-run.sh [--sleeps]
#
# Without --sleeps every wait polls at once; with --sleeps it has the fixed waits such scripts
# usually carry (`sleep 2` after set-time, `sleep 5` after run -f) before the same checks.
# Prints one line: `result=SUCCESS posts=N rows=M`.
#
# Formats:
# - dumpsys job header: `  JOB #u0a190/42: 1a2b3c4 PKG/…SystemJobService`, on API 34+ with
#   WorkManager 2.10+ `  JOB androidx.work.systemjobscheduler:u0a190/0: …` (AOSP frameworks/base
#   apex/jobscheduler/service/java/com/android/server/job/controllers/JobStatus.java, dump();
#   the namespace goes to `run -n`);
# - `WM-WorkerWrapper: Worker result SUCCESS for Work [ id=… ]`, INFO (androidx
#   work/work-runtime/src/main/java/androidx/work/impl/WorkerWrapper.kt);
# - event 2750 `notification_enqueue: [uid,pid,pkg,id,tag,userid,notification,status]`, status 0
#   for a new post (AOSP frameworks/base services/core/java/com/android/server/EventLogTags.logtags,
#   Android 9–14; Android 15 appends an app_provided field, which this script does not handle).
set -euo pipefail
: "${ADB_PORT:?set ADB_PORT}" "${SERIAL:?set SERIAL}"
PKG=${PKG:-com.example.feednotifier}
DB=${DB:-databases/feed.db}
TABLE=${TABLE:-notifications}
INTERVAL_S=${INTERVAL_S:-86400}
SLEEPS=0
[ "${1:-}" = --sleeps ] && SLEEPS=1
a() { adb -P "$ADB_PORT" -s "$SERIAL" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Only this run's lines from here on.
a logcat -b main -b events -c

# 1. The job id (and namespace on API 34+) of WorkManager's SystemJobService.
jobs=$(a shell dumpsys jobscheduler "$PKG")
job=$(sed -nE 's#^ *JOB (\#|([^ :]+):)u[0-9a]+/([0-9]+): .*SystemJobService.*#\2/\3#p' <<<"$jobs")
job=${job%%$'\n'*}
ns=${job%/*}
id=${job##*/}
[ -n "$id" ] || { echo "no WorkManager job of $PKG in dumpsys jobscheduler" >&2; exit 1; }

# 2. The wall clock one interval (and a minute) ahead: past last_enqueue_time + interval.
#    The arithmetic is done here: the device's mksh has 32-bit integers.
now=$(a shell date +%s | tr -d '\r')
a shell cmd alarm set-time $(((now + INTERVAL_S + 60) * 1000)) >/dev/null
if [ "$SLEEPS" = 1 ]; then sleep 2; fi

# 3. Run it.
a shell cmd jobscheduler run -f ${ns:+-n "$ns"} "$PKG" "$id" >/dev/null
if [ "$SLEEPS" = 1 ]; then sleep 5; fi

# 4. Wait for WorkManager's result line (give up after 30 s).
deadline=$((SECONDS + 30))
until line=$(grep -m1 'Worker result' <<<"$(a logcat -d -s WM-WorkerWrapper:I)"); do
  [ "$SECONDS" -lt "$deadline" ] || { echo "no WM-WorkerWrapper result line within 30 s" >&2; exit 1; }
done

# 5. The rows: the database and its -wal (committed pages may live only there).
a exec-out run-as "$PKG" cat "$DB" >"$tmp/db"
a exec-out run-as "$PKG" cat "$DB-wal" >"$tmp/db-wal"
rows=$(sqlite3 "$tmp/db" "SELECT count(*) FROM $TABLE")

# 6. The posts: new notifications (update flag 0) of the package.
events=$(a logcat -b events -d)
posts=$(grep -cE "notification_enqueue: \[[0-9]+,[0-9]+,$PKG,.*,0\]\$" <<<"$events" || true)

echo "result=$(sed -E 's/.*Worker result ([A-Z]+).*/\1/' <<<"$line") posts=$posts rows=$rows"
