/**
 * logcat's output formats, line for line as liblog prints them
 * (system/logging/liblog/logprint.cpp, android-14.0.0_r29, android_log_formatLogLine):
 *
 *   brief       `%c/%-8.*s(%s%5d): `                     P/TAG     (  PID): msg
 *   process     `%c(%s%5d) ` … `  (%s)`                  P(  PID) msg  (TAG)
 *   tag         `%c/%-8.*s: `                            P/TAG     : msg
 *   thread      `%c(%s%5d:%5d) `                         P(  PID:  TID) msg
 *   raw         msg
 *   time        `%s %c/%-8.*s(%s%5d): `                  MM-DD hh:mm:ss.mmm P/TAG     (  PID): msg
 *   threadtime  `%s %s%5d %5d %c %-8.*s: `               MM-DD hh:mm:ss.mmm  PID  TID P TAG     : msg
 *   long        `[ %s %s%5d:%5d %c/%-8.*s ]\n` msg `\n\n`
 *
 * The time is `%m-%d %H:%M:%S` (`%Y-` prefixed with `year`) in the local zone, or with `epoch`
 * the seconds right-aligned in 19 columns (`%19lld`), with `monotonic` `%6lld`; then `.%03ld`
 * (`.%06ld` usec, `.%09ld` nsec) and ` %z` with `zone`. A message with several lines prints one
 * output line per message line, each with the prefix.
 *
 * The binary format (`logcat -B`) writes each `struct log_msg` as read from logd
 * (liblog/include/log/log_read.h, v4 `struct logger_entry`, 28-byte header):
 * u16 len, u16 hdr_size, i32 pid, u32 tid, u32 sec, u32 nsec, u32 lid, u32 uid, then the payload
 * `priority byte + tag + NUL + message + NUL` (text buffers) or the binary event (events).
 */
import { localTime } from '../clock.js';
import { idName } from '../fs/android-ids.js';
import { LOG_ID, type StoredLogEntry } from './log-buffers.js';
import { encodeEventPayload } from './event-values.js';

export const LOG_FORMAT_VERBS = ['brief', 'process', 'tag', 'thread', 'raw', 'time', 'threadtime', 'long'] as const;
export type LogFormatVerb = (typeof LOG_FORMAT_VERBS)[number];

export interface LogFormat {
  verb: LogFormatVerb;
  color: boolean;
  usec: boolean;
  nsec: boolean;
  printable: boolean;
  year: boolean;
  zone: boolean;
  epoch: boolean;
  monotonic: boolean;
  uid: boolean;
  descriptive: boolean;
  /** Zone used for local times (persist.sys.timezone, or a zone named with -v). */
  timeZone: string;
}

/** android_log_format_new(): brief with no modifiers (logcat then sets threadtime). */
export function defaultLogFormat(timeZone: string): LogFormat {
  return {
    verb: 'brief',
    color: false,
    usec: false,
    nsec: false,
    printable: false,
    year: false,
    zone: false,
    epoch: false,
    monotonic: false,
    uid: false,
    descriptive: false,
    timeZone,
  };
}

const MODIFIERS: Readonly<Record<string, (f: LogFormat) => void>> = {
  color: (f) => void (f.color = true),
  colour: (f) => void (f.color = true),
  usec: (f) => void (f.usec = true),
  nsec: (f) => void (f.nsec = true),
  printable: (f) => void (f.printable = true),
  year: (f) => void (f.year = true),
  zone: (f) => void (f.zone = !f.zone),
  epoch: (f) => void (f.epoch = true),
  monotonic: (f) => void (f.monotonic = true),
  uid: (f) => void (f.uid = true),
  descriptive: (f) => void (f.descriptive = true),
};

/**
 * Applies one `-v` word (android_log_formatFromString + android_log_setPrintFormat).
 * Returns 'verb' when it set the format, 'modifier' for an adverb, or 'invalid'. A word that
 * names a time zone switches to it and toggles `zone`, as liblog's TzSetter does.
 */
export function applyFormatWord(format: LogFormat, word: string): 'verb' | 'modifier' | 'invalid' {
  if ((LOG_FORMAT_VERBS as readonly string[]).includes(word)) {
    format.verb = word as LogFormatVerb;
    return 'verb';
  }
  const modifier = MODIFIERS[word];
  if (modifier !== undefined) {
    modifier(format);
    return 'modifier';
  }
  if (isTimeZone(word)) {
    format.timeZone = word;
    format.zone = !format.zone;
    return 'modifier';
  }
  return 'invalid';
}

function isTimeZone(name: string): boolean {
  if (name === 'UTC' || name === 'GMT') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const PRIORITY_CHARS: Readonly<Record<number, string>> = { 2: 'V', 3: 'D', 4: 'I', 5: 'W', 6: 'E', 7: 'F', 8: 'S' };
/** filterPriToChar(): '?' for anything else. */
export function priorityChar(priority: number): string {
  return PRIORITY_CHARS[priority] ?? '?';
}

/** colorFromPri(): V default, D blue, I green, W yellow, E/F red. */
function colorOf(priority: number): number {
  switch (priority) {
    case 3:
      return 34;
    case 4:
      return 32;
    case 5:
      return 33;
    case 6:
    case 7:
      return 31;
    default:
      return 39;
  }
}

const pad2 = (n: number): string => String(n).padStart(2, '0');
const padLeft = (s: string, width: number): string => s.padStart(width, ' ');
const padRight = (s: string, width: number): string => s.padEnd(width, ' ');

/** The time column of a line (timeBuf in android_log_formatLogLine). */
export function formatLogTime(entry: Pick<StoredLogEntry, 'timeMs' | 'elapsedMs'>, format: LogFormat): string {
  const baseMs = format.monotonic ? entry.elapsedMs : entry.timeMs;
  const sec = Math.floor(baseMs / 1000);
  const nsec = Math.round((baseMs - sec * 1000) * 1_000_000);
  let out: string;
  let zone = '';
  if (format.epoch || format.monotonic) {
    out = padLeft(String(sec), format.monotonic ? 6 : 19);
  } else {
    const t = localTime(sec * 1000, format.timeZone);
    out = `${format.year ? `${t.year}-` : ''}${pad2(t.month)}-${pad2(t.day)} ${pad2(t.hour)}:${pad2(t.minute)}:${pad2(t.second)}`;
    if (format.zone) {
      const sign = t.offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(t.offsetMinutes);
      zone = ` ${sign}${pad2(Math.floor(abs / 60))}${pad2(abs % 60)}`;
    }
  }
  if (format.nsec) out += `.${String(nsec).padStart(9, '0')}`;
  else if (format.usec) out += `.${String(Math.floor(nsec / 1000)).padStart(6, '0')}`;
  else out += `.${String(Math.floor(nsec / 1_000_000)).padStart(3, '0')}`;
  return out + zone;
}

function uidColumn(uid: number, format: LogFormat): string {
  if (!format.uid) return '';
  if (uid < 0) return '      ';
  const name = idName(uid);
  // getpwuid() names of at most 5 characters are printed, else the number.
  return name.length <= 5 && !/^\d+$/.test(name) ? `${padLeft(name, 5)}:` : `${padLeft(String(uid), 5)}:`;
}

/** One entry as text (may be several lines; always newline-terminated). */
export function formatLogEntry(entry: StoredLogEntry, format: LogFormat): string {
  const pri = priorityChar(entry.priority);
  const tag = padRight(entry.tag, 8);
  const time = formatLogTime(entry, format);
  const uid = uidColumn(entry.uid, format);
  const pid = padLeft(String(entry.pid), 5);
  const tid = padLeft(String(entry.tid), 5);
  let prefix = '';
  let suffix = '';
  let headerFooter = false;
  switch (format.verb) {
    case 'tag':
      prefix = `${pri}/${tag}: `;
      suffix = '\n';
      break;
    case 'process':
      prefix = `${pri}(${uid}${pid}) `;
      suffix = `  (${entry.tag})\n`;
      break;
    case 'thread':
      prefix = `${pri}(${uid}${pid}:${tid}) `;
      suffix = '\n';
      break;
    case 'raw':
      suffix = '\n';
      break;
    case 'time':
      prefix = `${time} ${pri}/${tag}(${uid}${pid}): `;
      suffix = '\n';
      break;
    case 'threadtime':
      prefix = `${time} ${uid.replace(':', ' ')}${pid} ${tid} ${pri} ${tag}: `;
      suffix = '\n';
      break;
    case 'long':
      prefix = `[ ${time} ${uid}${pid}:${tid} ${pri}/${tag} ]\n`;
      suffix = '\n\n';
      headerFooter = true;
      break;
    case 'brief':
      prefix = `${pri}/${tag}(${uid}${pid}): `;
      suffix = '\n';
      break;
    default: {
      const unreachable: never = format.verb;
      throw new Error(`unknown log format ${String(unreachable)}`);
    }
  }
  if (format.color) {
    prefix = `\x1b[${colorOf(entry.priority)}m${prefix}`;
    suffix = `\x1b[0m${suffix}`;
  }
  const message = format.printable ? toPrintable(entry.message) : entry.message;
  if (headerFooter) return prefix + message + suffix;
  // One output line per message line; a trailing newline adds no empty line.
  const lines = message.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.map((line) => prefix + line + suffix).join('');
}

/** `--------- beginning of main` (logcat.cpp PrintDividers). */
export function dividerLine(buffer: string, switched: boolean): string {
  return `--------- ${switched ? 'switch to' : 'beginning of'} ${buffer}\n`;
}

/** convertPrintable(): control characters other than tab and newline as `\ooo`. */
function toPrintable(message: string): string {
  let out = '';
  for (const c of message) {
    const code = c.charCodeAt(0);
    const control = (code < 0x20 && c !== '\t' && c !== '\n') || code === 0x7f;
    out += control ? `\\${code.toString(8).padStart(3, '0')}` : c;
  }
  return out;
}

/** LOGGER_ENTRY_MAX_PAYLOAD (liblog/include/log/log_read.h). */
const MAX_PAYLOAD = 4068;
const HEADER_SIZE_V4 = 28;

/** One entry in logcat's binary (-B) format. */
export function encodeBinaryEntry(entry: StoredLogEntry): Buffer {
  let payload: Buffer;
  if (entry.buffer === 'events') {
    payload = encodeEventPayload(entry.event?.tagNumber ?? 0, entry.event?.values ?? [{ type: 'string', value: entry.message }]);
  } else {
    const tag = Buffer.from(entry.tag, 'utf8');
    let msg = Buffer.from(entry.message, 'utf8');
    const room = MAX_PAYLOAD - tag.length - 3;
    if (msg.length > room) msg = msg.subarray(0, Math.max(0, room));
    payload = Buffer.concat([Buffer.from([entry.priority]), tag, Buffer.from([0]), msg, Buffer.from([0])]);
  }
  const header = Buffer.alloc(HEADER_SIZE_V4);
  const sec = Math.floor(entry.timeMs / 1000);
  const nsec = Math.round((entry.timeMs - sec * 1000) * 1_000_000);
  header.writeUInt16LE(payload.length, 0);
  header.writeUInt16LE(HEADER_SIZE_V4, 2);
  header.writeInt32LE(entry.pid, 4);
  header.writeUInt32LE(entry.tid >>> 0, 8);
  header.writeUInt32LE(sec >>> 0, 12);
  header.writeUInt32LE(nsec >>> 0, 16);
  header.writeUInt32LE(LOG_ID[entry.buffer], 20);
  header.writeUInt32LE(entry.uid >>> 0, 24);
  return Buffer.concat([header, payload]);
}

export interface DecodedBinaryEntry {
  pid: number;
  tid: number;
  sec: number;
  nsec: number;
  lid: number | undefined;
  uid: number | undefined;
  payload: Buffer;
}

/** Splits a byte stream of binary entries (v1 20-byte headers and later ones alike). */
export function decodeBinaryEntries(data: Buffer): { entries: DecodedBinaryEntry[]; rest: Buffer } {
  const entries: DecodedBinaryEntry[] = [];
  let off = 0;
  while (data.length - off >= 4) {
    const len = data.readUInt16LE(off);
    let hdr = data.readUInt16LE(off + 2);
    if (hdr < 20 || hdr > 100) hdr = 20;
    if (data.length - off < hdr + len) break;
    entries.push({
      pid: data.readInt32LE(off + 4),
      tid: data.readUInt32LE(off + 8),
      sec: data.readUInt32LE(off + 12),
      nsec: data.readUInt32LE(off + 16),
      lid: hdr >= 24 ? data.readUInt32LE(off + 20) : undefined,
      uid: hdr >= 28 ? data.readUInt32LE(off + 24) : undefined,
      payload: data.subarray(off + hdr, off + hdr + len),
    });
    off += hdr + len;
  }
  return { entries, rest: data.subarray(off) };
}
