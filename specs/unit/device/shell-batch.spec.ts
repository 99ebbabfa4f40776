import { expect } from 'chai';
import { buildBatchScript, parseBatchOutput, shellBatch } from '../../../src/device/shell-batch.js';
import { runReads, type ShellRead } from '../../../src/android/shell-reads.js';
import { RecordingDevice } from '../../../src/device/recording-device.js';
import type { AndroidDevice, ShellResult } from '../../../src/device/android-device.js';
import { DeviceCommandError } from '../../../src/errors.js';
import { commandEvents, type ActionLabel } from '../../../src/harness/command-log.js';

const NONCE = '0123456789abcdef0123456789abcdef';
const OTHER = 'ffffffffffffffffffffffffffffffff';

/** What the batch script prints for one command: its bytes, one newline, its marker line. */
function out(bytes: Buffer | string, n: number, status: number): Buffer {
  return Buffer.concat([Buffer.from(bytes), Buffer.from(`\n__DV_B_${NONCE}_${n}_${status}\n`)]);
}
function err(text: string, n: number): string {
  return `${text}\n__DV_B_${NONCE}_${n}\n`;
}

describe('shell batch: several reads in one shell invocation', () => {
  it('runs each command in a subshell without input, with markers spelled in pieces', () => {
    const script = buildBatchScript([['date', '+%s%3N'], ['run-as', 'com.example.app', 'cat', "it's"]], NONCE);
    expect(script).to.equal(
      `( date +%s%3N\n) </dev/null; __dv_r=$?; echo; echo "__DV_B_""${NONCE}""_1_$__dv_r"; echo >&2; echo "__DV_B_""${NONCE}""_1" >&2\n` +
        `( run-as com.example.app cat 'it'\\''s'\n) </dev/null; __dv_r=$?; echo; echo "__DV_B_""${NONCE}""_2_$__dv_r"; echo >&2; echo "__DV_B_""${NONCE}""_2" >&2`,
    );
    // The script printed back (ps -A -o ARGS) never holds a contiguous marker.
    expect(script).not.to.include(`__DV_B_${NONCE}`);
  });

  it('refuses a nonce that is not hex, and an empty batch', () => {
    expect(() => buildBatchScript([['true']], 'x; rm -rf /')).to.throw(/16\+ hex/);
    expect(() => buildBatchScript([], NONCE)).to.throw(/empty batch/);
  });

  it('gives back each stdout byte for byte: no trailing newline, several, binary, empty', () => {
    const binary = Buffer.from([0, 1, 2, 255, 10, 13, 10]);
    const stdout = Buffer.concat([out('no newline', 1, 0), out('two\n\n', 2, 0), out(binary, 3, 0), out('', 4, 0)]);
    const stderr = err('', 1) + err('', 2) + err('', 3) + err('', 4);
    const results = parseBatchOutput(stdout, stderr, NONCE, 4);
    expect(results.map((r) => r.stdout.toString('latin1'))).to.deep.equal(['no newline', 'two\n\n', binary.toString('latin1'), '']);
    expect(results.map((r) => r.exitCode)).to.deep.equal([0, 0, 0, 0]);
    expect(results.map((r) => r.stderr)).to.deep.equal(['', '', '', '']);
  });

  it('keeps each exit code and stderr with its own command', () => {
    const stdout = Buffer.concat([out('', 1, 1), out('1717000000000', 2, 0), out('', 3, 255)]);
    const stderr = err('run-as: package not debuggable: com.example.app', 1) + err('', 2) + err('cat: x: No such file or directory\nsecond line', 3);
    const results = parseBatchOutput(stdout, stderr, NONCE, 3);
    expect(results.map((r) => r.exitCode)).to.deep.equal([1, 0, 255]);
    expect(results[0]!.stderr).to.equal('run-as: package not debuggable: com.example.app');
    expect(results[1]!.stdout.toString()).to.equal('1717000000000');
    expect(results[2]!.stderr).to.equal('cat: x: No such file or directory\nsecond line');
  });

  it('is not fooled by output holding marker text: another nonce, a later index, the script itself', () => {
    const script = buildBatchScript([['ps', '-A', '-o', 'ARGS'], ['true']], NONCE);
    const hostile1 = `__DV_B_${OTHER}_1_0\n\n__DV_B_${OTHER}_2_0\n${script}\n__DV_B_${NONCE}_1_x\n`;
    const hostile2 = `__DV_B_${NONCE}_1\n`; // the stderr marker's text, on stdout
    const stdout = Buffer.concat([out(hostile1, 1, 0), out(hostile2, 2, 3)]);
    const stderr = err(`\n__DV_B_${OTHER}_1\n__DV_B_${NONCE}_1_0`, 1) + err('', 2);
    const results = parseBatchOutput(stdout, stderr, NONCE, 2);
    expect(results[0]!.stdout.toString()).to.equal(hostile1);
    expect(results[0]!.stderr).to.equal(`\n__DV_B_${OTHER}_1\n__DV_B_${NONCE}_1_0`);
    expect(results[1]!.stdout.toString()).to.equal(hostile2);
    expect(results[1]!.exitCode).to.equal(3);
  });

  it('reads stderr a transport trimmed at both ends (no newline before the first marker or after the last)', () => {
    const stdout = Buffer.concat([out('a', 1, 0), out('b', 2, 2)]);
    const stderr = (err('', 1) + err('oops', 2)).trim();
    const results = parseBatchOutput(stdout, stderr, NONCE, 2);
    expect(results.map((r) => [r.stdout.toString(), r.stderr, r.exitCode])).to.deep.equal([['a', '', 0], ['b', 'oops', 2]]);
  });

  it('throws when the invocation ended before a command did (a marker is missing)', () => {
    const stdout = Buffer.concat([out('a', 1, 0), Buffer.from('partial output of command 2')]);
    expect(() => parseBatchOutput(stdout, err('', 1), NONCE, 2)).to.throw(DeviceCommandError, /before the end of command 2/);
    expect(() => parseBatchOutput(out('a', 1, 0), '', NONCE, 1)).to.throw(DeviceCommandError, /no marker on stderr/);
  });

  /** A device that answers the one script it is sent with a given stdout and stderr (no adb involved). */
  function scripted(answer: (line: string) => ShellResult): AndroidDevice & { sent: string[] } {
    const sent: string[] = [];
    const unsupported = (): never => {
      throw new Error('not used');
    };
    return {
      serial: 'scripted',
      sent,
      shell: (command) => {
        const line = typeof command === 'string' ? command : command.join(' ');
        sent.push(line);
        return Promise.resolve(answer(line));
      },
      shellText: unsupported,
      execOut: unsupported,
      pull: unsupported,
      push: unsupported,
      streamShell: unsupported,
      reverse: unsupported,
      listReverses: unsupported,
      removeReverse: unsupported,
      getProperties: unsupported,
      close: () => Promise.resolve(),
    };
  }

  it('sends a batch of one as the command itself, and a longer one as one script', async () => {
    const device = scripted(() => ({ stdout: Buffer.concat([out('x', 1, 0), out('y', 2, 2)]), stderr: err('', 1) + err('e', 2), exitCode: 0 }));
    const one = await shellBatch(device, [['date', '+%s%3N']], { nonce: NONCE });
    expect(device.sent[0]).to.equal('date +%s%3N');
    expect(one).to.have.length(1);
    const two = await shellBatch(device, [['true'], ['false']], { nonce: NONCE });
    expect(device.sent[1]).to.equal(buildBatchScript([['true'], ['false']], NONCE));
    expect(two.map((r) => [r.stdout.toString(), r.stderr, r.exitCode])).to.deep.equal([['x', '', 0], ['y', 'e', 2]]);
  });

  it('runReads hands each read its own results, in order, from one invocation', async () => {
    const device = scripted(() => ({ stdout: Buffer.concat([out('1', 1, 0), out('2', 2, 0), out('3', 3, 1)]), stderr: err('', 1) + err('', 2) + err('no', 3), exitCode: 0 }));
    const a: ShellRead<string> = { commands: [['a'], ['b']], parse: (rs) => rs.map((r) => r.stdout.toString()).join('+') };
    const b: ShellRead<number> = { commands: [['c']], parse: (rs) => Promise.resolve(rs[0]!.exitCode) };
    const [x, y] = await runReads(device, [a, b] as const, { nonce: NONCE });
    expect(device.sent).to.have.length(1);
    expect(x).to.equal('1+2');
    expect(y).to.equal(1);
  });

  it('a RecordingDevice records each command of a batch on its own, with its place in the batch', async () => {
    const device = scripted(() => ({ stdout: Buffer.concat([out('1717000000000', 1, 0), out('', 2, 1)]), stderr: err('', 1) + err('cat: f: No such file or directory', 2), exitCode: 0 }));
    let t = 0;
    const recorder = new RecordingDevice(device, { clock: { now: () => 1000, monotonic: () => (t += 5) } });
    const results = await shellBatch(recorder, [['date', '+%s%3N'], ['run-as', 'p', 'cat', 'f']], { nonce: NONCE });
    expect(results.map((r) => r.exitCode)).to.deep.equal([0, 1]);
    const records = recorder.takeFinished();
    expect(records.map((r) => [r.argv, r.exitCode, r.output, r.batch])).to.deep.equal([
      [['date', '+%s%3N'], 0, '1717000000000', { index: 1, size: 2 }],
      [['run-as', 'p', 'cat', 'f'], 1, 'cat: f: No such file or directory', { index: 2, size: 2 }],
    ]);
    expect(device.sent).to.have.length(1);
  });

  it('each command of a batch becomes a read event of its own in the history, saying it was batched', async () => {
    const device = scripted(() => ({ stdout: Buffer.concat([out('1717000000000', 1, 0), out('', 2, 1)]), stderr: err('', 1) + err('cat: f: No such file or directory', 2), exitCode: 0 }));
    const recorder = new RecordingDevice<ActionLabel>(device, { clock: { now: () => 1000, monotonic: () => 0 } });
    await shellBatch(recorder, [['date', '+%s%3N'], ['run-as', 'p', 'cat', 'f']], { nonce: NONCE });
    const events = commandEvents(recorder.takeFinished()).map((e) => e.event);
    expect(events.map((e) => [e.action, e.argv, e.exitCode, e.detail])).to.deep.equal([
      ['read', ['date', '+%s%3N'], 0, 'command 1 of 2 sent in one shell invocation'],
      ['read', ['run-as', 'p', 'cat', 'f'], 1, 'command 2 of 2 sent in one shell invocation'],
    ]);
  });

  it('a RecordingDevice records the failure on every command of a batch that did not finish', async () => {
    const device = scripted(() => ({ stdout: out('a', 1, 0), stderr: err('', 1), exitCode: 0 }));
    const recorder = new RecordingDevice(device, { clock: { now: () => 0, monotonic: () => 0 } });
    let failed: unknown;
    await shellBatch(recorder, [['a'], ['b']], { nonce: NONCE }).catch((e: unknown) => (failed = e));
    expect(failed).to.be.instanceOf(DeviceCommandError);
    const records = recorder.takeFinished();
    expect(records).to.have.length(2);
    expect(records.every((r) => r.error !== undefined && /before the end of command 2/.test(r.error))).to.equal(true);
  });
  it('a sequence runs each command only after the one before it exited 0, and its results end at the first failure', () => {
    const script = buildBatchScript([['a'], ['b'], ['c']], NONCE, true);
    expect(script.split('\n').filter((l) => l.endsWith('|| exit 0'))).to.have.length(2);
    expect(script.trimEnd().endsWith('|| exit 0')).to.equal(false);
    const stopped = parseBatchOutput(Buffer.concat([out('', 1, 0), out('', 2, 3)]), err('', 1) + err('no', 2), NONCE, 3, true);
    expect(stopped.map((r) => r.exitCode)).to.deep.equal([0, 3]);
    // Without stopAfterFailure a missing later marker means the invocation ended part-way.
    expect(() => parseBatchOutput(Buffer.concat([out('', 1, 0), out('', 2, 3)]), err('', 1) + err('no', 2), NONCE, 3)).to.throw(DeviceCommandError);
    // A sequence whose commands all succeeded must hold every marker.
    expect(() => parseBatchOutput(Buffer.concat([out('', 1, 0), out('', 2, 0)]), err('', 1) + err('', 2), NONCE, 3, true)).to.throw(/before the end of command 3/);
  });

  it('a sequence with one flag per command stops only after a failing command whose flag is true', () => {
    const script = buildBatchScript([['a'], ['b'], ['c'], ['d']], NONCE, [true, true, false, false]);
    // After a and b (flagged) the script exits on a failure; after c it goes on; d is last.
    expect(script.split('\n').filter((l) => l.endsWith('|| exit 0')).map((l) => /""_(\d)_\$__dv_r"/.exec(l)?.[1])).to.deep.equal(['1', '2']);
    // c failed and d still ran: four results.
    const wentOn = parseBatchOutput(Buffer.concat([out('', 1, 0), out('', 2, 0), out('', 3, 1), out('x', 4, 0)]), err('', 1) + err('', 2) + err('no such file', 3) + err('', 4), NONCE, 4, [true, true, false, false]);
    expect(wentOn.map((r) => [r.exitCode, r.stdout.toString()])).to.deep.equal([
      [0, ''],
      [0, ''],
      [1, ''],
      [0, 'x'],
    ]);
    // b failed: the results end with it.
    const stopped = parseBatchOutput(Buffer.concat([out('', 1, 0), out('', 2, 2)]), err('', 1) + err('boom', 2), NONCE, 4, [true, true, false, false]);
    expect(stopped.map((r) => r.exitCode)).to.deep.equal([0, 2]);
  });

  it('a RecordingDevice sends a step with goOnAfterFailure without the stop after it', async () => {
    const device = scripted(() => ({ stdout: Buffer.concat([out('', 1, 0), out('', 2, 1), out('rows', 3, 0)]), stderr: err('', 1) + err('cat: w: No such file or directory', 2) + err('', 3), exitCode: 0 }));
    const recorder = new RecordingDevice<ActionLabel>(device, { clock: { now: () => 1000, monotonic: () => 0 } });
    const results = await recorder.shellSequence(
      [
        { command: ['run-as', 'p', 'kill', '-9', '42'], context: { action: 'kill' } },
        { command: ['run-as', 'p', 'cat', 'w'], context: { readOnly: true }, goOnAfterFailure: true },
        { command: ['run-as', 'p', 'cat', 'db'], context: { readOnly: true }, goOnAfterFailure: true },
      ],
      { nonce: NONCE },
    );
    expect(results.map((r) => r.exitCode)).to.deep.equal([0, 1, 0]);
    expect(device.sent).to.deep.equal([buildBatchScript([['run-as', 'p', 'kill', '-9', '42'], ['run-as', 'p', 'cat', 'w'], ['run-as', 'p', 'cat', 'db']], NONCE, [true, false, false])]);
  });

  it('a RecordingDevice records each command of a sequence with the context and start time given with it, and none that did not run', async () => {
    const device = scripted(() => ({ stdout: Buffer.concat([out('', 1, 0), out('', 2, 1)]), stderr: err('', 1) + err('Error: boom', 2), exitCode: 0 }));
    const recorder = new RecordingDevice<ActionLabel>(device, { clock: { now: () => 1000, monotonic: () => 0 }, context: () => ({ action: 'outer' }) });
    const results = await recorder.shellSequence(
      [
        { command: ['am', 'force-stop', 'p'], context: { action: 'force-stop' } },
        { command: ['cmd', 'jobscheduler', 'run', '-f', 'p', '1'], context: { action: 'force-run', run: 4 }, startedAt: 5000 },
        { command: ['am', 'start', '-n', 'p/.A'] },
      ],
      { nonce: NONCE },
    );
    expect(results.map((r) => r.exitCode)).to.deep.equal([0, 1]);
    expect(device.sent).to.deep.equal([buildBatchScript([['am', 'force-stop', 'p'], ['cmd', 'jobscheduler', 'run', '-f', 'p', '1'], ['am', 'start', '-n', 'p/.A']], NONCE, true)]);
    const events = commandEvents(recorder.takeFinished()).map((e) => e.event);
    expect(events.map((e) => [e.action, e.argv, e.exitCode, e.run, e.t, e.detail])).to.deep.equal([
      ['force-stop', ['am', 'force-stop', 'p'], 0, undefined, 1000, 'command 1 of 3 sent in one shell invocation'],
      ['force-run', ['cmd', 'jobscheduler', 'run', '-f', 'p', '1'], 1, 4, 5000, 'command 2 of 3 sent in one shell invocation'],
    ]);
  });
});
