/**
 * One run's observations as history events (src/harness/run-observation.ts), without a device:
 * logcat lines as the session's stream delivers them, journal entries as the fixture server
 * records them, and the rows the app stored.
 */
import { expect } from 'chai';
import { FeedItemIndex, javaStringHashCode } from '../../../src/android/notification-mapping.js';
import { parseLogLine } from '../../../src/android/parsers/logcat.js';
import type { JournalEntry } from '../../../src/feed/fixture-server.js';
import { readStreamLine, type ObservedLine } from '../../../src/harness/log-observer.js';
import { observeJournal, observeLogLines, observeRunEnd, type ObservationContext, type RunWindow } from '../../../src/harness/run-observation.js';

const PKG = 'com.example.feednotifier';
const A = 'https://example.org/a';
const B = 'https://example.org/b';

function line(seq: number, text: string): ObservedLine {
  const parsed = parseLogLine(text);
  if (parsed === null) throw new Error(`not a log line: ${text}`);
  return { ...parsed, seq, raw: text };
}

function enqueue(seconds: number, link: string, status: 0 | 1 | 2, pkg = PKG): string {
  return `${seconds}.000  1508  1508 I notification_enqueue: [10190,4242,${pkg},${javaStringHashCode(link)},NULL,0,Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE),${status}]`;
}

const contentLookups: number[] = [];
const ctx: ObservationContext = {
  pkg: PKG,
  match: 'hashcode-id',
  index: new FeedItemIndex([
    { key: A, title: 'A' },
    { key: B, title: 'B' },
  ]),
  feedPath: '/feed.xml',
  backendPath: '/receipts',
  mapByContent: (_index, id) => {
    contentLookups.push(id);
    return Promise.resolve(`?id=${id}`);
  },
};
const run: RunWindow = { run: 3, probe: false, deviceTime: 1_717_000_000_000, hostAtStart: 5_000 };

describe('run observation: what one run was seen to do, as history events', () => {
  it('posts and updates of the app become notified events in order; other apps\' and ignored enqueues do not', async () => {
    const seen = await observeLogLines(
      [line(1, enqueue(1717000001, A, 0)), line(2, enqueue(1717000002, B, 0, 'com.other')), line(3, enqueue(1717000003, B, 2)), line(4, enqueue(1717000004, A, 1))],
      run,
      ctx,
    );
    expect(seen.posted).to.deep.equal([A]);
    expect(seen.updated).to.deep.equal([A]);
    expect(seen.events.map((e) => [e.type, 'item' in e ? e.item : '', 'status' in e ? e.status : '', 't' in e ? e.t : null])).to.deep.equal([
      ['notified', A, 'post', 1717000001000],
      ['notified', A, 'update', 1717000004000],
    ]);
  });

  it("Android's autogroup summary in the app's name (tag ranker_group, or Android 16's Aggregate_*) is a system-summary event, not an item; an unmapped post with another tag is still looked up", async () => {
    const summary = (seconds: number, tag: string, status: 0 | 1): string =>
      `${seconds}.000  1508  1508 I notification_enqueue: [1000,1508,${PKG},2147483647,${tag},0,Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x610 color=0x00000000 vis=PRIVATE),${status}]`;
    // The fourth post is an ordinary post (flags=0x10) whose id maps to no item.
    const plain = `1717000009.000  1508  1508 I notification_enqueue: [10190,4242,${PKG},2147483647,other,0,Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE),0]`;
    const lines = [summary(1717000006, 'ranker_group', 0), summary(1717000007, 'ranker_group', 1), summary(1717000008, 'Aggregate_AlertingSection', 0), plain];
    contentLookups.length = 0;
    const seen = await observeLogLines(lines.map((l, i) => line(i, l)), { run: 4, deviceTime: 1717000005000, probe: false, hostAtStart: 0 }, ctx);
    expect(seen.events.slice(0, 3).map((e) => e.type === 'system-summary' && [e.tag, e.status, e.id])).to.deep.equal([
      ['ranker_group', 'post', 2147483647],
      ['ranker_group', 'update', 2147483647],
      ['Aggregate_AlertingSection', 'post', 2147483647],
    ]);
    expect(seen.events[3]).to.include({ type: 'notified', item: '?id=2147483647' });
    expect(seen.posted).to.deep.equal(['?id=2147483647']);
    expect(contentLookups).to.deep.equal([2147483647]);
  });

  it("the app's posts that are not items (group summary, foreground-service, ongoing, another channel) are not-an-item events with the reason; an unmapped post on the items' channel is still looked up and posted", async () => {
    const post = (seconds: number, id: number, channel: string, flags: string, status: 0 | 1 = 0, extra = ''): string =>
      `${seconds}.000  1508  1508 I notification_enqueue: [10190,4242,${PKG},${id},NULL,0,Notification(channel=${channel} shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=${flags} color=0x00000000${extra} vis=PRIVATE),${status}]`;
    const ranker = `1717000017.000  1508  1508 I notification_enqueue: [1000,1508,${PKG},2147483647,ranker_group,0,Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x610 color=0x00000000 groupKey=ranker_group vis=PRIVATE),0]`;
    const raw = [
      post(1717000011, 2, 'feed_sync', '0x2'),
      post(1717000012, 1, 'feed_items', '0x200', 0, ' groupKey=feed_items_group'),
      post(1717000013, 3, 'feed_items', '0x62'),
      post(1717000014, 4, 'promotions', '0x10'),
      post(1717000015, javaStringHashCode(A), 'feed_items', '0x10', 0, ' groupKey=feed_items_group'),
      post(1717000016, 99, 'feed_items', '0x10'),
      ranker,
      post(1717000018, 1, 'feed_items', 'GROUP_SUMMARY', 1, ' groupKey=feed_items_group'),
    ];
    contentLookups.length = 0;
    const window: RunWindow = { run: 5, deviceTime: 1717000010000, probe: false, hostAtStart: 0 };
    const seen = await observeLogLines(raw.map((l, i) => line(i, l)), window, { ...ctx, itemsChannel: 'feed_items' });
    expect(seen.events.map((e) => (e.type === 'not-an-item' ? [e.type, e.id, e.reason, e.channel, e.status] : [e.type, 'item' in e ? e.item : '']))).to.deep.equal([
      ['not-an-item', 2, 'ongoing', 'feed_sync', 'post'],
      ['not-an-item', 1, 'group-summary', 'feed_items', 'post'],
      ['not-an-item', 3, 'foreground-service', 'feed_items', 'post'],
      ['not-an-item', 4, 'other-channel', 'promotions', 'post'],
      ['notified', A],
      ['notified', '?id=99'],
      ['system-summary', ''],
      ['not-an-item', 1, 'group-summary', 'feed_items', 'update'],
    ]);
    expect(seen.events[0]).to.deep.equal({ type: 'not-an-item', t: 1717000011000, run: 5, id: 2, tag: null, reason: 'ongoing', channel: 'feed_sync', status: 'post', evidence: [raw[0]] });
    expect(seen.posted).to.deep.equal([A, '?id=99']);
    expect(contentLookups).to.deep.equal([99]);
    // Without notifications.channel a post on another channel is an item like any other.
    const open = await observeLogLines([line(0, raw[3] ?? '')], window, ctx);
    expect(open.events.map((e) => e.type)).to.deep.equal(['notified']);
  });

  it('a stream line in a layout the logcat parser does not know becomes unparsed when it names notification_enqueue; other such lines are dropped', async () => {
    const brief = `I/notification_enqueue( 1508): [10190,4242,${PKG},${javaStringHashCode(A)},NULL,0,Notification(channel=feed_items),0]`;
    const kept = readStreamLine(brief);
    expect(kept).to.not.equal(null);
    const seen = await observeLogLines([{ ...kept!, seq: 0, raw: brief }], { run: 2, deviceTime: 1717000009000, probe: false, hostAtStart: 0 }, ctx);
    expect(seen.events).to.deep.equal([{ type: 'unparsed', t: 1717000009000, tag: 'notification_enqueue', line: brief, run: 2 }]);
    expect(seen.posted).to.deep.equal([]);
    expect(readStreamLine('--------- beginning of events')).to.equal(null);
    expect(readStreamLine('I/WM-WorkerWrapper( 4321): Worker result SUCCESS')).to.equal(null);
    expect(readStreamLine(enqueue(1717000005, A, 0))?.tag).to.equal('notification_enqueue');
  });

  it('an enqueue the parser cannot read is kept as unparsed, with the line; one no item maps is looked up by content', async () => {
    const garbled = '1717000005.000  1508  1508 I notification_enqueue: [10190;4242]';
    contentLookups.length = 0;
    const seen = await observeLogLines([line(1, garbled), line(2, enqueue(1717000006, 'https://example.org/unknown', 0))], run, ctx);
    expect(seen.events[0]).to.deep.equal({ type: 'unparsed', t: 1717000005000, tag: 'notification_enqueue', line: garbled, run: 3 });
    expect(contentLookups).to.deep.equal([javaStringHashCode('https://example.org/unknown')]);
    expect(seen.events[1]).to.include({ type: 'notified', item: `?id=${javaStringHashCode('https://example.org/unknown')}` });
  });

  it('the result line and NotificationService warnings about the app are evidence; a probe leaves no events', async () => {
    const result = '1717000007.000  2453  2532 I WM-WorkerWrapper: Worker result SUCCESS for Work [ id=8e4fba35-c8a7-4b4f-bd47-0f5a8edd2c3a, tags={ x } ]';
    const seen = await observeLogLines([line(1, enqueue(1717000001, A, 0)), line(2, result)], { ...run, probe: true }, ctx);
    expect(seen.events).to.deep.equal([]);
    expect(seen.posted).to.deep.equal([A]);
    expect(seen.evidence).to.deep.equal([result]);
  });

  it('journal entries become requests, effects and fetched feeds at device time', () => {
    const base = { method: 'GET', headers: { host: '127.0.0.1' }, body: '', status: 200, durationMs: 3 };
    const entries: JournalEntry[] = [
      { ...base, seq: 7, t: 5_400, path: '/feed.xml?x=1', itemsServed: [A, B] },
      { ...base, seq: 8, t: 5_900, method: 'POST', path: '/receipts', body: '{"link":"a"}', status: 201 },
    ];
    const seen = observeJournal(entries, [{ receipt: 1, seq: 8, key: 'k-1', link: A, title: 'A', t: 5_900 }], run, ctx);
    expect(seen.fetchStatuses).to.deep.equal([200]);
    expect(seen.events.map((e) => [e.type, 't' in e ? e.t : null])).to.deep.equal([
      ['request', run.deviceTime + 400],
      ['fetched', run.deviceTime + 400],
      ['request', run.deviceTime + 900],
      ['effect', run.deviceTime + 900],
    ]);
    expect(seen.events[1]).to.deep.include({ items: [A, B], evidence: ['GET /feed.xml?x=1 → 200'] });
  });

  it('the rows stored, then the run\'s end with its last five lines of evidence', () => {
    const evidence = ['1', '2', '3', '4', '5', '6'];
    expect(observeRunEnd([A, B], 42, run, 'killed', evidence)).to.deep.equal([
      { type: 'stored', t: 42, run: 3, item: A },
      { type: 'stored', t: 42, run: 3, item: B },
      { type: 'run-finished', t: 42, run: 3, outcome: 'killed', evidence: ['2', '3', '4', '5', '6'] },
    ]);
    expect(observeRunEnd([A], 42, { ...run, probe: true }, 'success', [])).to.deep.equal([]);
  });

  describe('why a run fetched nothing: the fetch error the worker\'s process logged', () => {
    const result = (pid: number): string => `1717000009.000  ${pid}  ${pid} I WM-WorkerWrapper: Worker result RETRY for Work [ id=d7d8b202-a7b1-492b-b2a3-bd2498ccc165, tags={ com.example.feednotifier.FeedPollWorker } ]`;
    const logged = (pid: number, message: string): string => `1717000008.000  ${pid}  ${pid + 7} W FeedPollWorker: ${message}`;
    const cases: [string, string][] = [
      ['connection-refused', 'Fetch of http://127.0.0.1:8765/feed.xml failed; retrying later: java.net.ConnectException: Failed to connect to /127.0.0.1:8765'],
      ['connection-refused', 'Caused by: java.net.ConnectException: failed to connect to /127.0.0.1 (port 8765) from /127.0.0.1 (port 41234) after 10000ms: isConnected failed: ECONNREFUSED (Connection refused)'],
      ['cleartext-not-permitted', 'java.net.UnknownServiceException: CLEARTEXT communication to 10.0.2.2 not permitted by network security policy'],
      ['cleartext-not-permitted', 'Fetch failed: java.io.IOException: Cleartext HTTP traffic to feeds.example.com not permitted'],
      ['unknown-host', 'Fetch failed: java.net.UnknownHostException: Unable to resolve host "feeds.example.com": No address associated with hostname'],
      ['timeout', 'java.net.SocketTimeoutException: timeout'],
    ];
    for (const [cause, message] of cases) {
      it(`reads ${cause} from "${message.slice(0, 60)}…"`, async () => {
        const seen = await observeLogLines([line(1, logged(4231, message)), line(2, result(4231))], run, ctx);
        expect(seen.fetchError).to.deep.equal({ cause, line: logged(4231, message) });
      });
    }

    it('takes only the lines of the process that logged the run\'s result (another app\'s failure is not the app\'s)', async () => {
      const other = logged(999, 'java.net.UnknownHostException: Unable to resolve host "play.googleapis.com": No address associated with hostname');
      const seen = await observeLogLines([line(1, other), line(2, result(4231))], run, ctx);
      expect(seen.fetchError).to.equal(undefined);
      expect((await observeLogLines([line(1, logged(4231, 'Fetched 5 items (HTTP 200)')), line(2, result(4231))], run, ctx)).fetchError).to.equal(undefined);
    });

    it('goes into the run\'s end', () => {
      const fetchError = { cause: 'connection-refused' as const, line: 'W FeedPollWorker: java.net.ConnectException: Failed to connect to /127.0.0.1:8765' };
      expect(observeRunEnd([], 42, run, 'retry', [], fetchError)).to.deep.equal([{ type: 'run-finished', t: 42, run: 3, outcome: 'retry', evidence: [], fetchError }]);
    });
  });
});
