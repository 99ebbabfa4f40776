/**
 * How the app's posts map to feed items (one of the harness's four seams; docs/design.md §4,
 * config `notifications.match`). The mapping itself is pure (src/android/notification-mapping.ts);
 * a PostMapping names the rule and, for a post the rule cannot place, reads its content from
 * NotificationManager.
 */
import type { Config } from '../../config/types.js';
import { FeedItemIndex, NotificationMatch } from '../../android/notification-mapping.js';
import { getNotificationRecord, listNotificationKeys } from '../../android/notifications.js';
import type { DeviceSteps } from '../device-steps.js';
import { ConfigError } from '../../errors.js';

export interface PostMapping {
  /** The rule FeedItemIndex.map applies first. */
  readonly match: NotificationMatch;
  /** The index of the items served so far. */
  index(items: Iterable<{ key: string; title: string }>): FeedItemIndex;
  /** A post whose id/tag maps to no served item: the item its content names, or `?id=N[&tag=T]`. */
  mapByContent(index: FeedItemIndex, id: number, tag: string | null): Promise<string>;
}

/** The shared part: the index, and the content read from `dumpsys notification`. */
abstract class NotificationRecordMapping implements PostMapping {
  abstract readonly match: NotificationMatch;

  constructor(private readonly steps: DeviceSteps) {}

  index(items: Iterable<{ key: string; title: string }>): FeedItemIndex {
    return new FeedItemIndex(items);
  }

  async mapByContent(index: FeedItemIndex, id: number, tag: string | null): Promise<string> {
    const { device, pkg } = this.steps;
    const prefix = `0|${pkg}|${id}|${tag ?? 'null'}|`;
    const key = (await listNotificationKeys(device)).find((k) => k.startsWith(prefix));
    const record = key === undefined ? null : await getNotificationRecord(device, key);
    if (record) {
      const mapped = index.map({ id, tag }, 'title', { title: record.title, text: record.text });
      if (mapped.kind === 'mapped') return mapped.item;
    }
    return `?id=${id}${tag === null ? '' : `&tag=${tag}`}`;
  }
}

/** The id is Java `String.hashCode()` of the item's link (the reference app: `notify(link.hashCode(), …)`). */
export class HashIdMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.hashcodeId;
}

/** The tag is the item's link. */
export class TagMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.tag;
}

/** The post's `android.title` is the item's title. */
export class TitleMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.title;
}

export function postMappingFor(config: Config, steps: DeviceSteps): PostMapping {
  const match = config.notifications.match;
  switch (match) {
    case 'hashcode-id':
      return new HashIdMapping(steps);
    case 'tag':
      return new TagMapping(steps);
    case 'title':
      return new TitleMapping(steps);
    case 'row-id':
      throw new ConfigError('notifications.match "row-id" is not supported by this version of dedup-verify', 'notifications.match');
    default: {
      const unreachable: never = match;
      throw new Error(`unknown notifications.match ${String(unreachable)}`);
    }
  }
}
