import { expect } from 'chai';
import { crossCheckNotifications, type BufferedNotification } from '../../../src/android/appium-notifications.js';

const PKG = 'com.example.feednotifier';
const entry = (id: number, tag: string | null, postTime: number): BufferedNotification => ({
  packageName: PKG,
  id,
  tag,
  postTime,
  isRemoved: false,
  key: `0|${PKG}|${id}|${tag ?? 'null'}|10190`,
  title: tag === null ? `Item ${id}` : null,
  text: null,
});

describe("Appium buffer cross-check and Android's summaries in the app's name", () => {
  it('an autogroup summary the listener saw (ranker_group, Aggregate_*) is not an extra post', () => {
    const after = [entry(2147483647, 'ranker_group', 3), entry(0, 'Aggregate_AlertingSection', 3), entry(2, null, 2), entry(1, null, 1)];
    const check = crossCheckNotifications([{ id: 1, tag: null, t: 1 }, { id: 2, tag: null, t: 2 }], [], after, PKG);
    expect(check.agree, check.summary).to.equal(true);
    expect(check.bufferEntries).to.equal(2);
  });

  it('a post with any other tag that the event log lacks still disagrees', () => {
    const check = crossCheckNotifications([{ id: 1, tag: null, t: 1 }], [], [entry(7, 'ranker', 2), entry(1, null, 1)], PKG);
    expect(check.agree).to.equal(false);
    expect(check.extraInBuffer.map((p) => p.id)).to.deep.equal([7]);
  });
});
