import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NotificationManagerService, type NotificationManagerDeps } from '../../../../src/virtual-device/system/notification-manager.js';
import { notificationToString } from '../../../../src/virtual-device/system/notification-record.js';
import type { EventArg, SystemLog } from '../../../../src/virtual-device/system/system-log.js';
import { buildNotification } from '../../../../src/virtual-device/apps/feed-notifier/feed-poll-worker.js';

const captured = (name: string): string[] =>
  readFileSync(fileURLToPath(new URL(`./captured/${name}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('#'));

interface Logged {
  slogs: string[];
  events: { tag: number; name: string; args: readonly EventArg[] }[];
}

function nms(api: number, options: { permission?: boolean; now?: () => number; elapsed?: () => number } = {}): { service: NotificationManagerService; logged: Logged } {
  const logged: Logged = { slogs: [], events: [] };
  const log = {
    pid: 541,
    slog: (priority: number, tag: string, message: string) => logged.slogs.push(`${priority} ${tag}: ${message}`),
    log: () => undefined,
    event: (tag: number, name: string, args: readonly EventArg[]) => logged.events.push({ tag, name, args }),
  } as unknown as SystemLog;
  let hash = 0x0dfbaffe;
  const deps: NotificationManagerDeps = {
    log,
    apiLevel: api,
    now: options.now ?? (() => 1_706_767_655_811),
    elapsedRealtime: options.elapsed ?? (() => 59_501_689),
    nextIdentityHash: () => hash++,
    hasPostPermission: () => options.permission ?? true,
  };
  return { service: new NotificationManagerService(deps), logged };
}

const PKG = 'com.example.feednotifier';
const item = (n: number) => ({ title: `Fresh ${n}`, link: `https://example.org/fresh/${n}`, publishedAt: 1_706_767_000_000 - n });
const post = (service: NotificationManagerService, n: number, id = n): ReturnType<NotificationManagerService['enqueue']> =>
  service.enqueue({ pkg: PKG, opPkg: PKG, callingUid: 10190, callingPid: 4321, userId: 0, tag: null, id, notification: buildNotification(PKG, item(n), id) });

/** `<indent><field name>` of a dump line: what must match between a capture and the model. */
function shape(line: string): string {
  const indent = /^ */.exec(line)![0].length;
  const body = line.trimStart();
  const name = body.startsWith('NotificationRecord(') ? 'NotificationRecord(' : /^[^=( ]+/.exec(body)?.[0] ?? body;
  return `${indent}:${name}`;
}

describe('NotificationManagerService formats', () => {
  it('Notification.toString matches the captured event-log field', () => {
    const capturedLine = captured('logcat-events-notification.txt')[1]!;
    const capturedNotification = /,(Notification\(.*\)),0\]$/.exec(capturedLine)![1]!;
    const ours = notificationToString(buildNotification(PKG, item(1), 1));
    const words = (s: string): string[] => s.replace(/^Notification\(|\)$/g, '').split(' ').map((w) => w.split('=')[0]!);
    expect(words(ours)).to.deep.equal(words(capturedNotification));
    expect(ours).to.equal('Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE)');
  });

  it('notification_enqueue: the A14 field list with status 0 for a post and 1 for an update', () => {
    const { service, logged } = nms(34);
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    expect(post(service, 1)).to.equal(undefined);
    expect(post(service, 1)).to.equal(undefined);
    expect(logged.events.map((e) => [e.tag, e.name, e.args.length, e.args[0], e.args[1], e.args[2], e.args[3], e.args[4], e.args[5], e.args[7]])).to.deep.equal([
      [2750, 'notification_enqueue', 8, 10190, 4321, PKG, 1, null, 0, 0],
      [2750, 'notification_enqueue', 8, 10190, 4321, PKG, 1, null, 0, 1],
    ]);
    expect(service.active()).to.have.length(1);
  });

  it('a missing channel drops the post with the NMS error line and no event', () => {
    const { service, logged } = nms(34);
    expect(post(service, 1)).to.equal('no-channel');
    expect(logged.events).to.deep.equal([]);
    expect(logged.slogs).to.have.length(1);
    expect(logged.slogs[0]).to.match(
      /^6 NotificationService: No Channel found for pkg=com\.example\.feednotifier, channelId=feed_items, id=1, tag=null, opPkg=com\.example\.feednotifier, callingUid=10190, userId=0, incomingUserId=0, notificationUid=10190, notification=Notification\(channel=feed_items /,
    );
  });

  it('POST_NOTIFICATIONS denied (API 33+): nothing posted, no event', () => {
    const { service, logged } = nms(33, { permission: false });
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    expect(post(service, 1)).to.equal('blocked');
    expect(logged.events).to.deep.equal([]);
    expect(service.active()).to.have.length(0);
  });

  it('the 50-per-package cap logs Android\'s line and writes no event', () => {
    const { service, logged } = nms(34);
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    // In an app group, so that GroupHelper adds no autogroup summary (which counts towards the cap).
    const grouped = (n: number): ReturnType<NotificationManagerService['enqueue']> =>
      service.enqueue({ pkg: PKG, opPkg: PKG, callingUid: 10190, callingPid: 4321, userId: 0, tag: null, id: n, notification: { ...buildNotification(PKG, item(n), n), group: 'feed' } });
    for (let n = 1; n <= 50; n++) expect(grouped(n)).to.equal(undefined);
    expect(grouped(51)).to.equal('package-cap');
    expect(logged.events).to.have.length(50);
    expect(logged.slogs).to.deep.equal([`6 NotificationService: Package has already posted or enqueued 50 notifications.  Not showing more.  package=${PKG}`]);
  });

  it('updates faster than 5/s are shed with the rate line (at most one line per 5 s)', () => {
    let elapsed = 1_000_000;
    const { service, logged } = nms(34, { elapsed: () => elapsed });
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    const results: (string | undefined)[] = [];
    for (let i = 0; i < 30; i++) {
      results.push(post(service, 1));
      elapsed += 10;
    }
    const firstShed = results.indexOf('rate-limit');
    expect(firstShed).to.be.greaterThan(5);
    expect(results.slice(0, firstShed).every((r) => r === undefined)).to.equal(true);
    const rateLines = logged.slogs.filter((l) => l.includes('Package enqueue rate is'));
    expect(rateLines).to.have.length(1);
    expect(rateLines[0]).to.match(/^6 NotificationService: Package enqueue rate is \d+(\.\d+)?\. Shedding 0\|com\.example\.feednotifier\|1\|null\|10190\. package=com\.example\.feednotifier$/);
  });

  it('force-stop cancels with notification_canceled reason 5, lifespan/freshness in ms, rank/count -1, listener NULL', () => {
    let now = 1_000_000;
    const { service, logged } = nms(34, { now: () => now });
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    post(service, 1);
    now += 579;
    service.cancelAllForPackage(PKG, 5);
    const canceled = logged.events.filter((e) => e.tag === 27530);
    expect(canceled.map((e) => e.args)).to.deep.equal([[`0|${PKG}|1|null|10190`, 5, 579, 579, 0, -1, -1, null]]);
    expect(service.active()).to.have.length(0);
  });

  it('dumpsys notification (API 33): same fields, order and indentation as the captured dump', () => {
    const { service } = nms(33);
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    post(service, 1);
    const ours = service.dump([]).split('\n');
    const cap = captured('dumpsys-notification-api33.txt');
    const record = (lines: string[]): string[] => {
      const start = lines.findIndex((l) => l.startsWith('    NotificationRecord('));
      const end = lines.findIndex((l, i) => i > start && l === '  ');
      return lines.slice(start, end);
    };
    // The capture's extras carry a TV-only bundle and a ticker text the app does not set.
    const comparable = (lines: string[]): string[] => lines.filter((l) => !l.includes('android.tv.EXTENSIONS')).map(shape);
    expect(comparable(record(ours))).to.deep.equal(comparable(record(cap)));
    const tail = (lines: string[]): string[] => lines.slice(lines.findIndex((l) => l.startsWith('  mUseAttentionLight')), lines.findIndex((l) => l.startsWith(' Pending snoozed')) + 1).map(shape);
    expect(tail(ours)).to.deep.equal(tail(cap));
    expect(ours[0]).to.equal(cap[0]);
    expect(ours[1]).to.equal(cap[1]);
  });

  it('redaction: String [length=N] by default, String (value) with --noredact; A14 adds vis= and the A14-only fields', () => {
    const { service } = nms(34);
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    post(service, 1);
    const redacted = service.dump([]);
    expect(redacted).to.include(`${' '.repeat(16)}android.title=String [length=7]\n`);
    expect(redacted).to.include('                android.text=String [length=27]\n');
    const clear = service.dump(['--noredact']);
    expect(clear).to.include('                android.title=String (Fresh 1)\n');
    expect(clear).to.include('            vis=0\n');
    expect(clear).to.include('      mProposedImportance=UNSPECIFIED\n');
    expect(clear).to.include('      mUserVisOverride=-1000\n');
    expect(clear).to.match(/^ {4}NotificationRecord\(0x[0-9a-f]{8}: pkg=com\.example\.feednotifier user=UserHandle\{0\} id=1 tag=null importance=3 key=0\|com\.example\.feednotifier\|1\|null\|10190: Notification\(channel=feed_items /m);
  });

  it('an update keeps mCreationTimeMs and moves mUpdateTimeMs', () => {
    let now = 5_000;
    const { service } = nms(34, { now: () => now });
    service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance: 3 });
    post(service, 1);
    now = 9_000;
    post(service, 1);
    const dump = service.dump(['--noredact']);
    expect(dump).to.include('      mCreationTimeMs=5000\n');
    expect(dump).to.include('      mUpdateTimeMs=9000\n');
  });
});
