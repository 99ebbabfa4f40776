/**
 * Text logcat lines. Layout from yaap/system_logging (android-14.0.0_r29) `liblog/logprint.cpp`:
 * with `-v epoch` the time is `%19lld` seconds (right-aligned) + `.%03ld` ms; with the default
 * threadtime format it is `%m-%d %H:%M:%S.mmm`; then `%5d %5d %c %-8.*s: ` (pid, tid, priority
 * letter, tag padded to 8) and the message. Multi-line messages print one line per message
 * line, each with the prefix. Events-buffer lines carry the event tag name as the tag and the
 * rendered list as the message (`[a,b,…]`).
 */

export const LogPriorityLetter = ['V', 'D', 'I', 'W', 'E', 'F', 'S'] as const;
export type LogPriorityLetter = (typeof LogPriorityLetter)[number];

export interface LogLine {
  /** Epoch ms for `-v epoch` lines; null for threadtime lines (no year, device time zone). */
  readonly timeMs: number | null;
  /** The time text as printed (`1717000000.123` or `08-10 11:20:03.810`). */
  readonly timeText: string;
  readonly pid: number;
  readonly tid: number;
  readonly priority: LogPriorityLetter;
  readonly tag: string;
  readonly message: string;
}

const EPOCH_LINE = /^\s*(\d+)\.(\d{3})\s+(\d+)\s+(\d+) ([VDIWEFS]) (.*?)\s*: (.*)$/;
const THREADTIME_LINE = /^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)\s+(\d+) ([VDIWEFS]) (.*?)\s*: (.*)$/;

/** One `logcat -v epoch` or default (threadtime) line; null for dividers and other text. */
export function parseLogLine(line: string): LogLine | null {
  const epoch = EPOCH_LINE.exec(line);
  if (epoch) {
    const [, seconds = '0', millis = '0', pid = '0', tid = '0', priority = 'V', tag = '', message = ''] = epoch;
    return {
      timeMs: Number(seconds) * 1000 + Number(millis),
      timeText: `${seconds}.${millis}`,
      pid: Number(pid),
      tid: Number(tid),
      priority: priority as LogPriorityLetter,
      tag,
      message,
    };
  }
  const threadtime = THREADTIME_LINE.exec(line);
  if (threadtime) {
    const [, time = '', pid = '0', tid = '0', priority = 'V', tag = '', message = ''] = threadtime;
    return { timeMs: null, timeText: time, pid: Number(pid), tid: Number(tid), priority: priority as LogPriorityLetter, tag, message };
  }
  return null;
}

/** `-T` argument for `logcat` meaning "from this device time on": `sssss.mmm`. */
export function formatLogcatSince(deviceTimeMs: number): string {
  const seconds = Math.floor(deviceTimeMs / 1000);
  const millis = String(deviceTimeMs - seconds * 1000).padStart(3, '0');
  return `${seconds}.${millis}`;
}
