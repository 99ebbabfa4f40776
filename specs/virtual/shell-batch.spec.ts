/**
 * Several read-only commands in one shell invocation (src/device/shell-batch.ts) through the real
 * adb server, adbkit and a virtual device, over shell v2 and over the legacy shell with its exit
 * marker: each command's stdout byte for byte, its stderr and its exit code, whatever the others
 * printed; one service opened for the whole batch.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { AdbDevice } from '../../src/device/adb-device.js';
import { buildBatchScript, shellBatch } from '../../src/device/shell-batch.js';
import { virtualLab } from '../support/lab.js';
import { watchServices, type RunningVirtualDevice } from '../support/virtual-devices.js';

describe('shell batch against a virtual device', () => {
  const lab = virtualLab('dv-shell-batch-');
  let dev: RunningVirtualDevice;
  let v2: AdbDevice;
  let legacy: AdbDevice;
  const binary = randomBytes(70_000);

  before(async () => {
    dev = await lab.devices.start();
    await lab.adb.connect(dev.serial);
    v2 = await AdbDevice.open({ serial: dev.serial, port: lab.adb.port });
    legacy = await AdbDevice.open({ serial: dev.serial, port: lab.adb.port, shellMode: 'legacy' });
    await v2.push(binary, '/data/local/tmp/batch-binary', 0o644);
  });

  after(async () => {
    await v2?.close();
    await legacy?.close();
  });

  for (const [mode, device] of [
    ['shell v2', () => v2],
    ['legacy shell + exit marker', () => legacy],
  ] as const) {
    describe(mode, () => {
      it('gives back each command apart: no trailing newline, binary, stderr, exit codes, stdin closed', async () => {
        const results = await shellBatch(device(), [
          ['printf', 'no newline'],
          ['cat', '/data/local/tmp/batch-binary'],
          'echo out; echo err 1>&2; exit 7',
          ['cat', '/data/local/tmp/does-not-exist'],
          'printf "two\\n\\n"',
          ['cat'],
          ['true'],
        ]);
        expect(results).to.have.length(7);
        expect(results[0]).to.deep.include({ exitCode: 0, stderr: '' });
        expect(results[0]!.stdout.toString()).to.equal('no newline');
        expect(results[1]!.exitCode).to.equal(0);
        expect(results[1]!.stdout.equals(binary)).to.equal(true);
        expect(results[2]).to.deep.include({ exitCode: 7, stderr: 'err\n' });
        expect(results[2]!.stdout.toString()).to.equal('out\n');
        expect(results[3]!.exitCode).to.equal(1);
        expect(results[3]!.stderr).to.match(/No such file or directory\n$/);
        expect(results[3]!.stdout.length).to.equal(0);
        expect(results[4]!.stdout.toString()).to.equal('two\n\n');
        expect(results[5]).to.deep.include({ exitCode: 0, stderr: '' });
        expect(results[5]!.stdout.length).to.equal(0);
        expect(results[6]!.exitCode).to.equal(0);
      });

      it('is not fooled by a command that prints the batch script or marker text', async () => {
        const nonce = 'abcdefabcdefabcdefabcdefabcdef12';
        const inner = [['echo', `__DV_B_${nonce}_1_0`], ['true']] as const;
        const script = buildBatchScript(inner, nonce);
        const results = await shellBatch(device(), [['printf', '%s', script], ['echo', `__DV_B_${nonce}_2`], 'echo "__DV_B_""x""_1_0" >&2; exit 4'], { nonce });
        expect(results[0]!.stdout.toString()).to.equal(script);
        expect(results[1]!.stdout.toString()).to.equal(`__DV_B_${nonce}_2\n`);
        expect(results[2]).to.deep.include({ exitCode: 4, stderr: '__DV_B_x_1_0\n' });
      });

      it('a sequence stops at its first failing command, each result apart', async () => {
        const ran = await shellBatch(device(), [['echo', 'one'], 'echo two; echo err >&2; exit 3', ['touch', '/data/local/tmp/seq-not-run']], { stopAfterFailure: true });
        expect(ran.map((r) => [r.stdout.toString(), r.stderr, r.exitCode])).to.deep.equal([
          ['one\n', '', 0],
          ['two\n', 'err\n', 3],
        ]);
        const after = await device().shell(['ls', '/data/local/tmp/seq-not-run']);
        expect(after.exitCode).to.equal(1);
        const all = await shellBatch(device(), [['true'], ['echo', 'last']], { stopAfterFailure: true });
        expect(all.map((r) => [r.stdout.toString(), r.exitCode])).to.deep.equal([
          ['', 0],
          ['last\n', 0],
        ]);
      });

      it('a sequence goes on after a failing command whose flag is false, and stops after one whose flag is true', async () => {
        const ran = await shellBatch(device(), [['true'], ['cat', '/data/local/tmp/seq-no-such-file'], ['echo', 'read after'], 'exit 5', ['touch', '/data/local/tmp/seq-not-run-2']], {
          stopAfterFailure: [true, false, true, true, true],
        });
        expect(ran.map((r) => [r.stdout.toString(), r.exitCode])).to.deep.equal([
          ['', 0],
          ['', 1],
          ['read after\n', 0],
          ['', 5],
        ]);
        expect(ran[1]!.stderr).to.match(/No such file or directory/);
        expect((await device().shell(['ls', '/data/local/tmp/seq-not-run-2'])).exitCode).to.equal(1);
      });

      it('keeps going after a command that exits the shell', async () => {
        const results = await shellBatch(device(), ['exit 9', ['echo', 'after']]);
        expect(results[0]!.exitCode).to.equal(9);
        expect(results[1]!.stdout.toString()).to.equal('after\n');
      });
    });
  }

  it('opens one service for the whole batch', async () => {
    const services = watchServices(dev);
    try {
      await shellBatch(v2, [['date', '+%s%3N'], ['getprop', 'ro.build.version.sdk'], ['id', '-u']]);
    } finally {
      services.stop();
    }
    expect(services.opened).to.have.length(1);
    expect(services.opened[0]).to.match(/^shell,v2,raw:\( date \+%s%3N\n\)/);
  });
});
