/**
 * The typed wrappers of src/android, over AdbDevice and the real adb server, against a
 * virtual device running the reference app: everything here would run unchanged on an
 * emulator with the app installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startActivity, forceStop } from '../../src/android/activity.js';
import { checkRunAs, deleteRows, readTableRows, restoreDatabase } from '../../src/android/app-data.js';
import { getAutoTime, readDeviceTimeMs, restoreClock, saveClock, shiftDeviceTime } from '../../src/android/clock.js';
import { findJob, getJobState, JOB_NAMESPACES_SINCE_API, runJob, WORKMANAGER_JOB_NAMESPACE, WORKMANAGER_JOB_SERVICE } from '../../src/android/job-scheduler.js';
import { getPackageInfo, hasNotificationPermission, isPackageInstalled } from '../../src/android/packages.js';
import { FeedItemIndex, getNotificationRecord, NotificationObserver, readNotificationRecords, type NotificationObservation } from '../../src/android/notifications.js';
import { getSdkLevel } from '../../src/android/properties.js';
import { findUniqueWork, readDeviceWorkDatabase } from '../../src/android/work-db.js';
import { AdbDevice } from '../../src/device/adb-device.js';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

const PKG = 'com.example.feednotifier';

for (const api of [30, 33, 34] as const) describe(`Android wrappers against a virtual device (API ${api})`, () => {
  const devices = testDevices();
  let adb: AdbServer;
  let dev: RunningVirtualDevice;
  let device: AdbDevice;
  let work: string;

  before(async () => {
    adb = await startAdbServer();
    dev = await devices.start({ apiLevel: api });
    await adb.connect(dev.serial);
    device = await AdbDevice.open({ serial: dev.serial, port: adb.port });
    work = mkdtempSync(join(tmpdir(), 'dv-android-spec-'));
  });

  after(async () => {
    await device?.close();
    await adb?.stop();
    await devices.stopAll();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('reads the API level', async () => {
    expect(await getSdkLevel(device)).to.equal(api);
  });

  it('knows the reference app: installed, debuggable, notifications allowed, run-as works', async () => {
    expect(await isPackageInstalled(device, PKG)).to.equal(true);
    expect(await isPackageInstalled(device, 'com.example.absent')).to.equal(false);
    const info = await getPackageInfo(device, PKG);
    expect(info).to.deep.include({ uid: 10190, debuggable: true });
    expect(info === null ? null : hasNotificationPermission(info, api)).to.equal(true);
    expect(await checkRunAs(device, PKG)).to.deep.equal({ ok: true, uid: 10190 });
  });

  it('moves the clock and restores it within 2 s, with auto_time as it was', async () => {
    const before = await getAutoTime(device);
    const snapshot = await saveClock(device);
    const target = await shiftDeviceTime(device, 3 * 86400_000);
    expect(Math.abs((await readDeviceTimeMs(device)) - target)).to.be.lessThan(2000);
    expect(await getAutoTime(device)).to.equal('0');
    await restoreClock(device, snapshot);
    expect(Math.abs((await readDeviceTimeMs(device)) - Date.now() - (snapshot.deviceTimeMs - snapshot.hostTimeMs))).to.be.lessThan(2000);
    expect(await getAutoTime(device)).to.equal(before);
  });

  it('observes the posts of a worker run from the events log and maps them to feed items', async () => {
    const now = await readDeviceTimeMs(device);
    const items = [
      { key: `https://feed.example.com/${api}/a`, title: `Item A ${api}`, publishedAt: now - 2 * 3600_000 },
      { key: `https://feed.example.com/${api}/b`, title: `Item B ${api}`, publishedAt: now - 3600_000 },
    ];
    const rss =
      `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>t</title>` +
      items.map((i) => `<item><title>${i.title}</title><link>${i.key}</link><pubDate>${new Date(i.publishedAt).toUTCString()}</pubDate></item>`).join('') +
      `</channel></rss>\n`;
    const server: Server = createServer((req, res) => {
      if (req.url === '/feed.xml') res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(rss);
      else if (req.url === '/receipts') res.writeHead(201, { 'content-type': 'application/json' }).end('{"receipt":1,"replayed":false}');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const observer = await NotificationObserver.start(device, { pkg: PKG });
    try {
      await device.reverse(8765, (server.address() as AddressInfo).port);
      await startActivity(device, `${PKG}/.MainActivity`);
      const isPost = (o: NotificationObservation): o is Extract<NotificationObservation, { type: 'post' }> => o.type === 'post';
      await observer.waitFor((o): o is Extract<NotificationObservation, { type: 'post' }> => isPost(o) && observer.posts().length >= (api >= 33 ? 3 : 2), 20_000, 'two posts (and the summary on API 33+)');
      const posts = observer.posts();
      // The second post brings the app to config_autoGroupAtCount on API 33+ (2; API 30's is 4):
      // GroupHelper's summary in the app's name follows it.
      const summaryPost = api >= 33 ? [['post', 10190, 'ranker_group', 'feed_items']] : [];
      expect(posts.map((p) => [p.status, p.uid, p.tag, p.channel])).to.deep.equal([
        ['post', 10190, null, 'feed_items'],
        ['post', 10190, null, 'feed_items'],
        ...summaryPost,
      ]);
      expect(posts.every((p) => p.timeMs >= observer.sinceMs)).to.equal(true);
      const index = new FeedItemIndex(items);
      expect(posts.slice(0, 2).map((p) => index.map(p, 'hashcode-id'))).to.deep.equal(items.map((i) => ({ kind: 'mapped', item: i.key, via: 'hashcode-id' })));
      const records = (await readNotificationRecords(device, PKG)).filter((r) => r.tag !== 'ranker_group');
      expect(records.map((r) => [r.title, r.text]).sort()).to.deep.equal(items.map((i) => [i.title, i.key]).sort());
      const first = await getNotificationRecord(device, posts[0]?.key ?? '');
      expect(first?.title).to.equal(items[0]?.title);
      expect(observer.warnings()).to.deep.equal([]);
    } finally {
      await observer.stop();
      await device.removeReverse(8765);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('finds the WorkManager job from the workdb and dumpsys, and forces it', async () => {
    await startActivity(device, `${PKG}/.MainActivity`);
    const snapshot = await readDeviceWorkDatabase(device, PKG);
    const [unique] = findUniqueWork(snapshot, 'feed-poll');
    expect(unique?.spec).to.deep.include({ intervalDuration: 86400000, flexDuration: 86400000, backoffPolicy: 0, backoffDelayDuration: 30000 });
    expect(unique?.tags).to.include('com.example.feednotifier.FeedPollWorker');
    const job = await findJob(device, { pkg: PKG, serviceClass: WORKMANAGER_JOB_SERVICE });
    expect(job?.namespace).to.equal(api >= JOB_NAMESPACES_SINCE_API ? WORKMANAGER_JOB_NAMESPACE : null);
    expect(job?.jobId).to.equal(unique?.systemId);
    const ran = await runJob(device, { pkg: PKG, id: job?.jobId ?? -1, namespace: job?.namespace ?? null, force: true });
    expect(ran.result).to.deep.equal({ kind: 'running', forced: true });
    if (api >= JOB_NAMESPACES_SINCE_API) {
      const withoutNamespace = await runJob(device, { pkg: PKG, id: job?.jobId ?? -1, force: true });
      expect(withoutNamespace.result.kind).to.equal('no-job');
      expect(withoutNamespace.exitCode).to.equal(23);
    }
    expect((await getJobState(device, { pkg: PKG, id: 424242, namespace: job?.namespace ?? null })).kind).to.equal('unknown');
  });

  it('deletes rows on a backed-up copy and restores them', async () => {
    // The rows the worker stored for the two posts observed above.
    const before = await readTableRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications' });
    const keyed = before.filter((r) => r['link'] !== null);
    expect(keyed.map((r) => r['link'])).to.have.members([`https://feed.example.com/${api}/a`, `https://feed.example.com/${api}/b`]);
    const result = await deleteRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications', where: 'link IS NOT NULL', backupDir: join(work, 'backup') });
    expect(result.deletedRows).to.equal(keyed.length);
    expect(await readTableRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications', where: 'link IS NOT NULL' })).to.deep.equal([]);
    await restoreDatabase(device, result.backup);
    expect(await readTableRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications' })).to.deep.equal(before);
    await forceStop(device, PKG);
  });
});
