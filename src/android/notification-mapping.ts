/**
 * Which feed item a posted notification stands for (docs/design.md §4, config `notifications.match`):
 * - `hashcode-id`: the notification id is Java `String.hashCode()` of the item key (the link);
 * - `tag`: the notification tag is the item key;
 * - `title`: the notification's `android.title` is the item title;
 * - `row-id`: the notification id is a row id of the app's table, joined to the item key through
 *   that table (the join is read from the app's database and given to the index: `rowIds`).
 * With `tag` the tag may also be a server id, joined the same way (`tags`).
 * When that does not decide (no match, or several items share a hash or title), the record's
 * content is tried: `android.title` equal to an item title, or `android.text` equal to an item
 * key. Otherwise the post is `unmapped`. Pure: no I/O.
 */

export const NotificationMatch = { hashcodeId: 'hashcode-id', tag: 'tag', title: 'title', rowId: 'row-id' } as const;
export type NotificationMatch = (typeof NotificationMatch)[keyof typeof NotificationMatch];

/** `java.lang.String.hashCode()`: s[0]*31^(n-1) + … + s[n-1] over UTF-16 code units, int32. */
export function javaStringHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}

export interface FeedItemRef {
  /** The item key (its link). */
  readonly key: string;
  readonly title: string;
}

export interface PostedNotification {
  readonly id: number;
  readonly tag: string | null;
}

export interface NotificationContent {
  readonly title: string | null;
  readonly text: string | null;
}

export type ItemMapping =
  | { readonly kind: 'mapped'; readonly item: string; readonly via: NotificationMatch | 'content' }
  | { readonly kind: 'unmapped'; readonly reason: string; readonly candidates: readonly string[] };

/** What the app's table says of its rows: the item key of each row id, or of each tag (a server id). */
export interface RowJoins {
  readonly rowIds?: ReadonlyMap<number, string>;
  readonly tags?: ReadonlyMap<string, string>;
}

/** Lookup tables over the items a scenario published, built once. */
export class FeedItemIndex {
  private readonly byHash = new Map<number, string[]>();
  private readonly byKey = new Map<string, string[]>();
  private readonly byTitle = new Map<string, string[]>();

  constructor(
    items: Iterable<FeedItemRef>,
    private readonly joins: RowJoins = {},
  ) {
    for (const item of items) {
      push(this.byHash, javaStringHashCode(item.key), item.key);
      push(this.byKey, item.key, item.key);
      push(this.byTitle, item.title, item.key);
    }
  }

  map(post: PostedNotification, match: NotificationMatch, content: NotificationContent | null = null): ItemMapping {
    const primary = this.candidates(post, match, content);
    if (primary.length === 1 && primary[0] !== undefined) return { kind: 'mapped', item: primary[0], via: match };
    const fromContent = this.contentCandidates(content, primary);
    if (fromContent.length === 1 && fromContent[0] !== undefined) return { kind: 'mapped', item: fromContent[0], via: 'content' };
    const candidates = primary.length > 0 ? primary : fromContent;
    const reason =
      primary.length > 1
        ? `${primary.length} items match by ${match}`
        : `no item matches by ${match}${content === null ? ' and no notification content was available' : ' or by content'}`;
    return { kind: 'unmapped', reason, candidates };
  }

  private candidates(post: PostedNotification, match: NotificationMatch, content: NotificationContent | null): string[] {
    switch (match) {
      case NotificationMatch.hashcodeId:
        return unique(this.byHash.get(post.id));
      case NotificationMatch.tag: {
        if (post.tag === null) return [];
        const joined = this.joins.tags?.get(post.tag);
        return joined !== undefined ? unique(this.byKey.get(joined)) : unique(this.byKey.get(post.tag));
      }
      case NotificationMatch.rowId: {
        const joined = this.joins.rowIds?.get(post.id);
        return joined === undefined ? [] : unique(this.byKey.get(joined));
      }
      case NotificationMatch.title:
        return content?.title == null ? [] : unique(this.byTitle.get(content.title));
      default: {
        const unreachable: never = match;
        return unreachable;
      }
    }
  }

  /**
   * Items the content points at: the text (the link) is the more specific clue, so it wins over
   * the title; both agreeing narrows further. Restricted to `among` when the primary match found
   * several.
   */
  private contentCandidates(content: NotificationContent | null, among: readonly string[]): string[] {
    if (content === null) return [];
    const byText = content.text === null ? [] : unique(this.byKey.get(content.text));
    const byTitle = content.title === null ? [] : unique(this.byTitle.get(content.title));
    const both = byText.filter((k) => byTitle.includes(k));
    const picked = both.length > 0 ? both : byText.length > 0 ? byText : byTitle;
    return among.length > 1 ? picked.filter((k) => among.includes(k)) : picked;
  }
}

/** One-off form of FeedItemIndex.map. */
export function mapNotificationToItem(
  post: PostedNotification,
  items: Iterable<FeedItemRef>,
  match: NotificationMatch,
  content: NotificationContent | null = null,
): ItemMapping {
  return new FeedItemIndex(items).map(post, match, content);
}

function push<K>(map: Map<K, string[]>, key: K, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function unique(values: readonly string[] | undefined): string[] {
  return values === undefined ? [] : [...new Set(values)];
}
