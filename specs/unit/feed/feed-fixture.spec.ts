import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFeedFixturesDir, listFeedFixtures, loadFeedFixture, parseFeedFixture } from '../../../src/feed/feed-fixture.js';
import { HOUR_MS, itemKey, itemsRelativeTo } from '../../../src/feed/feed-items.js';
import { parseFeed } from '../../../src/feed/parse-feed.js';
import { renderFeed } from '../../../src/feed/render-feed.js';

const NOW = 1_796_045_547_000;
const WINDOW_MS = 48 * HOUR_MS;

describe('feed-fixture', () => {
  it('lists the built-in fixtures', async () => {
    expect(await listFeedFixtures()).to.include.members(['fresh-five', 'malformed', 'mixed-ages', 'edited-title', 'duplicate-links', 'atom-fresh-five', 'ancient']);
  });

  it('every built-in fixture loads and renders to a feed whose keys read back', async () => {
    for (const name of await listFeedFixtures()) {
      const loaded = await loadFeedFixture(name);
      if (loaded.kind === 'xml') {
        expect(parseFeed(loaded.xml).items.length, name).to.be.greaterThan(0);
        continue;
      }
      const items = itemsRelativeTo(NOW, loaded.fixture.items);
      const parsed = parseFeed(renderFeed(loaded.fixture.format, items));
      expect(parsed.format, name).to.equal(loaded.fixture.format);
      expect(parsed.items.map((i) => i.key), name).to.deep.equal(items.map(itemKey));
    }
  });

  it('malformed: one unparseable date, one empty link, one missing link; three eligible items', async () => {
    const loaded = await loadFeedFixture('malformed');
    if (loaded.kind !== 'items') throw new Error('malformed is a JSON fixture');
    const parsed = parseFeed(renderFeed(loaded.fixture.format, itemsRelativeTo(NOW, loaded.fixture.items)));
    expect(parsed.items.filter((i) => i.dateText === 'not a date at all').map((i) => i.publishedAt)).to.deep.equal([0]);
    expect(parsed.items.filter((i) => i.link === '')).to.have.length(1);
    expect(parsed.items.filter((i) => i.link === null)).to.have.length(1);
    expect(parsed.items.filter((i) => i.key !== '' && i.publishedAt > 0).map((i) => i.key)).to.deep.equal([
      'https://example.org/fresh/1',
      'https://example.org/fresh/2',
      'https://example.org/fresh/3',
    ]);
  });

  it('mixed-ages: four items inside the 48 h window, three older', async () => {
    const loaded = await loadFeedFixture('mixed-ages.json');
    if (loaded.kind !== 'items') throw new Error('mixed-ages is a JSON fixture');
    const parsed = parseFeed(renderFeed(loaded.fixture.format, itemsRelativeTo(NOW, loaded.fixture.items)));
    const inside = parsed.items.filter((i) => NOW - i.publishedAt <= WINDOW_MS).map((i) => i.title);
    expect(inside).to.deep.equal(['Age 2h', 'Age 12h', 'Age 30h', 'Age 47h']);
    expect(parsed.items).to.have.length(7);
  });

  it('an unknown fixture name lists the available ones', async () => {
    try {
      await loadFeedFixture('nope');
      expect.fail('loadFeedFixture should reject');
    } catch (e) {
      expect(e).to.have.property('code', 'DV_FIXTURE_SERVER');
      expect((e as Error).message).to.match(/Unknown feed fixture "nope"\. Available: .*fresh-five.*malformed/);
    }
    await loadFeedFixture('../package').then(
      () => expect.fail('path-like names must be refused'),
      (e: unknown) => expect((e as Error).message).to.contain('Unknown feed fixture'),
    );
  });

  it('validates the JSON shape with the path of what is wrong', () => {
    expect(() => parseFeedFixture('f', { items: [{ title: 'x', link: 'l' }] })).to.throw(/f\.items\[0\]: give exactly one of ageHours/);
    expect(() => parseFeedFixture('f', { items: [{ title: 'x', ageHours: 1 }] })).to.throw(/f\.items\[0\]\.link/);
    expect(() => parseFeedFixture('f', { format: 'json', items: [] })).to.throw(/f\.format: must be "rss" or "atom"/);
    expect(() => parseFeedFixture('f', { items: [{ title: 'x', link: 'l', at: 'yesterday' }] })).to.throw(/at must be epoch ms/);
    expect(parseFeedFixture('f', { items: [{ title: 'x', link: null, at: '2026-11-30T13:32:27Z' }, { title: 'y', link: '', ageMs: 5 }] })).to.deep.equal({
      name: 'f',
      description: '',
      format: 'rss',
      items: [
        { title: 'x', link: null, published: { kind: 'at', ms: NOW } },
        { title: 'y', link: '', published: { kind: 'relative', agoMs: 5 } },
      ],
    });
  });

  it('loads from another directory, JSON and XML', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dv-feed-fixtures-'));
    try {
      await writeFile(join(dir, 'one.json'), JSON.stringify({ description: 'd', items: [{ title: 'a', link: 'l', ageHours: 1 }] }));
      await writeFile(join(dir, 'two.xml'), '<rss><channel><item><link>k</link></item></channel></rss>');
      await writeFile(join(dir, 'broken.json'), '{');
      expect(await listFeedFixtures(dir)).to.deep.equal(['broken', 'one', 'two']);
      expect((await loadFeedFixture('one', dir)).kind).to.equal('items');
      expect(await loadFeedFixture('two', dir)).to.deep.include({ kind: 'xml', name: 'two' });
      await loadFeedFixture('broken', dir).then(
        () => expect.fail('broken JSON must be refused'),
        (e: unknown) => expect((e as Error).message).to.match(/broken\.json is not valid JSON/),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds fixtures/feeds from the module location', () => {
    expect(findFeedFixturesDir()).to.match(/fixtures[/\\]feeds$/);
  });
});
