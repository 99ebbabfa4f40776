/**
 * The device commands of a scenario as `action` events: which commands count as reads, the names
 * of those that change the device, the harness's labels on them, the folding of reads (polls)
 * between two other events; and the action event in the history format (old lines still read,
 * the new fields checked, verdicts unchanged). The records come from a RecordingDevice over a
 * scripted fake, so they are what the decorator really produces.
 */
import { expect } from 'chai';
import type { AndroidDevice, ReverseRule, ShellOptions, ShellResult, ShellTextOptions, StreamEnd, StreamHandle } from '../../../src/device/android-device.js';
import { runShellText } from '../../../src/device/android-device.js';
import { RecordingDevice } from '../../../src/device/recording-device.js';
import { changeActionName, commandEvents, isReadOnlyCommand, type ActionLabel } from '../../../src/harness/command-log.js';
import { checkSegment } from '../../../src/checker/compose.js';
import { parseHistoryEvent, type HistoryEvent } from '../../../src/history/events.js';

const PKG = 'com.example.feednotifier';
const T0 = Date.UTC(2024, 5, 3, 12);

/** Every command takes 10 ms; `reply` scripts stdout and the exit code by command line. */
class ScriptedDevice implements AndroidDevice {
  readonly serial = 'emulator-5554';
  constructor(
    private readonly clock: { ms: number },
    private readonly reply: (line: string) => { stdout?: string; exitCode?: number } = () => ({}),
  ) {}
  shell(command: string | readonly string[], _options?: ShellOptions): Promise<ShellResult> {
    this.clock.ms += 10;
    const r = this.reply(typeof command === 'string' ? command : command.join(' '));
    return Promise.resolve({ stdout: Buffer.from(r.stdout ?? ''), stderr: '', exitCode: r.exitCode ?? 0 });
  }
  shellText(command: string | readonly string[], options?: ShellTextOptions): Promise<string> {
    return runShellText(this, typeof command === 'string' ? command : command.join(' '), command, options);
  }
  execOut(): Promise<Buffer> {
    return Promise.resolve(Buffer.alloc(0));
  }
  pull(): Promise<Buffer> {
    this.clock.ms += 10;
    return Promise.resolve(Buffer.from('x'));
  }
  push(): Promise<void> {
    this.clock.ms += 10;
    return Promise.resolve();
  }
  streamShell(): Promise<StreamHandle> {
    return Promise.resolve({ stop: () => Promise.resolve(), done: new Promise<StreamEnd>(() => undefined) });
  }
  reverse(): Promise<void> {
    return Promise.resolve();
  }
  listReverses(): Promise<ReverseRule[]> {
    return Promise.resolve([]);
  }
  removeReverse(): Promise<void> {
    return Promise.resolve();
  }
  getProperties(): Promise<Record<string, string>> {
    return Promise.resolve({});
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function recorder(reply?: (line: string) => { stdout?: string; exitCode?: number }) {
  const clock = { ms: 0 };
  let label: ActionLabel | undefined;
  const device = new RecordingDevice<ActionLabel>(new ScriptedDevice(clock, reply), {
    clock: { now: () => T0 + clock.ms, monotonic: () => clock.ms },
    context: () => label,
  });
  const labelled = async <T>(l: ActionLabel, send: () => Promise<T>): Promise<T> => {
    label = l;
    try {
      return await send();
    } finally {
      label = undefined;
    }
  };
  return { device, labelled };
}

describe('device commands as action events', () => {
  it('tells reads from changes, by the command (run-as unwrapped) and by what was given on stdin', async () => {
    const { device } = recorder();
    const reads: (string | readonly string[])[] = [
      ['date', '+%s%3N'], ['dumpsys', 'jobscheduler', PKG], ['pidof', PKG], ['run-as', PKG, 'cat', 'databases/feed.db'], ['getprop', 'ro.build.version.sdk'],
      ['cmd', 'jobscheduler', 'get-job-state', '-n', 'androidx.work.systemjobscheduler', PKG, '3'], ['cmd', 'notification', 'list'], ['settings', 'get', 'global', 'auto_time'],
      ['pm', 'list', 'packages'], ['logcat', '-d', '-b', 'events'], 'dumpsys package com.example.feednotifier',
      // The harness's own sync marker (log-observer.ts syncMarkerCommand): a line under its own tag.
      ['log', '-p', 'i', '-t', 'dedup-verify', 'sync 6f1c2a9e-3b4d-4e5f-8a7b-0c1d2e3f4a5b'],
    ];
    const changes: (string | readonly string[])[] = [
      ['date', '-u', '060312002024.07'], ['cmd', 'alarm', 'set-time', '1717416007100'], ['am', 'force-stop', PKG], ['pm', 'clear', PKG], ['run-as', PKG, 'kill', '-9', '4335'],
      ['settings', 'put', 'global', 'auto_time', '0'], ['cmd', 'jobscheduler', 'run', '-f', PKG, '3'], ['log', '-p', 'i', '-t', 'dedup-verify', 'sync'], ['log', '-p', 'i', '-t', 'WM-WorkerWrapper', 'sync 1'], ['some-tool'],
      'cat /proc/uptime > /sdcard/x', ['run-as', PKG, 'rm', '-f', 'databases/feed.db-wal'],
    ];
    for (const c of [...reads, ...changes]) await device.shell(c);
    await device.shell(['run-as', PKG, 'cat'], { stdin: 'data' });
    await device.pull('/data/local/tmp/a');
    await device.push('x', '/data/local/tmp/b');
    const verdicts = device.records.map((r) => isReadOnlyCommand(r));
    expect(verdicts).to.deep.equal([...reads.map(() => true), ...changes.map(() => false), false, true, false]);
  });

  it('names each change after what it does', async () => {
    const { device } = recorder();
    const sent: [string | readonly string[], string][] = [
      [['am', 'force-stop', PKG], 'force-stop'],
      [['am', 'start', '-n', `${PKG}/.MainActivity`], 'start-app'],
      [['am', 'broadcast', '-a', 'x', '-p', PKG], 'broadcast'],
      [['pm', 'clear', PKG], 'clear-app-data'],
      [['pm', 'grant', PKG, 'android.permission.POST_NOTIFICATIONS'], 'grant'],
      [['cmd', 'alarm', 'set-time', '1717416007100'], 'set-time'],
      [['date', '-u', '060312002024.07'], 'set-time'],
      [['cmd', 'jobscheduler', 'run', '-f', PKG, '3'], 'force-run'],
      [['run-as', PKG, 'kill', '-9', '4335'], 'kill'],
      [['settings', 'put', 'global', 'auto_time', '0'], 'setting'],
      [['input', 'keyevent', 'KEYCODE_HOME'], 'command'],
    ];
    for (const [c] of sent) await device.shell(c);
    await device.shell(['run-as', PKG, 'sh', '-c', 'cat > databases/feed.db.dv-1'], { stdin: 'db' });
    await device.push('x', '/data/local/tmp/b');
    expect(device.records.map((r) => changeActionName(r))).to.deep.equal([...sent.map(([, name]) => name), 'write-app-file', 'push']);
  });

  it('makes one valid event per change, in order, with the label of the harness step that sent it', async () => {
    const { device, labelled } = recorder((line) => (line.startsWith('pm clear') ? { stdout: 'Success\n' } : {}));
    await labelled({ action: 'force-run', run: 4 }, () => device.shell(['cmd', 'jobscheduler', 'run', '-f', PKG, '3']));
    await labelled({ action: 'kill', run: 4, heldRequest: { path: '/receipts', nth: 2 }, detail: 'run 4 killed while request 2 to /receipts was held' }, async () => {
      // The kill's own reads (the pid before, none left after) take no label.
      await device.shell(['pidof', PKG]);
      await device.shell(['run-as', PKG, 'kill', '-9', '4335']);
    });
    await labelled({ action: 'clear-app-data', detail: (r) => r.output }, () => device.shellText(['pm', 'clear', PKG]));
    await device.shell(['run-as', PKG, 'sh', '-c', 'cat > databases/feed.db.dv-1'], { stdin: Buffer.from('SQLite') });
    const events = commandEvents(device.takeFinished());
    expect(events.map((e) => e.event)).to.deep.equal([
      { type: 'action', t: T0, action: 'force-run', argv: ['cmd', 'jobscheduler', 'run', '-f', PKG, '3'], via: 'shell', exitCode: 0, durationMs: 10, run: 4 },
      { type: 'action', t: T0 + 10, action: 'read', argv: ['pidof', PKG], via: 'shell', exitCode: 0, durationMs: 10 },
      {
        type: 'action', t: T0 + 20, action: 'kill', argv: ['run-as', PKG, 'kill', '-9', '4335'], via: 'shell', exitCode: 0, durationMs: 10,
        run: 4, heldRequest: { path: '/receipts', nth: 2 }, detail: 'run 4 killed while request 2 to /receipts was held',
      },
      { type: 'action', t: T0 + 30, action: 'clear-app-data', argv: ['pm', 'clear', PKG], via: 'shell', exitCode: 0, durationMs: 10, bytes: 8, result: 'Success', detail: 'Success' },
      { type: 'action', t: T0 + 40, action: 'write-app-file', argv: ['run-as', PKG, 'sh', '-c', 'cat > databases/feed.db.dv-1'], via: 'shell', exitCode: 0, durationMs: 10, stdinBytes: 6 },
    ]);
    // The bytes written go with the event (for the repro script), not into it.
    expect(events[4]!.data).to.deep.equal(Buffer.from('SQLite'));
    for (const { event } of events) expect(parseHistoryEvent(JSON.parse(JSON.stringify(event)))).to.have.property('event');
  });

  it('folds a poll: the same read with the same exit code is one event with a count, the last result and the total time', async () => {
    let state = 'active';
    const { device } = recorder((line) =>
      line.includes('get-job-state') ? { stdout: `${state}\n`, exitCode: state === 'gone' ? 23 : 0 } : line.startsWith('am ') ? {} : { stdout: '1717416007100\n' },
    );
    const jobState = ['cmd', 'jobscheduler', 'get-job-state', PKG, '3'];
    await device.shell(['date', '+%s%3N']);
    for (let i = 0; i < 4; i++) {
      if (i === 2) state = 'pending';
      await device.shell(jobState);
      await device.shell(['run-as', PKG, 'cat', 'no_backup/androidx.work.workdb']);
    }
    state = 'gone';
    await device.shell(jobState);
    await device.shell(['am', 'force-stop', PKG]);
    await device.shell(jobState);
    const events = commandEvents(device.takeFinished()).map((e) => e.event);
    expect(events.map((e) => [e.action, e.argv?.join(' '), e.t - T0, e.count, e.durationMs, e.exitCode, e.result])).to.deep.equal([
      ['read', 'date +%s%3N', 0, undefined, 10, 0, '1717416007100'],
      ['read', `cmd jobscheduler get-job-state ${PKG} 3`, 10, 4, 40, 0, 'pending'],
      ['read', `run-as ${PKG} cat no_backup/androidx.work.workdb`, 20, 4, 40, 0, '1717416007100'],
      // Another exit code is another state: not folded into the ones before.
      ['read', `cmd jobscheduler get-job-state ${PKG} 3`, 90, undefined, 10, 23, 'gone'],
      ['force-stop', `am force-stop ${PKG}`, 100, undefined, 10, 0, undefined],
      // Reads after a change are not folded into reads before it.
      ['read', `cmd jobscheduler get-job-state ${PKG} 3`, 110, undefined, 10, 23, 'gone'],
    ]);
  });

  it('keeps reads and changes apart across calls: each call folds only what it is given', async () => {
    const { device } = recorder();
    await device.shell(['pidof', PKG]);
    const first = commandEvents(device.takeFinished());
    await device.shell(['pidof', PKG]);
    const second = commandEvents(device.takeFinished());
    expect([first.length, second.length, first[0]!.event.count, second[0]!.event.t - first[0]!.event.t]).to.deep.equal([1, 1, undefined, 10]);
  });

  it('takes a command line the harness labelled read-only (a wait on the device) as a read, and only that one', async () => {
    const { device, labelled } = recorder();
    const wait = `__dv_n=0; while cmd jobscheduler get-job-state ${PKG} 3 2>/dev/null | grep -qwE 'pending|active'; do sleep 0.02; done`;
    await labelled({ readOnly: true }, () => device.shell(wait));
    await device.shell(wait);
    await labelled({ readOnly: true }, () => device.shell(['run-as', PKG, 'cat'], { stdin: 'data' }));
    expect(device.records.map((r) => isReadOnlyCommand(r))).to.deep.equal([true, false, false]);
    const events = commandEvents(device.takeFinished()).map((e) => [e.event.action, e.event.command ?? e.event.argv?.join(' ')]);
    expect(events).to.deep.equal([
      ['read', wait],
      ['command', wait],
      ['write-app-file', `run-as ${PKG} cat`],
    ]);
  });
});

describe('the action event in the history format', () => {
  const run = (n: number, outcome: 'success' | 'retry' | 'failure', status: number, t: number): HistoryEvent[] => [
    { type: 'run-started', t, run: n, deviceTime: t },
    { type: 'fetched', t: t + 1, run: n, items: [], status },
    { type: 'run-finished', t: t + 2, run: n, outcome },
  ];

  it('still reads the action events of histories written before commands were recorded', () => {
    for (const line of [
      '{"type":"action","t":1717000001000,"action":"force-stop","argv":["am","force-stop","com.example.app"]}',
      '{"type":"action","t":1717000001000,"action":"probe-run","outcome":"refused","statuses":[],"detail":"a run forced without moving the clock"}',
      '{"type":"action","t":1717000001000,"action":"forget-rows","detail":"deleted 2 row(s)"}',
    ]) {
      expect(parseHistoryEvent(JSON.parse(line)), line).to.have.property('event');
    }
  });

  it('checks the fields of a recorded command, naming the field and the value found', () => {
    const ok = {
      type: 'action', t: 1, action: 'kill', argv: ['run-as', PKG, 'kill', '-9', '4335'], via: 'shell', exitCode: 0, durationMs: 12.5, bytes: 3, stdinBytes: 0,
      result: 'ok', error: 'x', count: 2, run: 3, probe: false, heldRequest: { path: '/receipts', nth: 1 }, command: 'kill', path: '/x', mode: 420,
    };
    expect(parseHistoryEvent(ok)).to.deep.equal({ event: ok });
    const problems: [Record<string, unknown>, string][] = [
      [{ exitCode: -1 }, '"action" event: "exitCode" must be an exit status (a whole number) when present, got -1'],
      [{ count: 0 }, '"action" event: "count" must be a whole number >= 1 when present, got 0'],
      [{ durationMs: -3 }, '"action" event: "durationMs" must be a number of ms >= 0 when present, got -3'],
      [{ heldRequest: { path: '/receipts' } }, '"action" event: "heldRequest" must be an object {path, nth} when present, got {"path":"/receipts"}'],
      [{ via: 7 }, '"action" event: "via" must be how the command was sent (shell, exec-out, stream, stream-end, pull, push, reverse, ...) when present, got 7'],
    ];
    for (const [bad, problem] of problems) expect(parseHistoryEvent({ ...ok, ...bad })).to.deep.equal({ problem });
  });

  it('gives the same verdict with or without the recorded commands: the checks do not read them', () => {
    const base: HistoryEvent[] = [...run(1, 'failure', 401, 1_000), { type: 'action', t: 1_100, action: 'probe-run', outcome: 'success', statuses: [200] }];
    const withCommands: HistoryEvent[] = [
      { type: 'action', t: 900, action: 'force-run', argv: ['cmd', 'jobscheduler', 'run', '-f', PKG, '3'], via: 'shell', exitCode: 0, durationMs: 4, run: 1 },
      ...base.slice(0, 3),
      { type: 'action', t: 1_050, action: 'read', argv: ['pidof', PKG], via: 'shell', exitCode: 1, durationMs: 40, count: 5 },
      // The probe's own run command is not its result: only `probe-run` is read by the retry check.
      { type: 'action', t: 1_090, action: 'force-run', argv: ['cmd', 'jobscheduler', 'run', '-f', PKG, '3'], via: 'shell', exitCode: 0, probe: true },
      base[3]!,
    ];
    const options = { windowMs: 86_400_000, allowedDuplicates: 0, properties: ['retry'] };
    const plain = checkSegment(base, options);
    const recorded = checkSegment(withCommands, options);
    expect(recorded.verdict).to.equal(plain.verdict);
    expect(recorded.anomalies.map((a) => a.kind)).to.deep.equal(plain.anomalies.map((a) => a.kind));
    expect(plain.anomalies.map((a) => a.kind)).to.deep.equal(['retry-loop']);
  });
});
