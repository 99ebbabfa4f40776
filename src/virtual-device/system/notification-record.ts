/**
 * NotificationRecord: one posted notification inside NotificationManagerService, and the text
 * formats that print it (Notification.toString, NotificationRecord.toString/dump,
 * SingleNotificationStats, NotificationChannel.toString).
 *
 * Sources:
 * - A14: LOS21-pre-QPR2/android_frameworks_base services/core/java/com/android/server/
 *   notification/NotificationRecord.java @be7a85af (dump(), dumpNotification(), toString()).
 *   Prefix rules: the record header at `prefix`, fields at prefix+"  ",
 *   the notification body at (prefix+"  ")*2, extras entries 4 more, closing `}` at the body.
 * - A12/13 layout (no `vis=` body line, no mProposedImportance / mSensitiveContent /
 *   mUserVisOverride): the captured dump in specs/unit/virtual-device/android/captured/
 *   dumpsys-notification-api33.txt (published in hfreeman2008/android_core_framework,
 *   P20_系统开发之浅谈NotificationManagerService/系统开发之浅谈NotificationManagerService.md).
 * - Notification.toString (as the Android 12-14 framework prints it), StatusBarNotification
 *   key/groupKey (`user|pkg|id|tag|uid`; the key when there is no group or sort key).
 * - NotificationUsageStats.SingleNotificationStats.toString (frameworks/base, same directory).
 */
import type { BundleValue, NotificationChannelSpec, NotificationSpec } from './app-framework.js';
import { hex08, integerToHexString } from './java-lang.js';

/** NotificationListenerService.Ranking.importanceToString. */
export function importanceToString(importance: number): string {
  switch (importance) {
    case -1000:
      return 'UNSPECIFIED';
    case 0:
      return 'NONE';
    case 1:
      return 'MIN';
    case 2:
      return 'LOW';
    case 3:
      return 'DEFAULT';
    case 4:
    case 5:
      return 'HIGH';
    default:
      return `UNKNOWN(${importance})`;
  }
}

/** Notification.visibilityToString. */
function visibilityToString(vis: number): string {
  switch (vis) {
    case 0:
      return 'PRIVATE';
    case 1:
      return 'PUBLIC';
    case -1:
      return 'SECRET';
    default:
      return `UNKNOWN(${vis})`;
  }
}

/**
 * Notification.toString():
 * `Notification(channel=<id> shortcut=<id|null> contentView=null vibrate=null sound=null
 * defaults=0x0 flags=0x<hex> color=0x%08x[ category=<c>][ groupKey=<g>][ sortKey=<s>]
 * vis=<PRIVATE|PUBLIC|SECRET>)`: `groupKey=` is mGroupKey (setGroup) and `sortKey=` mSortKey,
 * each printed only when set, after the category and before the actions count
 * (core/java/android/app/Notification.java toString(), the same at android-11.0.0_r1 through
 * android-16.0.0_r1). An autogroup summary prints `groupKey=ranker_group`.
 */
export function notificationToString(n: NotificationSpec): string {
  let s = `Notification(channel=${n.channelId ?? 'null'} shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x${integerToHexString(n.flags)} color=${hex08(n.color)}`;
  if (n.category !== undefined) s += ` category=${n.category}`;
  if (n.group !== undefined) s += ` groupKey=${n.group}`;
  if (n.sortKey !== undefined) s += ` sortKey=${n.sortKey}`;
  s += ` vis=${visibilityToString(n.visibility)})`;
  return s;
}

/**
 * StatusBarNotification.groupKey(): the key when the notification has neither a group (its own
 * or the override GroupHelper set) nor a sort key; else `user|pkg|g:<group>`, or
 * `user|pkg|c:<channel>` for a sort key without a group.
 */
export function notificationGroupKey(userId: number, pkg: string, key: string, n: NotificationSpec, overrideGroupKey: string | null): string {
  const group = overrideGroupKey ?? n.group;
  if (group === undefined && n.sortKey === undefined) return key;
  return `${userId}|${pkg}|${group === undefined ? `c:${n.channelId ?? 'null'}` : `g:${group}`}`;
}

/** StatusBarNotification.key(): `user|pkg|id|tag|uid`. */
export function notificationKey(userId: number, pkg: string, id: number, tag: string | null, uid: number): string {
  return `${userId}|${pkg}|${id}|${tag ?? 'null'}|${uid}`;
}

/**
 * NotificationChannel.toString() as captured on Android 12/13 (the capture above), with the
 * channel's own values.
 */
export function channelToString(c: NotificationChannelSpec): string {
  return (
    `NotificationChannel{mId='${c.id}', mName=${c.name}, mDescription=${c.description ?? ''}, mImportance=${c.importance}, mBypassDnd=false, ` +
    'mLockscreenVisibility=-1000, mSound=content://settings/system/notification_sound, mLights=false, mLightColor=0, mVibration=null, ' +
    'mUserLockedFields=0, mFgServiceShown=false, mVibrationEnabled=false, mShowBadge=true, mDeleted=false, mDeletedTimeMs=-1, ' +
    "mGroup='null', mAudioAttributes=AudioAttributes: usage=USAGE_NOTIFICATION content=CONTENT_TYPE_SONIFICATION flags=0x800 tags= bundle=null, " +
    `mBlockableSystem=false, mAllowBubbles=-1, mImportanceLockedDefaultApp=false, mOriginalImp=${c.importance}, mParent=null, ` +
    'mConversationId=null, mDemoted=false, mImportantConvo=false}'
  );
}

/** Extras keys NotificationRecord.shouldRedactStringExtra leaves visible. */
const UNREDACTED_STRING_EXTRAS = new Set(['android.substName', 'android.template', 'android.support.v4.app.extra.COMPAT_TEMPLATE']);

export interface NotificationRecordInit {
  readonly identityHash: number;
  readonly pkg: string;
  readonly opPkg: string;
  readonly uid: number;
  readonly userId: number;
  readonly id: number;
  readonly tag: string | null;
  readonly notification: NotificationSpec;
  readonly channel: NotificationChannelSpec;
  readonly postTimeMs: number;
  readonly postElapsedMs: number;
  /** StatusBarNotification.getInitialPid(): the poster's pid. */
  readonly initialPid?: number;
}

export class NotificationRecord {
  readonly identityHash: number;
  readonly pkg: string;
  readonly opPkg: string;
  readonly uid: number;
  readonly userId: number;
  readonly id: number;
  readonly tag: string | null;
  readonly notification: NotificationSpec;
  readonly channel: NotificationChannelSpec;
  readonly key: string;
  readonly importance: number;
  readonly originalFlags: number;
  readonly postElapsedMs: number;
  readonly initialPid: number;
  /**
   * StatusBarNotification.overrideGroupKey: the group GroupHelper put the notification in
   * (NotificationManagerService.addAutogroupKeyLocked), kept across updates.
   */
  overrideGroupKey: string | null = null;
  /** mCreationTimeMs: the first post time, kept across updates (copyRankingInformation). */
  creationTimeMs: number;
  /** mUpdateTimeMs: this post's time. */
  readonly updateTimeMs: number;
  rankingTimeMs: number;
  readonly visibleSinceMs = 0;
  readonly interruptionTimeMs: number;

  constructor(init: NotificationRecordInit) {
    this.identityHash = init.identityHash;
    this.pkg = init.pkg;
    this.opPkg = init.opPkg;
    this.uid = init.uid;
    this.userId = init.userId;
    this.id = init.id;
    this.tag = init.tag;
    this.notification = init.notification;
    this.channel = init.channel;
    this.key = notificationKey(init.userId, init.pkg, init.id, init.tag, init.uid);
    this.importance = init.channel.importance;
    this.originalFlags = init.notification.flags;
    this.postElapsedMs = init.postElapsedMs;
    this.initialPid = init.initialPid ?? 0;
    this.creationTimeMs = init.postTimeMs;
    this.updateTimeMs = init.postTimeMs;
    this.rankingTimeMs = init.notification.when !== 0 && init.notification.when <= init.postTimeMs ? init.notification.when : init.postTimeMs;
    this.interruptionTimeMs = init.postTimeMs;
  }

  /** copyRankingInformation(previous): an update keeps the first creation time. */
  copyRankingInformation(previous: NotificationRecord): void {
    this.creationTimeMs = previous.creationTimeMs;
    this.overrideGroupKey = previous.overrideGroupKey;
  }

  /** StatusBarNotification.groupKey() (notificationGroupKey above). */
  get groupKey(): string {
    return notificationGroupKey(this.userId, this.pkg, this.key, this.notification, this.overrideGroupKey);
  }

  /** StatusBarNotification.isAppGroup(): the app set a group or a sort key. */
  get isAppGroup(): boolean {
    return this.notification.group !== undefined || this.notification.sortKey !== undefined;
  }

  /** NotificationRecord.toString(). */
  toString(): string {
    return `NotificationRecord(${hex08(this.identityHash)}: pkg=${this.pkg} user=UserHandle{${this.userId}} id=${this.id} tag=${this.tag ?? 'null'} importance=${this.importance} key=${this.key}: ${notificationToString(this.notification)})`;
  }

  /** NotificationRecord.dump(pw, prefix, context, redact) for API level `api`. */
  dump(prefix: string, redact: boolean, api: number, rank: number): string[] {
    const n = this.notification;
    const lines: string[] = [prefix + this.toString()];
    const p = `${prefix}  `;
    lines.push(`${p}uid=${this.uid} userId=${this.userId}`);
    lines.push(`${p}opPkg=${this.opPkg}`);
    lines.push(`${p}icon=${n.smallIcon === null ? 'null' : `Icon(typ=RESOURCE pkg=${n.smallIcon.packageName} id=${hex08(n.smallIcon.resId)})`}`);
    lines.push(`${p}flags=0x${integerToHexString(n.flags)}`);
    lines.push(`${p}originalFlags=0x${integerToHexString(this.originalFlags)}`);
    lines.push(`${p}pri=${n.priority}`);
    lines.push(`${p}key=${this.key}`);
    lines.push(`${p}seen=false`);
    lines.push(`${p}groupKey=${this.groupKey}`);
    lines.push(`${p}notification=`);
    lines.push(...dumpNotification(p + p, n, redact, api));
    lines.push(`${p}publicNotification=`);
    lines.push(`${p + p}None`);
    lines.push(
      `${p}stats=SingleNotificationStats{posttimeElapsedMs=${this.postElapsedMs}, posttimeToFirstClickMs=-1, posttimeToDismissMs=-1, airtimeCount=0, airtimeMs=0, currentAirtimeStartElapsedMs=-1, airtimeExpandedMs=0, posttimeToFirstVisibleExpansionMs=-1, currentAirtimeExpandedStartElapsedMs=-1, requestedImportance=${this.importance}, naturalImportance=${this.importance}, isNoisy=true}`,
    );
    lines.push(`${p}mContactAffinity=0.0`);
    lines.push(`${p}mRecentlyIntrusive=false`);
    lines.push(`${p}mPackagePriority=0`);
    lines.push(`${p}mPackageVisibility=-1000`);
    lines.push(`${p}mSystemImportance=UNSPECIFIED`);
    lines.push(`${p}mAsstImportance=UNSPECIFIED`);
    lines.push(`${p}mImportance=${importanceToString(this.importance)}`);
    lines.push(`${p}mImportanceExplanation=app`);
    if (api >= 34) lines.push(`${p}mProposedImportance=UNSPECIFIED`);
    lines.push(`${p}mIsAppImportanceLocked=false`);
    if (api >= 34) lines.push(`${p}mSensitiveContent=false`);
    lines.push(`${p}mIntercept=false`);
    lines.push(`${p}mHidden==false`);
    lines.push(`${p}mGlobalSortKey=crtcl=0x0002:intrsv=1:grnk=${hex4(rank)}:gsmry=1:nsk:rnk=${hex4(rank)}`);
    lines.push(`${p}mRankingTimeMs=${this.rankingTimeMs}`);
    lines.push(`${p}mCreationTimeMs=${this.creationTimeMs}`);
    lines.push(`${p}mVisibleSinceMs=${this.visibleSinceMs}`);
    lines.push(`${p}mUpdateTimeMs=${this.updateTimeMs}`);
    lines.push(`${p}mInterruptionTimeMs=${this.interruptionTimeMs}`);
    lines.push(`${p}mSuppressedVisualEffects= 0`);
    lines.push(`${p}mSound= content://settings/system/notification_sound`);
    lines.push(`${p}mVibration= null`);
    lines.push(`${p}mAttributes= AudioAttributes: usage=USAGE_NOTIFICATION content=CONTENT_TYPE_SONIFICATION flags=0x800 tags= bundle=null`);
    lines.push(`${p}mLight= null`);
    lines.push(`${p}mShowBadge=true`);
    lines.push(`${p}mColorized=false`);
    lines.push(`${p}mAllowBubble=false`);
    lines.push(`${p}isBubble=false`);
    lines.push(`${p}mIsInterruptive=true`);
    lines.push(`${p}effectiveNotificationChannel=${channelToString(this.channel)}`);
    lines.push(`${p}mAdjustments=[]`);
    lines.push(`${p}shortcut=null found valid? false`);
    if (api >= 34) lines.push(`${p}mUserVisOverride=-1000`);
    return lines;
  }
}

function hex4(n: number): string {
  return `0x${n.toString(16).padStart(4, '0')}`;
}

/** NotificationRecord.dumpNotification (A14 prints `vis=`; A12/13 captures do not). */
function dumpNotification(prefix: string, n: NotificationSpec, redact: boolean, api: number): string[] {
  const lines: string[] = [];
  lines.push(`${prefix}fullscreenIntent=null`);
  lines.push(`${prefix}contentIntent=${n.contentIntent ?? 'null'}`);
  lines.push(`${prefix}deleteIntent=null`);
  lines.push(`${prefix}number=0`);
  lines.push(`${prefix}groupAlertBehavior=${n.groupAlertBehavior ?? 0}`);
  lines.push(`${prefix}when=${n.when}`);
  lines.push(`${prefix}tickerText=null`);
  if (api >= 34) lines.push(`${prefix}vis=${n.visibility}`);
  lines.push(`${prefix}contentView=null`);
  lines.push(`${prefix}bigContentView=null`);
  lines.push(`${prefix}headsUpContentView=null`);
  lines.push(`${prefix}color=${hex08(n.color)}`);
  lines.push(`${prefix}timeout=unknown`);
  if (n.extras.length > 0) {
    lines.push(`${prefix}extras={`);
    for (const [key, value] of n.extras) lines.push(`${prefix}    ${key}=${formatExtra(key, value, redact)}`);
    lines.push(`${prefix}}`);
  }
  return lines;
}

function formatExtra(key: string, value: BundleValue, redact: boolean): string {
  if (value === null) return 'null';
  switch (value.kind) {
    case 'String':
      if (redact && !UNREDACTED_STRING_EXTRAS.has(key)) return `String [length=${value.value.length}]`;
      return `String (${value.value})`;
    case 'Boolean':
      return `Boolean (${value.value ? 'true' : 'false'})`;
    case 'Integer':
      return `Integer (${value.value})`;
    case 'Long':
      return `Long (${value.value})`;
    case 'ApplicationInfo':
      return `ApplicationInfo (${value.value})`;
    default: {
      const unreachable: never = value;
      return String(unreachable);
    }
  }
}
