import { expect } from 'chai';
import { createTestDevice, run, stdinOf, WatchedSink, type TestDevice } from './shell-harness.js';
import type { Shell } from '../../../src/virtual-device/shell/shell.js';
import { CaptureSink } from '../../../src/virtual-device/shell/streams.js';
import { LogBuffers, type StoredLogEntry } from '../../../src/virtual-device/logcat/log-buffers.js';
import { LogFilter } from '../../../src/virtual-device/logcat/log-filter.js';
import { decodeBinaryEntries, defaultLogFormat, applyFormatWord, formatLogEntry } from '../../../src/virtual-device/logcat/format.js';
import { decodeEventPayload } from '../../../src/virtual-device/logcat/event-values.js';
import { ManualHostClock, VirtualClock } from '../../../src/virtual-device/clock.js';
import type { EventValue } from '../../../src/virtual-device/types.js';

const T0 = Date.UTC(2024, 4, 29, 16, 26, 40, 123);

function entry(over: Partial<StoredLogEntry> = {}): StoredLogEntry {
  return { buffer: 'main', timeMs: T0, pid: 1511, tid: 1530, uid: 1000, priority: 4, tag: 'Tag', message: 'hello', seq: 1, elapsedMs: 9000, ...over };
}

function fmt(words: string[]): ReturnType<typeof defaultLogFormat> {
  const f = defaultLogFormat('UTC');
  for (const w of words) applyFormatWord(f, w);
  return f;
}

const NOTIFY_VALUES: EventValue[] = [
  { type: 'int', value: 10190 },
  { type: 'int', value: 4321 },
  { type: 'string', value: 'com.example.feed' },
  { type: 'int', value: 1001 },
  { type: 'string', value: 'NULL' },
  { type: 'int', value: 0 },
  { type: 'string', value: 'Notification(channel=feed vis=PRIVATE)' },
  { type: 'int', value: 0 },
];

describe('logcat formats (liblog logprint.cpp)', () => {
  it('threadtime: MM-DD HH:MM:SS.mmm, %5d pid and tid, %-8s tag', () => {
    expect(formatLogEntry(entry(), fmt(['threadtime']))).to.equal('05-29 16:26:40.123  1511  1530 I Tag     : hello\n');
  });

  it('epoch: seconds right-aligned in 19 columns', () => {
    expect(formatLogEntry(entry(), fmt(['threadtime', 'epoch']))).to.equal('         1717000000.123  1511  1530 I Tag     : hello\n');
    expect(formatLogEntry(entry(), fmt(['time', 'epoch']))).to.equal('         1717000000.123 I/Tag     ( 1511): hello\n');
  });

  it('brief, time, tag, process, thread, raw and long', () => {
    const e = entry({ priority: 6, tag: 'LongerTagName', message: 'm' });
    expect(formatLogEntry(e, fmt(['brief']))).to.equal('E/LongerTagName( 1511): m\n');
    expect(formatLogEntry(entry(), fmt(['time']))).to.equal('05-29 16:26:40.123 I/Tag     ( 1511): hello\n');
    expect(formatLogEntry(entry(), fmt(['tag']))).to.equal('I/Tag     : hello\n');
    expect(formatLogEntry(entry(), fmt(['process']))).to.equal('I( 1511) hello  (Tag)\n');
    expect(formatLogEntry(entry(), fmt(['thread']))).to.equal('I( 1511: 1530) hello\n');
    expect(formatLogEntry(entry(), fmt(['raw']))).to.equal('hello\n');
    expect(formatLogEntry(entry(), fmt(['long']))).to.equal('[ 05-29 16:26:40.123  1511: 1530 I/Tag      ]\nhello\n\n');
  });

  it('prints one prefixed line per message line', () => {
    expect(formatLogEntry(entry({ message: 'a\nb\n' }), fmt(['brief']))).to.equal('I/Tag     ( 1511): a\nI/Tag     ( 1511): b\n');
  });

  it('applies the year, usec, uid and zone modifiers', () => {
    expect(formatLogEntry(entry(), fmt(['time', 'year', 'usec']))).to.equal('2024-05-29 16:26:40.123000 I/Tag     ( 1511): hello\n');
    // getpwuid(1000) is "system", longer than 5 characters: the number is printed instead.
    expect(formatLogEntry(entry(), fmt(['threadtime', 'uid']))).to.equal('05-29 16:26:40.123  1000  1511  1530 I Tag     : hello\n');
    expect(formatLogEntry(entry({ uid: 2000 }), fmt(['brief', 'uid']))).to.equal('I/Tag     (shell: 1511): hello\n');
    expect(formatLogEntry(entry(), fmt(['time', 'zone']))).to.equal('05-29 16:26:40.123 +0000 I/Tag     ( 1511): hello\n');
  });
});

describe('log filters (liblog android_log_addFilterString)', () => {
  it('defaults to verbose, * means *:D, TAG alone means TAG:V, newest rule wins', () => {
    const f = new LogFilter();
    expect(f.shouldPrint('x', 2)).to.equal(true);
    expect(f.addString('*:S Tag:I Other')).to.equal(true);
    expect([f.shouldPrint('Tag', 3), f.shouldPrint('Tag', 4), f.shouldPrint('Other', 2), f.shouldPrint('x', 7)]).to.deep.equal([false, true, true, false]);
    const g = new LogFilter();
    g.addRule('*');
    expect([g.shouldPrint('x', 2), g.shouldPrint('x', 3)]).to.deep.equal([false, true]);
    expect(new LogFilter().addRule('Tag:Q')).to.equal(false);
    expect(new LogFilter().addRule(':I')).to.equal(false);
  });
});

describe('LogBuffers', () => {
  it('stamps device time, keeps write order across buffers and prunes old entries', () => {
    const host = new ManualHostClock(T0);
    const clock = new VirtualClock({ host });
    const logs = new LogBuffers(clock, { capacityBytes: { main: 200 } });
    logs.log('main', 4, 'A', 'one', { pid: 1, uid: 0 });
    host.advance(10);
    logs.event(2750, 'notification_enqueue', NOTIFY_VALUES, { pid: 2, uid: 1000 });
    logs.log('system', 4, 'B', 'two', { pid: 3, uid: 0 });
    const all = logs.read({ buffers: ['main', 'events', 'system'] });
    expect(all.map((e) => e.tag)).to.deep.equal(['A', 'notification_enqueue', 'B']);
    expect(all[1]!.timeMs).to.equal(T0 + 10);
    expect(all[1]!.message).to.equal('[10190,4321,com.example.feed,1001,NULL,0,Notification(channel=feed vis=PRIVATE),0]');
    expect(logs.read({ buffers: ['main', 'system'], tail: 1 }).map((e) => e.tag)).to.deep.equal(['B']);
    for (let i = 0; i < 10; i++) logs.log('main', 4, 'Fill', `message ${i}`, { pid: 1, uid: 0 });
    const main = logs.read({ buffers: ['main'] });
    expect(main[0]!.tag).to.equal('Fill');
    expect(main.at(-1)!.message).to.equal('message 9');
    logs.clear(['main']);
    expect(logs.read({ buffers: ['main'] })).to.deep.equal([]);
  });
});

describe('logcat command', () => {
  let device: TestDevice;
  let shell: Shell;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ device, shell, dispose } = await createTestDevice());
    device.logs.log('main', 4, 'ActivityManager', 'Start proc', { pid: 500, tid: 510, uid: 1000 });
    device.logs.log('main', 3, 'Debuggy', 'noise', { pid: 600, uid: 10190 });
    device.logs.log('system', 5, 'PackageManager', 'warn', { pid: 500, uid: 1000 });
    device.logs.event(2750, 'notification_enqueue', NOTIFY_VALUES, { pid: 1511, uid: 1000 });
  });
  afterEach(async () => {
    await dispose();
  });

  it('dumps main, system and crash with dividers in threadtime by default', async () => {
    const r = await run(shell, 'logcat -d');
    expect(r.stdout).to.equal(
      '--------- beginning of main\n' +
        '05-29 16:26:40.123   500   510 I ActivityManager: Start proc\n' +
        '05-29 16:26:40.123   600   600 D Debuggy : noise\n' +
        '--------- beginning of system\n' +
        '05-29 16:26:40.123   500   500 W PackageManager: warn\n',
    );
    expect(r.status).to.equal(0);
  });

  it('reads the events buffer as I TAG: [list]', async () => {
    const r = await run(shell, 'logcat -b events -d -v epoch');
    expect(r.stdout).to.equal(
      '--------- beginning of events\n' +
        `         ${Math.floor(1717000000123 / 1000)}.123  1511  1511 I notification_enqueue: [10190,4321,com.example.feed,1001,NULL,0,Notification(channel=feed vis=PRIVATE),0]\n`,
    );
  });

  it('runs what adb logcat sends (ANDROID_LOG_TAGS export, quoted args)', async () => {
    const r = await run(shell, `export ANDROID_LOG_TAGS="''"; exec logcat '-d' '-v' 'brief'`);
    expect(r.stdout).to.include('I/ActivityManager(  500): Start proc\n');
    expect(r.stdout).to.include('D/Debuggy (  600): noise\n');
  });

  it('filters with -s and TAG:PRI specs, and with *:I', async () => {
    expect((await run(shell, 'logcat -d -v tag -s PackageManager')).stdout).to.equal('--------- beginning of system\nW/PackageManager: warn\n');
    expect((await run(shell, "logcat -d -v tag '*:I'")).stdout).to.not.include('Debuggy');
    expect((await run(shell, 'logcat -d -v tag -b all -s notification_enqueue:I')).stdout).to.include('I/notification_enqueue: [10190');
  });

  it('selects buffers with repeated -b and comma lists, and filters by --pid', async () => {
    expect((await run(shell, 'logcat -d -v tag -b system,events')).stdout).to.equal('--------- beginning of system\nW/PackageManager: warn\n--------- beginning of events\nI/notification_enqueue: [10190,4321,com.example.feed,1001,NULL,0,Notification(channel=feed vis=PRIVATE),0]\n');
    expect((await run(shell, 'logcat -d -v tag -b main -b system --pid=500')).stdout).to.equal('--------- beginning of main\nI/ActivityManager: Start proc\n--------- beginning of system\nW/PackageManager: warn\n');
    const bad = await run(shell, 'logcat -d -b nope');
    expect(bad.stderr).to.equal("logcat: Unknown -b buffer 'nope'.\n");
    expect(bad.status).to.equal(1);
  });

  it('prints the last N lines with -t N and lines since a time with -t TIME / -T sssss.mmm', async () => {
    device.hostClock.advance(60_000);
    device.logs.log('main', 4, 'Later', 'after a minute', { pid: 700, uid: 1000 });
    expect((await run(shell, 'logcat -v tag -t 1')).stdout).to.equal('--------- beginning of main\nI/Later   : after a minute\n');
    expect((await run(shell, "logcat -v tag -t '05-29 16:27:00.000'")).stdout).to.equal('--------- beginning of main\nI/Later   : after a minute\n');
    const since = `${Math.floor((1717000000123 + 30_000) / 1000)}.000`;
    expect((await run(shell, `logcat -d -v tag -T ${since}`)).stdout).to.equal('--------- beginning of main\nI/Later   : after a minute\n');
    expect((await run(shell, "logcat -t 'yesterday'")).stderr).to.equal("logcat: -t 'yesterday' not in time format.\n");
  });

  it('clears buffers with -c', async () => {
    const r = await run(shell, 'logcat -c && logcat -d');
    expect(r.stdout).to.equal('');
    expect((await run(shell, 'logcat -b events -d')).stdout).to.include('notification_enqueue');
  });

  it('writes binary entries after echo\'s newline for adbkit\'s openLogcat, ignoring tag filters', async () => {
    const controller = new AbortController();
    const stdout = new WatchedSink();
    const done = shell.run('echo && logcat -B *:I 2>/dev/null', { stdin: stdinOf(undefined, controller.signal), stdout, stderr: new CaptureSink(), signal: controller.signal });
    await stdout.waitFor('warn');
    controller.abort();
    await done;
    const bytes = stdout.buffer();
    expect(bytes[0]).to.equal(0x0a);
    const { entries, rest } = decodeBinaryEntries(bytes.subarray(1));
    expect(rest.length).to.equal(0);
    expect(entries.map((e) => e.lid)).to.deep.equal([0, 0, 3]);
    const first = entries[0]!;
    expect([first.pid, first.tid, first.sec, Math.floor(first.nsec / 1e6), first.uid]).to.deep.equal([500, 510, Math.floor(T0 / 1000), 123, 1000]);
    expect(first.payload[0]).to.equal(4);
    const [tag, msg] = first.payload.subarray(1).toString('utf8').split('\0');
    expect([tag, msg]).to.deep.equal(['ActivityManager', 'Start proc']);
    expect(entries[1]!.payload[0]).to.equal(3);
  });

  it('writes events in binary as the event-log payload', async () => {
    const r = await run(shell, 'logcat -B -b events -d');
    const { entries } = decodeBinaryEntries(r.stdoutBytes);
    expect(entries).to.have.length(1);
    expect(entries[0]!.lid).to.equal(2);
    expect(decodeEventPayload(entries[0]!.payload)).to.deep.equal({ tagNumber: 2750, values: NOTIFY_VALUES });
  });

  it('streams new entries until the stream is aborted', async () => {
    const controller = new AbortController();
    const stdout = new WatchedSink();
    const done = shell.run('logcat -v tag -b main', { stdin: stdinOf(undefined, controller.signal), stdout, stderr: new CaptureSink(), signal: controller.signal });
    await stdout.waitFor('I/ActivityManager: Start proc\n');
    device.logs.log('main', 4, 'Live', 'streamed', { pid: 800, uid: 1000 });
    await stdout.waitFor('I/Live    : streamed\n');
    controller.abort();
    expect(await done).to.equal(129);
    device.logs.log('main', 4, 'AfterAbort', 'not seen', { pid: 800, uid: 1000 });
    expect(stdout.text()).to.not.include('AfterAbort');
  });

  it('shows an app uid only its own entries', async () => {
    const r = await run(shell, 'logcat -d -v tag', { uid: 10190 });
    expect(r.stdout).to.equal('--------- beginning of main\nD/Debuggy : noise\n');
  });

  it('stops after -m N lines and filters messages with -e', async () => {
    expect((await run(shell, 'logcat -d -v tag -m 1')).stdout).to.equal('--------- beginning of main\nI/ActivityManager: Start proc\n');
    expect((await run(shell, 'logcat -d -v tag -e ^wa')).stdout).to.equal('--------- beginning of system\nW/PackageManager: warn\n');
  });
});
