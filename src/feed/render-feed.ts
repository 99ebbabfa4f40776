/**
 * PURE rendering of fixture feeds: RSS 2.0 and Atom 1.0 text from an item list. Same input,
 * same bytes. What the app reads from it is fixed by reference-app.md "Feed": RSS
 * `item/link`, `item/title`, `item/pubDate` (RFC 822); Atom `entry/link@href`, `entry/title`,
 * `entry/updated` / `entry/published` (RFC 3339).
 *
 * Defects are rendered literally: a missing link (`link: null`) writes no link element, an
 * empty link writes an empty one, a raw date is written verbatim.
 */
import { itemKey, renderedPublishedAt, truncateToSecond } from './feed-items.js';
import type { FeedItem, Published } from './feed-items.js';

export const FeedFormat = { rss: 'rss', atom: 'atom' } as const;
export type FeedFormat = (typeof FeedFormat)[keyof typeof FeedFormat];

export function isFeedFormat(value: unknown): value is FeedFormat {
  return value === FeedFormat.rss || value === FeedFormat.atom;
}

/** The `Content-Type` the fixture server sends with each format. */
export const FEED_CONTENT_TYPE: Readonly<Record<FeedFormat, string>> = {
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
};

export interface RssChannel {
  readonly title: string;
  readonly link: string;
  readonly description: string;
}

export interface AtomFeed {
  readonly title: string;
  /** The feed's `<id>` (an IRI). */
  readonly id: string;
  /** `<link href>` of the feed, omitted when absent. */
  readonly link?: string;
  /** Feed-level `<updated>`; default: the newest item date, else the epoch. */
  readonly updatedMs?: number;
}

export interface RenderOptions {
  /** Resolves relative dates; required only when an item still has one. */
  readonly nowMs?: number;
}

export const DEFAULT_RSS_CHANNEL: RssChannel = {
  title: 'dedup-verify fixture feed',
  link: 'https://example.org/',
  description: 'Items served by the dedup-verify fixture server',
};

export const DEFAULT_ATOM_FEED: AtomFeed = {
  title: 'dedup-verify fixture feed',
  id: 'urn:dedup-verify:feed',
  link: 'https://example.org/',
};

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * RFC 822 date (RFC 1123 four-digit year) exactly as GNU `date -u -R` prints it
 * (`%a, %d %b %Y %H:%M:%S %z`): `Mon, 30 Nov 2026 13:32:27 +0000`. Fractions are dropped.
 */
export function formatRfc822(ms: number): string {
  const d = new Date(truncateToSecond(ms));
  const weekday = WEEKDAYS[d.getUTCDay()] ?? '';
  const month = MONTHS[d.getUTCMonth()] ?? '';
  return (
    `${weekday}, ${pad(d.getUTCDate())} ${month} ${pad(d.getUTCFullYear(), 4)} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`
  );
}

/** RFC 3339 date in UTC, whole seconds: `2026-11-30T13:32:27Z`. */
export function formatRfc3339(ms: number): string {
  const d = new Date(truncateToSecond(ms));
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`
  );
}

// Characters XML 1.0 forbids (https://www.w3.org/TR/xml/#charsets) become U+FFFD, so every
// rendered feed stays well-formed; malformed XML is served with setFeed({ xml }) instead.
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text for element content and double- or single-quoted attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function dateText(published: Published, item: FeedItem, options: RenderOptions, format: (ms: number) => string): string {
  return published.kind === 'raw' ? published.text : format(renderedPublishedAt(item, options.nowMs));
}

/** RSS 2.0 document; one `<item>` per item, in list order. */
export function renderRss(channel: RssChannel, items: readonly FeedItem[], options: RenderOptions = {}): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0">',
    '  <channel>',
    `    <title>${escapeXml(channel.title)}</title>`,
    `    <link>${escapeXml(channel.link)}</link>`,
    `    <description>${escapeXml(channel.description)}</description>`,
  ];
  for (const item of items) {
    lines.push('    <item>', `      <title>${escapeXml(item.title)}</title>`);
    if (item.link !== null) lines.push(`      <link>${escapeXml(item.link)}</link>`);
    lines.push(`      <pubDate>${escapeXml(dateText(item.published, item, options, formatRfc822))}</pubDate>`, '    </item>');
  }
  lines.push('  </channel>', '</rss>', '');
  return lines.join('\n');
}

/**
 * Atom 1.0 document; one `<entry>` per item, in list order. `updated` and `published` carry
 * the same date. `<id>` is the link, or `urn:dedup-verify:entry:<position>` without one.
 */
export function renderAtom(feed: AtomFeed, items: readonly FeedItem[], options: RenderOptions = {}): string {
  const dated = items.filter((i) => i.published.kind !== 'raw').map((i) => renderedPublishedAt(i, options.nowMs));
  const updatedMs = feed.updatedMs ?? (dated.length > 0 ? Math.max(...dated) : 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <title>${escapeXml(feed.title)}</title>`,
    `  <id>${escapeXml(feed.id)}</id>`,
  ];
  if (feed.link !== undefined) lines.push(`  <link href="${escapeXml(feed.link)}"/>`);
  lines.push(`  <updated>${formatRfc3339(updatedMs)}</updated>`);
  items.forEach((item, index) => {
    const date = escapeXml(dateText(item.published, item, options, formatRfc3339));
    const id = itemKey(item) === '' ? `urn:dedup-verify:entry:${index + 1}` : itemKey(item);
    lines.push('  <entry>', `    <title>${escapeXml(item.title)}</title>`);
    if (item.link !== null) lines.push(`    <link href="${escapeXml(item.link)}"/>`);
    lines.push(`    <id>${escapeXml(id)}</id>`, `    <updated>${date}</updated>`, `    <published>${date}</published>`, '  </entry>');
  });
  lines.push('</feed>', '');
  return lines.join('\n');
}

/** Renders `items` in `format` with the default channel/feed metadata. */
export function renderFeed(format: FeedFormat, items: readonly FeedItem[], options: RenderOptions = {}): string {
  switch (format) {
    case FeedFormat.rss:
      return renderRss(DEFAULT_RSS_CHANNEL, items, options);
    case FeedFormat.atom:
      return renderAtom(DEFAULT_ATOM_FEED, items, options);
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
}

export { itemKey };
