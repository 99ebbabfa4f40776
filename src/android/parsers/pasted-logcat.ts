/**
 * Log lines in the layouts people paste, besides the `epoch` and `threadtime` lines the harness
 * reads live (parseLogLine). What each carries is the same record: a time (or none), pid, tid
 * (or none), priority, tag and message. The layouts:
 *
 * - logcat's own formats, from AOSP system/logging `liblog/logprint.cpp`
 *   (android_log_formatLogLine):
 *   - `threadtime` (the default): `"%s %s%5d %5d %c %-8.*s: "`: time, uid (with `-v uid`),
 *     pid, tid, priority, tag;
 *   - `time`: `"%s %c/%-8.*s(%s%5d): "`: time, priority/tag, (uid:pid);
 *   - `brief`: `"%c/%-8.*s(%s%5d): "`: priority/tag, (uid:pid);
 *   - the uid column (`-v uid`) is `"%5s:"` of a name of at most 5 characters (`root`,
 *     `system` is too long) or `"%5d:"` of the number; threadtime turns its `:` into a space;
 *   - the time is `%m-%d %H:%M:%S` (`-v year`: `%Y-%m-%d`; `-v epoch` / `-v monotonic`:
 *     seconds), then `.%03ld` (`-v usec`: `.%06ld`, `-v nsec`: `.%09ld`), then ` %z` with `-v zone`;
 * - Android Studio's Logcat window, copied (developer.android.com/studio/debug/logcat):
 *   - the Logcat of Android Studio Dolphin (2021.3) and later: `2026-03-04 10:11:12.345
 *     4321-4350  TAG  com.pkg  I  message` (date and time, pid-tid, tag, package, priority,
 *     message, in columns padded with spaces);
 *   - the older Logcat: `2026-03-04 10:11:12.345 4321-4350/com.pkg I/TAG: message` (the package
 *     `?` when Studio did not know it).
 */
import { parseLogLine, type LogLine, type LogPriorityLetter } from './logcat.js';

/** The layout a line was read in. */
export type LogLayout = 'threadtime' | 'epoch' | 'threadtime-uid' | 'time' | 'brief' | 'studio' | 'studio-old';

export interface PastedLogLine extends LogLine {
  readonly layout: LogLayout;
}

const PRIORITY = '([VDIWEFSA])';
/** `MM-DD HH:MM:SS`, `YYYY-MM-DD HH:MM:SS` or seconds, a fraction of 3, 6 or 9 digits, an optional zone. */
const TIME = '((?:\\d{4}-)?\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d|\\d+)\\.(?:\\d{9}|\\d{6}|\\d{3})(?: [+-]\\d{4})?';

const THREADTIME_UID = new RegExp(`^(${TIME})\\s+(\\S{1,5})\\s+(\\d+)\\s+(\\d+) ${PRIORITY} (.*?)\\s*: (.*)$`);
const THREADTIME_ANY = new RegExp(`^(${TIME})\\s+(\\d+)\\s+(\\d+) ${PRIORITY} (.*?)\\s*: (.*)$`);
/** `(uid:pid)` or `( pid)` of the time and brief formats. */
const PID_PART = '\\((?:\\s*(\\S{1,5}):)?\\s*(\\d+)\\)';
const TIME_FORMAT = new RegExp(`^(${TIME}) ${PRIORITY}/(.*?)\\s*${PID_PART}: (.*)$`);
const BRIEF = new RegExp(`^${PRIORITY}/(.*?)\\s*${PID_PART}: (.*)$`);
const STUDIO = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)-(\d+)\s+(\S+)\s+(\S+)\s+([VDIWEFA])\s+(.*)$/;
const STUDIO_OLD = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)-(\d+)\/(\S+)\s+([VDIWEFA])\/(.*?)\s*: (.*)$/;

function line(layout: LogLayout, timeText: string, pid: string, tid: string, priority: string, tag: string, message: string): PastedLogLine {
  const epoch = /^(\d+)\.(\d{3})\d*$/.exec(timeText);
  return {
    layout,
    timeMs: epoch ? Number(epoch[1]) * 1000 + Number(epoch[2]) : null,
    timeText,
    pid: Number(pid),
    tid: Number(tid),
    priority: (priority === 'A' ? 'F' : priority) as LogPriorityLetter,
    tag,
    message,
  };
}

/** One log line in any layout above; null for anything else (dividers, prompts, other text). */
export function parsePastedLogLine(text: string): PastedLogLine | null {
  const raw = text.replace(/\r$/, '');
  const live = parseLogLine(raw);
  if (live !== null) return { ...live, layout: live.timeMs === null ? 'threadtime' : 'epoch' };
  let m = THREADTIME_ANY.exec(raw);
  if (m) return line('threadtime', m[1] ?? '', m[3] ?? '0', m[4] ?? '0', m[5] ?? 'V', m[6] ?? '', m[7] ?? '');
  m = THREADTIME_UID.exec(raw);
  if (m) return line('threadtime-uid', m[1] ?? '', m[4] ?? '0', m[5] ?? '0', m[6] ?? 'V', m[7] ?? '', m[8] ?? '');
  m = STUDIO_OLD.exec(raw);
  if (m) return line('studio-old', m[1] ?? '', m[2] ?? '0', m[3] ?? '0', m[5] ?? 'V', m[6] ?? '', m[7] ?? '');
  m = STUDIO.exec(raw);
  if (m) return line('studio', m[1] ?? '', m[2] ?? '0', m[3] ?? '0', m[6] ?? 'V', m[4] ?? '', m[7] ?? '');
  m = TIME_FORMAT.exec(raw);
  if (m) return line('time', m[1] ?? '', m[6] ?? '0', m[6] ?? '0', m[3] ?? 'V', m[4] ?? '', m[7] ?? '');
  m = BRIEF.exec(raw);
  if (m) return line('brief', '', m[4] ?? '0', m[4] ?? '0', m[1] ?? 'V', m[2] ?? '', m[5] ?? '');
  return null;
}
