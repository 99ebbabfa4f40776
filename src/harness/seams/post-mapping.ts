/**
 * How the app's posts map to feed items (one of the harness's four seams; docs/design.md §4,
 * config `notifications.match`). The mapping itself is pure (src/android/notification-mapping.ts);
 * a PostMapping names the rule and, for a post the rule cannot place, reads its content from
 * NotificationManager. A rule that joins through the app's table (a row id; a tag that is a
 * server id) takes the joins the DedupStore read with its rows after the run (dedup-store.ts).
 */
import type { Config } from '../../config/types.js';
import { FeedItemIndex, NotificationMatch, type RowJoins } from '../../android/notification-mapping.js';
import { getNotificationRecord, listNotificationKeys } from '../../android/notifications.js';
import type { DeviceSteps } from '../device-steps.js';

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

  /** What the rule joins through (none: the id or tag names the item itself). */
  protected joins(): RowJoins {
    return {};
  }

  index(items: Iterable<{ key: string; title: string }>): FeedItemIndex {
    return new FeedItemIndex(items, this.joins());
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
    return unmappedPost(id, tag);
  }
}

/** What a post no item maps to is recorded as (an `unexpected` item). */
function unmappedPost(id: number, tag: string | null): string {
  return `?id=${id}${tag === null ? '' : `&tag=${tag}`}`;
}

/**
 * The id is the item's row id in `database.table` (`notifications.idColumn`), joined to its key
 * (Feeder: `nm.notify(it.id.toInt(), …)`, spacecowboy/Feeder @091ca126 app/src/main/java/com/
 * nononsenseapps/feeder/model/RssNotifications.kt:79-83). A post whose id is in no row the reads
 * found is not one of the app's items by this rule: it stays `?id=N` (unexpected), without
 * looking at its content; a post whose row holds a key that is no served item (a key taken from
 * the title) is tried by its content.
 */
export class RowIdMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.rowId;

  constructor(
    steps: DeviceSteps,
    private readonly rows: () => RowJoins,
  ) {
    super(steps);
  }

  protected override joins(): RowJoins {
    return { rowIds: this.rows().rowIds ?? new Map() };
  }

  override mapByContent(index: FeedItemIndex, id: number, tag: string | null): Promise<string> {
    if (this.rows().rowIds?.has(id) !== true) return Promise.resolve(unmappedPost(id, tag));
    return super.mapByContent(index, id, tag);
  }
}

/** The id is Java `String.hashCode()` of the item's link (the reference app: `notify(link.hashCode(), …)`). */
export class HashIdMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.hashcodeId;
}

/**
 * The tag is the item's link, or, with `notifications.tagColumn`, a server id held in that column
 * of the item's row in `database.table`, joined to its key (a tag in no row is still tried as a
 * link, then by the post's content).
 */
export class TagMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.tag;

  constructor(
    steps: DeviceSteps,
    private readonly rows?: () => RowJoins,
  ) {
    super(steps);
  }

  protected override joins(): RowJoins {
    return this.rows === undefined ? {} : { tags: this.rows().tags ?? new Map() };
  }
}

/** The post's `android.title` is the item's title. */
export class TitleMapping extends NotificationRecordMapping {
  readonly match = NotificationMatch.title;
}

/** The PostMapping for config.notifications.match; `joins` gives what the app's table says of its rows (DedupStore.joins). */
export function postMappingFor(config: Config, steps: DeviceSteps, joins: () => RowJoins): PostMapping {
  const match = config.notifications.match;
  switch (match) {
    case 'hashcode-id':
      return new HashIdMapping(steps);
    case 'tag':
      return new TagMapping(steps, config.notifications.tagColumn === undefined ? undefined : joins);
    case 'title':
      return new TitleMapping(steps);
    case 'row-id':
      return new RowIdMapping(steps, joins);
    default: {
      const unreachable: never = match;
      throw new Error(`unknown notifications.match ${String(unreachable)}`);
    }
  }
}
