import { expect } from 'chai';
import { decodeXmlText, detectFeedFormat, parseFeed, parseFeedDate, parseFeedKeys } from '../../../src/feed/parse-feed.js';

// 2026-11-30T13:32:27Z
const T = 1_796_045_547_000;

describe('parse-feed', () => {
  describe('parseFeedDate', () => {
    it('reads RFC 822 as `date -u -R` prints it, with or without weekday, with zones', () => {
      expect(parseFeedDate('Mon, 30 Nov 2026 13:32:27 +0000')).to.equal(T);
      expect(parseFeedDate('30 Nov 2026 13:32:27 GMT')).to.equal(T);
      expect(parseFeedDate('Mon, 30 Nov 2026 14:32:27 +0100')).to.equal(T);
      expect(parseFeedDate('Mon, 30 Nov 2026 08:32:27 EST')).to.equal(T);
      expect(parseFeedDate('Mon, 30 Nov 26 13:32 +0000')).to.equal(T - 27_000);
    });

    it('reads RFC 3339 with Z, offsets and fractions', () => {
      expect(parseFeedDate('2026-11-30T13:32:27Z')).to.equal(T);
      expect(parseFeedDate('2026-11-30T15:32:27+02:00')).to.equal(T);
      expect(parseFeedDate('2026-11-30T13:32:27.250Z')).to.equal(T + 250);
    });

    it('gives 0 for anything else, impossible dates and the epoch', () => {
      for (const bad of ['not a date at all', '', '2026-13-01T00:00:00Z', 'Mon, 31 Nov 2026 13:32:27 +0000', 'Mon, 30 Foo 2026 13:32:27 +0000', '1796045547', 'Thu, 01 Jan 1970 00:00:00 +0000', '30 Nov 2026 25:00:00 GMT']) {
        expect(parseFeedDate(bad), bad).to.equal(0);
      }
    });
  });

  describe('parseFeed', () => {
    it('handles CDATA, entities, comments, self-closing links and atom:link in RSS', () => {
      const xml = `<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title>
<atom:link href="https://example.org/self" rel="self"/>
<!-- <item><link>https://example.org/commented-out</link></item> -->
<item><title><![CDATA[A & <B>]]></title><link><![CDATA[https://example.org/a?x=1&y=2]]></link><pubDate>Mon, 30 Nov 2026 13:32:27 +0000</pubDate></item>
<item><title>caf&#233; &#x2603;</title><link/><pubDate>bad</pubDate></item>
<item><title>no link</title></item>
</channel></rss>`;
      expect(parseFeed(xml)).to.deep.equal({
        format: 'rss',
        items: [
          { link: 'https://example.org/a?x=1&y=2', key: 'https://example.org/a?x=1&y=2', title: 'A & <B>', dateText: 'Mon, 30 Nov 2026 13:32:27 +0000', publishedAt: T },
          { link: '', key: '', title: 'café ☃', dateText: 'bad', publishedAt: 0 },
          { link: null, key: '', title: 'no link', dateText: null, publishedAt: 0 },
        ],
      });
    });

    it('picks the alternate link of an Atom entry and falls back to published', () => {
      const xml = `<feed xmlns="http://www.w3.org/2005/Atom"><title>f</title>
<entry><link rel="self" href="https://example.org/self/1"/><link rel="alternate" href='https://example.org/1'/><title type="text">One</title><published>2026-11-30T13:32:27Z</published></entry>
<entry><link rel="enclosure" href="https://example.org/enc"/><title>Two</title></entry>
</feed>`;
      expect(parseFeedKeys(xml)).to.deep.equal(['https://example.org/1', 'https://example.org/enc']);
      expect(parseFeed(xml).items[0]?.publishedAt).to.equal(T);
    });

    it('yields no items for a document that is not a feed', () => {
      expect(detectFeedFormat('<html><body>nope</body></html>')).to.equal('unknown');
      expect(parseFeed('<html><body><item><link>x</link></item></body></html>')).to.deep.equal({ format: 'unknown', items: [] });
    });

    it('keeps undecodable entity references as written', () => {
      expect(decodeXmlText('&nbsp; &#xFFFFFFF; &amp;')).to.equal('&nbsp; &#xFFFFFFF; &');
    });
  });
  describe('broken and tricky documents (as a --file feed is read)', () => {
    const rss = (items: string): string => `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items}</channel></rss>`;
    const keysAndTitles = (xml: string): [string | null, string][] => parseFeed(xml).items.map((i) => [i.link, i.title]);

    it('takes markup inside CDATA as text: a description holding </item> or <link> ends nothing', () => {
      const xml = rss(
        '<item><title>A</title><description><![CDATA[<p>see </item><item><link>https://example.org/fake</link></p>]]></description><link>https://example.org/a</link></item>' +
          '<item><title>B</title><link>https://example.org/b</link></item>',
      );
      expect(keysAndTitles(xml)).to.deep.equal([
        ['https://example.org/a', 'A'],
        ['https://example.org/b', 'B'],
      ]);
    });

    it('keeps the item a document was cut in, with what it holds complete', () => {
      const head = rss('<item><title>A</title><link>https://example.org/a</link></item>').replace('</channel></rss>', '');
      const cuts: [string, [string | null, string]][] = [
        ['<item><title>B</title><link>https://example.org/b</link>', ['https://example.org/b', 'B']],
        ['<item><link>https://example.org/b</link><title>B</ti', ['https://example.org/b', '']],
        ['<item><link>https://example.org/b</link><description><![CDATA[<p>a <b>long', ['https://example.org/b', '']],
        ['<item><link>https://example.org/b</link><!-- <item><link>x</link>', ['https://example.org/b', '']],
        ['<item><title>B</title><pubDate>Mon, 30 Nov 2026 13:32:27 +0000</pubDate><lin', [null, 'B']],
        // The link element is open but never finished: its text is not taken for a link.
        ['<item><title>B</title><link>https://example.org/b', ['', 'B']],
      ];
      for (const [tail, item] of cuts) {
        expect(keysAndTitles(head + tail), tail).to.deep.equal([['https://example.org/a', 'A'], item]);
      }
      expect(parseFeedKeys('<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://example.org/a"/></entry><entry><link href="https://example.org/b'))
        .to.deep.equal(['https://example.org/a', '']);
    });

    it('tells a missing link (null) from an empty one ("")', () => {
      const xml = rss('<item><title>none</title></item><item><link/></item><item><link>  </link></item><item><atom:link href="https://example.org/self"/></item>');
      expect(parseFeed(xml).items.map((i) => [i.link, i.key])).to.deep.equal([
        [null, ''],
        ['', ''],
        ['', ''],
        [null, ''],
      ]);
      expect(parseFeed('<feed><entry><title>no link</title></entry><entry><link rel="alternate"/></entry></feed>').items.map((i) => i.link)).to.deep.equal([null, '']);
    });

    it('keeps a bad date as text with publishedAt 0, as before', () => {
      const xml = rss(
        '<item><link>a</link><pubDate>yesterday</pubDate></item>' +
          '<item><link>b</link><pubDate>\n  Mon, 30 Nov 2026 13:32:27 +0000\n</pubDate></item>' +
          '<item><link>c</link><pubDate/></item>' +
          '<item><link>d</link><pubDate>2026-11-30T13:32:27Z</pubDate></item>' +
          '<item><link>e</link></item>',
      );
      expect(parseFeed(xml).items.map((i) => [i.dateText, i.publishedAt])).to.deep.equal([
        ['yesterday', 0],
        ['Mon, 30 Nov 2026 13:32:27 +0000', T],
        ['', 0],
        ['2026-11-30T13:32:27Z', T],
        [null, 0],
      ]);
      // Atom: updated when present (even unparseable), else published.
      const atom = '<feed><entry><link href="a"/><updated>soon</updated><published>2026-11-30T13:32:27Z</published></entry><entry><link href="b"/><published>2026-11-30T13:32:27Z</published></entry></feed>';
      expect(parseFeed(atom).items.map((i) => [i.dateText, i.publishedAt])).to.deep.equal([
        ['soon', 0],
        ['2026-11-30T13:32:27Z', T],
      ]);
    });

    it('decodes the predefined entities and character references in text and attributes, keeps others as written, and CDATA verbatim', () => {
      const xml = rss('<item><title>A &amp; B &lt;c&gt; &quot;d&apos; caf&#233; &#x2603; &nbsp; &#xFFFFFFF; <![CDATA[&amp;]]></title><link>https://example.org/?a=1&amp;b=2</link></item>');
      expect(keysAndTitles(xml)).to.deep.equal([['https://example.org/?a=1&b=2', 'A & B <c> "d\' café ☃ &nbsp; &#xFFFFFFF; &amp;']]);
      expect(parseFeedKeys('<feed><entry><link href="https://example.org/?a=1&amp;b=&#50;"/></entry></feed>')).to.deep.equal(['https://example.org/?a=1&b=2']);
    });

    it('reads an Atom link from href: the alternate (or rel-less) one, else the first; trimmed; only the entry\'s own', () => {
      const xml = `<feed xmlns="http://www.w3.org/2005/Atom">
<entry><link rel="self" href="https://example.org/self"/><link href=" https://example.org/1 "/></entry>
<entry><link rel="related" href="https://example.org/related"/><link rel="enclosure" href="https://example.org/enc"/></entry>
<entry><link rel="alternate"/></entry>
<entry><source><link href="https://example.org/source"/></source><link rel="alternate" href="https://example.org/4"></link></entry>
</feed>`;
      expect(parseFeedKeys(xml)).to.deep.equal(['https://example.org/1', 'https://example.org/related', '', 'https://example.org/4']);
    });

    it('decides the format from elements, not from text that looks like markup', () => {
      expect(detectFeedFormat(rss('<item><description><![CDATA[<feed><entry>]]></description><link>a</link></item>'))).to.equal('rss');
      expect(detectFeedFormat('<rss><channel><description>&lt;feed&gt;</description></channel></rss>')).to.equal('rss');
      expect(detectFeedFormat('<!-- <feed> --><rss/>')).to.equal('rss');
      const rdf = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>t</title></channel><item><title>One</title><link>https://example.org/1</link></item></rdf:RDF>';
      expect(parseFeed(rdf)).to.deep.include({ format: 'rss' });
      expect(parseFeedKeys(rdf)).to.deep.equal(['https://example.org/1']);
      expect(parseFeed('not xml at all')).to.deep.equal({ format: 'unknown', items: [] });
      expect(parseFeed('')).to.deep.equal({ format: 'unknown', items: [] });
    });

    it('never fetches an external entity: such a document reads as no feed', () => {
      const xml = '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss><channel><item><link>&x;</link></item></channel></rss>';
      expect(parseFeed(xml)).to.deep.equal({ format: 'unknown', items: [] });
    });
  });
});
