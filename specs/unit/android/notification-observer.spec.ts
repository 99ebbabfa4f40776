import { expect } from 'chai';
import { NotificationObserver, type NotificationObservation } from '../../../src/android/notifications.js';
import { TimeoutError } from '../../../src/errors.js';
import { FakeDevice } from './fake-device.js';
import { loadFixture } from './fixtures.js';

function deviceAt(timeMs: number): FakeDevice {
  return new FakeDevice((argv) => (argv.join(' ') === 'date +%s%3N' ? { stdout: `${timeMs}\n` } : { exitCode: 127, stderr: 'unexpected' }));
}

function isPost(o: NotificationObservation): o is Extract<NotificationObservation, { type: 'post' }> {
  return o.type === 'post';
}

describe('NotificationObserver', () => {
  it('streams events and NMS warnings from the device time it read, never older', async () => {
    const device = deviceAt(1717000000000);
    const observer = await NotificationObserver.start(device, { pkg: 'com.example.feednotifier' });
    expect(observer.sinceMs).to.equal(1717000000000);
    expect(device.streams.map((s) => s.argv)).to.deep.equal([
      ['logcat', '-b', 'events', '-v', 'epoch', '-T', '1717000000.000'],
      ['logcat', '-b', 'main,system', '-v', 'epoch', '-T', '1717000000.000', 'NotificationService:W', '*:S'],
    ]);
    for (const line of loadFixture('34/logcat-events-notifications.txt').body.split('\n')) device.streams[0]?.listener.onLine?.(line);
    for (const line of loadFixture('34/logcat-nms-warnings.txt').body.split('\n')) device.streams[1]?.listener.onLine?.(line);
    expect(observer.posts().map((p) => [p.timeMs, p.id, p.status, p.key])).to.deep.equal([
      [1717000001120, 1799160335, 'post', '0|com.example.feednotifier|1799160335|null|10190'],
      [1717000001250, 1799160336, 'post', '0|com.example.feednotifier|1799160336|null|10190'],
      [1717000003777, 1799160335, 'update', '0|com.example.feednotifier|1799160335|null|10190'],
      [1717000004010, 12, 'post', '0|com.example.feednotifier|12|https://feed.example.com/a,b?x=1,2|10190'],
    ]);
    expect(observer.cancels().map((c) => [c.timeMs, c.id, c.reason])).to.deep.equal([[1717000005500, 1799160335, 5]]);
    expect(observer.warnings().map((w) => w.kind)).to.deep.equal(['package-cap', 'rate-limit', 'no-channel']);
    await observer.stop();
    expect(device.streams.every((s) => s.stopped)).to.equal(true);
  });

  it('waits for a post by event, with a deadline', async () => {
    const device = deviceAt(1717000000000);
    const observer = await NotificationObserver.start(device, { watchWarnings: false });
    const waiting = observer.waitFor((o): o is Extract<NotificationObservation, { type: 'post' }> => isPost(o) && o.event.id === 7, 5000, 'post id 7');
    device.streams[0]?.listener.onLine?.(
      '         1717000002.000  1511  1534 I notification_enqueue: [10050,2001,com.android.systemui,7,NULL,0,Notification(channel=ALR vis=PRIVATE),0]',
    );
    const found = await waiting;
    expect(found.event).to.include({ id: 7, pkg: 'com.android.systemui', timeMs: 1717000002000 });
    await observer.stop();
  });

  it('gives up with TimeoutError when nothing comes', async () => {
    const observer = await NotificationObserver.start(deviceAt(1717000000000), { watchWarnings: false });
    try {
      await observer.waitFor(isPost, 20, 'any post');
      expect.fail('waitFor resolved');
    } catch (e) {
      expect(e).to.be.instanceOf(TimeoutError);
      expect((e as Error).message).to.equal('No any post within 20 ms (0 posts seen since the observer started).');
    } finally {
      await observer.stop();
    }
  });
});
