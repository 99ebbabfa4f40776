/**
 * PURE read-back of feed XML: which items a response carried, with the key (link) the
 * journal and the history use, the title and the date text. Reads the same elements the app
 * reads (reference-app.md "Feed"): RSS `item/link`, `item/title`, `item/pubDate`; Atom
 * `entry/link@href`, `entry/title`, `entry/updated` or `entry/published`.
 *
 * The XML is read with fast-xml-parser, which does not validate: a broken document still
 * yields what it holds. Markup inside CDATA is text (a description holding `</item>` ends no
 * item), comments are skipped, and a document cut short is read up to its last complete piece
 * of markup (an unfinished tag, CDATA section or comment at the end is dropped), so the items
 * it began are kept. Text is entity-decoded as `decodeXmlText` does, CDATA kept verbatim, and
 * trimmed; a date that does not parse gives 0 (see parseFeedDate).
 */
import { XMLParser } from 'fast-xml-parser';
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

interface XmlElement {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlNode[];
}

/** Text already decoded (CDATA verbatim). */
type XmlNode = XmlElement | { readonly text: string };

const TEXT = '#text';
const CDATA = '#cdata';
const ATTRIBUTES = ':@';

/**
 * Ordered output (element order matters: the first link, title, date), attributes kept and
 * not parsed, values left as written: entities are decoded by decodeXmlText (the five
 * predefined ones and character references), so an undeclared entity such as `&nbsp;` stays
 * as written. The parser refuses a DOCTYPE declaring an external entity (nothing is fetched):
 * such a document reads as no feed.
 */
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  allowBooleanAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: CDATA,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A text value as the parser gives it (a string, values being left unparsed). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** fast-xml-parser's ordered output (one key per node, attributes under ":@") as a tree. */
function toNodes(ordered: unknown): XmlNode[] {
  if (!Array.isArray(ordered)) return [];
  const out: XmlNode[] = [];
  for (const node of ordered as unknown[]) {
    if (!isRecord(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === ATTRIBUTES) continue;
      if (key === TEXT) {
        out.push({ text: decodeXmlText(textOf(value)) });
      } else if (key === CDATA) {
        const parts = Array.isArray(value) ? (value as unknown[]) : [];
        out.push({ text: parts.map((p) => (isRecord(p) ? textOf(p[TEXT]) : '')).join('') });
      } else {
        const attributes = new Map<string, string>();
        const raw = node[ATTRIBUTES];
        if (isRecord(raw)) {
          // A value-less (boolean) attribute is not an attribute value: left out.
          for (const [name, v] of Object.entries(raw)) if (typeof v === 'string') attributes.set(name, decodeXmlText(v));
        }
        out.push({ name: key, attributes, children: toNodes(value) });
      }
    }
  }
  return out;
}

/** At most this many retries when cutting back a document the parser cannot finish. */
const MAX_CUTS = 256;

/** The unfinished construct at the end of `xml` to cut at: an open CDATA section or comment, else the last "<". */
function cutPoint(xml: string): number {
  const cdata = xml.lastIndexOf('<![CDATA[');
  if (cdata >= 0 && !xml.includes(']]>', cdata)) return cdata;
  const comment = xml.lastIndexOf('<!--');
  if (comment >= 0 && !xml.includes('-->', comment)) return comment;
  return xml.lastIndexOf('<');
}

/** The document's top-level nodes; a document cut short is read up to its last complete markup. */
function readXml(xml: string): XmlNode[] {
  let text = xml;
  for (let cuts = 0; cuts <= MAX_CUTS; cuts++) {
    try {
      return toNodes(parser.parse(text));
    } catch {
      const cut = cutPoint(text);
      if (cut < 0) return [];
      text = text.slice(0, cut);
    }
  }
  return [];
}

function isElement(node: XmlNode): node is XmlElement {
  return 'name' in node;
}

/** Elements named `name` in document order, not looking inside a match. */
function findAll(nodes: readonly XmlNode[], name: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const node of nodes) {
    if (!isElement(node)) continue;
    if (node.name === name) out.push(node);
    else out.push(...findAll(node.children, name));
  }
  return out;
}

function contains(nodes: readonly XmlNode[], name: string): boolean {
  return nodes.some((node) => isElement(node) && (node.name === name || contains(node.children, name)));
}

function textContent(node: XmlNode): string {
  return isElement(node) ? node.children.map(textContent).join('') : node.text;
}

function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c): c is XmlElement => isElement(c) && c.name === name);
}

/** The trimmed text of the first `<name>` child, `null` when there is none. Self-closing = "". */
function childText(element: XmlElement, name: string): string | null {
  const found = child(element, name);
  return found === undefined ? null : textContent(found).trim();
}

/** Atom: the first `<link>` with no `rel` or `rel="alternate"`, else the first `<link>`. */
function atomLink(entry: XmlElement): string | null {
  const links = entry.children.filter((c): c is XmlElement => isElement(c) && c.name === 'link');
  const chosen = links.find((l) => !l.attributes.has('rel') || l.attributes.get('rel') === 'alternate') ?? links[0];
  if (chosen === undefined) return null;
  return (chosen.attributes.get('href') ?? '').trim();
}

function formatOf(nodes: readonly XmlNode[]): FeedFormat | 'unknown' {
  if (contains(nodes, 'feed')) return 'atom';
  if (contains(nodes, 'rss') || contains(nodes, 'channel')) return 'rss';
  return 'unknown';
}

/** "atom" when the document has a `<feed>`, "rss" when it has an `<rss>` or `<channel>`. */
export function detectFeedFormat(xml: string): FeedFormat | 'unknown' {
  return formatOf(readXml(xml));
}

export function parseFeed(xml: string): ParsedFeed {
  const nodes = readXml(xml);
  const format = formatOf(nodes);
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
        items: findAll(nodes, 'item').map((i) => make(childText(i, 'link'), childText(i, 'title'), childText(i, 'pubDate'))),
      };
    case 'atom':
      return {
        format,
        items: findAll(nodes, 'entry').map((e) => make(atomLink(e), childText(e, 'title'), childText(e, 'updated') ?? childText(e, 'published'))),
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
