/**
 * Reading device output offline (`doctor --capture`): every fixture under
 * fixtures/device-output/ — real captures from public material and outputs derived from AOSP —
 * is understood line for line, and the captured ones say what a person reads in them; lines
 * that name a record the harness relies on and do not parse are reported verbatim.
 */
import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCaptureDir, understandFile } from '../../../src/android/capture/read-capture.js';
import { formatProvenanceHeader, readDeviceOutput, ProvenanceError } from '../../../src/android/capture/provenance.js';
import { createTableColumns, deviceCommand, kindOfCommand, kindOfFileName, kindOfText, splitTranscript, understandOutput } from '../../../src/android/capture/understand.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/device-output/', import.meta.url));

function fixtureFiles(): string[] {
  const out: string[] = [];
  for (const dir of readdirSync(FIXTURES)) {
    const path = join(FIXTURES, dir);
    if (!statSync(path).isDirectory()) continue;
    for (const f of readdirSync(path)) out.push(`${dir}/${f}`);
  }
  return out.sort();
}

const ENQUEUE = `1717000001.000  1508  1508 I notification_enqueue: [10190,4242,com.example.feednotifier,1799160335,NULL,0,Notification(channel=feed-items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE),0]`;

describe('capture directories read offline (doctor --capture)', () => {
  describe('every fixture under fixtures/device-output/', () => {
    it('has a provenance header and is read as the kind of its command, every line understood', async () => {
      const report = await readCaptureDir(FIXTURES);
      expect(report.files.map((f) => f.file)).to.deep.equal(fixtureFiles());
      for (const f of report.files) {
        expect(f.kind, `${f.file}: read as what? ${f.hint ?? ''}`).to.not.equal(null);
        expect(f.notUnderstood, f.file).to.deep.equal([]);
        expect(f.understood, `${f.file} understood nothing`).to.be.greaterThan(0);
      }
    });

    it('reads the real captures as a person does', async () => {
      const byFile = new Map((await readCaptureDir(FIXTURES)).files.map((f) => [f.file, f]));
      const expectations: [string, string, number][] = [
        // one namespaced WorkManager job on an API 36 emulator
        ['36/dumpsys-jobscheduler-pkg-namespaced.txt', 'dumpsys-jobscheduler', 1],
        // "Running job [FORCED]"
        ['36/cmd-jobscheduler-run-forced.txt', 'job-run', 1],
        // two WorkManager DEBUG lines refusing a run forced before its time
        ['36/logcat-main-wm-delay.txt', 'logcat', 2],
        // a MountServiceIdler job and a WorkManager job with a #trace tag# (API 37)
        ['37/dumpsys-jobscheduler.txt', 'dumpsys-jobscheduler', 2],
        // the developers' guide sample: one WorkManager job of YouTube
        ['unknown/dumpsys-jobscheduler-youtube.txt', 'dumpsys-jobscheduler', 1],
        ['unknown/dumpsys-jobscheduler-expo.txt', 'dumpsys-jobscheduler', 1],
        // eight WorkManager lines, two of them "Worker result SUCCESS"
        ['unknown/logcat-main-wm-mmarchiver.txt', 'logcat', 8],
        // a SystemUpdate line, sysui_multi_action, a notification_canceled and a notification_enqueue
        ['unknown/logcat-datalogic-threadtime.txt', 'logcat', 4],
        // one NotificationRecord, redacted, with the author's "......" elisions
        ['unknown/dumpsys-notification-a12tv-redacted.txt', 'dumpsys-notification', 1],
      ];
      for (const [file, kind, understood] of expectations) {
        const f = byFile.get(file);
        expect(f, file).to.not.equal(undefined);
        expect({ kind: f?.kind, understood: f?.understood, notUnderstood: f?.notUnderstood }, file).to.deep.equal({ kind, understood, notUnderstood: [] });
      }
    });
  });

  describe('what is not understood', () => {
    it('a notification_enqueue line whose list does not parse is reported verbatim; other lines still count', () => {
      const garbled = '1717000002.000  1508  1508 I notification_enqueue: [10190,4242,com.example.feednotifier]';
      const r = understandOutput('logcat', { stdout: `--------- beginning of events\n${ENQUEUE}\n${garbled}\n`, stderr: '', exitCode: 0 });
      expect(r).to.deep.equal({ understood: 1, notUnderstood: [garbled] });
    });

    it('a Worker result line in an unknown shape, and a line that is not a log line at all', () => {
      const odd = '01-03 21:59:36.315  4590  4610 I WM-WorkerWrapper: Worker result OK for 95e97ba7';
      const junk = 'this is not logcat';
      const r = understandOutput('logcat', { stdout: `${odd}\n${junk}\n`, stderr: '', exitCode: 0 });
      expect(r.notUnderstood).to.deep.equal([odd, junk]);
    });

    it('a JOB header of an unknown layout; detail lines are neither', () => {
      const header = '  JOB #u0a190/0: com.example.feednotifier/androidx.work.impl.background.systemjob.SystemJobService';
      const r = understandOutput('dumpsys-jobscheduler', { stdout: `JOBS:\n${header}\n    Source: uid=u0a190 user=0 pkg=com.example.feednotifier\n`, stderr: '', exitCode: 0 });
      expect(r).to.deep.equal({ understood: 0, notUnderstood: [header] });
    });

    it('a NotificationRecord header of an unknown layout', () => {
      const line = '    NotificationRecord(pkg=com.example.feednotifier id=1)';
      expect(understandOutput('dumpsys-notification', { stdout: `  Notification List:\n${line}\n`, stderr: '', exitCode: 0 }).notUnderstood).to.deep.equal([line]);
    });

    it('a workdb schema whose WorkSpec lacks the columns the next-run formula needs, and one without its version', () => {
      const ok = 'CREATE TABLE `WorkSpec` (`id` TEXT NOT NULL, `state` INTEGER NOT NULL, `worker_class_name` TEXT NOT NULL, `interval_duration` INTEGER NOT NULL, `last_enqueue_time` INTEGER NOT NULL, PRIMARY KEY(`id`));';
      const bad = 'CREATE TABLE `WorkSpec` (`id` TEXT NOT NULL, `state` INTEGER NOT NULL, `worker_class_name` TEXT NOT NULL, `interval_duration` INTEGER NOT NULL);';
      expect(understandOutput('workdb-schema', { stdout: `PRAGMA user_version = 20;\n${ok}\n`, stderr: '', exitCode: 0 })).to.deep.equal({ understood: 2, notUnderstood: [] });
      expect(understandOutput('workdb-schema', { stdout: `PRAGMA user_version = 20;\n${bad}\n`, stderr: '', exitCode: 0 }).notUnderstood).to.deep.equal([bad]);
      expect(understandOutput('workdb-schema', { stdout: `${ok}\n`, stderr: '', exitCode: 0 }).notUnderstood).to.have.length(1);
    });

    it('getprop lines, with a value spanning two lines', () => {
      const r = understandOutput('getprop', { stdout: '[ro.build.version.sdk]: [34]\n[persist.note]: [two\nlines]\nnot a property\n', stderr: '', exitCode: 0 });
      expect(r).to.deep.equal({ understood: 2, notUnderstood: ['not a property'] });
    });

    it('run-as errors the harness names are understood; others are not', () => {
      expect(understandOutput('run-as-id', { stdout: '', stderr: 'run-as: package not debuggable: com.example.release\n', exitCode: 1 })).to.deep.equal({ understood: 1, notUnderstood: [] });
      expect(understandOutput('run-as-id', { stdout: '', stderr: 'run-as: something new\n', exitCode: 1 }).notUnderstood).to.deep.equal(['run-as: something new']);
    });
  });

  describe('what a file is', () => {
    it('from its command, with or without the adb prefix', () => {
      expect(deviceCommand('adb -s emulator-5554 shell dumpsys jobscheduler com.x')).to.equal('dumpsys jobscheduler com.x');
      expect(deviceCommand('$ adb shell cmd jobscheduler run -f com.x 0')).to.equal('cmd jobscheduler run -f com.x 0');
      expect(kindOfCommand('adb logcat -b events')).to.equal('logcat');
      expect(kindOfCommand('adb shell cmd jobscheduler get-job-state -n ns com.x 0')).to.equal('job-state');
      expect(kindOfCommand('adb shell run-as com.x cat no_backup/androidx.work.workdb (schema only)')).to.equal('workdb-schema');
      expect(kindOfCommand('adb shell input keyevent HOME')).to.equal(null);
    });

    it('from the file names capture writes', () => {
      expect(kindOfFileName('logcat-main-system.txt')).to.equal('logcat');
      expect(kindOfFileName('cmd-jobscheduler-get-job-state-androidx.work.systemjobscheduler-0.txt')).to.equal('job-state');
      expect(kindOfFileName('run-as-id.stderr.txt')).to.equal('run-as-id');
      expect(kindOfFileName('workdb-schema.sql')).to.equal('workdb-schema');
      expect(kindOfFileName('notes.txt')).to.equal(null);
    });

    it('from the text alone', () => {
      expect(kindOfText('08-10 11:20:03.810  1508  1508 I notification_canceled: [0|a|1|null|1000,8]')).to.equal('logcat');
      expect(kindOfText('JOB #u0a1/2: abc a/b.C')).to.equal('dumpsys-jobscheduler');
      expect(kindOfText('[ro.build.version.sdk]: [34]')).to.equal('getprop');
      expect(kindOfText('hello')).to.equal(null);
    });

    it('a pasted transcript is read command by command, with the log lines that follow a command', () => {
      const text = '$ adb shell cmd jobscheduler run -f -n ns com.x 2\nRunning job [FORCED]\n\n09-11 05:27:01.988  3465  3480 D WM-WorkerWrapper: Delaying execution for W because it is being executed before schedule.\n';
      expect(splitTranscript(text).map((p) => p.command)).to.deep.equal(['adb shell cmd jobscheduler run -f -n ns com.x 2']);
      const f = understandFile('pasted.txt', text);
      expect({ understood: f.understood, notUnderstood: f.notUnderstood }).to.deep.equal({ understood: 2, notUnderstood: [] });
    });

    it('a file nothing reads says how to name it', () => {
      const f = understandFile('notes.txt', 'the emulator froze\n');
      expect(f.kind).to.equal(null);
      expect(f.notUnderstood).to.deep.equal(['the emulator froze']);
      expect(f.hint).to.match(/name the file after the command/);
    });
  });

  describe('provenance header', () => {
    it('round-trips, and a malformed one is refused with the reason', () => {
      const header = { provenance: 'captured' as const, source: 'dedup-verify capture 0.1.0 from emulator-5554', apiLevel: '34', command: 'adb shell pidof com.x', exitCode: 1, stream: 'stderr' as const };
      const text = `${formatProvenanceHeader(header)}body\n`;
      expect(readDeviceOutput(text)).to.deep.equal({ header, body: 'body\n' });
      expect(() => readDeviceOutput('# provenance: captured\n# source: x\n')).to.throw(ProvenanceError, /# ---/);
      expect(() => readDeviceOutput('# provenance: guessed\n# ---\n')).to.throw(ProvenanceError, /captured/);
      expect(readDeviceOutput('plain text\n')).to.deep.equal({ header: null, body: 'plain text\n' });
    });

    it('CREATE TABLE column names, Room backticks and constraints', () => {
      expect(createTableColumns('CREATE TABLE `WorkName` (`name` TEXT NOT NULL, `work_spec_id` TEXT NOT NULL, PRIMARY KEY(`name`, `work_spec_id`), FOREIGN KEY(`work_spec_id`) REFERENCES `WorkSpec`(`id`) ON UPDATE CASCADE ON DELETE CASCADE );')).to.deep.equal({
        table: 'WorkName',
        columns: ['name', 'work_spec_id'],
      });
    });
  });
});
