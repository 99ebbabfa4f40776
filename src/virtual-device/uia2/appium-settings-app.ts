/**
 * The code of `io.appium.settings` (the Appium Settings helper the UiAutomator2 driver installs
 * from its bundled settings_apk-debug.apk), for the parts a session uses:
 * - `Settings` activity: starts `ForegroundService` (action `start`);
 * - `ForegroundService`: registers the settings receivers on create, and on `start` calls
 *   startForeground(1, …) with the "Appium Settings" notification on channel `main_channel`;
 *   `dumpsys activity services io.appium.settings` then shows `isForeground=true`, which is how
 *   the driver decides the helper runs;
 * - `NotificationsReceiver` (`io.appium.settings.notifications`): RESULT_OK (-1) with the JSON of
 *   the NLService buffer, or an English sentence when the listener is not approved;
 * - `MediaScannerReceiver` (`io.appium.settings.scan_media`, extra `path`): RESULT_OK with "" when
 *   the path exists, RESULT_CANCELED otherwise;
 * - `NLService`: a buffer of at most 100 StoredNotifications, newest first, seeded from the active
 *   notifications on connect; every post (an update too) is a new entry; when full the oldest
 *   removed entry is evicted, else the last one; a removal marks the first entry with that id.
 *   The buffer lives in the process (lost when it dies).
 *
 * Source: appium/io.appium.settings app/src/main/java/io/appium/settings/ (Settings.java,
 * ForegroundService.java, SettingsReceivers.java, NLService.java,
 * receivers/NotificationsReceiver.java, receivers/MediaScannerReceiver.java,
 * notifications/StoredNotification.java toJson, helpers/NotificationHelpers.java).
 */
import type { AppContext, AppDefinition, AppInstance, AppManifest, BundleValue, JobParameters, NotificationSpec, ReceiverResult, StatusBarNotificationView } from '../system/app-framework.js';
import { Importance, NotificationFlag } from '../system/app-framework.js';
import type { Intent } from '../system/intent.js';
import { LogPriority } from '../types.js';
import { ENABLED_NOTIFICATION_LISTENERS } from '../system/notification-listeners.js';

export const SETTINGS_PACKAGE = 'io.appium.settings';
export const SETTINGS_ACTIVITY = 'io.appium.settings.Settings';
export const FOREGROUND_SERVICE = 'io.appium.settings.ForegroundService';
export const NL_SERVICE = 'io.appium.settings.NLService';
export const NOTIFICATIONS_RECEIVER = 'io.appium.settings.receivers.NotificationsReceiver';
export const MEDIA_SCANNER_RECEIVER = 'io.appium.settings.receivers.MediaScannerReceiver';
export const NOTIFICATIONS_ACTION = 'io.appium.settings.notifications';
export const SCAN_MEDIA_ACTION = 'io.appium.settings.scan_media';
/** NLService.MAX_BUFFER_SIZE. */
export const MAX_BUFFER_SIZE = 100;
/** NotificationHelpers.APPIUM_NOTIFICATION_IDENTIFIER. */
const APPIUM_NOTIFICATION_ID = 1;
const CHANNEL_ID = 'main_channel';
const CHANNEL_NAME = 'Appium Settings';
const CHANNEL_DESCRIPTION = 'Keep this service running, so Appium for Android can properly interact with several system APIs';
/** Activity.RESULT_OK / RESULT_CANCELED. */
const RESULT_OK = -1;
const RESULT_CANCELED = 0;
const NO_ACCESS =
  "Appium Settings helper has no access to the system notifications. The access must be granted manually via 'Notification access' page in device Settings.";

/** A buffered notification (StoredNotification). */
interface StoredNotification {
  readonly sbn: StatusBarNotificationView;
  removed: boolean;
}

function extraString(n: NotificationSpec, key: string): string | null {
  const entry = n.extras.find(([k]) => k === key);
  const v: BundleValue | undefined = entry?.[1];
  if (v === undefined || v === null) return null;
  return String(v.value);
}

/**
 * StoredNotification.toJson() as org.json (Android's JSONObject keeps insertion order; its
 * JSONStringer escapes `/` as `\/`). `isGroup` is StatusBarNotification.isGroup(): an override
 * group key, or a group the app set (isAppGroup; the model has no sort keys).
 */
export function storedNotificationJson(s: StoredNotification): Record<string, unknown> {
  const { sbn } = s;
  const flags = sbn.notification.flags;
  return {
    packageName: sbn.packageName,
    isClearable: (flags & (NotificationFlag.FLAG_ONGOING_EVENT | NotificationFlag.FLAG_NO_CLEAR)) === 0,
    isOngoing: (flags & NotificationFlag.FLAG_ONGOING_EVENT) !== 0,
    id: sbn.id,
    tag: sbn.tag,
    postTime: sbn.postTime,
    isRemoved: s.removed,
    notification: {
      title: extraString(sbn.notification, 'android.title'),
      bigTitle: extraString(sbn.notification, 'android.title.big'),
      text: extraString(sbn.notification, 'android.text'),
      bigText: extraString(sbn.notification, 'android.bigText'),
      tickerText: extraString(sbn.notification, 'android.tickerText'),
      subText: extraString(sbn.notification, 'android.subText'),
      infoText: extraString(sbn.notification, 'android.infoText'),
      template: extraString(sbn.notification, 'android.template'),
    },
    isGroup: sbn.overrideGroupKey !== null || sbn.notification.group !== undefined,
    userHandle: sbn.userId,
    groupKey: sbn.groupKey,
    overrideGroupKey: sbn.overrideGroupKey,
    key: sbn.key,
  };
}

/** org.json JSONStringer output for plain data. */
export function toOrgJson(value: unknown): string {
  return JSON.stringify(value).replace(/\//g, '\\/');
}

/** The "Appium Settings" foreground notification (NotificationHelpers.getNotification). */
function appiumNotification(pkg: string, now: number): NotificationSpec {
  return {
    channelId: CHANNEL_ID,
    smallIcon: { packageName: pkg, resId: 0x7f080076 },
    when: now,
    flags: 0,
    priority: 0,
    visibility: 0,
    color: 0,
    contentIntent: null,
    extras: [
      ['android.title.big', { kind: 'String', value: CHANNEL_NAME }],
      ['android.bigText', { kind: 'String', value: CHANNEL_DESCRIPTION }],
      ['android.template', { kind: 'String', value: 'android.app.Notification$BigTextStyle' }],
    ],
  };
}

class AppiumSettingsProcess implements AppInstance {
  /** NLService.notificationsBuffer (null until the listener connected in this process). */
  private buffer: StoredNotification[] | null = null;

  constructor(private readonly ctx: AppContext) {}

  private log(priority: LogPriority, tag: string, message: string): void {
    this.ctx.log.println(priority, tag, message);
  }

  onCreate(): Promise<void> {
    return Promise.resolve();
  }

  async onActivityCreate(activityClass: string): Promise<void> {
    if (activityClass !== SETTINGS_ACTIVITY) return;
    this.log(LogPriority.D, 'APPIUM SETTINGS', 'Entering the app');
    this.log(LogPriority.D, 'APPIUM SERVICE', 'Initializing the foreground service');
    await this.ctx.components?.startService(FOREGROUND_SERVICE, { action: 'start', flags: 0, component: { packageName: SETTINGS_PACKAGE, className: FOREGROUND_SERVICE } });
  }

  async onStartService(serviceClass: string, intent: Intent, firstStart: boolean): Promise<void> {
    if (serviceClass !== FOREGROUND_SERVICE) return;
    const components = this.ctx.components;
    if (components === undefined) return;
    if (firstStart) {
      for (const [receiver, action] of [
        [NOTIFICATIONS_RECEIVER, NOTIFICATIONS_ACTION],
        [MEDIA_SCANNER_RECEIVER, SCAN_MEDIA_ACTION],
      ] as const) {
        components.registerReceiver(receiver, action);
        this.log(LogPriority.D, 'APPIUM SERVICE', `Register ${receiver}`);
      }
    }
    if (intent.action === 'start') {
      this.ctx.notificationManager.createNotificationChannel({ id: CHANNEL_ID, name: CHANNEL_NAME, importance: Importance.DEFAULT, description: CHANNEL_DESCRIPTION });
      await components.startForeground(FOREGROUND_SERVICE, APPIUM_NOTIFICATION_ID, appiumNotification(SETTINGS_PACKAGE, this.ctx.currentTimeMillis()));
    }
  }

  onReceive(receiverClass: string, intent: Intent): Promise<ReceiverResult | undefined> {
    switch (receiverClass) {
      case NOTIFICATIONS_RECEIVER:
        return Promise.resolve(this.notifications());
      case MEDIA_SCANNER_RECEIVER: {
        const path = intent.extras?.get('path');
        if (path === undefined || path.type !== 'string') {
          this.log(LogPriority.E, 'MediaScannerReceiver', 'No path has been provided');
          return Promise.resolve({ resultCode: RESULT_CANCELED, resultData: '' });
        }
        if (!this.ctx.files.exists(path.value)) {
          this.log(LogPriority.E, 'MediaScannerReceiver', `The item at '${path.value}' does not exist`);
          return Promise.resolve({ resultCode: RESULT_CANCELED, resultData: '' });
        }
        this.log(LogPriority.I, 'MediaScannerReceiver', `Successfully scanned 1 file(s) at '${path.value}'`);
        return Promise.resolve({ resultCode: RESULT_OK, resultData: '' });
      }
      default:
        return Promise.resolve(undefined);
    }
  }

  /** NotificationsReceiver.onReceive. */
  private notifications(): ReceiverResult {
    this.log(LogPriority.D, 'NotificationsReceiver', 'Getting system notifications');
    const enabled = (this.ctx.components?.getSecureSetting(ENABLED_NOTIFICATION_LISTENERS) ?? '')
      .split(':')
      .some((name) => name.split('/')[0] === SETTINGS_PACKAGE);
    if (!enabled) {
      this.log(LogPriority.E, 'NotificationsReceiver', NO_ACCESS);
      return { resultCode: RESULT_OK, resultData: NO_ACCESS };
    }
    const list = (this.buffer ?? []).map(storedNotificationJson);
    return { resultCode: RESULT_OK, resultData: toOrgJson({ statusBarNotifications: list }) };
  }

  onListenerConnected(serviceClass: string, active: readonly StatusBarNotificationView[]): Promise<void> {
    if (serviceClass !== NL_SERVICE) return Promise.resolve();
    this.log(LogPriority.I, 'NLService', 'The notification listener is connected');
    this.buffer = active.slice(0, MAX_BUFFER_SIZE).map((sbn) => ({ sbn, removed: false }));
    this.log(LogPriority.D, 'NLService', `Successfully synchronized ${this.buffer.length} active notifications`);
    return Promise.resolve();
  }

  onNotificationPosted(serviceClass: string, sbn: StatusBarNotificationView): Promise<void> {
    if (serviceClass !== NL_SERVICE || this.buffer === null) return Promise.resolve();
    const buffer = this.buffer;
    if (buffer.length >= MAX_BUFFER_SIZE) {
      // The oldest entry marked removed, else the last one.
      let index = buffer.length - 1;
      for (let i = buffer.length - 1; i >= 0; i--) {
        if (buffer[i]!.removed) {
          index = i;
          break;
        }
      }
      buffer.splice(index, 1);
    }
    buffer.unshift({ sbn, removed: false });
    this.log(LogPriority.D, 'NLService', `Successfully stored the newly arrived notification identified by ${sbn.id}`);
    return Promise.resolve();
  }

  onNotificationRemoved(serviceClass: string, sbn: StatusBarNotificationView): Promise<void> {
    if (serviceClass !== NL_SERVICE || this.buffer === null) return Promise.resolve();
    const entry = this.buffer.find((s) => s.sbn.id === sbn.id);
    if (entry !== undefined) entry.removed = true;
    return Promise.resolve();
  }

  onStartJob(_serviceClass: string, _params: JobParameters): Promise<boolean> {
    return Promise.resolve(false);
  }

  onStopJob(_serviceClass: string, _params: JobParameters): Promise<boolean> {
    return Promise.resolve(false);
  }
}

/** The model for an installed io.appium.settings APK (the manifest comes from the APK). */
export function appiumSettingsApp(manifest: AppManifest): AppDefinition {
  return { manifest, createInstance: (ctx) => new AppiumSettingsProcess(ctx) };
}
