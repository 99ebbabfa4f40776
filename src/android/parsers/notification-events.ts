/**
 * NotificationManagerService event-log lines (`logcat -b events`).
 *
 * Tags (aosp-mirror/platform_frameworks_base `services/core/java/com/android/server/
 * EventLogTags.logtags`; A15 adds app_provided: muhomorr/platform_frameworks_base-15 same path):
 *   2750 notification_enqueue (uid|1|5),(pid|1|5),(pkg|3),(id|1|5),(tag|3),(userid|1|5),
 *        (notification|3),(status|1)[,(app_provided|1)]
 *   27530 notification_canceled (key|3),(reason|1),(lifespan|1),(freshness|1),(exposure|1),
 *        (rank|1),(count|1),(listener|3)
 * status: 0 = new post, 1 = update of a posted key, 2 = ignored (written only by old releases).
 * A null string is written as `NULL` (framework JNI android_util_EventLog.cpp).
 *
 * `notification` is `Notification.toString()`, which contains commas, spaces and parentheses
 * (`vibrate=[0,250,250]`, nested `publicVersion=Notification(...)`), and the tag is an app
 * string that may contain commas too. So the list is parsed from both ends: uid, pid, pkg and
 * id lead (a package name has no comma); the notification text starts at `,<userid>,Notification(`
 * and ends at the last `)`; after it come one (≤ A14) or two (A15+) integers.
 */
import type { NotAnItemReason } from '../../history/events.js';

export type EnqueueStatus = 'post' | 'update' | 'ignored';

export interface NotificationEnqueue {
  readonly uid: number;
  readonly pid: number;
  readonly pkg: string;
  readonly id: number;
  /** null when the app passed no tag (`NULL`). */
  readonly tag: string | null;
  readonly userId: number;
  readonly status: EnqueueStatus;
  /** `channel=` of the notification text; null before API 26 or when absent. */
  readonly channel: string | null;
  /** A15+ `app_provided`; null before. */
  readonly appProvided: boolean | null;
  /**
   * FLAG_ONLY_ALERT_ONCE (0x8) is set in the notification's own `flags=` (not a nested
   * publicVersion's); false when the text has no top-level `flags=`.
   */
  readonly alertOnce: boolean;
  /**
   * The notification's own `flags=` as a number (hex or symbolic form, see notificationFlags);
   * null when the text has no top-level `flags=`.
   */
  readonly flags: number | null;
  /** The notification's own `groupKey=` (setGroup); null when it has none. */
  readonly group: string | null;
  /** The Notification.toString() text as logged. */
  readonly notification: string;
}

export interface NotificationCanceled {
  /** `user|pkg|id|tag|uid` (StatusBarNotification key). */
  readonly key: string;
  readonly userId: number;
  readonly pkg: string;
  readonly id: number;
  readonly tag: string | null;
  readonly uid: number;
  /** NotificationListenerService REASON_* (8 = APP_CANCEL, 5 = PACKAGE_CHANGED, …). */
  readonly reason: number;
  /** Fields after the reason (lifespan, freshness, exposure, rank, count, listener), as printed. */
  readonly rest: readonly string[];
}

const STATUS: Record<string, EnqueueStatus> = { '0': 'post', '1': 'update', '2': 'ignored' };

/** The message of a `notification_enqueue` line (`[uid,pid,…]`); null when it does not fit. */
export function parseNotificationEnqueue(message: string): NotificationEnqueue | null {
  const body = unwrapList(message);
  if (body === null) return null;
  const lead = /^(-?\d+),(-?\d+),([^,]+),(-?\d+),/.exec(body);
  if (lead === null) return null;
  const [, uid = '', pid = '', pkg = '', id = ''] = lead;
  const afterId = body.slice(lead[0].length);
  const lastParen = afterId.lastIndexOf(')');
  let tagText: string;
  let userIdText: string;
  let notification: string;
  let trailing: string;
  const start = /,(-?\d+),Notification\(/.exec(afterId);
  if (start !== null && lastParen > start.index) {
    tagText = afterId.slice(0, start.index);
    userIdText = start[1] ?? '';
    notification = afterId.slice(start.index + start[0].length - 'Notification('.length, lastParen + 1);
    trailing = afterId.slice(lastParen + 1);
  } else {
    // Not a Notification(...) text: assume a comma-free tag and notification text.
    const fields = afterId.split(',');
    if (fields.length < 4) return null;
    tagText = fields[0] ?? '';
    userIdText = fields[1] ?? '';
    const tailCount = /^-?\d+$/.test(fields[fields.length - 2] ?? '') ? 2 : 1;
    notification = fields.slice(2, fields.length - tailCount).join(',');
    trailing = `,${fields.slice(fields.length - tailCount).join(',')}`;
  }
  const tail = /^,(-?\d+)(?:,(-?\d+))?$/.exec(trailing);
  if (tail === null || !/^-?\d+$/.test(userIdText)) return null;
  const status = STATUS[tail[1] ?? ''];
  if (status === undefined) return null;
  return {
    uid: Number(uid),
    pid: Number(pid),
    pkg,
    id: Number(id),
    tag: tagText === 'NULL' ? null : tagText,
    userId: Number(userIdText),
    status,
    channel: channelOf(notification),
    appProvided: tail[2] === undefined ? null : tail[2] !== '0',
    alertOnce: hasOnlyAlertOnce(notification),
    flags: notificationFlags(notification),
    group: notificationGroup(notification),
    notification,
  };
}

/**
 * Notification flag bits (frameworks/base core/java/android/app/Notification.java, android-11 to
 * android-16 tags): `FLAG_ONGOING_EVENT = 0x00000002`, `FLAG_ONLY_ALERT_ONCE = 0x00000008`,
 * `FLAG_FOREGROUND_SERVICE = 0x00000040`, `FLAG_GROUP_SUMMARY = 0x00000200`.
 */
export const FLAG_ONGOING_EVENT = 0x2;
export const FLAG_ONLY_ALERT_ONCE = 0x8;
export const FLAG_FOREGROUND_SERVICE = 0x40;
export const FLAG_GROUP_SUMMARY = 0x200;

/** The names flagsToString(int) prints (the constant's name without `FLAG_`) for the bits read here. */
const FLAG_NAMES: Readonly<Record<string, number>> = {
  ONGOING_EVENT: FLAG_ONGOING_EVENT,
  ONLY_ALERT_ONCE: FLAG_ONLY_ALERT_ONCE,
  FOREGROUND_SERVICE: FLAG_FOREGROUND_SERVICE,
  GROUP_SUMMARY: FLAG_GROUP_SUMMARY,
};

/**
 * The text directly inside the outer Notification(...) of a Notification.toString() text (a
 * nested `publicVersion=Notification(...)` has its own fields; a symbolic flags value may hold
 * `UNKNOWN(0x...)`, whose parenthesised part is left out); null when the text is not one.
 */
function outerNotificationText(notification: string): string | null {
  const open = 'Notification(';
  if (!notification.startsWith(open)) return null;
  let depth = 1;
  let outer = '';
  for (const ch of notification.slice(open.length)) {
    if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1) outer += ch;
  }
  return outer;
}

/**
 * The `flags=` value of the outer Notification(...) of a Notification.toString() text, as
 * printed; null when there is none. Only the `flags=` that follows `defaults=`, as toString
 * prints them, counts, so another `flags=` in the text (an AudioAttributes' `flags=0x800`, a
 * URI) is not taken.
 */
export function topLevelNotificationFlags(notification: string): string | null {
  const outer = outerNotificationText(notification);
  return outer === null ? null : / defaults=\S+ flags=(\S+)/.exec(outer)?.[1] ?? null;
}

/**
 * The top-level flags as a number. Notification.toString() (frameworks/base
 * core/java/android/app/Notification.java) prints them two ways:
 * - `sb.append(" flags=0x"); sb.append(Integer.toHexString(this.flags));` on Android 11, 13
 *   and 14, the API levels the virtual device models (android-11 tree of
 *   BlissRom-R/platform_frameworks_base, android-13 tree of ArrowOS-T/android_frameworks_base,
 *   android-14 tree of flybigpig/frameworks_base_14; a build that already has the API 35
 *   FLAG_LIFETIME_EXTENDED_BY_DIRECT_REPLY still prints hex);
 * - `sb.append(" flags="); sb.append(flagsToString(this.flags));` in later trees (Android 15
 *   QPR, e.g. 4455bk/RisingOS-15_frameworks_base, and 16): flagsToString(int) joins the names
 *   without `FLAG_` in bit order with `|` (`ONLY_ALERT_ONCE|AUTO_CANCEL`), returns `0` when no
 *   known bit is set and appends leftover bits as `UNKNOWN(0x%08x)`. The bits read here
 *   (ONGOING_EVENT, ONLY_ALERT_ONCE, FOREGROUND_SERVICE, GROUP_SUMMARY) always print by name,
 *   so other names and the leftover `UNKNOWN` count as no bit.
 */
export function notificationFlags(notification: string): number | null {
  const flags = topLevelNotificationFlags(notification);
  if (flags === null) return null;
  const hex = /^0x([0-9a-fA-F]+)$/.exec(flags);
  if (hex !== null) return Number.parseInt(hex[1] ?? '0', 16);
  let bits = 0;
  for (const name of flags.split('|')) bits |= FLAG_NAMES[name] ?? 0;
  return bits;
}

/** Whether the top-level flags carry FLAG_ONLY_ALERT_ONCE. */
export function hasOnlyAlertOnce(notification: string): boolean {
  return ((notificationFlags(notification) ?? 0) & FLAG_ONLY_ALERT_ONCE) !== 0;
}

/**
 * The outer notification's `groupKey=`: Notification.toString() appends
 * `" groupKey=" + this.mGroupKey` when the app called setGroup, then `" sortKey="` when it set
 * one, then `" actions="` when there are actions, then `" vis="` (frameworks/base core/java/android/app/Notification.java, android-11 to
 * android-16 tags). A group is an app string and may hold spaces, so it runs to the next of
 * those fields.
 */
export function notificationGroup(notification: string): string | null {
  const outer = outerNotificationText(notification);
  if (outer === null) return null;
  return / groupKey=(.*?)(?= sortKey=| actions=| vis=|$)/.exec(outer)?.[1] ?? null;
}

/** The message of a `notification_canceled` line; null when it does not fit. */
export function parseNotificationCanceled(message: string): NotificationCanceled | null {
  const body = unwrapList(message);
  if (body === null) return null;
  // key = user|pkg|id|tag|uid; the tag (which may hold '|' or ',') is matched lazily up to
  // the first `|<uid>,<reason>,` that follows it.
  const match = /^(-?\d+)\|([^|]+)\|(-?\d+)\|(.*?)\|(\d+),(-?\d+)((?:,[^,]*)*)$/.exec(body);
  if (match === null) return null;
  const [, user = '', pkg = '', id = '', tag = '', uid = '', reason = '', rest = ''] = match;
  return {
    key: `${user}|${pkg}|${id}|${tag}|${uid}`,
    userId: Number(user),
    pkg,
    id: Number(id),
    tag: tag === 'null' ? null : tag,
    uid: Number(uid),
    reason: Number(reason),
    rest: rest === '' ? [] : rest.slice(1).split(','),
  };
}

/** The StatusBarNotification key NMS uses for a post (`user|pkg|id|tag|uid`). */
export function notificationKey(event: Pick<NotificationEnqueue, 'userId' | 'pkg' | 'id' | 'tag' | 'uid'>): string {
  return `${event.userId}|${event.pkg}|${event.id}|${event.tag ?? 'null'}|${event.uid}`;
}

function unwrapList(message: string): string | null {
  const text = message.trim();
  if (!text.startsWith('[') || !text.endsWith(']')) return null;
  return text.slice(1, -1);
}

/**
 * The channel id of a Notification.toString() text. The id is an app string and may hold spaces
 * (`channel=Stopwatch v2 shortcut=null …`). Notification.toString prints `channel=` first and
 * then `shortcut=` (`Notification(channel=myChannel shortcut=null contentView=null …` in
 * fixtures/device-output/unknown/logcat-events-datalogic.txt), some builds `pri=`
 * (`Notification(channel=Mms pri=0 contentView=null …` in
 * fixtures/device-output/unknown/logcat-events-mms.txt);
 * so the id runs to the next of those fields, else to the next space.
 */
function channelOf(notification: string): string | null {
  const m = /(?:^|[( ])channel=(.*?)(?= (?:shortcut|pri|contentView)=)/.exec(notification) ?? /(?:^|[( ])channel=(\S+?)(?=[ )])/.exec(notification);
  return m?.[1] ?? null;
}

/**
 * Tags of the posts NotificationManagerService makes in the app's name: GroupHelper's autogroup
 * summary, `AUTOGROUP_KEY = "ranker_group"` (frameworks/base services/core/java/com/android/server/
 * notification/GroupHelper.java, android-11 to android-15 tags), posted by
 * NotificationManagerService.addAutoGroupSummary through EnqueueNotificationRunnable, which
 * writes its notification_enqueue with the app's package; and Android 16's aggregate section
 * groups (`Aggregate_AlertingSection`, `Aggregate_SilentSection`, …, GroupHelper.java at the
 * android16 tag), seen by listeners as `|g:Aggregate_…` keys (home-assistant/android #6905).
 */
export function isSystemSummaryTag(tag: string | null): tag is string {
  return tag === 'ranker_group' || (tag !== null && tag.startsWith('Aggregate_'));
}


/**
 * Why the app's post is not an item, or null when it is one: a group summary
 * (FLAG_GROUP_SUMMARY), a foreground service's post (FLAG_FOREGROUND_SERVICE, checked before
 * FLAG_ONGOING_EVENT, which such a post usually carries too), an ongoing post (a progress or
 * "syncing…" post), or a post on another channel than the items' channel when one is named.
 * Android's autogroup summaries are not the app's posts: see isSystemSummaryTag.
 */
export function notAnItemReason(e: Pick<NotificationEnqueue, 'flags' | 'channel'>, itemsChannel: string | undefined): NotAnItemReason | null {
  const flags = e.flags ?? 0;
  if ((flags & FLAG_GROUP_SUMMARY) !== 0) return 'group-summary';
  if ((flags & FLAG_FOREGROUND_SERVICE) !== 0) return 'foreground-service';
  if ((flags & FLAG_ONGOING_EVENT) !== 0) return 'ongoing';
  if (itemsChannel !== undefined && e.channel !== null && e.channel !== itemsChannel) return 'other-channel';
  return null;
}
