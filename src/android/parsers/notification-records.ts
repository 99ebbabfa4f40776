/**
 * NotificationRecord dumps: `dumpsys notification --noredact` and `cmd notification get KEY`.
 *
 * Layout (A14 LOS21-pre-QPR2/android_frameworks_base `services/core/java/com/android/server/
 * notification/NotificationRecord.java` @be7a85af, `dump()` and `dumpNotification()`):
 *   <p>NotificationRecord(0x%08x: pkg=%s user=%s id=%d tag=%s importance=%d key=%s: %s)
 *   <p>  uid=… userId=…, opPkg=…, …, key=<user|pkg|id|tag|uid>, …
 *   <p>  notification=
 *   <p><p>    … extras={            (dumpNotification at prefix+prefix)
 *   <p><p>        android.title=String (Title)
 *   <p><p>    }
 *   <p>  publicNotification=  (same block again, or `None`)
 *   <p>  mCreationTimeMs=…, mUpdateTimeMs=…
 * NMS passes p = "    " (`nr.dump(pw, "    ", …)`), `cmd notification get` passes "" (fields at
 * 2, extras at 8: NotificationShellCmd.java @fd1acebf). Android 10 (aosp-mirror NotificationRecord
 * @30b9655a) prints `key=…appImportanceLocked=false:` in the header and no notification=/
 * publicNotification= sub-blocks. An extra prints `key=null`, `key=Type (value)` (unredacted),
 * `key=Type [length=N]` (redacted CharSequence, A14) or `key=Type` (redacted, A10).
 * mCreationTimeMs keeps the first post time across updates; mUpdateTimeMs is the latest post.
 */

export interface ExtraValue {
  /** Simple class name (`String`, `SpannableString`, `Boolean`, …); null for a null value. */
  readonly type: string | null;
  /** The text inside `( … )`; null when null or redacted. */
  readonly value: string | null;
  readonly redacted: boolean;
}

export type RecordSection = 'posted' | 'enqueued';

export interface NotificationRecordDump {
  /** Which list of the dump it came from; null for `cmd notification get` (no list header). */
  readonly section: RecordSection | null;
  readonly key: string;
  readonly pkg: string;
  readonly userId: number;
  readonly id: number;
  readonly tag: string | null;
  readonly uid: number;
  readonly importance: number | null;
  readonly channel: string | null;
  /** `android.title` / `android.text` of the notification (not its public version). */
  readonly title: string | null;
  readonly text: string | null;
  readonly extras: Readonly<Record<string, ExtraValue>>;
  readonly creationTimeMs: number | null;
  readonly updateTimeMs: number | null;
}

const HEADER =
  /^(\s*)NotificationRecord\(0x[0-9a-fA-F]+: pkg=(\S+) user=(\S+) id=(-?\d+) tag=(.*?) importance=(-?\d+) key=(.*?)(?:appImportanceLocked=(?:true|false))?: (.*)\)\s*$/;

/** Every NotificationRecord in the text, in order. */
export function parseNotificationRecords(text: string): NotificationRecordDump[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const records: NotificationRecordDump[] = [];
  let section: RecordSection | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*Enqueued Notification List:\s*$/.test(line)) {
      section = 'enqueued';
      continue;
    }
    if (/^\s*Notification List:\s*$/.test(line)) {
      section = 'posted';
      continue;
    }
    const header = HEADER.exec(line);
    if (header === null) continue;
    const indent = header[1]?.length ?? 0;
    // The record ends at the first line indented no deeper than its header, except inside a
    // value that spans lines (`key=Type (text` … `)`), whose continuation lines start anywhere.
    let end = i + 1;
    let openValue = false;
    while (end < lines.length) {
      const next = lines[end] ?? '';
      if (openValue) {
        if (next.trimEnd().endsWith(')')) openValue = false;
        end++;
        continue;
      }
      if (next.trim() !== '' && leadingSpaces(next) <= indent) break;
      if (/^\s*[^=\s]+=\S+ \(/.test(next) && !next.trimEnd().endsWith(')')) openValue = true;
      end++;
    }
    records.push(parseRecord(header, lines.slice(i + 1, end), section));
    i = end - 1;
  }
  return records;
}

function parseRecord(header: RegExpExecArray, body: readonly string[], section: RecordSection | null): NotificationRecordDump {
  const [, , headerPkg = '', , headerId = '', headerTag = '', importance = '', headerKey = '', notificationText = ''] = header;
  const fields = new Map<string, string>();
  let extras: Record<string, ExtraValue> = {};
  // Which sub-block of the record the current lines belong to (A14: notification= and
  // publicNotification=; A10 prints the notification's fields directly at field indent).
  let block: 'notification' | 'public' | null = null;
  let fieldIndent: number | null = null;
  for (let i = 0; i < body.length; i++) {
    const line = body[i] ?? '';
    if (line.trim() === '') continue;
    const indent = leadingSpaces(line);
    fieldIndent ??= indent;
    const trimmed = line.trim();
    if (indent === fieldIndent) {
      if (trimmed === 'notification=') block = 'notification';
      else if (trimmed === 'publicNotification=') block = 'public';
      else if (trimmed !== 'extras={') block = null;
      const spaced = /^uid=(\d+) userId=(-?\d+)$/.exec(trimmed);
      if (spaced) {
        fields.set('uid', spaced[1] ?? '');
        fields.set('userId', spaced[2] ?? '');
      } else {
        const eq = trimmed.indexOf('=');
        if (eq > 0 && !fields.has(trimmed.slice(0, eq))) fields.set(trimmed.slice(0, eq), trimmed.slice(eq + 1));
      }
    }
    if (trimmed === 'extras={') {
      const read = readExtras(body, i + 1, indent);
      if (block !== 'public') extras = read.extras;
      i = read.next - 1;
    }
  }
  const key = fields.get('key') ?? headerKey;
  const parts = splitKey(key);
  const title = extras['android.title'];
  const text = extras['android.text'];
  return {
    section,
    key,
    pkg: parts?.pkg ?? headerPkg,
    userId: parts?.userId ?? Number(fields.get('userId') ?? 0),
    id: parts?.id ?? Number(headerId),
    tag: parts ? parts.tag : headerTag === 'null' ? null : headerTag,
    uid: parts?.uid ?? Number(fields.get('uid') ?? -1),
    importance: importance === '' ? null : Number(importance),
    channel: /(?:^|[( ])channel=(\S+?)(?=[ )])/.exec(notificationText)?.[1] ?? null,
    title: title?.value ?? null,
    text: text?.value ?? null,
    extras,
    creationTimeMs: numberOrNull(fields.get('mCreationTimeMs')),
    updateTimeMs: numberOrNull(fields.get('mUpdateTimeMs')),
  };
}

/** Reads `key=…` entries after `extras={` (at `openIndent`) up to the closing `}`. */
function readExtras(lines: readonly string[], from: number, openIndent: number): { extras: Record<string, ExtraValue>; next: number } {
  const extras: Record<string, ExtraValue> = {};
  let entryIndent: number | null = null;
  let i = from;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const indent = leadingSpaces(line);
    if (line.trim() === '}' && indent <= openIndent) return { extras, next: i + 1 };
    if (line.trim() !== '' && indent <= openIndent) return { extras, next: i };
    entryIndent ??= indent;
    if (indent !== entryIndent) continue; // array items and continuation lines handled below
    const entry = /^([^=\s]+)=(.*)$/.exec(line.trim());
    if (entry === null) continue;
    let rest = entry[2] ?? '';
    // A value that contains newlines continues on the next lines until the closing ')'.
    if (/^\S+ \(/.test(rest) && !rest.endsWith(')')) {
      while (i + 1 < lines.length && !rest.endsWith(')')) {
        const next = lines[i + 1] ?? '';
        if (leadingSpaces(next) <= openIndent && next.trim() === '}') break;
        rest += `\n${next}`;
        i++;
      }
    }
    extras[entry[1] ?? ''] = parseExtraValue(rest);
  }
  return { extras, next: i };
}

export function parseExtraValue(text: string): ExtraValue {
  if (text === 'null') return { type: null, value: null, redacted: false };
  const withValue = /^(\S+) \(([\s\S]*)\)$/.exec(text);
  if (withValue) return { type: withValue[1] ?? null, value: withValue[2] ?? '', redacted: false };
  const redactedLength = /^(\S+) \[length=\d+\]$/.exec(text);
  if (redactedLength) return { type: redactedLength[1] ?? null, value: null, redacted: true };
  if (/^\S+$/.test(text)) return { type: text, value: null, redacted: true };
  return { type: null, value: text, redacted: false };
}

/** `cmd notification list`: one key per line. */
export function parseNotificationKeys(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^-?\d+\|[^|]+\|-?\d+\|.*\|\d+/.test(l));
}

export interface KeyParts {
  readonly userId: number;
  readonly pkg: string;
  readonly id: number;
  readonly tag: string | null;
  readonly uid: number;
}

/** `user|pkg|id|tag|uid[|overrideGroupKey]` (StatusBarNotification.key()). */
export function splitKey(key: string): KeyParts | null {
  const match = /^(-?\d+)\|([^|]+)\|(-?\d+)\|(.*)\|(\d+)(?:\|.*)?$/.exec(key);
  if (match === null) return null;
  const tag = match[4] ?? '';
  return { userId: Number(match[1]), pkg: match[2] ?? '', id: Number(match[3]), tag: tag === 'null' ? null : tag, uid: Number(match[5]) };
}

function leadingSpaces(line: string): number {
  return /^ */.exec(line)?.[0].length ?? 0;
}

function numberOrNull(text: string | undefined): number | null {
  return text !== undefined && /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : null;
}
