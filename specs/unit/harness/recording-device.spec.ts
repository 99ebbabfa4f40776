/**
 * RecordingDevice: every command sent through it is recorded with what was sent, how it ended
 * and when, from the injected clock; results and errors are the wrapped device's own, unchanged.
 * The wrapped device here is a hand-built fake whose commands take the time a spec gives them
 * on a fake clock, and can be held open to send commands concurrently.
 */
import { expect } from 'chai';
import {
  commandFailed,
  runShellText,
  type AndroidDevice,
  type ReverseRule,
  type ShellOptions,
  type ShellResult,
  type ShellTextOptions,
  type StreamEnd,
  type StreamHandle,
  type StreamListener,
} from '../../../src/device/android-device.js';
import { RecordingDevice, type RecordingClock } from '../../../src/device/recording-device.js';
import { TimeoutError } from '../../../src/errors.js';

/** A clock that moves only when told: `now` is epoch ms, `monotonic` ms since the start. */
class FakeClock implements RecordingClock {
  private ms = 0;
  constructor(private readonly epoch: number) {}
  now(): number {
    return this.epoch + this.ms;
  }
  monotonic(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

interface Reply {
  readonly stdout?: Buffer | string;
  readonly stderr?: string;
  readonly exitCode?: number;
  /** Fake ms the command takes. */
  readonly takes?: number;
  /** Throws this instead of answering. */
  readonly error?: Error;
  /** Answers only when the spec calls the release function it is given. */
  readonly hold?: (release: () => void) => void;
}

class FakeInner implements AndroidDevice {
  readonly serial = 'emulator-5554';
  readonly sent: string[] = [];
  readonly stdins: (Buffer | undefined)[] = [];
  readonly pushed: { path: string; data: Buffer; mode: number | undefined }[] = [];
  endStream: ((end: StreamEnd) => void) | undefined;
  closed = false;

  constructor(
    private readonly clock: FakeClock,
    private readonly reply: (line: string) => Reply,
  ) {}

  async shell(command: string | readonly string[], options: ShellOptions = {}): Promise<ShellResult> {
    const line = typeof command === 'string' ? command : command.join(' ');
    this.sent.push(line);
    this.stdins.push(options.stdin === undefined ? undefined : Buffer.from(options.stdin));
    const r = this.reply(line);
    if (r.hold) await new Promise<void>((resolve) => r.hold!(resolve));
    this.clock.advance(r.takes ?? 0);
    if (r.error) throw r.error;
    return { stdout: Buffer.from(r.stdout ?? ''), stderr: r.stderr ?? '', exitCode: r.exitCode ?? 0 };
  }

  shellText(command: string | readonly string[], options: ShellTextOptions = {}): Promise<string> {
    return runShellText(this, `fake shell ${typeof command === 'string' ? command : command.join(' ')}`, command, options);
  }

  execOut(command: string | readonly string[]): Promise<Buffer> {
    return this.shell(command).then((r) => r.stdout);
  }

  pull(path: string): Promise<Buffer> {
    this.clock.advance(7);
    return Promise.resolve(Buffer.from(`contents of ${path}`));
  }

  push(data: Buffer | string, path: string, mode?: number): Promise<void> {
    this.clock.advance(3);
    this.pushed.push({ path, data: Buffer.from(data), mode });
    return Promise.resolve();
  }

  streamShell(_command: string | readonly string[], listener: StreamListener): Promise<StreamHandle> {
    this.clock.advance(2);
    const done = new Promise<StreamEnd>((resolve) => (this.endStream = resolve));
    listener.onLine?.('first line');
    return Promise.resolve({ stop: () => Promise.resolve(), done });
  }

  reverse(): Promise<void> {
    return Promise.resolve();
  }
  listReverses(): Promise<ReverseRule[]> {
    return Promise.resolve([{ remote: 'tcp:8765', local: 'tcp:40123' }]);
  }
  removeReverse(): Promise<void> {
    return Promise.resolve();
  }
  getProperties(): Promise<Record<string, string>> {
    return Promise.resolve({ 'ro.build.version.sdk': '34', 'ro.product.model': 'sdk' });
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

const START = Date.UTC(2024, 5, 3, 12);

function setup(reply: (line: string) => Reply = () => ({})) {
  const clock = new FakeClock(START);
  const inner = new FakeInner(clock, reply);
  let context: string | undefined;
  const device = new RecordingDevice<string>(inner, { clock, context: () => context });
  return { clock, inner, device, setContext: (c: string | undefined) => (context = c) };
}

describe('RecordingDevice: a record of every command sent to the device', () => {
  it('records the argv, the command line, the exit code, the output and the time from the injected clock', async () => {
    const { clock, inner, device } = setup((line) =>
      line.startsWith('cmd jobscheduler run ') ? { stdout: 'Running job [FORCED]\n', takes: 40 } : { stdout: '', stderr: 'Error: no such job\n', exitCode: 22, takes: 5 },
    );
    clock.advance(1_000);
    const ok = await device.shell(['cmd', 'jobscheduler', 'run', '-f', 'com.example.feednotifier', '3']);
    const refused = await device.shell(['cmd', 'jobscheduler', 'get-job-state', "it's"]);
    // The results are the wrapped device's.
    expect(ok.stdout.toString()).to.equal('Running job [FORCED]\n');
    expect(refused.exitCode).to.equal(22);
    expect(inner.sent).to.deep.equal(['cmd jobscheduler run -f com.example.feednotifier 3', "cmd jobscheduler get-job-state it's"]);
    expect(device.records.map((r) => ({ ...r }))).to.deep.equal([
      {
        seq: 1, via: 'shell', argv: ['cmd', 'jobscheduler', 'run', '-f', 'com.example.feednotifier', '3'], command: 'cmd jobscheduler run -f com.example.feednotifier 3',
        startedAt: START + 1_000, context: undefined, finished: true, durationMs: 40, exitCode: 0, bytes: 21, output: 'Running job [FORCED]', error: undefined,
      },
      {
        seq: 2, via: 'shell', argv: ['cmd', 'jobscheduler', 'get-job-state', "it's"], command: "cmd jobscheduler get-job-state 'it'\\''s'",
        startedAt: START + 1_040, context: undefined, finished: true, durationMs: 5, exitCode: 22, bytes: 0, output: 'Error: no such job', error: undefined,
      },
    ]);
  });

  it('keeps a command given as one line as that line, without argv', async () => {
    const { device } = setup(() => ({ stdout: '0\n' }));
    await device.shell('settings get global auto_time');
    expect(device.records[0]).to.include({ via: 'shell', argv: undefined, command: 'settings get global auto_time', exitCode: 0, output: '0' });
  });

  it('keeps the bytes given on stdin, and summarises no binary output', async () => {
    const { inner, device } = setup(() => ({ stdout: Buffer.from([0x53, 0x51, 0x4c, 0x00, 0x01, 0x0a]) }));
    const data = Buffer.from('SQLite format 3\u0000...');
    await device.shell(['run-as', 'com.example.feednotifier', 'sh', '-c', 'cat > databases/feed.db.dv-1'], { stdin: data });
    await device.shell(['run-as', 'com.example.feednotifier', 'cat', 'databases/feed.db']);
    expect(inner.stdins[0]).to.deep.equal(data);
    expect(device.records[0]!.data).to.deep.equal(data);
    expect(device.records[1]).to.include({ bytes: 6, output: undefined });
    expect(device.records[1]!.data).to.equal(undefined);
  });

  it('shellText: the wrapped device\'s text and its error, unchanged; exit 0, or the refused exit code', async () => {
    const { device } = setup((line) => (line === 'pm clear com.example.feednotifier' ? { stdout: 'Success\n', takes: 120 } : { stderr: 'Failure [not installed]\n', exitCode: 1, takes: 9 }));
    expect(await device.shellText(['pm', 'clear', 'com.example.feednotifier'])).to.equal('Success\n');
    const error = await device.shellText(['pm', 'clear', 'com.example.other']).then(
      () => undefined,
      (e: unknown) => e,
    );
    const expected = commandFailed('fake shell pm clear com.example.other', { stdout: Buffer.alloc(0), stderr: 'Failure [not installed]\n', exitCode: 1 });
    expect((error as Error).message).to.equal(expected.message);
    expect(device.records.map((r) => [r.command, r.exitCode, r.durationMs, r.output, r.error])).to.deep.equal([
      ['pm clear com.example.feednotifier', 0, 120, 'Success', undefined],
      ['pm clear com.example.other', 1, 9, 'Failure [not installed]', expected.message],
    ]);
  });

  it('records a transport failure as an error, and passes the same error on', async () => {
    const timeout = new TimeoutError('Device command `dumpsys jobscheduler` did not finish within 10000 ms.', 10_000);
    const { device } = setup(() => ({ error: timeout, takes: 10_000 }));
    let thrown: unknown;
    await device.shell(['dumpsys', 'jobscheduler']).catch((e: unknown) => (thrown = e));
    expect(thrown).to.equal(timeout);
    expect(device.records[0]).to.include({ finished: true, durationMs: 10_000, exitCode: undefined, error: timeout.message });
  });

  it('records pulls, pushes, reverse rules and properties as their own kinds', async () => {
    const { inner, device } = setup();
    expect((await device.pull('/data/local/tmp/x')).toString()).to.equal('contents of /data/local/tmp/x');
    await device.push('abc', '/data/local/tmp/y', 0o600);
    await device.push(Buffer.from('de'), '/data/local/tmp/z');
    await device.reverse(8765, 40123);
    expect(await device.listReverses()).to.deep.equal([{ remote: 'tcp:8765', local: 'tcp:40123' }]);
    await device.removeReverse(8765);
    expect(await device.getProperties()).to.have.property('ro.build.version.sdk', '34');
    expect(inner.pushed).to.deep.equal([
      { path: '/data/local/tmp/y', data: Buffer.from('abc'), mode: 0o600 },
      { path: '/data/local/tmp/z', data: Buffer.from('de'), mode: undefined },
    ]);
    expect(device.records.map((r) => [r.via, r.command, r.path, r.mode, r.bytes, r.durationMs, r.output])).to.deep.equal([
      ['pull', 'pull /data/local/tmp/x', '/data/local/tmp/x', undefined, 29, 7, undefined],
      ['push', 'push /data/local/tmp/y', '/data/local/tmp/y', 0o600, 3, 3, undefined],
      ['push', 'push /data/local/tmp/z', '/data/local/tmp/z', undefined, 2, 3, undefined],
      ['reverse', 'reverse tcp:8765 tcp:40123', undefined, undefined, undefined, 0, undefined],
      ['list-reverses', 'reverse --list', undefined, undefined, undefined, 0, 'tcp:8765 tcp:40123'],
      ['remove-reverse', 'reverse --remove tcp:8765', undefined, undefined, undefined, 0, undefined],
      ['getprop', 'getprop', undefined, undefined, undefined, 0, '2 properties'],
    ]);
    expect(device.records[1]!.data).to.deep.equal(Buffer.from('abc'));
  });

  it('records a stream when it opens and again when it ends, timed from its start', async () => {
    const { clock, inner, device } = setup();
    const lines: string[] = [];
    const handle = await device.streamShell(['logcat', '-v', 'epoch', '-T', '1'], { onLine: (l) => lines.push(l) });
    expect(lines).to.deep.equal(['first line']);
    expect(device.records.map((r) => [r.via, r.command, r.durationMs])).to.deep.equal([['stream', 'logcat -v epoch -T 1', 2]]);
    clock.advance(5_000);
    inner.endStream!({ reason: 'disconnected', exitCode: undefined });
    expect(await handle.done).to.deep.equal({ reason: 'disconnected', exitCode: undefined });
    const ended = device.records[1]!;
    expect([ended.via, ended.argv, ended.startedAt, ended.durationMs, ended.output]).to.deep.equal(['stream-end', ['logcat', '-v', 'epoch', '-T', '1'], START, 5_002, 'disconnected']);
  });

  it('keeps what the caller was doing when each command was sent', async () => {
    const { device, setContext } = setup();
    setContext('kill run 3');
    const sending = device.shell(['run-as', 'com.example.feednotifier', 'kill', '-9', '4335']);
    setContext(undefined);
    await sending;
    await device.shell(['pidof', 'com.example.feednotifier']);
    expect(device.records.map((r) => r.context)).to.deep.equal(['kill run 3', undefined]);
  });

  it('hands out finished records in the order sent, waiting for one still running', async () => {
    let release: (() => void) | undefined;
    const { device } = setup((line) => (line.startsWith('cat slow') ? { hold: (r) => (release = r), stdout: 'slow\n' } : { stdout: 'fast\n' }));
    const slow = device.shell(['cat', 'slow']);
    await device.shell(['cat', 'fast']);
    // The second finished first, but the first still runs: nothing is handed out yet.
    expect(device.takeFinished()).to.deep.equal([]);
    release!();
    await slow;
    expect(device.takeFinished().map((r) => [r.seq, r.command])).to.deep.equal([[1, 'cat slow'], [2, 'cat fast']]);
    expect(device.takeFinished()).to.deep.equal([]);
    await device.shell(['true']);
    expect(device.takeFinished().map((r) => r.seq)).to.deep.equal([3]);
  });

  it('is the wrapped device for everything else: serial, close', async () => {
    const { inner, device } = setup();
    expect(device.serial).to.equal('emulator-5554');
    await device.close();
    expect(inner.closed).to.equal(true);
    expect(device.records).to.deep.equal([]);
  });
});
