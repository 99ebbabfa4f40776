import { expect } from 'chai';
import { parseRfc3339, parseRfc822 } from '../../../../src/virtual-device/apps/feed-notifier/feed-dates.js';
import { parseFeed } from '../../../../src/virtual-device/apps/feed-notifier/feed-parser.js';

const rss = (items: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title><link>https://example.org/</link>` +
  `<atom:link href="https://example.org/feed.xml" rel="self"/>${items}</channel></rss>`;

describe('feed-notifier dates', () => {
  it('parses RFC 822 / RFC 1123 dates with numeric and named zones', () => {
    expect(parseRfc822('Wed, 02 Oct 2002 13:00:00 GMT')).to.equal(Date.UTC(2002, 9, 2, 13, 0, 0));
    expect(parseRfc822('Wed, 02 Oct 2002 15:00:00 +0200')).to.equal(Date.UTC(2002, 9, 2, 13, 0, 0));
    expect(parseRfc822('02 Oct 2002 08:00:00 EST')).to.equal(Date.UTC(2002, 9, 2, 13, 0, 0));
    // `date -u -R` output, as the acceptance feed uses it.
    expect(parseRfc822('Sat, 30 Nov 2024 13:05:09 +0000')).to.equal(Date.UTC(2024, 10, 30, 13, 5, 9));
  });

  it('rejects what does not parse', () => {
    expect(parseRfc822('not a date at all')).to.equal(undefined);
    expect(parseRfc822('2024-05-29T12:00:00Z')).to.equal(undefined);
    expect(parseRfc822('Wed, 31 Feb 2002 13:00:00 GMT')).to.equal(undefined);
    expect(parseRfc822('Wed, 02 Oct 2002 13:00:00 XYZ')).to.equal(undefined);
  });

  it('parses RFC 3339 with Z, offsets and fractions', () => {
    expect(parseRfc3339('2024-05-29T12:00:00Z')).to.equal(Date.UTC(2024, 4, 29, 12));
    expect(parseRfc3339('2024-05-29T14:00:00+02:00')).to.equal(Date.UTC(2024, 4, 29, 12));
    expect(parseRfc3339('2024-05-29T12:00:00.250Z')).to.equal(Date.UTC(2024, 4, 29, 12) + 250);
    expect(parseRfc3339('May 29 2024')).to.equal(undefined);
  });
});

describe('feed-notifier parser', () => {
  it('reads RSS items: link, title, pubDate; unparseable date gives 0; empty and missing links are dropped', () => {
    const items = parseFeed(
      rss(
        '<item><title>Fresh &amp; new</title><link>https://example.org/a</link><pubDate>Wed, 02 Oct 2002 13:00:00 GMT</pubDate></item>' +
          '<item><title>Bad date</title><link>https://example.org/b</link><pubDate>not a date</pubDate></item>' +
          '<item><title>No link</title><link></link><pubDate>Wed, 02 Oct 2002 13:00:00 GMT</pubDate></item>' +
          '<item><title>Missing link</title><pubDate>Wed, 02 Oct 2002 13:00:00 GMT</pubDate></item>' +
          '<item><title><![CDATA[Cdata <title>]]></title><link> https://example.org/c </link></item>',
      ),
    );
    expect(items).to.deep.equal([
      { title: 'Fresh & new', link: 'https://example.org/a', publishedAt: Date.UTC(2002, 9, 2, 13) },
      { title: 'Bad date', link: 'https://example.org/b', publishedAt: 0 },
      { title: 'Cdata <title>', link: 'https://example.org/c', publishedAt: 0 },
    ]);
  });

  it('reads Atom entries: link@href (alternate), updated then published', () => {
    const atom =
      '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>F</title>' +
      '<entry><title>One</title><link rel="self" href="https://example.org/self"/><link href="https://example.org/1"/><updated>2024-05-29T12:00:00Z</updated></entry>' +
      '<entry><title>Two</title><link rel="alternate" href="https://example.org/2"/><published>2024-05-28T12:00:00Z</published></entry>' +
      '<entry><title>Three</title><link href=""/><updated>2024-05-29T12:00:00Z</updated></entry>' +
      '</feed>';
    expect(parseFeed(atom)).to.deep.equal([
      { title: 'One', link: 'https://example.org/1', publishedAt: Date.UTC(2024, 4, 29, 12) },
      { title: 'Two', link: 'https://example.org/2', publishedAt: Date.UTC(2024, 4, 28, 12) },
    ]);
  });

  it('bug switches: empty-link-kept keeps key "", date-defaults-to-now uses the clock', () => {
    const xml = rss('<item><title>No link</title><link></link><pubDate>junk</pubDate></item>');
    expect(parseFeed(xml)).to.deep.equal([]);
    expect(parseFeed(xml, { keepEmptyLinks: true })).to.deep.equal([{ title: 'No link', link: '', publishedAt: 0 }]);
    expect(parseFeed(xml, { keepEmptyLinks: true, unparseableDate: () => 1234 })).to.deep.equal([{ title: 'No link', link: '', publishedAt: 1234 }]);
  });

  it('survives malformed XML without throwing', () => {
    expect(parseFeed('<rss><channel><item><title>x</title><link>https://e/1</link>')).to.deep.equal([{ title: 'x', link: 'https://e/1', publishedAt: 0 }]);
    expect(parseFeed('')).to.deep.equal([]);
    expect(parseFeed('not xml')).to.deep.equal([]);
  });
});
