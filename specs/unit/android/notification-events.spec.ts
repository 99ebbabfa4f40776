import { expect } from 'chai';
import { formatLogcatSince, parseLogLine } from '../../../src/android/parsers/logcat.js';
import {
  FLAG_GROUP_SUMMARY,
  hasOnlyAlertOnce,
  notAnItemReason,
  notificationFlags,
  notificationGroup,
  notificationKey,
  parseNotificationCanceled,
  parseNotificationEnqueue,
  topLevelNotificationFlags,
} from '../../../src/android/parsers/notification-events.js';
import { loadFixture } from './fixtures.js';

const A14_NOTIFICATION =
  'Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE)';

function lines(path: string): string[] {
  return loadFixture(path).body.split('\n').filter((l) => l !== '');
}

describe('logcat line parsing', () => {
  it('reads a -v epoch line (19-wide seconds, ms, pid, tid, priority, tag)', () => {
    const [, first] = lines('34/logcat-events-notifications.txt');
    expect(parseLogLine(first ?? '')).to.deep.equal({
      timeMs: 1717000001120,
      timeText: '1717000001.120',
      pid: 1511,
      tid: 1534,
      priority: 'I',
      tag: 'notification_enqueue',
      message: `[10190,4321,com.example.feednotifier,1799160335,NULL,0,${A14_NOTIFICATION},0]`,
    });
  });

  it('reads a captured threadtime line (no epoch time)', () => {
    const [canceled] = lines('unknown/logcat-events-datalogic.txt');
    expect(parseLogLine(canceled ?? '')).to.deep.equal({
      timeMs: null,
      timeText: '08-10 11:20:03.810',
      pid: 1508,
      tid: 1508,
      priority: 'I',
      tag: 'notification_canceled',
      message: '[0|com.datalogic.systemupdate|1337|null|1000,8,579,579,0,-1,-1,NULL]',
    });
  });

  it('reads a padded tag and ignores dividers', () => {
    expect(parseLogLine('         1717000000.005  100  101 W Tag     : msg: with colon')).to.include({ tag: 'Tag', message: 'msg: with colon' });
    expect(parseLogLine('--------- beginning of events')).to.equal(null);
  });

  it('formats the -T argument as sssss.mmm', () => {
    expect(formatLogcatSince(1717000000005)).to.equal('1717000000.005');
    expect(formatLogcatSince(1717000000120)).to.equal('1717000000.120');
  });
});

describe('notification_enqueue', () => {
  it('reads every event of the API 34 sample', () => {
    const events = lines('34/logcat-events-notifications.txt')
      .map(parseLogLine)
      .filter((l) => l?.tag === 'notification_enqueue')
      .map((l) => parseNotificationEnqueue(l?.message ?? ''));
    expect(events).to.deep.equal([
      {
        uid: 10190, pid: 4321, pkg: 'com.example.feednotifier', id: 1799160335, tag: null, userId: 0, status: 'post',
        channel: 'feed_items', appProvided: null, alertOnce: false, flags: 0x10, group: null, notification: A14_NOTIFICATION,
      },
      {
        uid: 10190, pid: 4321, pkg: 'com.example.feednotifier', id: 1799160336, tag: null, userId: 0, status: 'post',
        channel: 'feed_items', appProvided: null, alertOnce: false, flags: 0x10, group: null,
        notification: 'Notification(channel=feed_items shortcut=null contentView=null vibrate=[0,250,250] sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE)',
      },
      {
        uid: 10050, pid: 2001, pkg: 'com.android.systemui', id: 7, tag: null, userId: 0, status: 'post', channel: 'ALR', appProvided: null, alertOnce: false, flags: 0x2, group: null,
        notification: 'Notification(channel=ALR shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x2 color=0x00000000 vis=PRIVATE)',
      },
      {
        uid: 10190, pid: 4388, pkg: 'com.example.feednotifier', id: 1799160335, tag: null, userId: 0, status: 'update',
        channel: 'feed_items', appProvided: null, alertOnce: false, flags: 0x10, group: null, notification: A14_NOTIFICATION,
      },
      {
        uid: 10190, pid: 4388, pkg: 'com.example.feednotifier', id: 12, tag: 'https://feed.example.com/a,b?x=1,2', userId: 0, status: 'post',
        channel: 'feed_items', appProvided: null, alertOnce: false, flags: 0x10, group: 'g1',
        notification:
          'Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 groupKey=g1 vis=PRIVATE publicVersion=Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x0 color=0x00000000 vis=PRIVATE))',
      },
    ]);
  });

  it('reads the A15 form with app_provided after the status', () => {
    const [post, update] = lines('35/logcat-events-notifications.txt').map((l) => parseNotificationEnqueue(parseLogLine(l)?.message ?? ''));
    expect(post).to.include({ status: 'post', appProvided: true, id: 1799160335, channel: 'feed_items' });
    expect(update).to.include({ status: 'update', appProvided: true });
  });

  it('reads captured lines from two devices', () => {
    const [, datalogic] = lines('unknown/logcat-events-datalogic.txt');
    expect(parseNotificationEnqueue(parseLogLine(datalogic ?? '')?.message ?? '')).to.deep.equal({
      uid: 1000, pid: 7214, pkg: 'com.datalogic.systemupdate', id: 1337, tag: null, userId: 0, status: 'post', channel: 'myChannel', appProvided: null, alertOnce: true, flags: 0x18, group: null,
      notification: 'Notification(channel=myChannel shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x18 color=0x00000000 vis=PRIVATE)',
    });
    const [mms] = lines('unknown/logcat-events-mms.txt');
    expect(parseNotificationEnqueue(parseLogLine(mms ?? '')?.message ?? '')).to.include({ uid: 10021, pkg: 'com.android.mms', id: 114, tag: null, status: 'post', channel: 'Mms' });
  });

  it('rejects messages that are not an enqueue list', () => {
    expect(parseNotificationEnqueue('[1,2,3]')).to.equal(null);
    expect(parseNotificationEnqueue('no list')).to.equal(null);
    expect(parseNotificationEnqueue(`[10190,1,pkg,5,NULL,0,${A14_NOTIFICATION},7]`)).to.equal(null);
  });

  it('builds the StatusBarNotification key', () => {
    expect(notificationKey({ userId: 0, pkg: 'com.example.feednotifier', id: -5, tag: null, uid: 10190 })).to.equal('0|com.example.feednotifier|-5|null|10190');
    expect(notificationKey({ userId: 0, pkg: 'p', id: 1, tag: 'a|b', uid: 10190 })).to.equal('0|p|1|a|b|10190');
  });
});

describe('notification_enqueue: alertOnce (FLAG_ONLY_ALERT_ONCE in the top-level flags)', () => {
  const enqueue = (notification: string, trailing = '0', tag = 'NULL'): ReturnType<typeof parseNotificationEnqueue> =>
    parseNotificationEnqueue(`[10190,4321,com.example.feednotifier,1799160335,${tag},0,${notification},${trailing}]`);
  const hex = (flags: string, extra = ''): string =>
    `Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=${flags} color=0x00000000${extra} vis=PRIVATE)`;

  it('reads the hex form (API 30 to 34): 0x18 = ONLY_ALERT_ONCE|AUTO_CANCEL, 0x10 = AUTO_CANCEL', () => {
    expect(enqueue(hex('0x18'), '1')).to.include({ status: 'update', alertOnce: true });
    expect(enqueue(hex('0x10'), '1')).to.include({ status: 'update', alertOnce: false });
    expect(enqueue(hex('0x8'))).to.include({ alertOnce: true });
    expect(enqueue(hex('0x0'))).to.include({ alertOnce: false });
    // A foreground-service notification: FOREGROUND_SERVICE|NO_CLEAR|ONGOING_EVENT (0x62), then with ONLY_ALERT_ONCE.
    expect(enqueue(hex('0x62'))).to.include({ alertOnce: false });
    expect(enqueue(hex('0x6a'))).to.include({ alertOnce: true });
  });

  it('reads the captured Datalogic line (flags=0x18)', () => {
    const [, datalogic] = lines('unknown/logcat-events-datalogic.txt');
    expect(parseNotificationEnqueue(parseLogLine(datalogic ?? '')?.message ?? '')).to.include({ alertOnce: true });
  });

  it('takes the outer flags only, not those of a nested publicVersion', () => {
    const pub = (flags: string): string =>
      ` groupKey=g1 vis=PRIVATE publicVersion=Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=${flags} color=0x00000000 vis=PUBLIC)`;
    const outer = (flags: string, inner: string): string =>
      `Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=${flags} color=0x00000000${pub(inner)})`;
    expect(enqueue(outer('0x10', '0x8'))).to.include({ alertOnce: false });
    expect(enqueue(outer('0x18', '0x0'))).to.include({ alertOnce: true });
    expect(enqueue(outer('AUTO_CANCEL', 'ONLY_ALERT_ONCE'), '0,1')).to.include({ alertOnce: false, appProvided: true });
  });

  it('ignores AudioAttributes flags outside the notification text (an app tag holding AudioAttributes.toString())', () => {
    const attributes = 'AudioAttributes: usage=USAGE_NOTIFICATION content=CONTENT_TYPE_SONIFICATION flags=0x8 tags= bundle=null';
    expect(enqueue(hex('0x10'), '0', attributes)).to.include({ tag: attributes, alertOnce: false });
    const spatial = 'AudioAttributes: usage=USAGE_NOTIFICATION content=CONTENT_TYPE_SONIFICATION flags=0x800 tags= bundle=null';
    expect(enqueue(hex('0x18'), '0', spatial)).to.include({ tag: spatial, alertOnce: true });
  });

  it('takes the flags that follow defaults=, not an earlier flags= in a sound URI', () => {
    const n =
      'Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=content://media/external/audio/media/7?flags=0x8 defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE)';
    expect(topLevelNotificationFlags(n)).to.equal('0x10');
    expect(enqueue(n)).to.include({ alertOnce: false });
  });

  it('reads the symbolic form of later releases (flagsToString: names in bit order joined by |, "0" for none)', () => {
    const symbolic = (flags: string, defaults = '0', sound = 'null', vibrate = 'null'): string =>
      `Notification(channel=feed_items shortcut=null contentView=null vibrate=${vibrate} sound=${sound} defaults=${defaults} flags=${flags} color=0x00000000 vis=PRIVATE)`;
    expect(enqueue(symbolic('ONLY_ALERT_ONCE|AUTO_CANCEL'), '1,1')).to.include({ status: 'update', appProvided: true, alertOnce: true });
    expect(enqueue(symbolic('AUTO_CANCEL'), '1,1')).to.include({ alertOnce: false });
    expect(enqueue(symbolic('0'), '0,1')).to.include({ alertOnce: false });
    expect(enqueue(symbolic('ONGOING_EVENT|ONLY_ALERT_ONCE|NO_CLEAR|FOREGROUND_SERVICE', 'SOUND|VIBRATE', 'default', 'default'), '0,1')).to.include({
      alertOnce: true,
    });
    expect(enqueue(symbolic('AUTO_CANCEL|UNKNOWN(0x00100000)'), '0,1')).to.include({ alertOnce: false });
    expect(topLevelNotificationFlags(symbolic('ONLY_ALERT_ONCE|UNKNOWN(0x00100000)'))).to.equal('ONLY_ALERT_ONCE|UNKNOWN');
    expect(hasOnlyAlertOnce(symbolic('ONLY_ALERT_ONCE|UNKNOWN(0x00100000)'))).to.equal(true);
  });

  it('is false when the text has no top-level flags', () => {
    expect(hasOnlyAlertOnce('Notification(channel=x)')).to.equal(false);
    expect(hasOnlyAlertOnce('not a notification flags=0x8')).to.equal(false);
    expect(topLevelNotificationFlags('Notification(channel=x publicVersion=Notification(defaults=0x0 flags=0x8))')).to.equal(null);
  });
});

describe('notification_canceled', () => {
  it('reads the captured line', () => {
    const [canceled] = lines('unknown/logcat-events-datalogic.txt');
    expect(parseNotificationCanceled(parseLogLine(canceled ?? '')?.message ?? '')).to.deep.equal({
      key: '0|com.datalogic.systemupdate|1337|null|1000',
      userId: 0,
      pkg: 'com.datalogic.systemupdate',
      id: 1337,
      tag: null,
      uid: 1000,
      reason: 8,
      rest: ['579', '579', '0', '-1', '-1', 'NULL'],
    });
  });

  it('keeps a tag containing commas and bars', () => {
    expect(parseNotificationCanceled('[0|p.q|-3|a,b|c|10190,5,1,1,0,1,2,NULL]')).to.include({ key: '0|p.q|-3|a,b|c|10190', tag: 'a,b|c', id: -3, reason: 5 });
  });
});

describe('notification_enqueue: channel ids with spaces', () => {
  it('reads a channel id that holds a space up to the shortcut= field', () => {
    const line = '[10190,4321,com.example.clock,7,NULL,0,Notification(channel=Stopwatch v2 shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x62 color=0x00000000 vis=PUBLIC),0]';
    expect(parseNotificationEnqueue(line)?.channel).to.equal('Stopwatch v2');
  });
  it('reads it up to pri= on builds that print the priority next', () => {
    const line = '[10021,21272,com.android.mms,114,NULL,0,Notification(channel=Mms pri=0 contentView=null vibrate=null sound=null defaults=0x0 flags=0x40 color=0xff607d8b vis=PRIVATE),0]';
    expect(parseNotificationEnqueue(line)?.channel).to.equal('Mms');
  });
});

describe('notification_enqueue: flags and group (what is not an item)', () => {
  const text = (flags: string, extra = ''): string =>
    `Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=${flags} color=0x00000000${extra} vis=PRIVATE)`;

  it('reads the top-level flags in hex and in the symbolic form of later releases, not a nested publicVersion\'s', () => {
    expect(notificationFlags(text('0x210'))).to.equal(0x210);
    expect(notificationFlags(text('GROUP_SUMMARY|AUTO_CANCEL'))).to.equal(FLAG_GROUP_SUMMARY);
    expect(notificationFlags(text('ONGOING_EVENT|FOREGROUND_SERVICE|UNKNOWN(0x00100000)'))).to.equal(0x2 | 0x40);
    expect(notificationFlags(text('0'))).to.equal(0);
    expect(notificationFlags(`${text('0x10').slice(0, -1)} publicVersion=${text('0x200')})`)).to.equal(0x10);
    expect(notificationFlags('Notification(channel=x)')).to.equal(null);
  });

  it('reads groupKey= up to the next field, also with spaces; null without one', () => {
    expect(notificationGroup(text('0x10', ' groupKey=feed_items_group'))).to.equal('feed_items_group');
    expect(notificationGroup(text('0x10', ' category=msg groupKey=my group sortKey=a'))).to.equal('my group');
    expect(notificationGroup(text('0x10', ' groupKey=g actions=2'))).to.equal('g');
    expect(notificationGroup(text('0x10'))).to.equal(null);
    expect(notificationGroup(`${text('0x10').slice(0, -1)} publicVersion=${text('0x0', ' groupKey=inner')})`)).to.equal(null);
  });

  it('names why a post is not an item: group summary first, then foreground service, ongoing, another channel (only when the items\' channel is set)', () => {
    const e = (flags: number | null, channel: string | null = 'feed_items'): { flags: number | null; channel: string | null } => ({ flags, channel });
    expect(notAnItemReason(e(0x212), 'feed_items')).to.equal('group-summary');
    expect(notAnItemReason(e(0x62), 'feed_items')).to.equal('foreground-service');
    expect(notAnItemReason(e(0x2, 'feed_sync'), 'feed_items')).to.equal('ongoing');
    expect(notAnItemReason(e(0x10, 'promotions'), 'feed_items')).to.equal('other-channel');
    expect(notAnItemReason(e(0x10, 'promotions'), undefined)).to.equal(null);
    expect(notAnItemReason(e(0x18), 'feed_items')).to.equal(null);
    expect(notAnItemReason(e(null, null), 'feed_items')).to.equal(null);
  });

  it('the grouped profile\'s posts as parsed: the sync post is ongoing, the summary a group summary, the items items', () => {
    const parse = (id: number, n: string): ReturnType<typeof parseNotificationEnqueue> => parseNotificationEnqueue(`[10190,4242,com.example.feednotifier,${id},NULL,0,${n},0]`);
    const sync = parse(2, text('0xa').replace('feed_items', 'feed_sync'));
    const summary = parse(1, text('0x200', ' groupKey=feed_items_group'));
    const item = parse(5, text('0x10', ' groupKey=feed_items_group'));
    expect([sync, summary, item].map((p) => p && [p.channel, p.flags, p.group, notAnItemReason(p, 'feed_items')])).to.deep.equal([
      ['feed_sync', 0xa, null, 'ongoing'],
      ['feed_items', 0x200, 'feed_items_group', 'group-summary'],
      ['feed_items', 0x10, 'feed_items_group', null],
    ]);
  });
});
