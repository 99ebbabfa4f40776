import { expect } from 'chai';
import {
  HOUR_MS,
  UNPARSEABLE_DATE_TEXT,
  buildFreshItems,
  buildItem,
  duplicateLink,
  editItem,
  hasRelativeDates,
  itemKey,
  itemsRelativeTo,
  publishedAgo,
  publishedAt,
  renderedPublishedAt,
  withEditedTitle,
  withEmptyLink,
  withMissingLink,
  withUnparseableDate,
} from '../../../src/feed/feed-items.js';

const NOW = 1_796_045_547_123;

describe('feed-items', () => {
  it('builds fresh items one step apart, newest first, relative to the clock', () => {
    const items = buildFreshItems(3);
    expect(items).to.deep.equal([
      { link: 'https://example.org/fresh/1', title: 'Fresh 1', published: { kind: 'relative', agoMs: HOUR_MS } },
      { link: 'https://example.org/fresh/2', title: 'Fresh 2', published: { kind: 'relative', agoMs: 2 * HOUR_MS } },
      { link: 'https://example.org/fresh/3', title: 'Fresh 3', published: { kind: 'relative', agoMs: 3 * HOUR_MS } },
    ]);
    expect(hasRelativeDates(items)).to.equal(true);
  });

  it('itemsRelativeTo resolves relative dates to whole seconds and keeps absolute and raw ones', () => {
    const items = [
      buildItem('a', 'A', publishedAgo(HOUR_MS)),
      buildItem('b', 'B', publishedAt(42_000)),
      withUnparseableDate(buildItem('c', 'C', publishedAgo(1))),
    ];
    const resolved = itemsRelativeTo(NOW, items);
    expect(resolved.map((i) => i.published)).to.deep.equal([
      { kind: 'at', ms: 1_796_045_547_000 - HOUR_MS },
      { kind: 'at', ms: 42_000 },
      { kind: 'raw', text: UNPARSEABLE_DATE_TEXT },
    ]);
    expect(hasRelativeDates(resolved)).to.equal(false);
    expect(resolved.map((i) => renderedPublishedAt(i))).to.deep.equal([1_796_045_547_000 - HOUR_MS, 42_000, 0]);
  });

  it('defects: missing and empty links share the key "", edited titles and duplicates keep the link', () => {
    const base = buildItem('https://example.org/x', 'X', publishedAt(NOW));
    expect(withMissingLink(base)).to.deep.equal({ ...base, link: null });
    expect(withEmptyLink(base)).to.deep.equal({ ...base, link: '' });
    expect(itemKey(withMissingLink(base))).to.equal('');
    expect(itemKey(withEmptyLink(base))).to.equal('');
    expect(withEditedTitle(base)).to.deep.equal({ ...base, title: 'X (edited)' });
    expect(withEditedTitle(base, 'Y')).to.deep.equal({ ...base, title: 'Y' });
    expect(duplicateLink(base, { title: 'Again' })).to.deep.equal({ ...base, title: 'Again' });
    expect(withUnparseableDate(base, 'tomorrow')).to.deep.equal({ ...base, published: { kind: 'raw', text: 'tomorrow' } });
  });

  it('editItem changes only the item with that key and names the keys when it is absent', () => {
    const items = buildFreshItems(2);
    const edited = editItem(items, 'https://example.org/fresh/2', (i) => withEditedTitle(i, 'New'));
    expect(edited.map((i) => i.title)).to.deep.equal(['Fresh 1', 'New']);
    expect(() => editItem(items, 'nope', (i) => i)).to.throw(/No feed item with key "nope".*fresh\/1/);
  });
});
