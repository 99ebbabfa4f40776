/**
 * GroupHelper: NotificationManagerService's auto-grouping of the notifications an app put in no
 * group, per API level.
 *
 * Sources (frameworks/base services/core/java/com/android/server/notification/GroupHelper.java):
 * - Android 11 (crdroid-r/android_frameworks_base @7561f44f, the android-11 GroupHelper):
 *   AUTOGROUP_KEY = "ranker_group"; onNotificationPosted adds a notification that is not
 *   `sbn.isAppGroup()` (no group and no sort key) to the package's ungrouped set
 *   (per user and package) and, once `notificationsForPackage.size() >= mAutoGroupAtCount` or a
 *   summary exists, calls addAutoGroupSummary(userId, pkg, firstKey) and addAutoGroup for each;
 *   a notification the app groups, or one removed, leaves the set (maybeUngroup) and the summary
 *   is removed when the set is empty (`notificationsForPackage.size() == 0`), not when it falls
 *   below the threshold. Ongoing children make the summary ongoing (updateAutogroupSummary).
 * - Android 14/15 and the Android 16 code without the force-grouping flag
 *   (aosp-mirror/platform_frameworks_base @1253dcbe, maybeGroup/maybeUngroup):
 *   BASE_FLAGS = FLAG_AUTOGROUP_SUMMARY | FLAG_GROUP_SUMMARY | FLAG_LOCAL_ONLY;
 *   ALL_CHILDREN_FLAG = FLAG_AUTO_CANCEL (set when every child has it); ANY_CHILDREN_FLAGS =
 *   FLAG_ONGOING_EVENT | FLAG_NO_CLEAR (set when any child has them); the summary's channel,
 *   icon and colour are the triggering notification's; id Integer.MAX_VALUE, tag and group
 *   AUTOGROUP_KEY; GROUP_ALERT_CHILDREN; VISIBILITY_PRIVATE. A child joining an existing summary
 *   calls updateAutogroupSummary, which re-posts the summary only when its flags change.
 * - Android 16 with `notification_force_grouping` (android.service.notification.Flags, the same
 *   file: maybeGroupWithSections / maybeUngroupWithSections / updateAggregateAppGroup): the
 *   ungrouped notifications are counted per shade section (AlertingSection for importance >=
 *   IMPORTANCE_DEFAULT, summary id 0; SilentSection below it, summary id 1) and grouped into
 *   `Aggregate_<section>` (AGGREGATE_GROUP_KEY + section name) at the same threshold; the
 *   summary is removed when its aggregate group is empty.
 * - config_autoGroupAtCount (core/res/res/values/config.xml, `<integer translatable="false"
 *   name="config_autoGroupAtCount">N</integer>` after config_defaultRingtoneVibrationSound), read
 *   in trees of each release: 4 in Android 11 (AOSP-11/frameworks_base @11be1c4f) and Android 12
 *   (aosp-mirror/platform_frameworks_base @0017dde7); 2 in Android 13
 *   (AOSP-TIRAMISU-x3/frameworks_base @0a379b1f), 14 (RisingTechOSS/android_frameworks_base
 *   @03430e5c), 15 (muhomorr/platform_frameworks_base-15 @00b46e03) and 16
 *   (GrapheneOS/platform_frameworks_base @3b706391). The 13-16 trees are ROM or fork trees
 *   dated by their contents, not AOSP release tags; all agree on 2.
 *
 * Which Android 16 the 36 profile is: force grouping on (`Aggregate_AlertingSection`), as the
 * Android 16 devices third-party listeners report (home-assistant/android #6905: keys ending in
 * `|g:Aggregate_…`); API 30–35 take the `ranker_group` path.
 */
import { NotificationFlag } from './app-framework.js';
import type { NotificationRecord } from './notification-record.js';

export const AUTOGROUP_KEY = 'ranker_group';
export const AGGREGATE_GROUP_KEY = 'Aggregate_';
/** The autogroup summary's id (GroupHelper.maybeGroup: addAutoGroupSummary(…, Integer.MAX_VALUE, …)). */
export const AUTOGROUP_SUMMARY_ID = 2147483647;
const BASE_FLAGS = NotificationFlag.FLAG_AUTOGROUP_SUMMARY | NotificationFlag.FLAG_GROUP_SUMMARY | NotificationFlag.FLAG_LOCAL_ONLY;
const ALL_CHILDREN_FLAG = NotificationFlag.FLAG_AUTO_CANCEL;
const ANY_CHILDREN_FLAGS = NotificationFlag.FLAG_ONGOING_EVENT | NotificationFlag.FLAG_NO_CLEAR;
/** NotificationManager.IMPORTANCE_DEFAULT. */
const IMPORTANCE_DEFAULT = 3;

export interface AutogroupRules {
  /** config_autoGroupAtCount. */
  readonly atCount: number;
  /** Android 16's notification_force_grouping: per-section `Aggregate_*` groups. */
  readonly forceGrouping: boolean;
  /** Android 14+: ALL_CHILDREN_FLAG / ANY_CHILDREN_FLAGS; before, BASE_FLAGS plus ongoing. */
  readonly childFlags: boolean;
}

export function autogroupRules(apiLevel: number): AutogroupRules {
  return { atCount: apiLevel >= 33 ? 2 : 4, forceGrouping: apiLevel >= 36, childFlags: apiLevel >= 34 };
}

/** What GroupHelper asks of NotificationManagerService (GroupHelper.Callback). */
export interface GroupHelperCallback {
  /** addAutoGroupSummary: post a summary (tag = group name) for the triggering notification. */
  addAutoGroupSummary(trigger: NotificationRecord, groupName: string, summaryId: number, flags: number): void;
  /** updateAutogroupSummary: re-post the summary when its flags change. */
  updateAutogroupSummary(userId: number, pkg: string, groupName: string, flags: number): void;
  /** removeAutoGroupSummary: cancel it (REASON_UNAUTOBUNDLED). */
  removeAutoGroupSummary(userId: number, pkg: string, groupName: string): void;
  /** The flags of the summary now posted for the group, if any. */
  summaryFlags(userId: number, pkg: string, groupName: string): number | undefined;
  /** addAutoGroup / removeAutoGroup: set or clear the child's override group key. */
  setAutoGroup(key: string, groupName: string | null): void;
}

interface Section {
  readonly name: string;
  readonly summaryId: number;
}

export class GroupHelper {
  private readonly rules: AutogroupRules;
  private readonly cb: GroupHelperCallback;
  /** `user|pkg|group` -> (child key -> flags): the notifications counted for each summary. */
  private readonly children = new Map<string, Map<string, number>>();
  /** Groups that have a summary posted. */
  private readonly summaries = new Set<string>();

  constructor(rules: AutogroupRules, cb: GroupHelperCallback) {
    this.rules = rules;
    this.cb = cb;
  }

  /** The group a record would be auto-grouped into. */
  private groupOf(r: NotificationRecord): Section {
    if (!this.rules.forceGrouping) return { name: AUTOGROUP_KEY, summaryId: AUTOGROUP_SUMMARY_ID };
    return r.importance >= IMPORTANCE_DEFAULT ? { name: `${AGGREGATE_GROUP_KEY}AlertingSection`, summaryId: 0 } : { name: `${AGGREGATE_GROUP_KEY}SilentSection`, summaryId: 1 };
  }

  private summaryFlags(children: Map<string, number>): number {
    const flags = [...children.values()];
    if (!this.rules.childFlags) return BASE_FLAGS | (flags.some((f) => (f & NotificationFlag.FLAG_ONGOING_EVENT) !== 0) ? NotificationFlag.FLAG_ONGOING_EVENT : 0);
    const all = flags.length > 0 && flags.every((f) => (f & ALL_CHILDREN_FLAG) !== 0) ? ALL_CHILDREN_FLAG : 0;
    return BASE_FLAGS | all | flags.reduce((acc, f) => acc | (f & ANY_CHILDREN_FLAGS), 0);
  }

  /** onNotificationPosted (after the post, as NMS runs it on its handler). */
  onPosted(r: NotificationRecord): void {
    if (r.isAppGroup) {
      this.ungroup(r, false);
      return;
    }
    const section = this.groupOf(r);
    const gk = `${r.userId}|${r.pkg}|${section.name}`;
    let children = this.children.get(gk);
    if (children === undefined) {
      children = new Map();
      this.children.set(gk, children);
    }
    children.set(r.key, r.notification.flags);
    const exists = this.summaries.has(gk);
    if (children.size < this.rules.atCount && !exists) return;
    const flags = this.summaryFlags(children);
    if (exists) {
      if (this.cb.summaryFlags(r.userId, r.pkg, section.name) !== flags) this.cb.updateAutogroupSummary(r.userId, r.pkg, section.name, flags);
    } else {
      this.summaries.add(gk);
      this.cb.addAutoGroupSummary(r, section.name, section.summaryId, flags);
    }
    for (const key of children.keys()) this.cb.setAutoGroup(key, section.name);
  }

  /** onNotificationRemoved. */
  onRemoved(r: NotificationRecord): void {
    this.ungroup(r, true);
  }

  /** The summary itself went (cancelled with its package, or by the user). */
  onSummaryRemoved(userId: number, pkg: string, groupName: string): void {
    const gk = `${userId}|${pkg}|${groupName}`;
    this.summaries.delete(gk);
  }

  /** maybeUngroup / maybeUngroupWithSections. */
  private ungroup(r: NotificationRecord, gone: boolean): void {
    for (const [gk, children] of this.children) {
      if (!children.delete(r.key)) continue;
      const groupName = gk.slice(`${r.userId}|${r.pkg}|`.length);
      if (!gone && r.overrideGroupKey !== null) this.cb.setAutoGroup(r.key, null);
      if (children.size === 0) {
        this.children.delete(gk);
        if (this.summaries.delete(gk)) this.cb.removeAutoGroupSummary(r.userId, r.pkg, groupName);
      } else if (this.summaries.has(gk)) {
        const flags = this.summaryFlags(children);
        if (this.cb.summaryFlags(r.userId, r.pkg, groupName) !== flags) this.cb.updateAutogroupSummary(r.userId, r.pkg, groupName, flags);
      }
    }
  }
}
