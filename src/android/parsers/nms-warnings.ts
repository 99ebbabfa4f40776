/**
 * NotificationManagerService log lines (tag `NotificationService`, main/system buffers) that say
 * the OS, not the app, dropped a notification (docs/design.md §4: attribute as `os-shed`).
 *
 * - 50-per-package cap, `checkDisqualifyingFeatures` (A14 LOS21-pre-QPR2/android_frameworks_base
 *   NotificationManagerService.java): `"Package has already posted or enqueued " + count +
 *   " notifications.  Not showing more.  package=" + pkg`; older releases print
 *   `"Package has already posted " + count + " notifications.  Not showing more.  package=" + pkg`
 *   (framework copies in the index). The line does not say which notification was refused.
 * - Update rate limit, same method: `"Package enqueue rate is " + appEnqueueRate + ". Shedding "
 *   + key + ". package=" + pkg` (applies to updates of a posted key).
 * - Missing channel, `enqueueNotificationInternal` (framework copy in the index, A11-era):
 *   `"No Channel found for pkg=" + pkg + ", channelId=" + channelId + ", id=" + id + ", tag=" + tag
 *   + ", opPkg=" + opPkg + …` via Slog.e.
 */

export type NmsWarning =
  | { readonly kind: 'package-cap'; readonly pkg: string; readonly count: number }
  | { readonly kind: 'rate-limit'; readonly pkg: string; readonly key: string; readonly rate: number }
  | { readonly kind: 'no-channel'; readonly pkg: string; readonly channelId: string | null; readonly id: number; readonly tag: string | null };

export const NMS_LOG_TAG = 'NotificationService';

/** The message text of one NotificationService log line; null when it is not one of these. */
export function parseNmsWarning(message: string): NmsWarning | null {
  const cap = /Package has already posted(?: or enqueued)? (\d+) notifications\.\s+Not showing more\.\s+package=(\S+)/.exec(message);
  if (cap) return { kind: 'package-cap', pkg: cap[2] ?? '', count: Number(cap[1]) };
  const rate = /Package enqueue rate is ([\d.Ee+-]+)\. Shedding (\S+)\. package=(\S+)/.exec(message);
  if (rate) return { kind: 'rate-limit', pkg: rate[3] ?? '', key: rate[2] ?? '', rate: Number(rate[1]) };
  const channel = /No Channel found for pkg=([^,]+), channelId=([^,]*), id=(-?\d+), tag=(.*?), opPkg=/.exec(message);
  if (channel) {
    const channelId = channel[2] ?? '';
    const tag = channel[4] ?? '';
    return {
      kind: 'no-channel',
      pkg: channel[1] ?? '',
      channelId: channelId === 'null' ? null : channelId,
      id: Number(channel[3]),
      tag: tag === 'null' ? null : tag,
    };
  }
  return null;
}
