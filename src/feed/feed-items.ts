/**
 * The item model of the fixture feeds, builders for item lists relative to a clock, and the
 * deliberate defects the scenarios feed to the app (reference-app.md "Feed"; docs/sources/000:
 * "an unparseable date must not become now", "key the dedup on a stable identifier",
 * "an entry that parses with an empty link is dropped at parse time").
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';

/** When an item was published, as the feed will state it. */
export type Published =
  | { readonly kind: 'at'; readonly ms: number }
  /** Resolved against a clock when the list is built or served (`itemsRelativeTo`). */
  | { readonly kind: 'relative'; readonly agoMs: number }
  /** Written verbatim into the date element: deliberately unparseable text. */
  | { readonly kind: 'raw'; readonly text: string };

export interface FeedItem {
  /** `null` = the link element is missing; `""` = the element is present and empty. */
  readonly link: string | null;
  readonly title: string;
  readonly published: Published;
}

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** The date text used by `withUnparseableDate` unless told otherwise. */
export const UNPARSEABLE_DATE_TEXT = 'not a date at all';

/**
 * The key the checker and the journal use for an item: its link, or "" when the link is
 * missing (docs/design.md §5, `published.item`).
 */
export function itemKey(item: FeedItem): string {
  return item.link ?? '';
}

/** Feeds state whole seconds (RFC 822 has no fraction): the time an app can read back. */
export function truncateToSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** Publication time an app parses from the rendered feed: whole seconds, 0 for a raw date. */
export function renderedPublishedAt(item: FeedItem, nowMs?: number): number {
  const p = item.published;
  switch (p.kind) {
    case 'at':
      return truncateToSecond(p.ms);
    case 'relative':
      if (nowMs === undefined) {
        throw new DedupVerifyError(
          ErrorCode.FixtureServer,
          `Feed item "${item.title}" has a relative date (${p.agoMs} ms ago) and no clock was given. Pass nowMs, or resolve the list first with itemsRelativeTo(now, items).`,
        );
      }
      return truncateToSecond(nowMs - p.agoMs);
    case 'raw':
      return 0;
    default: {
      const unreachable: never = p;
      return unreachable;
    }
  }
}

/**
 * Resolves every relative date against `nowMs` (to whole seconds, as the feed will state it);
 * absolute and raw dates are kept. The result renders the same on every request.
 */
export function itemsRelativeTo(nowMs: number, specs: readonly FeedItem[]): FeedItem[] {
  return specs.map((item) =>
    item.published.kind === 'relative'
      ? { ...item, published: { kind: 'at', ms: truncateToSecond(nowMs - item.published.agoMs) } }
      : item,
  );
}

/** Whether any item still needs a clock to be rendered. */
export function hasRelativeDates(items: readonly FeedItem[]): boolean {
  return items.some((i) => i.published.kind === 'relative');
}

// ---- builders -------------------------------------------------------------------------------

export function publishedAt(ms: number): Published {
  return { kind: 'at', ms };
}

export function publishedAgo(agoMs: number): Published {
  return { kind: 'relative', agoMs };
}

export function publishedRaw(text: string): Published {
  return { kind: 'raw', text };
}

export function buildItem(link: string | null, title: string, published: Published): FeedItem {
  return { link, title, published };
}

/**
 * `count` items `https://example.org/<slug>/1..count`, titled "<Title> 1..count", item i
 * published `i * stepMs` before now (default one hour apart), newest first as feeds list them.
 */
export function buildFreshItems(
  count: number,
  options: { slug?: string; title?: string; stepMs?: number; baseUrl?: string } = {},
): FeedItem[] {
  const slug = options.slug ?? 'fresh';
  const title = options.title ?? 'Fresh';
  const stepMs = options.stepMs ?? HOUR_MS;
  const baseUrl = options.baseUrl ?? 'https://example.org';
  return Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    return buildItem(`${baseUrl}/${slug}/${i}`, `${title} ${i}`, publishedAgo(i * stepMs));
  });
}

// ---- defects --------------------------------------------------------------------------------

/** The same item with a date no parser accepts (the app must read it as 0 and skip it). */
export function withUnparseableDate(item: FeedItem, text: string = UNPARSEABLE_DATE_TEXT): FeedItem {
  return { ...item, published: publishedRaw(text) };
}

/** The same item without a link element at all. */
export function withMissingLink(item: FeedItem): FeedItem {
  return { ...item, link: null };
}

/** The same item with an empty link element (`<link></link>`, `<link href=""/>`). */
export function withEmptyLink(item: FeedItem): FeedItem {
  return { ...item, link: '' };
}

/** The same link with a title edited upstream: the identity is unchanged. */
export function withEditedTitle(item: FeedItem, title: string = `${item.title} (edited)`): FeedItem {
  return { ...item, title };
}

/** A second entry carrying the same link (a feed that lists one item twice). */
export function duplicateLink(item: FeedItem, changes: { title?: string; published?: Published } = {}): FeedItem {
  return { link: item.link, title: changes.title ?? item.title, published: changes.published ?? item.published };
}

/** Replaces the item with the given key (its link) by `edit(item)`; other items unchanged. */
export function editItem(items: readonly FeedItem[], key: string, edit: (item: FeedItem) => FeedItem): FeedItem[] {
  let found = false;
  const out = items.map((i) => {
    if (itemKey(i) !== key) return i;
    found = true;
    return edit(i);
  });
  if (!found) {
    throw new DedupVerifyError(
      ErrorCode.FixtureServer,
      `No feed item with key "${key}" to edit (keys: ${items.map((i) => JSON.stringify(itemKey(i))).join(', ') || 'none'}).`,
    );
  }
  return out;
}
