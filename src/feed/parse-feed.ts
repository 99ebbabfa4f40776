/**
 * PURE read-back of feed XML: which items a response carried, with the key (link) the
 * journal and the history use, the title and the date text. Reads the same elements the app
 * reads (reference-app.md "Feed"): RSS `item/link`, `item/title`, `item/pubDate`; Atom
 * `entry/link@href`, `entry/title`, `entry/updated` or `entry/published`.
 *
 * A lenient scanner, not a validating XML parser: fixture feeds (and the feeds people hand to
 * `serve-feed --file`) are small and flat, and a broken document still yields what it can.
 */
import type { FeedFormat } from './render-feed.js';

export interface ParsedFeedItem {
  /** The link text, or `null` when the entry has no link element. */
  readonly link: string | null;
  /** `link ?? ""`: the item key. */
  readonly key: string;
  readonly title: string;
  /** The pubDate (RSS) or updated/published (Atom) text, `null` when absent. */
  readonly dateText: string | null;
  /** `parseFeedDate(dateText)`: epoch ms, 0 when absent or unparseable. */
  readonly publishedAt: number;
}

export interface ParsedFeed {
  readonly format: FeedFormat | 'unknown';
  readonly items: readonly ParsedFeedItem[];
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five predefined entities and numeric character references. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return safeCodePoint(parseInt(ref.slice(2), 16)) ?? whole;
    if (ref.startsWith('#')) return safeCodePoint(parseInt(ref.slice(1), 10)) ?? whole;
    return ENTITIES[ref] ?? whole;
  });
}

function safeCodePoint(cp: number): string | undefined {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
}

/** Element text: CDATA sections kept verbatim, the rest entity-decoded, trimmed. */
function elementText(inner: string): string {
  let out = '';
  const re = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let last = 0;
  for (let m = re.exec(inner); m !== null; m = re.exec(inner)) {
    out += decodeXmlText(inner.slice(last, m.index)) + (m[1] ?? '');
    last = m.index + m[0].length;
  }
  out += decodeXmlText(inner.slice(last));
  return out.trim();
}

/** The text of the first `<name>` child element, `null` when there is none. Self-closing = "". */
function childText(block: string, name: string): string | null {
  const re = new RegExp(`<${name}(?=[\\s>/])[^>]*?(/>|>([\\s\\S]*?)</${name}\\s*>)`);
  const m = re.exec(block);
  if (m === null) return null;
  return m[1] === '/>' ? '' : elementText(m[2] ?? '');
}

function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /([A-Za-z_:][-\w.:]*)\s*=\s*("([^"]*)"|'([^']*)')/g;
  for (let m = re.exec(tag); m !== null; m = re.exec(tag)) {
    out.set(m[1] ?? '', decodeXmlText(m[3] ?? m[4] ?? ''));
  }
  return out;
}

/** Atom: the first `<link>` with no `rel` or `rel="alternate"`, else the first `<link>`. */
function atomLink(block: string): string | null {
  const links = [...block.matchAll(/<link(?=[\s>/])([^>]*?)\/?>/g)].map((m) => attributes(m[1] ?? ''));
  const chosen = links.find((a) => !a.has('rel') || a.get('rel') === 'alternate') ?? links[0];
  if (chosen === undefined) return null;
  return (chosen.get('href') ?? '').trim();
}

function blocks(xml: string, name: string): string[] {
  const re = new RegExp(`<${name}(?=[\\s>])[^>]*>([\\s\\S]*?)</${name}\\s*>`, 'g');
  return [...xml.matchAll(re)].map((m) => m[1] ?? '');
}

function stripComments(xml: string): string {
  return xml.replace(/<!--[\s\S]*?-->/g, '');
}

export function detectFeedFormat(xml: string): FeedFormat | 'unknown' {
  const body = stripComments(xml);
  if (/<feed(?=[\s>])/.test(body)) return 'atom';
  if (/<rss(?=[\s>])/.test(body) || /<channel(?=[\s>])/.test(body)) return 'rss';
  return 'unknown';
}

export function parseFeed(xml: string): ParsedFeed {
  const body = stripComments(xml);
  const format = detectFeedFormat(body);
  const make = (link: string | null, title: string | null, dateText: string | null): ParsedFeedItem => ({
    link,
    key: link ?? '',
    title: title ?? '',
    dateText,
    publishedAt: dateText === null ? 0 : parseFeedDate(dateText),
  });
  switch (format) {
    case 'rss':
      return {
        format,
        items: blocks(body, 'item').map((b) => make(childText(b, 'link'), childText(b, 'title'), childText(b, 'pubDate'))),
      };
    case 'atom':
      return {
        format,
        items: blocks(body, 'entry').map((b) =>
          make(atomLink(b), childText(b, 'title'), childText(b, 'updated') ?? childText(b, 'published')),
        ),
      };
    case 'unknown':
      return { format, items: [] };
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
}

/** The item keys (link, "" when missing) of every entry, in document order. */
export function parseFeedKeys(xml: string): string[] {
  return parseFeed(xml).items.map((i) => i.key);
}

const MONTH_INDEX: Readonly<Record<string, number>> = {
  jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11,
};

/** RFC 822 §5.1 zone names (military single letters other than Z are not accepted). */
const ZONE_MINUTES: Readonly<Record<string, number>> = {
  UT: 0, UTC: 0, GMT: 0, Z: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420,
};

function utcOrZero(y: number, mo: number, d: number, h: number, mi: number, s: number, offsetMin: number): number {
  const ms = Date.UTC(y, mo, d, h, mi, s);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 60) return 0;
  const result = ms - offsetMin * 60_000;
  return result > 0 ? result : 0;
}

/**
 * RFC 822 / RFC 1123 (`Mon, 30 Nov 2026 13:32:27 +0000`, weekday optional, two-digit years
 * read as 19xx/20xx) or RFC 3339 (`2026-11-30T13:32:27Z`, fractions and offsets allowed).
 * Anything else, and any date at or before the epoch, gives 0: the value the app uses for a
 * date that does not parse.
 */
export function parseFeedDate(text: string): number {
  const t = text.trim();
  const rfc822 =
    /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{2}|\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+([+-]\d{4}|[A-Za-z]{1,3})$/.exec(t);
  if (rfc822) {
    const [, d, mon, yr, h, mi, s, zone] = rfc822;
    const month = MONTH_INDEX[(mon ?? '').toLowerCase()];
    if (month === undefined || zone === undefined) return 0;
    let year = Number(yr);
    if ((yr ?? '').length === 2) year += year < 50 ? 2000 : 1900;
    let offset: number | undefined;
    if (/^[+-]\d{4}$/.test(zone)) {
      const sign = zone.startsWith('-') ? -1 : 1;
      offset = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
    } else {
      offset = ZONE_MINUTES[zone.toUpperCase()];
    }
    if (offset === undefined) return 0;
    return utcOrZero(year, month, Number(d), Number(h), Number(mi), Number(s ?? 0), offset);
  }
  const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(t);
  if (rfc3339) {
    const [, y, mo, d, h, mi, s, frac, zone] = rfc3339;
    let offset = 0;
    if (zone !== undefined && zone.toUpperCase() !== 'Z') {
      const sign = zone.startsWith('-') ? -1 : 1;
      offset = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
    }
    const base = utcOrZero(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), offset);
    return base === 0 ? 0 : base + Math.floor(Number(`0${frac ?? ''}`) * 1000);
  }
  return 0;
}
