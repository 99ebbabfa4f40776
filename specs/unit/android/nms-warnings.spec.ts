import { expect } from 'chai';
import { parseLogLine } from '../../../src/android/parsers/logcat.js';
import { parseNmsWarning } from '../../../src/android/parsers/nms-warnings.js';
import { loadFixture } from './fixtures.js';

describe('NotificationService warnings (OS shedding)', () => {
  it('reads the cap, rate-limit and missing-channel lines of the API 34 sample', () => {
    const lines = loadFixture('34/logcat-nms-warnings.txt').body.split('\n').filter((l) => l !== '');
    const parsed = lines.map(parseLogLine).filter((l) => l !== null);
    expect(parsed.map((l) => l.tag)).to.deep.equal(['NotificationService', 'NotificationService', 'NotificationService']);
    expect(parsed.map((l) => parseNmsWarning(l.message))).to.deep.equal([
      { kind: 'package-cap', pkg: 'com.example.feednotifier', count: 50 },
      { kind: 'rate-limit', pkg: 'com.example.feednotifier', key: '0|com.example.feednotifier|1799160336|null|10190', rate: 5.6099234 },
      { kind: 'no-channel', pkg: 'com.example.feednotifier', channelId: 'feed_items', id: 1799160337, tag: null },
    ]);
  });

  it('reads the cap message of older releases ("posted" without "or enqueued")', () => {
    expect(parseNmsWarning('Package has already posted 50 notifications.  Not showing more.  package=com.example.app')).to.deep.equal({
      kind: 'package-cap',
      pkg: 'com.example.app',
      count: 50,
    });
  });

  it('ignores other NotificationService lines', () => {
    expect(parseNmsWarning('Cannot find enqueued record for key: 0|p|1|null|10190')).to.equal(null);
  });
});
