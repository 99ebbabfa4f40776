import { expect } from 'chai';
import { FeedItemIndex, javaStringHashCode, mapNotificationToItem } from '../../../src/android/notification-mapping.js';

const ITEMS = [
  { key: 'https://feed.example.com/items/1', title: 'First item' },
  { key: 'https://feed.example.com/items/2', title: 'Second item' },
  { key: 'Aa', title: 'Same hash A' },
  { key: 'BB', title: 'Same hash B' },
  { key: 'https://feed.example.com/items/5', title: 'Second item' },
];

describe('notification → feed item mapping', () => {
  it('computes Java String.hashCode as a signed 32-bit int', () => {
    expect(javaStringHashCode('')).to.equal(0);
    expect(javaStringHashCode('hello')).to.equal(99162322);
    expect(javaStringHashCode('https://feed.example.com/items/1')).to.equal(1799160335);
    // overflow wraps to negative, as in Java
    expect(javaStringHashCode('polygenelubricants')).to.equal(-2147483648);
    // UTF-16 code units: U+1F600 is \uD83D\uDE00, so 0xD83D * 31 + 0xDE00
    expect(javaStringHashCode('😀')).to.equal(0xd83d * 31 + 0xde00);
  });

  it('maps by hashcode-id', () => {
    expect(mapNotificationToItem({ id: 1799160335, tag: null }, ITEMS, 'hashcode-id')).to.deep.equal({
      kind: 'mapped',
      item: 'https://feed.example.com/items/1',
      via: 'hashcode-id',
    });
  });

  it('leaves a hash collision unmapped unless the content decides it', () => {
    const index = new FeedItemIndex(ITEMS);
    expect(index.map({ id: 2112, tag: null }, 'hashcode-id')).to.deep.equal({
      kind: 'unmapped',
      reason: '2 items match by hashcode-id',
      candidates: ['Aa', 'BB'],
    });
    expect(index.map({ id: 2112, tag: null }, 'hashcode-id', { title: 'Same hash B', text: null })).to.deep.equal({ kind: 'mapped', item: 'BB', via: 'content' });
  });

  it('maps by tag and by title', () => {
    const index = new FeedItemIndex(ITEMS);
    expect(index.map({ id: 1, tag: 'https://feed.example.com/items/2' }, 'tag')).to.deep.equal({ kind: 'mapped', item: 'https://feed.example.com/items/2', via: 'tag' });
    expect(index.map({ id: 1, tag: null }, 'title', { title: 'First item', text: null })).to.deep.equal({ kind: 'mapped', item: 'https://feed.example.com/items/1', via: 'title' });
  });

  it('falls back to the text (the link) when the title is shared', () => {
    const index = new FeedItemIndex(ITEMS);
    expect(index.map({ id: 1, tag: null }, 'title', { title: 'Second item', text: 'https://feed.example.com/items/5' })).to.deep.equal({
      kind: 'mapped',
      item: 'https://feed.example.com/items/5',
      via: 'content',
    });
  });

  it('reports an unknown post as unmapped', () => {
    expect(mapNotificationToItem({ id: 42, tag: null }, ITEMS, 'hashcode-id')).to.deep.equal({
      kind: 'unmapped',
      reason: 'no item matches by hashcode-id and no notification content was available',
      candidates: [],
    });
    expect(mapNotificationToItem({ id: 42, tag: 'x' }, ITEMS, 'tag', { title: 'nope', text: 'nope' })).to.deep.equal({
      kind: 'unmapped',
      reason: 'no item matches by tag or by content',
      candidates: [],
    });
  });
});
