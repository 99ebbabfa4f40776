import { expect } from 'chai';
import { CancelReason, NotificationManagerService, type NotificationManagerDeps } from '../../../../src/virtual-device/system/notification-manager.js';
import type { EventArg, SystemLog } from '../../../../src/virtual-device/system/system-log.js';
import { buildNotification } from '../../../../src/virtual-device/apps/feed-notifier/feed-poll-worker.js';

const PKG = 'com.example.feednotifier';

interface Event {
  readonly name: string;
  readonly args: readonly EventArg[];
}

function nms(api: number, importance = 3): { service: NotificationManagerService; events: Event[] } {
  const events: Event[] = [];
  const log = { pid: 541, slog: () => undefined, log: () => undefined, event: (_t: number, name: string, args: readonly EventArg[]) => events.push({ name, args }) } as unknown as SystemLog;
  let hash = 0x0dfbaffe;
  const deps: NotificationManagerDeps = { log, apiLevel: api, now: () => 1_706_767_655_811, elapsedRealtime: () => 59_501_689, nextIdentityHash: () => hash++, hasPostPermission: () => true };
  const service = new NotificationManagerService(deps);
  service.createNotificationChannel(PKG, { id: 'feed_items', name: 'Feed items', importance });
  return { service, events };
}

const post = (service: NotificationManagerService, id: number, flags?: number): void => {
  const n = buildNotification(PKG, { title: `Item ${id}`, link: `https://example.org/${id}`, publishedAt: 1_706_767_000_000 }, id);
  expect(service.enqueue({ pkg: PKG, opPkg: PKG, callingUid: 10190, callingPid: 4321, userId: 0, tag: null, id, notification: flags === undefined ? n : { ...n, flags } })).to.equal(undefined);
};

const enqueues = (events: Event[]): Event[] => events.filter((e) => e.name === 'notification_enqueue');
const summaryTag = (api: number): string => (api >= 36 ? 'Aggregate_AlertingSection' : 'ranker_group');

describe('GroupHelper autogroup summaries in the virtual NotificationManagerService', () => {
  for (const [api, atCount] of [[30, 4], [33, 2], [34, 2], [35, 2], [36, 2]] as const) {
    it(`API ${api}: a summary in the app's name once ${atCount} ungrouped notifications show, not before`, () => {
      const { service, events } = nms(api);
      for (let id = 1; id < atCount; id++) post(service, id);
      expect(enqueues(events).map((e) => e.args[4])).to.deep.equal(Array(atCount - 1).fill(null));
      post(service, atCount);
      const lines = enqueues(events);
      expect(lines).to.have.length(atCount + 1);
      const summary = lines[atCount]!.args;
      // uid, pid and package are the triggering post's; the tag is GroupHelper's group.
      expect(summary.slice(0, 6)).to.deep.equal([10190, 4321, PKG, api >= 36 ? 0 : 2147483647, summaryTag(api), 0]);
      expect(summary[7]).to.equal(0);
      expect(summary.length).to.equal(api >= 35 ? 9 : 8);
      if (api >= 35) expect(summary[8]).to.equal(0, 'app_provided is 0: Android made this post');
      expect(service.active().filter((r) => r.tag === summaryTag(api))).to.have.length(1);
      // Children now sit in the summary's group.
      expect(service.active().filter((r) => r.tag === null).map((r) => r.groupKey)).to.deep.equal(Array(atCount).fill(`0|${PKG}|g:${summaryTag(api)}`));
    });
  }

  it('the summary line: flags AUTOGROUP|GROUP_SUMMARY|LOCAL_ONLY (plus AUTO_CANCEL when every child has it, API 34+), the child channel, groupKey=', () => {
    const notification = (api: number): string => {
      const { service, events } = nms(api);
      post(service, 1);
      post(service, 2);
      return String(enqueues(events)[2]!.args[6]);
    };
    expect(notification(34)).to.equal('Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x710 color=0x00000000 groupKey=ranker_group vis=PRIVATE)');
    expect(notification(33)).to.match(/ flags=0x700 .* groupKey=ranker_group vis=PRIVATE\)$/);
  });

  it('more children join without a new summary post; a flags change re-posts it as an update', () => {
    const { service, events } = nms(34);
    post(service, 1);
    post(service, 2);
    post(service, 3);
    expect(enqueues(events).filter((e) => e.args[4] === 'ranker_group')).to.have.length(1);
    post(service, 4, 0x2); // ongoing, no auto-cancel: summary becomes ongoing, loses AUTO_CANCEL
    const summaries = enqueues(events).filter((e) => e.args[4] === 'ranker_group');
    expect(summaries.map((e) => e.args[7])).to.deep.equal([0, 1]);
    expect(String(summaries[1]!.args[6])).to.include('flags=0x702 ');
  });

  it('the summary is cancelled (REASON_UNAUTOBUNDLED) when the last child goes, not when fewer than the threshold remain', () => {
    const { service, events } = nms(30);
    for (let id = 1; id <= 4; id++) post(service, id);
    for (let id = 1; id <= 3; id++) service.cancel(PKG, 0, null, id);
    expect(service.active().map((r) => r.id)).to.deep.equal([4, 2147483647]);
    service.cancel(PKG, 0, null, 4);
    const cancels = events.filter((e) => e.name === 'notification_canceled').map((e) => [e.args[0], e.args[1]]);
    expect(cancels.slice(-2)).to.deep.equal([
      [`0|${PKG}|4|null|10190`, CancelReason.APP_CANCEL],
      [`0|${PKG}|2147483647|ranker_group|10190`, CancelReason.UNAUTOBUNDLED],
    ]);
    expect(service.active()).to.deep.equal([]);
  });

  it("force-stop cancels the summary with the app's notifications (REASON_PACKAGE_CHANGED), once; a later post starts over", () => {
    const { service, events } = nms(34);
    post(service, 1);
    post(service, 2);
    service.cancelAllForPackage(PKG, CancelReason.PACKAGE_CHANGED);
    const reasons = events.filter((e) => e.name === 'notification_canceled').map((e) => e.args[1]);
    expect(reasons).to.deep.equal([CancelReason.PACKAGE_CHANGED, CancelReason.PACKAGE_CHANGED, CancelReason.PACKAGE_CHANGED]);
    post(service, 3);
    expect(service.active().map((r) => r.id)).to.deep.equal([3]);
    post(service, 4);
    expect(service.active().map((r) => r.id)).to.deep.equal([3, 4, 2147483647]);
  });

  it('dumpsys notification shows the summary as a record of the app, its children in its group', () => {
    const { service } = nms(34);
    post(service, 1);
    post(service, 2);
    const dump = service.dump(['--noredact']);
    expect(dump).to.include(`id=2147483647 tag=ranker_group importance=3 key=0|${PKG}|2147483647|ranker_group|10190: Notification(channel=feed_items `);
    expect(dump).to.include(`      groupKey=0|${PKG}|g:ranker_group\n`);
    expect(dump).to.include('          groupAlertBehavior=2\n');
  });

  it('API 36: a silent channel groups into Aggregate_SilentSection (summary id 1)', () => {
    const { service, events } = nms(36, 2);
    post(service, 1);
    post(service, 2);
    expect(enqueues(events)[2]!.args.slice(3, 5)).to.deep.equal([1, 'Aggregate_SilentSection']);
  });
});
