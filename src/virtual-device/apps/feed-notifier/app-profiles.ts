/**
 * App profiles of the reference app (`virtual-device --app-profile NAME`, `run --virtual
 * --app-profile NAME`): the same feed notifier written in the shape of one real app each, so the
 * harness meets what real teams write. `reference` is the reference app as docs/reference-app.md
 * describes it, unchanged. Each other profile changes one thing, and cites the app it imitates:
 *
 * - `grouped`: every item joins a group and each run ends with a group summary on the items'
 *   channel, and an ongoing "syncing…" progress post is shown while the run fetches
 *   (feed-profiles.ts GroupedPosts).
 * - `row-id`: items are rows of a `feed_items` table written when the feed is synced, each with
 *   a `notified` flag; the notification id is the row's id (feed-item-store.ts).
 * - `subscription`: the feed URL is a row of a `feeds` table, added by a VIEW intent to the app's
 *   activity; `pm clear` loses it; with no feed row the worker fetches nothing.
 * - `watermark`: no key table; the app remembers the publication time of the newest item it
 *   notified (a high-water mark) in SharedPreferences.
 * - `jobscheduler`: no WorkManager; a JobService scheduled with JobInfo.Builder.setPeriodic, one
 *   log line per run (FEED_SYNC_RESULT).
 */
export const APP_PROFILES = ['reference', 'grouped', 'row-id', 'subscription', 'watermark', 'jobscheduler'] as const;
export type AppProfile = (typeof APP_PROFILES)[number];

export const DEFAULT_APP_PROFILE: AppProfile = 'reference';

export function isAppProfile(name: unknown): name is AppProfile {
  return typeof name === 'string' && (APP_PROFILES as readonly string[]).includes(name);
}
