import { expect } from 'chai';
import { buildItem, publishedAgo, publishedAt, publishedRaw } from '../../../src/feed/feed-items.js';
import { parseFeed, parseFeedKeys } from '../../../src/feed/parse-feed.js';
import {
  DEFAULT_ATOM_FEED,
  DEFAULT_RSS_CHANNEL,
  escapeXml,
  formatRfc3339,
  formatRfc822,
  itemKey,
  renderAtom,
  renderFeed,
  renderRss,
} from '../../../src/feed/render-feed.js';

// 2026-11-30T13:32:27Z; `date -u -R -d @1796045547` prints "Mon, 30 Nov 2026 13:32:27 +0000".
const T = 1_796_045_547_000;

describe('render-feed', () => {
  describe('formatRfc822 (as `date -u -R` prints)', () => {
    it('matches the GNU date literals, zero-padded day, +0000 zone', () => {
      expect(formatRfc822(T)).to.equal('Mon, 30 Nov 2026 13:32:27 +0000');
      // date -u -R -d @1796605323 -> Mon, 07 Dec 2026 01:02:03 +0000
      expect(formatRfc822(1_796_605_323_000)).to.equal('Mon, 07 Dec 2026 01:02:03 +0000');
      // date -u -R -d @1709251199 -> Thu, 29 Feb 2024 23:59:59 +0000
      expect(formatRfc822(1_709_251_199_000)).to.equal('Thu, 29 Feb 2024 23:59:59 +0000');
      // date -u -R -d @5 -> Thu, 01 Jan 1970 00:00:05 +0000
      expect(formatRfc822(5_000)).to.equal('Thu, 01 Jan 1970 00:00:05 +0000');
    });

    it('drops the fraction of a second (feeds state whole seconds)', () => {
      expect(formatRfc822(T + 999)).to.equal('Mon, 30 Nov 2026 13:32:27 +0000');
      expect(formatRfc3339(T + 999)).to.equal('2026-11-30T13:32:27Z');
    });
  });

  describe('escapeXml', () => {
    it('escapes the five special characters and replaces characters XML forbids', () => {
      expect(escapeXml(`a&b<c>d"e'f`)).to.equal('a&amp;b&lt;c&gt;d&quot;e&apos;f');
      expect(escapeXml('bell\u0007 tab\t nl\n')).to.equal('bell\uFFFD tab\t nl\n');
      expect(escapeXml('&amp;')).to.equal('&amp;amp;');
    });
  });

  describe('renderRss', () => {
    it('renders the exact RSS 2.0 document, defects written literally', () => {
      const items = [
        buildItem('https://example.org/a?x=1&y=2', 'Tom & "Jerry" <3', publishedAt(T)),
        buildItem('https://example.org/bad', 'Bad date', publishedRaw('not a date at all')),
        buildItem('', 'Empty link', publishedAt(T - 1_800_000)),
        buildItem(null, 'No link', publishedAt(T - 3_600_000)),
      ];
      expect(renderRss({ title: 'Bar feed', link: 'https://example.org/', description: 'x' }, items)).to.equal(
        [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<rss version="2.0">',
          '  <channel>',
          '    <title>Bar feed</title>',
          '    <link>https://example.org/</link>',
          '    <description>x</description>',
          '    <item>',
          '      <title>Tom &amp; &quot;Jerry&quot; &lt;3</title>',
          '      <link>https://example.org/a?x=1&amp;y=2</link>',
          '      <pubDate>Mon, 30 Nov 2026 13:32:27 +0000</pubDate>',
          '    </item>',
          '    <item>',
          '      <title>Bad date</title>',
          '      <link>https://example.org/bad</link>',
          '      <pubDate>not a date at all</pubDate>',
          '    </item>',
          '    <item>',
          '      <title>Empty link</title>',
          '      <link></link>',
          '      <pubDate>Mon, 30 Nov 2026 13:02:27 +0000</pubDate>',
          '    </item>',
          '    <item>',
          '      <title>No link</title>',
          '      <pubDate>Mon, 30 Nov 2026 12:32:27 +0000</pubDate>',
          '    </item>',
          '  </channel>',
          '</rss>',
          '',
        ].join('\n'),
      );
    });

    it('resolves relative dates against nowMs and refuses them without a clock', () => {
      const items = [buildItem('https://example.org/r', 'R', publishedAgo(2 * 3_600_000))];
      expect(renderRss(DEFAULT_RSS_CHANNEL, items, { nowMs: T })).to.contain('<pubDate>Mon, 30 Nov 2026 11:32:27 +0000</pubDate>');
      expect(() => renderRss(DEFAULT_RSS_CHANNEL, items)).to.throw(/relative date/).with.property('code', 'DV_FIXTURE_SERVER');
    });

    it('is deterministic: the same input gives the same bytes', () => {
      const items = [buildItem('https://example.org/1', 'One', publishedAt(T)), buildItem('https://example.org/2', 'Two', publishedAgo(60_000))];
      expect(renderFeed('rss', items, { nowMs: T })).to.equal(renderFeed('rss', items, { nowMs: T }));
      expect(renderFeed('atom', items, { nowMs: T })).to.equal(renderFeed('atom', items, { nowMs: T }));
    });
  });

  describe('renderAtom', () => {
    it('renders the exact Atom 1.0 document with RFC 3339 dates', () => {
      const items = [
        buildItem('https://example.org/a', 'A <b>', publishedAt(T)),
        buildItem('', 'Empty link', publishedAt(T - 60_000)),
        buildItem(null, 'No link', publishedRaw('yesterday-ish')),
      ];
      expect(renderAtom({ title: 'Feed', id: 'urn:x', link: 'https://example.org/' }, items)).to.equal(
        [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<feed xmlns="http://www.w3.org/2005/Atom">',
          '  <title>Feed</title>',
          '  <id>urn:x</id>',
          '  <link href="https://example.org/"/>',
          '  <updated>2026-11-30T13:32:27Z</updated>',
          '  <entry>',
          '    <title>A &lt;b&gt;</title>',
          '    <link href="https://example.org/a"/>',
          '    <id>https://example.org/a</id>',
          '    <updated>2026-11-30T13:32:27Z</updated>',
          '    <published>2026-11-30T13:32:27Z</published>',
          '  </entry>',
          '  <entry>',
          '    <title>Empty link</title>',
          '    <link href=""/>',
          '    <id>urn:dedup-verify:entry:2</id>',
          '    <updated>2026-11-30T13:31:27Z</updated>',
          '    <published>2026-11-30T13:31:27Z</published>',
          '  </entry>',
          '  <entry>',
          '    <title>No link</title>',
          '    <id>urn:dedup-verify:entry:3</id>',
          '    <updated>yesterday-ish</updated>',
          '    <published>yesterday-ish</published>',
          '  </entry>',
          '</feed>',
          '',
        ].join('\n'),
      );
    });

    it('escapes quotes in link attributes and uses the epoch as updated for an undated feed', () => {
      const xml = renderAtom(DEFAULT_ATOM_FEED, [buildItem('https://example.org/q?a="1"&b=2', 'Q', publishedRaw('x'))]);
      expect(xml).to.contain('<link href="https://example.org/q?a=&quot;1&quot;&amp;b=2"/>');
      expect(xml).to.contain('  <updated>1970-01-01T00:00:00Z</updated>\n');
    });
  });

  describe('parse-back of keys', () => {
    const items = [
      buildItem('https://example.org/a?x=1&y=2', 'Tom & "Jerry"', publishedAt(T)),
      buildItem('https://example.org/a?x=1&y=2', 'Same link again', publishedAt(T - 1000)),
      buildItem('', 'Empty', publishedAt(T)),
      buildItem(null, 'Missing', publishedRaw('garbage')),
    ];

    it('reads back item keys, titles and dates from RSS', () => {
      const xml = renderRss(DEFAULT_RSS_CHANNEL, items);
      expect(parseFeedKeys(xml)).to.deep.equal(items.map(itemKey));
      expect(parseFeed(xml)).to.deep.equal({
        format: 'rss',
        items: [
          { link: 'https://example.org/a?x=1&y=2', key: 'https://example.org/a?x=1&y=2', title: 'Tom & "Jerry"', dateText: 'Mon, 30 Nov 2026 13:32:27 +0000', publishedAt: T },
          { link: 'https://example.org/a?x=1&y=2', key: 'https://example.org/a?x=1&y=2', title: 'Same link again', dateText: 'Mon, 30 Nov 2026 13:32:26 +0000', publishedAt: T - 1000 },
          { link: '', key: '', title: 'Empty', dateText: 'Mon, 30 Nov 2026 13:32:27 +0000', publishedAt: T },
          { link: null, key: '', title: 'Missing', dateText: 'garbage', publishedAt: 0 },
        ],
      });
    });

    it('reads back item keys, titles and dates from Atom', () => {
      const xml = renderAtom(DEFAULT_ATOM_FEED, items);
      expect(parseFeedKeys(xml)).to.deep.equal(['https://example.org/a?x=1&y=2', 'https://example.org/a?x=1&y=2', '', '']);
      const parsed = parseFeed(xml);
      expect(parsed.format).to.equal('atom');
      expect(parsed.items.map((i) => [i.link, i.title, i.publishedAt])).to.deep.equal([
        ['https://example.org/a?x=1&y=2', 'Tom & "Jerry"', T],
        ['https://example.org/a?x=1&y=2', 'Same link again', T - 1000],
        ['', 'Empty', T],
        [null, 'Missing', 0],
      ]);
    });
  });
});
