/**
 * Notification listener services (NotificationManagerService.NotificationListeners, a
 * ManagedServices): the approved components live in the secure setting
 * `enabled_notification_listeners` (colon-separated ComponentName.flattenToString); an approved
 * component whose service requires android.permission.BIND_NOTIFICATION_LISTENER_SERVICE is
 * bound (its process started), gets onListenerConnected, then every post and removal.
 *
 * Sources: frameworks/base services/core/java/com/android/server/notification/ManagedServices.java
 * (approval list in Settings.Secure, "Skipping … service … : it does not require the permission
 * android.permission.BIND_NOTIFICATION_LISTENER_SERVICE"), NotificationManagerService.java
 * (notifyPostedLocked / notifyRemovedLocked post to the listener's handler: delivery is
 * asynchronous) and NotificationShellCmd.java (`allow_listener` / `disallow_listener`).
 *
 * Model choice: a listener whose process died is bound again the next time its package's process
 * starts (ManagedServices rebinds through its ServiceConnection; the exact delays are not modelled).
 */
import type { StatusBarNotificationView } from './app-framework.js';
import type { AndroidSystem } from './android-system.js';
import type { AppProcess } from './app-process.js';
import type { ProcessRecord } from './activity-manager.js';
import { flattenToString, parseComponentName, type ComponentName } from './intent.js';
import type { NotificationRecord } from './notification-record.js';
import { LogPriority } from '../types.js';

export const ENABLED_NOTIFICATION_LISTENERS = 'enabled_notification_listeners';
export const BIND_NOTIFICATION_LISTENER_SERVICE = 'android.permission.BIND_NOTIFICATION_LISTENER_SERVICE';
const TAG = 'NotificationListeners';

/** StatusBarNotification as a listener receives it. */
export function statusBarNotificationOf(r: NotificationRecord): StatusBarNotificationView {
  return {
    packageName: r.pkg,
    id: r.id,
    tag: r.tag,
    key: r.key,
    groupKey: r.groupKey,
    overrideGroupKey: r.overrideGroupKey,
    postTime: r.updateTimeMs,
    userId: r.userId,
    uid: r.uid,
    notification: r.notification,
  };
}

interface Binding {
  readonly component: ComponentName;
  readonly process: AppProcess;
  connected: boolean;
}

export class NotificationListeners {
  private readonly bindings = new Map<string, Binding>();
  private readonly binding = new Map<string, Promise<void>>();

  constructor(private readonly system: AndroidSystem) {
    system.notifications.observe({
      onPosted: (r) => this.dispatch(r, 'posted'),
      onRemoved: (r) => this.dispatch(r, 'removed'),
    });
  }

  /** The approved listener components (user 0). */
  approved(): ComponentName[] {
    const raw = this.system.settings.get('secure', ENABLED_NOTIFICATION_LISTENERS) ?? '';
    return raw
      .split(':')
      .filter((s) => s !== '')
      .map((s) => parseComponentName(s))
      .filter((c): c is ComponentName => c !== undefined);
  }

  /** NotificationManagerService.setNotificationListenerAccessGrantedForUser. */
  setApproved(component: ComponentName, granted: boolean): void {
    const flat = flattenToString(component);
    const list = this.approved().map(flattenToString).filter((c) => c !== flat);
    if (granted) list.push(flat);
    this.system.settings.put('secure', ENABLED_NOTIFICATION_LISTENERS, list.join(':'));
    if (granted) void this.bind(component);
    else this.bindings.delete(flat);
  }

  /** Whether `component` is bound and connected now. */
  isConnected(component: ComponentName): boolean {
    const b = this.bindings.get(flattenToString(component));
    return b !== undefined && b.connected && b.process.alive;
  }

  /** A process started: approved listeners of its package that are not bound get bound. */
  onProcessStarted(record: ProcessRecord): void {
    for (const c of this.approved()) {
      if (c.packageName !== record.pkg.packageName || this.isConnected(c)) continue;
      void this.bind(c);
    }
  }

  private bind(component: ComponentName): Promise<void> {
    const flat = flattenToString(component);
    const pending = this.binding.get(flat);
    if (pending !== undefined) return pending;
    const work = this.doBind(component).finally(() => this.binding.delete(flat));
    this.binding.set(flat, work);
    return work;
  }

  private async doBind(component: ComponentName): Promise<void> {
    const pkg = this.system.packages.get(component.packageName);
    const service = pkg?.definition?.manifest.services.find((s) => s.name === component.className);
    if (pkg === undefined || service === undefined) return;
    if (service.permission !== BIND_NOTIFICATION_LISTENER_SERVICE) {
      this.system.log.slog(
        LogPriority.W,
        TAG,
        `Skipping notification listener service ${flattenToString(component)}: it does not require the permission ${BIND_NOTIFICATION_LISTENER_SERVICE}`,
      );
      return;
    }
    let record: ProcessRecord;
    try {
      record = await this.system.activities.ensureProcess(pkg, 'service', component);
    } catch {
      return;
    }
    const flat = flattenToString(component);
    const b: Binding = { component, process: record.process, connected: false };
    this.bindings.set(flat, b);
    const active = this.system.notifications.active().map(statusBarNotificationOf);
    try {
      await record.process.guard(record.instance?.onListenerConnected?.(component.className, active) ?? Promise.resolve());
      b.connected = true;
    } catch {
      // the process died while connecting
    }
  }

  private dispatch(r: NotificationRecord, what: 'posted' | 'removed'): void {
    const sbn = statusBarNotificationOf(r);
    for (const b of this.bindings.values()) {
      if (!b.connected || !b.process.alive) continue;
      const record = this.system.activities.processOf(b.component.packageName);
      const instance = record?.process === b.process ? record.instance : undefined;
      if (instance === undefined) continue;
      const cls = b.component.className;
      // Listener callbacks run on the listener's main thread, after the post returned.
      setImmediate(() => {
        const call = what === 'posted' ? instance.onNotificationPosted?.(cls, sbn) : instance.onNotificationRemoved?.(cls, sbn);
        if (call !== undefined) b.process.guard(call).catch(() => undefined);
      });
    }
  }
}
