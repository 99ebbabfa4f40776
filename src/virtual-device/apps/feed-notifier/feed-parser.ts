/**
 * The reference app's feed parser (docs/reference-app.md "Feed"): RSS 2.0 (`item/link`,
 * `item/title`, `item/pubDate` RFC 822) and Atom (`entry/link@href`, `entry/title`,
 * `entry/updated` or `entry/published` RFC 3339). A date that does not parse gives
 * `publishedAt = 0`; an entry whose link is missing or empty is dropped at parse time
 * (docs/sources/000_83062cdfb17c0f84.txt "an entry that parses with an empty link is dropped").
 */
import { parseRfc3339, parseRfc822 } from './feed-dates.js';
import { childrenNamed, descendantsNamed, firstChild, parseXml, type XmlElement } from './xml.js';

export interface FeedItem {
  readonly title: string;
  readonly link: string;
  /** Epoch ms; 0 when the date does not parse (unless the parser is told otherwise). */
  readonly publishedAt: number;
}

export interface ParseOptions {
  /** Bug `empty-link-kept`: keep entries whose link is missing or empty (key ""). */
  readonly keepEmptyLinks?: boolean;
  /** What an unparseable date becomes (0; bug `date-defaults-to-now`: the current time). */
  readonly unparseableDate?: () => number;
}

export function parseFeed(xml: string, options: ParseOptions = {}): FeedItem[] {
  const doc = parseXml(xml);
  const top = doc.children[0];
  if (top === undefined) return [];
  const badDate = options.unparseableDate ?? (() => 0);
  const raw = top.localName === 'feed' ? parseAtom(top, badDate) : parseRss(top, badDate);
  return options.keepEmptyLinks === true ? raw : raw.filter((item) => item.link !== '');
}

function textOf(el: XmlElement | undefined): string {
  return el === undefined ? '' : collectText(el).trim();
}

function collectText(el: XmlElement): string {
  return el.text + el.children.map(collectText).join('');
}

function parseRss(rss: XmlElement, badDate: () => number): FeedItem[] {
  return descendantsNamed(rss, 'item').map((item) => {
    // The RSS <link> (no prefix), not an <atom:link> that some feeds add.
    const link = item.children.find((c) => c.name === 'link') ?? firstChild(item, 'link');
    const dateText = textOf(firstChild(item, 'pubDate'));
    const parsed = dateText === '' ? undefined : parseRfc822(dateText);
    return { title: textOf(firstChild(item, 'title')), link: textOf(link), publishedAt: parsed ?? badDate() };
  });
}

function parseAtom(feed: XmlElement, badDate: () => number): FeedItem[] {
  return childrenNamed(feed, 'entry').map((entry) => {
    const links = childrenNamed(entry, 'link');
    const alternate = links.find((l) => (l.attrs.get('rel') ?? 'alternate') === 'alternate') ?? links[0];
    const href = (alternate?.attrs.get('href') ?? '').trim();
    const dateText = textOf(firstChild(entry, 'updated') ?? firstChild(entry, 'published'));
    const parsed = dateText === '' ? undefined : parseRfc3339(dateText);
    return { title: textOf(firstChild(entry, 'title')), link: href, publishedAt: parsed ?? badDate() };
  });
}
