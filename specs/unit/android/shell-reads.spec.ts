/**
 * Reads sent with other commands in one invocation and taken later (keepResults, parseKept): the
 * results answer a later read only when its commands are the ones sent; a read that asks to be
 * read again (a -wal changed while it was read) gets no answer from them. textRead fails as
 * shellText does.
 */
import { expect } from 'chai';
import { keepResults, parseKept, ReadAgain, settledRead, textRead, type ShellRead } from '../../../src/android/shell-reads.js';
import type { ShellResult } from '../../../src/device/android-device.js';
import { DeviceCommandError } from '../../../src/errors.js';

function result(stdout: string, exitCode = 0, stderr = ''): ShellResult {
  return { stdout: Buffer.from(stdout), stderr, exitCode };
}

const workdb: ShellRead<string> = { commands: [['run-as', 'p', 'cat', 'no_backup/androidx.work.workdb']], parse: ([r]) => r!.stdout.toString() };
const keys: ShellRead<number> = { commands: [['run-as', 'p', 'cat', 'databases/feed.db-wal'], ['run-as', 'p', 'cat', 'databases/feed.db']], parse: (rs) => rs.length };
const otherKeys: ShellRead<number> = { commands: [['run-as', 'p', 'cat', 'databases/other.db-wal'], ['run-as', 'p', 'cat', 'databases/other.db']], parse: (rs) => rs.length };

describe('reads kept from an invocation with other commands', () => {
  it('keeps the results only when every command of the reads ran', () => {
    expect(keepResults([workdb, keys], [result('w'), result('a')])).to.equal(undefined);
    expect(keepResults([workdb, keys], [result('w'), result('a'), result('b')])?.results).to.have.length(3);
  });

  it('answers a later read of the same commands, each read parsing its own share', async () => {
    const kept = keepResults([workdb, keys], [result('rows'), result('a'), result('b')])!;
    expect(await parseKept([workdb, keys] as const, kept)).to.deep.equal(['rows', 2]);
  });

  it('does not answer a read of other commands, or of the same commands in another order', async () => {
    const kept = keepResults([workdb, keys], [result('rows'), result('a'), result('b')])!;
    expect(await parseKept([workdb, otherKeys] as const, kept)).to.equal(undefined);
    expect(await parseKept([keys, workdb] as const, kept)).to.equal(undefined);
    expect(await parseKept([workdb] as const, kept)).to.equal(undefined);
  });

  it('does not answer a read that asks to be read again, and passes any other error on', async () => {
    const again: ShellRead<number> = { commands: keys.commands, parse: () => Promise.reject(new ReadAgain('the -wal changed')) };
    const broken: ShellRead<number> = { commands: keys.commands, parse: () => Promise.reject(new Error('unreadable')) };
    const kept = keepResults([workdb, keys], [result('rows'), result('a'), result('b')])!;
    expect(await parseKept([workdb, again] as const, kept)).to.equal(undefined);
    let thrown: unknown;
    await parseKept([workdb, broken] as const, kept).catch((e: unknown) => (thrown = e));
    expect((thrown as Error).message).to.equal('unreadable');
  });

  it('textRead gives the output of a command that exited 0 and fails on any other status, naming it', async () => {
    const read = textRead(['dumpsys', 'jobscheduler', 'p']);
    expect(read.commands).to.deep.equal([['dumpsys', 'jobscheduler', 'p']]);
    expect(await read.parse([result('JOB #1\n')])).to.equal('JOB #1\n');
    let thrown: unknown;
    try {
      await read.parse([result('', 1, "Can't find service: jobscheduler")]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).to.be.instanceOf(DeviceCommandError);
    expect((thrown as DeviceCommandError).message).to.equal("Device command `dumpsys jobscheduler p` exited with 1: Can't find service: jobscheduler.");
  });

  it('settledRead gives a failing read back as a value, so the reads sent with it are still parsed; a read asked again still is', async () => {
    const failing = settledRead(textRead(['pm', 'path', 'p']));
    expect(await failing.parse([result('', 1, 'no such package')])).to.deep.include({ status: 'rejected' });
    expect(await settledRead(textRead(['getprop', 'ro.build.version.sdk'])).parse([result('34\n')])).to.deep.equal({ status: 'fulfilled', value: '34\n' });
    const again = settledRead<number>({ commands: keys.commands, parse: () => Promise.reject(new ReadAgain('the -wal changed')) });
    let thrown: unknown;
    try {
      await again.parse([result('a'), result('b')]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).to.be.instanceOf(ReadAgain);
  });
});
