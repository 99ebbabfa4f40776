import { expect } from 'chai';
import { parseExtraValue, parseNotificationKeys, parseNotificationRecords, splitKey } from '../../../src/android/parsers/notification-records.js';
import { loadFixture } from './fixtures.js';

const KEY1 = '0|com.example.feednotifier|1799160335|null|10190';

describe('NotificationRecord dumps', () => {
  it('reads the Android 14 (API 34) dumpsys: posted and enqueued records, title/text of the notification (not its public version), times', () => {
    const records = parseNotificationRecords(loadFixture('34/dumpsys-notification-noredact.txt').body);
    expect(records.map(({ extras: _extras, ...rest }) => rest)).to.deep.equal([
      {
        section: 'posted',
        key: KEY1,
        pkg: 'com.example.feednotifier',
        userId: 0,
        id: 1799160335,
        tag: null,
        uid: 10190,
        importance: 3,
        channel: 'feed_items',
        title: 'First item',
        text: 'https://feed.example.com/items/1',
        creationTimeMs: 1717000001120,
        updateTimeMs: 1717000003777,
      },
      {
        section: 'posted',
        key: '0|com.example.feednotifier|1799160336|null|10190',
        pkg: 'com.example.feednotifier',
        userId: 0,
        id: 1799160336,
        tag: null,
        uid: 10190,
        importance: 3,
        channel: 'feed_items',
        title: 'Second item: a title\nthat spans two lines',
        text: 'https://feed.example.com/items/2',
        creationTimeMs: 1717000001250,
        updateTimeMs: 1717000001250,
      },
      {
        section: 'enqueued',
        key: '0|com.example.feednotifier|1799160337|null|10190',
        pkg: 'com.example.feednotifier',
        userId: 0,
        id: 1799160337,
        tag: null,
        uid: 10190,
        importance: 3,
        channel: 'feed_items',
        title: 'Third item',
        text: 'https://feed.example.com/items/3',
        creationTimeMs: 1717000009000,
        updateTimeMs: 1717000009000,
      },
    ]);
    expect(records[0]?.extras).to.deep.equal({
      'android.title': { type: 'String', value: 'First item', redacted: false },
      'android.reduced.images': { type: 'Boolean', value: 'true', redacted: false },
      'android.subText': { type: null, value: null, redacted: false },
      'android.text': { type: 'String', value: 'https://feed.example.com/items/1', redacted: false },
      'android.showWhen': { type: 'Boolean', value: 'true', redacted: false },
    });
  });

  it('reads the Android 10 layout (appImportanceLocked in the header, no sub-blocks)', () => {
    const [record] = parseNotificationRecords(loadFixture('29/dumpsys-notification-noredact.txt').body);
    expect(record).to.deep.include({ key: KEY1, id: 1799160335, tag: null, uid: 10190, channel: 'feed_items', title: 'First item', text: 'https://feed.example.com/items/1', creationTimeMs: 1717000001120 });
  });

  it('reads a captured redacted dump: no title or text, marked redacted', () => {
    const fixture = loadFixture('unknown/dumpsys-notification-redacted.txt');
    expect(fixture.provenance).to.equal('captured');
    const [record] = parseNotificationRecords(fixture.body);
    expect(record).to.deep.include({
      section: 'posted',
      key: '-1|android|26|null|1000',
      pkg: 'android',
      userId: -1,
      id: 26,
      uid: 1000,
      importance: 4,
      channel: 'DEVELOPER_IMPORTANT',
      title: null,
      text: null,
      creationTimeMs: 1706767655811,
      updateTimeMs: 1706767655811,
    });
    expect(record?.extras['android.title']).to.deep.equal({ type: 'String', value: null, redacted: true });
    expect(record?.extras['android.appInfo']).to.deep.equal({ type: 'ApplicationInfo', value: 'ApplicationInfo{2b211ac android}', redacted: false });
  });

  it('reads `cmd notification get` (prefix "")', () => {
    const [record] = parseNotificationRecords(loadFixture('34/cmd-notification-get.txt').body);
    expect(record).to.deep.include({ section: null, key: KEY1, title: 'First item', text: 'https://feed.example.com/items/1', creationTimeMs: 1717000001120, updateTimeMs: 1717000003777 });
  });

  it('finds no record in the "no active notification" answer', () => {
    expect(parseNotificationRecords(loadFixture('34/cmd-notification-get-missing.txt').body)).to.deep.equal([]);
  });

  it('reads `cmd notification list`', () => {
    expect(parseNotificationKeys(loadFixture('34/cmd-notification-list.txt').body)).to.deep.equal([
      KEY1,
      '0|com.example.feednotifier|1799160336|null|10190',
      // GroupHelper's summary in the app's name (two ungrouped posts reach API 34's threshold).
      '0|com.example.feednotifier|2147483647|ranker_group|10190',
      '-1|android|26|null|1000',
    ]);
  });

  it('splits keys, with or without an override group key', () => {
    expect(splitKey(KEY1)).to.deep.equal({ userId: 0, pkg: 'com.example.feednotifier', id: 1799160335, tag: null, uid: 10190 });
    expect(splitKey('0|p|5|t|10190|ranker_group')).to.deep.equal({ userId: 0, pkg: 'p', id: 5, tag: 't', uid: 10190 });
    expect(splitKey('garbage')).to.equal(null);
  });

  it('reads extra values of every printed form', () => {
    expect(parseExtraValue('null')).to.deep.equal({ type: null, value: null, redacted: false });
    expect(parseExtraValue('SpannableString (Hi (there))')).to.deep.equal({ type: 'SpannableString', value: 'Hi (there)', redacted: false });
    expect(parseExtraValue('String [length=5]')).to.deep.equal({ type: 'String', value: null, redacted: true });
    expect(parseExtraValue('String')).to.deep.equal({ type: 'String', value: null, redacted: true });
  });
});
