/**
 * NotificationManagerService: channels, enqueue checks, posting, cancelling, the event log and
 * the `dumpsys notification` / `cmd notification` output.
 *
 * Sources:
 * - A14 NotificationManagerService.java (LOS21-pre-QPR2/android_frameworks_base @1add8e2d):
 *   MAX_PACKAGE_NOTIFICATIONS = 50, DEFAULT_MAX_NOTIFICATION_ENQUEUE_RATE
 *   = 5f (updates only), EVENTLOG_ENQUEUE_STATUS_NEW 0 / UPDATE 1, the Slog.e texts
 *   "Package has already posted or enqueued N notifications.  Not showing more.  package=P" and
 *   "Package enqueue rate is R. Shedding KEY. package=P" (at most every 5 s,
 *   MIN_PACKAGE_OVERRATE_LOG_INTERVAL), "No Channel found for pkg=..., channelId=..., id=...,
 *   tag=..., opPkg=..., callingUid=..., userId=..., incomingUserId=..., notificationUid=...,
 *   notification=..." (Android 11+ enqueueNotificationInternal).
 * - Posts refused by checkDisqualifyingFeatures (cap, rate, POST_NOTIFICATIONS on 33+) write no
 *   notification_enqueue event; a missing channel returns before it too.
 * - RateEstimator.java (aosp-mirror @0ce2ddb0): exponentially weighted inter-arrival time,
 *   RATE_ALPHA 0.5, MINIMUM_DT 0.0005 s, initial inter-arrival 1000 s.
 * - EventLogTags.logtags: 2750 notification_enqueue (uid,pid,pkg,id,tag,userid,notification,
 *   status) — the A14 list (A15 appends app_provided, written on API 35+); 27530 notification_canceled
 *   (key,reason,lifespan,freshness,exposure,rank,count,listener); cancel reasons from
 *   NotificationListenerService (5 PACKAGE_CHANGED, 8 APP_CANCEL, 21 CLEAR_DATA).
 * - dumpImpl layout: NotificationManagerService.dumpImpl ("Current Notification Manager state",
 *   "  Notification List:", records at prefix "    ") and DumpFilter.parseFromArguments
 *   (`--noredact`/`--reveal`; `p`/`pkg`/`--package NAME`), as framework copies of NMS print them,
 *   and the captured dump specs/unit/virtual-device/android/captured/dumpsys-notification-api33.txt.
 * - Autogroup summaries (GroupHelper, group-helper.ts): NotificationManagerService's
 *   addAutoGroupSummary -> createAutoGroupSummary builds a StatusBarNotification in the app's
 *   name (the triggering notification's package, opPkg, uid and initial pid; id and tag from
 *   GroupHelper: Integer.MAX_VALUE and "ranker_group", or Android 16's section id and
 *   `Aggregate_<section>`), on the triggering notification's channel, with the app's
 *   EXTRA_BUILDER_APPLICATION_INFO and launch intent, setGroup(tag), setGroupSummary(true),
 *   GROUP_ALERT_CHILDREN and setLocalOnly(true), and posts it through EnqueueNotificationRunnable,
 *   which writes its notification_enqueue line (status 0, then 1 for each flags update;
 *   app_provided 0 on API 35+: the system made it). Its checkDisqualifyingFeatures runs as
 *   the system uid, so neither the rate limit nor the package cap applies. removeAutoGroupSummary
 *   cancels it with REASON_UNAUTOBUNDLED (NotificationListenerService: 16); a package's
 *   cancel-all (force-stop, clear data) cancels it with the children, before GroupHelper's
 *   onNotificationRemoved (posted to NMS's handler) finds it gone.
 */
import type { NotificationChannelSpec, NotificationSpec } from './app-framework.js';
import { javaFloat } from './java-lang.js';
import { NotificationFlag } from './app-framework.js';
import { autogroupRules, GroupHelper } from './group-helper.js';
import { NotificationRecord, notificationToString } from './notification-record.js';
import type { SystemLog } from './system-log.js';
import { LogPriority } from '../types.js';

export const MAX_PACKAGE_NOTIFICATIONS = 50;
export const DEFAULT_MAX_NOTIFICATION_ENQUEUE_RATE = 5;
const MIN_PACKAGE_OVERRATE_LOG_INTERVAL = 5000;
const TAG = 'NotificationService';

export const CancelReason = { CLICK: 1, CANCEL: 2, CANCEL_ALL: 3, PACKAGE_CHANGED: 5, USER_STOPPED: 6, APP_CANCEL: 8, APP_CANCEL_ALL: 9, UNAUTOBUNDLED: 16, CLEAR_DATA: 21 } as const;

/** Notification.GROUP_ALERT_CHILDREN. */
const GROUP_ALERT_CHILDREN = 2;

/** Notification.FLAG_AUTOGROUP_SUMMARY: a summary GroupHelper posted. */
export function isAutogroupSummary(r: NotificationRecord): boolean {
  return (r.notification.flags & NotificationFlag.FLAG_AUTOGROUP_SUMMARY) !== 0;
}

/** RateEstimator: exponentially weighted moving average of the inter-arrival time. */
export class RateEstimator {
  private lastEventTime: number | undefined;
  private interarrival = 1000.0;

  update(nowMs: number): void {
    if (this.lastEventTime !== undefined) this.interarrival = this.estimate(nowMs);
    this.lastEventTime = nowMs;
  }

  getRate(nowMs: number): number {
    if (this.lastEventTime === undefined) return 0;
    return Math.fround(1.0 / this.estimate(nowMs));
  }

  private estimate(nowMs: number): number {
    const dt = Math.max((nowMs - (this.lastEventTime ?? nowMs)) / 1000.0, 0.0005);
    return 0.5 * this.interarrival + 0.5 * dt;
  }
}

export interface EnqueueRequest {
  readonly pkg: string;
  readonly opPkg: string;
  readonly callingUid: number;
  readonly callingPid: number;
  readonly userId: number;
  readonly tag: string | null;
  readonly id: number;
  readonly notification: NotificationSpec;
}

/** Why an enqueue did not post (for the app model's own tests); undefined when posted. */
export type EnqueueRefusal = 'no-channel' | 'rate-limit' | 'package-cap' | 'blocked' | 'no-small-icon';

export interface NotificationManagerDeps {
  readonly log: SystemLog;
  readonly apiLevel: number;
  now(): number;
  elapsedRealtime(): number;
  nextIdentityHash(): number;
  /** PermissionHelper.hasPermission (POST_NOTIFICATIONS on 33+). */
  hasPostPermission(pkg: string): boolean;
}

/**
 * Who hears about posts and removals: NotificationManagerService's listener dispatch
 * (NotificationListeners.notifyPostedLocked / notifyRemovedLocked), which bound
 * NotificationListenerServices receive asynchronously on their main thread.
 */
export interface NotificationObserver {
  onPosted(record: NotificationRecord): void;
  onRemoved(record: NotificationRecord, reason: number): void;
}

export class NotificationManagerService {
  private readonly deps: NotificationManagerDeps;
  private readonly observers = new Set<NotificationObserver>();
  private readonly channels = new Map<string, Map<string, NotificationChannelSpec>>();
  /** mNotificationList, in posting order. */
  private readonly list: NotificationRecord[] = [];
  private readonly rates = new Map<string, RateEstimator>();
  private lastOverRateLogTime = -Infinity;
  private archived = 0;
  private readonly groups: GroupHelper;

  constructor(deps: NotificationManagerDeps) {
    this.deps = deps;
    this.groups = new GroupHelper(autogroupRules(deps.apiLevel), {
      addAutoGroupSummary: (trigger, groupName, summaryId, flags) => this.postSummary(trigger, groupName, summaryId, flags),
      updateAutogroupSummary: (userId, pkg, groupName, flags) => {
        const old = this.findSummary(userId, pkg, groupName);
        if (old !== undefined) this.postSummary(old, groupName, old.id, flags, old);
      },
      removeAutoGroupSummary: (userId, pkg, groupName) => {
        const r = this.findSummary(userId, pkg, groupName);
        if (r !== undefined) this.cancelRecord(r, CancelReason.UNAUTOBUNDLED);
      },
      summaryFlags: (userId, pkg, groupName) => this.findSummary(userId, pkg, groupName)?.notification.flags,
      setAutoGroup: (key, groupName) => {
        const r = this.get(key);
        if (r !== undefined) r.overrideGroupKey = groupName;
      },
    });
  }

  private findSummary(userId: number, pkg: string, groupName: string): NotificationRecord | undefined {
    return this.list.find((r) => r.userId === userId && r.pkg === pkg && r.tag === groupName && isAutogroupSummary(r));
  }

  /**
   * createAutoGroupSummary / updateAutobundledSummaryLocked: the summary for `source`'s package
   * (the triggering child, or the summary being updated), posted through
   * EnqueueNotificationRunnable.
   */
  private postSummary(source: NotificationRecord, groupName: string, summaryId: number, flags: number, old?: NotificationRecord): void {
    const n = source.notification;
    const appInfo = n.extras.find(([k]) => k === 'android.appInfo');
    const notification: NotificationSpec = {
      channelId: n.channelId,
      smallIcon: n.smallIcon,
      when: old?.notification.when ?? this.deps.now(),
      flags,
      priority: 0,
      visibility: 0,
      color: n.color,
      contentIntent: old?.notification.contentIntent ?? `PendingIntent{${(this.deps.nextIdentityHash() >>> 0).toString(16)}: PendingIntentRecord{${(this.deps.nextIdentityHash() >>> 0).toString(16)} ${source.pkg} startActivity}}`,
      extras: appInfo === undefined ? [] : [appInfo],
      group: groupName,
      groupAlertBehavior: GROUP_ALERT_CHILDREN,
    };
    const record = new NotificationRecord({
      identityHash: this.deps.nextIdentityHash(),
      pkg: source.pkg,
      opPkg: source.opPkg,
      uid: source.uid,
      userId: source.userId,
      id: summaryId,
      tag: groupName,
      notification,
      channel: source.channel,
      postTimeMs: this.deps.now(),
      postElapsedMs: this.deps.elapsedRealtime(),
      initialPid: source.initialPid,
    });
    const fields: (number | string | null)[] = [record.uid, record.initialPid, record.pkg, record.id, record.tag, record.userId, notificationToString(notification), old === undefined ? 0 : 1];
    if (this.deps.apiLevel >= 35) fields.push(0);
    this.deps.log.event(2750, 'notification_enqueue', fields);
    this.place(record, old);
  }

  /** PostNotificationRunnable: the record replaces the one it updates (keeping its ranking) or joins the list; listeners hear of it. */
  private place(record: NotificationRecord, old: NotificationRecord | undefined): void {
    if (old !== undefined) {
      record.copyRankingInformation(old);
      this.list[this.list.indexOf(old)] = record;
    } else {
      this.list.push(record);
    }
    for (const o of this.observers) o.onPosted(record);
  }

  /** Registers an observer of posts and removals; returns the unregister function. */
  observe(observer: NotificationObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  createNotificationChannel(pkg: string, channel: NotificationChannelSpec): void {
    let byId = this.channels.get(pkg);
    if (byId === undefined) {
      byId = new Map();
      this.channels.set(pkg, byId);
    }
    // Creating an existing channel only updates its name and description (NotificationChannel
    // importance is the user's once created: PreferencesHelper.createNotificationChannel).
    const existing = byId.get(channel.id);
    byId.set(channel.id, existing === undefined ? channel : { ...existing, name: channel.name, ...(channel.description === undefined ? {} : { description: channel.description }) });
  }

  getChannel(pkg: string, id: string): NotificationChannelSpec | undefined {
    return this.channels.get(pkg)?.get(id);
  }

  /** PackageManager data cleared: the package's channels are deleted. */
  clearChannels(pkg: string): void {
    this.channels.delete(pkg);
  }

  active(): readonly NotificationRecord[] {
    return this.list;
  }

  get(key: string): NotificationRecord | undefined {
    return this.list.find((r) => r.key === key);
  }

  private rate(pkg: string): RateEstimator {
    let r = this.rates.get(pkg);
    if (r === undefined) {
      r = new RateEstimator();
      this.rates.set(pkg, r);
    }
    return r;
  }

  /** enqueueNotificationInternal + EnqueueNotificationRunnable + PostNotificationRunnable. */
  enqueue(req: EnqueueRequest): EnqueueRefusal | undefined {
    const { pkg, notification: n } = req;
    const channel = n.channelId === null ? undefined : this.getChannel(pkg, n.channelId);
    if (channel === undefined) {
      this.deps.log.slog(
        LogPriority.E,
        TAG,
        `No Channel found for pkg=${pkg}, channelId=${n.channelId ?? 'null'}, id=${req.id}, tag=${req.tag ?? 'null'}, opPkg=${req.opPkg}, callingUid=${req.callingUid}, userId=${req.userId}, incomingUserId=${req.userId}, notificationUid=${req.callingUid}, notification=${notificationToString(n)}`,
      );
      return 'no-channel';
    }
    const record = new NotificationRecord({
      identityHash: this.deps.nextIdentityHash(),
      pkg,
      opPkg: req.opPkg,
      uid: req.callingUid,
      userId: req.userId,
      id: req.id,
      tag: req.tag,
      notification: n,
      channel,
      postTimeMs: this.deps.now(),
      postElapsedMs: this.deps.elapsedRealtime(),
      initialPid: req.callingPid,
    });
    const old = this.get(record.key);
    const elapsed = this.deps.elapsedRealtime();
    // checkDisqualifyingFeatures: rate limit (updates only), package cap, blocked.
    if (old !== undefined) {
      const appEnqueueRate = this.rate(pkg).getRate(elapsed);
      if (appEnqueueRate > DEFAULT_MAX_NOTIFICATION_ENQUEUE_RATE) {
        if (elapsed - this.lastOverRateLogTime > MIN_PACKAGE_OVERRATE_LOG_INTERVAL) {
          this.deps.log.slog(LogPriority.E, TAG, `Package enqueue rate is ${javaFloat(appEnqueueRate)}. Shedding ${record.key}. package=${pkg}`);
          this.lastOverRateLogTime = elapsed;
        }
        return 'rate-limit';
      }
    }
    const count = this.list.filter((r) => r.pkg === pkg && r.userId === req.userId && !(r.id === req.id && r.tag === req.tag)).length;
    if (count >= MAX_PACKAGE_NOTIFICATIONS) {
      this.deps.log.slog(LogPriority.E, TAG, `Package has already posted or enqueued ${count} notifications.  Not showing more.  package=${pkg}`);
      return 'package-cap';
    }
    if (!this.deps.hasPostPermission(pkg) || channel.importance === 0) return 'blocked';
    this.rate(pkg).update(elapsed);

    // EnqueueNotificationRunnable: the event is written before posting. Android 15 appends
    // (app_provided|1) to 2750 notification_enqueue (services/core/java/com/android/server/
    // EventLogTags.logtags at android-15.0.0_r1; the tag list of earlier releases ends at status):
    // 1 for a post that came from the app through enqueueNotificationWithTag.
    const fields: (number | string | null)[] = [req.callingUid, req.callingPid, pkg, req.id, req.tag, req.userId, notificationToString(n), old === undefined ? 0 : 1];
    if (this.deps.apiLevel >= 35) fields.push(1);
    this.deps.log.event(2750, 'notification_enqueue', fields);

    // PostNotificationRunnable.
    if (n.smallIcon === null) {
      this.deps.log.slog(LogPriority.E, TAG, `Not posting notification without small icon: ${notificationToString(n)}`);
      return 'no-small-icon';
    }
    this.place(record, old);
    this.groups.onPosted(record);
    return undefined;
  }

  /** cancelNotification from the app (REASON_APP_CANCEL). */
  cancel(pkg: string, userId: number, tag: string | null, id: number, reason: number = CancelReason.APP_CANCEL): void {
    const r = this.list.find((x) => x.pkg === pkg && x.userId === userId && x.id === id && x.tag === tag);
    if (r !== undefined) this.cancelRecord(r, reason);
  }

  /** cancelAllNotificationsInt for a package (force-stop: REASON_PACKAGE_CHANGED). */
  cancelAllForPackage(pkg: string, reason: number): void {
    const gone = this.list.filter((x) => x.pkg === pkg);
    for (const r of gone) this.cancelRecord(r, reason, false);
    // GroupHelper.onNotificationRemoved runs later on NMS's handler: the summary is gone by then.
    for (const r of gone) if (!isAutogroupSummary(r)) this.groups.onRemoved(r);
  }

  /** cancelNotificationLocked: notification_canceled with lifespan/freshness/exposure in ms. */
  private cancelRecord(r: NotificationRecord, reason: number, tellGroupHelper = true): void {
    const i = this.list.indexOf(r);
    if (i < 0) return;
    this.list.splice(i, 1);
    this.archived++;
    for (const o of this.observers) o.onRemoved(r, reason);
    const now = this.deps.now();
    this.deps.log.event(27530, 'notification_canceled', [r.key, reason, now - r.creationTimeMs, now - r.updateTimeMs, 0, -1, -1, null]);
    if (isAutogroupSummary(r)) this.groups.onSummaryRemoved(r.userId, r.pkg, r.tag ?? '');
    else if (tellGroupHelper) this.groups.onRemoved(r);
  }

  /** `dumpsys notification [--noredact|--reveal] [p|pkg|--package PKG]`. */
  dump(args: readonly string[]): string {
    let redact = true;
    let pkgFilter: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '--noredact' || a === '--reveal') redact = false;
      else if ((a === 'p' || a === 'pkg' || a === '--package') && i + 1 < args.length) pkgFilter = args[++i];
    }
    const api = this.deps.apiLevel;
    const lines: string[] = [];
    // No source confirms the DumpFilter.toString() text; `pkg=<name>` is used.
    lines.push(pkgFilter === undefined ? 'Current Notification Manager state:' : `Current Notification Manager state (filtered to pkg=${pkgFilter}):`);
    const shown = this.list.filter((r) => pkgFilter === undefined || r.pkg === pkgFilter);
    if (shown.length > 0) {
      lines.push('  Notification List:');
      shown.forEach((r) => lines.push(...r.dump('    ', redact, api, this.list.indexOf(r))));
      lines.push('  ');
    }
    if (pkgFilter === undefined) {
      lines.push('  mUseAttentionLight=false');
      lines.push('  mHasLight=false');
      lines.push('  mNotificationPulseEnabled=true');
      lines.push('  mSoundNotificationKey=null');
      lines.push('  mVibrateNotificationKey=null');
      lines.push('  mDisableNotificationEffects=false');
      lines.push('  mCallState=CALL_STATE_IDLE');
      lines.push('  mSystemReady=true');
      lines.push(`  mMaxPackageEnqueueRate=${javaFloat(DEFAULT_MAX_NOTIFICATION_ENQUEUE_RATE)}`);
      lines.push('  hideSilentStatusBar=false');
    }
    lines.push(`  mArchive=Archive (${this.archived} notifications)`);
    lines.push('');
    lines.push('  Snoozed notifications:');
    lines.push('');
    lines.push(' Pending snoozed notifications');
    lines.push('');
    return lines.map((l) => `${l}\n`).join('');
  }
}
