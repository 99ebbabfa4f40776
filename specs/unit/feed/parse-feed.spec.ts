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
});
