/**
 * `doctor --capture` reads the logcat layouts people paste, and says so when it reads nothing.
 * Each sample names where its layout is documented or where it was published:
 * - logcat's formats: AOSP system/logging liblog/logprint.cpp android_log_formatLogLine
 *   (threadtime "%s %s%5d %5d %c %-8.*s: ", time "%s %c/%-8.*s(%s%5d): ", brief
 *   "%c/%-8.*s(%s%5d): ", the uid column "%5s:" / "%5d:");
 * - Android Studio's Logcat window (developer.android.com/studio/debug/logcat): the layout of
 *   Dolphin and later, and the older one.
 */
import { expect } from 'chai';
import { understandFile } from '../../../src/android/capture/read-capture.js';
import { promptCommand, splitTranscript, understandOutput } from '../../../src/android/capture/understand.js';
import { parsePastedLogLine } from '../../../src/android/parsers/pasted-logcat.js';

const logcat = (text: string): { understood: number; notUnderstood: string[] } => understandOutput('logcat', { stdout: text, stderr: '', exitCode: null }, 'logcat -d');

describe('pasted logcat layouts (doctor --capture)', () => {
  it('logcat -v time, as pasted in bernaferrari/SDKMonitor#8 ("Crash on upgrade")', () => {
    const text = [
      '03-02 00:27:58.596 I/WM-WorkerWrapper(31375): Worker result SUCCESS for Work [ id=422e36a1-368e-4609-b77d-2bc7fef3d615, tags={ work, com.bernaferrari.sdkmonitor.SyncWorker } ]',
      '03-02 00:27:58.615 I/WM-WorkerWrapper(31375): Worker result SUCCESS for Work [ id=31b50438-bc0a-42cc-a043-12503658cac0, tags={ work, com.bernaferrari.sdkmonitor.SyncWorker } ]',
    ].join('\n');
    expect(logcat(text)).to.deep.equal({ understood: 2, notUnderstood: [] });
    expect(parsePastedLogLine(text.split('\n')[0] ?? '')).to.include({ layout: 'time', pid: 31375, priority: 'I', tag: 'WM-WorkerWrapper' });
  });

  it("Android Studio's older Logcat copy, as pasted in google-developer-training/android-kotlin-fundamentals-apps#492", () => {
    const line = '2020-12-01 08:17:41.566 20388-20434/com.example.android.devbyteviewer E/WM-WorkerWrapper: Work [ id=1bdee247-966f-4083-b30d-a62c84f0e363, tags={ com.example.android.devbyteviewer.work.RefreshDataWorker } ] failed because it threw an exception/error';
    expect(parsePastedLogLine(line)).to.deep.equal({
      layout: 'studio-old', timeMs: null, timeText: '2020-12-01 08:17:41.566', pid: 20388, tid: 20434, priority: 'E', tag: 'WM-WorkerWrapper',
      message: 'Work [ id=1bdee247-966f-4083-b30d-a62c84f0e363, tags={ com.example.android.devbyteviewer.work.RefreshDataWorker } ] failed because it threw an exception/error',
    });
    expect(parsePastedLogLine('2019-05-21 10:12:13.456 1234-1250/? I/ActivityManager: Start proc 1234:com.example.app/u0a190')).to.include({ layout: 'studio-old', tag: 'ActivityManager' });
  });

  it("Android Studio's Logcat copy (Dolphin and later): date time, pid-tid, tag, package, priority, message in padded columns", () => {
    const text = [
      '2026-03-04 10:11:12.345  4321-4350  WM-WorkerWrapper        com.example.feednotifier             I  Worker result SUCCESS for Work [ id=6f1c2b9e-0d4e-4f4b-9a53-1d2e3f405061, tags={ com.example.feednotifier.FeedPollWorker } ]',
      '2026-03-04 10:11:12.351  1508-1508  notification_enqueue    system_server                        I  [10190,4321,com.example.feednotifier,1799160335,NULL,0,Notification(channel=feed-items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE),0]',
    ].join('\n');
    expect(logcat(text)).to.deep.equal({ understood: 2, notUnderstood: [] });
    expect(parsePastedLogLine(text.split('\n')[0] ?? '')).to.include({ layout: 'studio', pid: 4321, tid: 4350, tag: 'WM-WorkerWrapper', priority: 'I' });
    // A result line that does not parse is still reported, whatever the layout.
    const broken = '2026-03-04 10:11:12.345  4321-4350  WM-WorkerWrapper        com.example.feednotifier             I  Worker result SUCCEEDED somehow';
    expect(logcat(broken).notUnderstood).to.deep.equal([broken]);
  });

  it('logcat -v brief, with and without the uid column (logprint.cpp "%c/%-8.*s(%s%5d): ")', () => {
    expect(logcat('I/WM-WorkerWrapper( 4321): Worker result RETRY for Work [ id=6f1c2b9e-0d4e-4f4b-9a53-1d2e3f405061, tags={ x } ]\nI/WM-WorkerWrapper(10190: 4321): Worker result SUCCESS for Work [ id=6f1c2b9e-0d4e-4f4b-9a53-1d2e3f405061, tags={ x } ]')).to.deep.equal({ understood: 2, notUnderstood: [] });
    expect(parsePastedLogLine(' root ')).to.equal(null);
  });

  it('threadtime with -v uid (the uid\'s ":" printed as a space), -v year, -v usec and -v zone', () => {
    for (const [line, layout] of [
      ['03-04 10:11:12.345 10190  4321  4350 I WM-WorkerWrapper: Worker result SUCCESS for Work [ id=6f1c2b9e-0d4e-4f4b-9a53-1d2e3f405061, tags={ x } ]', 'threadtime-uid'],
      ['03-04 10:11:12.345  root   541   541 I ActivityManager: Start proc 4321:com.example.feednotifier/u0a190', 'threadtime-uid'],
      ['2026-03-04 10:11:12.345  4321  4350 I FeedPollWorker: Fetched 3 items (HTTP 200)', 'threadtime'],
      ['03-04 10:11:12.345678 +0000  4321  4350 I FeedPollWorker: Fetched 3 items (HTTP 200)', 'threadtime'],
    ] as const) {
      expect(parsePastedLogLine(line), line).to.include({ layout });
    }
  });

  it('a file of lines of which none is understood is not understood, and says what it expected', () => {
    const jobs = understandFile('dumpsys-jobscheduler-com.example.feednotifier.txt', 'Scheduled things\nsomething else entirely\n');
    expect(jobs.kind).to.equal('dumpsys-jobscheduler');
    expect(jobs.understood).to.equal(0);
    expect(jobs.notUnderstood).to.have.length(1);
    expect(jobs.notUnderstood[0]).to.match(/^\(none of its 2 line\(s\) is a record dedup-verify reads: expected JobScheduler's job lines, "JOB #u0a190\/7/);
    const log = understandFile('logcat-main.txt', 'these are not log lines\nat all\n');
    expect(log.notUnderstood).to.deep.equal(['these are not log lines', 'at all']);
    // A dump that lists nothing is still that dump: its heading is understood.
    const empty = understandFile('dumpsys-notification-noredact.txt', 'Current Notification Manager state:\n  mUseAttentionLight=false\n  mArchive=Archive (0 notifications)\n');
    expect(empty).to.include({ kind: 'dumpsys-notification', understood: 1 });
    expect(empty.notUnderstood).to.deep.equal([]);
    expect(understandFile('dumpsys-jobscheduler-pkg.txt', 'Started users: [0]\nRegistered 0 jobs:\n\nPending queue:\n').notUnderstood).to.deep.equal([]);
    // Only logcat's own dividers: an empty buffer, nothing to say.
    expect(understandFile('logcat-events.txt', '--------- beginning of events\n')).to.include({ understood: 0 });
    expect(understandFile('logcat-events.txt', '--------- beginning of events\n').notUnderstood).to.deep.equal([]);
  });

  it('a transcript with any prompt: a host shell, PowerShell, cmd, or the device shell', () => {
    for (const [line, command] of [
      ['$ adb shell dumpsys jobscheduler com.example.feednotifier', 'adb shell dumpsys jobscheduler com.example.feednotifier'],
      ['me@laptop:~/app$ adb -s emulator-5554 logcat -d', 'adb -s emulator-5554 logcat -d'],
      ['# adb shell getprop', 'adb shell getprop'],
      ['PS C:\\> adb shell cmd jobscheduler run -f com.example.feednotifier 7', 'adb shell cmd jobscheduler run -f com.example.feednotifier 7'],
      ['C:\\Users\\me> adb.exe shell pidof com.example.feednotifier', 'adb.exe shell pidof com.example.feednotifier'],
      ['generic_x86_64:/ $ logcat -d -b events', 'logcat -d -b events'],
      ['emu64xa:/ # dumpsys notification --noredact', 'dumpsys notification --noredact'],
    ] as const) {
      expect(promptCommand(line), line).to.equal(command);
    }
    // Output that merely holds a "$" or "#" is not a prompt.
    expect(promptCommand('  total $ 42')).to.equal(null);
    expect(promptCommand('# This is a comment')).to.equal(null);
    const transcript = [
      'generic_x86_64:/ $ getprop ro.build.version.sdk',
      '34',
      'generic_x86_64:/ $ logcat -d -v time',
      '03-04 10:11:12.345 I/WM-WorkerWrapper( 4321): Worker result SUCCESS for Work [ id=6f1c2b9e-0d4e-4f4b-9a53-1d2e3f405061, tags={ x } ]',
    ].join('\n');
    expect(splitTranscript(transcript).map((p) => p.command)).to.deep.equal(['getprop ro.build.version.sdk', 'logcat -d -v time']);
    const report = understandFile('pasted.txt', transcript);
    expect(report.notUnderstood).to.deep.equal([]);
    expect(report.understood).to.be.greaterThan(0);
  });
});
