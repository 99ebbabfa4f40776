/**
 * AdbDevice (src/device) against a virtual device through the real adb server and adbkit:
 * exit codes and stderr over shell v2, the marker fallback of the legacy shell, binary-safe
 * exec-out, pull/push, streaming, reverse rules, and the errors at the edge.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { AdbDevice } from '../../src/device/adb-device.js';
import { DedupVerifyError, DeviceCommandError, TimeoutError } from '../../src/errors.js';
import { freePort, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('AdbDevice against a virtual device', () => {
  const devices = testDevices();
  let adb: AdbServer;
  let dev: RunningVirtualDevice;
  let v2: AdbDevice;
  let legacy: AdbDevice;

  before(async () => {
    adb = await startAdbServer();
    dev = await devices.start();
    await adb.connect(dev.serial);
    v2 = await AdbDevice.open({ serial: dev.serial, port: adb.port });
    legacy = await AdbDevice.open({ serial: dev.serial, port: adb.port, shellMode: 'legacy' });
  });

  after(async () => {
    await v2?.close();
    await legacy?.close();
    await adb?.stop();
    await devices.stopAll();
  });

  it('reads the transport features from the adb server and picks shell v2', async () => {
    expect([...(await v2.transportFeatures())].sort()).to.deep.equal(['fixed_push_mkdir', 'ls_v2', 'shell_v2', 'stat_v2']);
    expect(await v2.usesShellV2()).to.equal(true);
    expect(await legacy.usesShellV2()).to.equal(false);
  });

  for (const [mode, device] of [
    ['shell v2', () => v2],
    ['legacy shell + exit marker', () => legacy],
  ] as const) {
    describe(mode, () => {
      it('returns the exit code and stderr apart from stdout', async () => {
        const r = await device().shell('echo out; echo err 1>&2; exit 7');
        expect(r.exitCode).to.equal(7);
        expect(r.stdout.toString()).to.equal('out\n');
        expect(r.stderr).to.equal('err\n');
      });

      it("reports a missing command with 127 and the device shell's message", async () => {
        const r = await device().shell(['no_such_cmd_dv']);
        expect(r.exitCode).to.equal(127);
        expect(r.stdout.length).to.equal(0);
        expect(r.stderr).to.match(/no_such_cmd_dv: inaccessible or not found/);
      });

      it('feeds binary stdin and returns binary stdout byte for byte', async () => {
        const bytes = Buffer.concat([randomBytes(70_000), Buffer.from('\n\r\n\0__DV_EXIT_', 'latin1')]);
        const r = await device().shell(['cat'], { stdin: bytes });
        expect(r.exitCode).to.equal(0);
        expect(Buffer.compare(r.stdout, bytes)).to.equal(0);
      });

      it('quotes argv so that config values reach the command literally', async () => {
        const value = `it's "quoted" $(id) \`id\`; echo injected * \\ end`;
        const r = await device().shell(['echo', value]);
        expect(r.stdout.toString()).to.equal(`${value}\n`);
        expect(r.exitCode).to.equal(0);
      });

      it('shellText throws DeviceCommandError on a non-zero exit unless allowed', async () => {
        const error = await rejection(device().shellText('echo nope 1>&2; exit 3'));
        expect(error).to.be.instanceOf(DeviceCommandError).with.property('exitCode', 3);
        expect(error.message).to.equal(`Device command \`adb -s ${dev.serial} shell echo nope 1>&2; exit 3\` exited with 3: nope.`);
        expect(await device().shellText('echo fine; exit 3', { allowExitCodes: [3] })).to.equal('fine\n');
      });
    });
  }

  it('execOut returns binary data byte-identical', async () => {
    const bytes = randomBytes(300_000);
    await v2.push(bytes, '/data/local/tmp/dv-binary.bin');
    const out = await v2.execOut(['cat', '/data/local/tmp/dv-binary.bin']);
    expect(Buffer.compare(out, bytes)).to.equal(0);
  });

  it('push then pull round-trips, and a missing file is a DeviceCommandError', async () => {
    const bytes = randomBytes(200_000);
    await v2.push(bytes, '/data/local/tmp/dv-roundtrip.bin', 0o600);
    expect(Buffer.compare(await v2.pull('/data/local/tmp/dv-roundtrip.bin'), bytes)).to.equal(0);
    const error = await rejection(v2.pull('/data/local/tmp/dv-no-such-file'));
    expect(error).to.be.instanceOf(DeviceCommandError);
    expect(error.message).to.match(/^adb pull \/data\/local\/tmp\/dv-no-such-file failed on .*No such file or directory/);
  });

  it('stops a command past its deadline with TimeoutError', async () => {
    const started = Date.now();
    const error = await rejection(v2.shell('sleep 10', { timeoutMs: 300 }));
    expect(error).to.be.instanceOf(TimeoutError);
    expect(Date.now() - started).to.be.lessThan(5000);
  });

  it('streams output line by line until the command exits or is stopped', async () => {
    const lines: string[] = [];
    const finished = await v2.streamShell('echo one; echo two', { onLine: (l) => lines.push(l) });
    expect(await finished.done).to.deep.equal({ reason: 'exited', exitCode: 0 });
    expect(lines).to.deep.equal(['one', 'two']);

    const more: string[] = [];
    let resolveFirst!: () => void;
    const first = new Promise<void>((resolve) => {
      resolveFirst = resolve;
    });
    const running = await v2.streamShell('echo ready; sleep 30', {
      onLine: (l) => {
        more.push(l);
        resolveFirst();
      },
    });
    await first;
    await running.stop();
    expect(await running.done).to.deep.equal({ reason: 'stopped', exitCode: undefined });
    expect(more).to.deep.equal(['ready']);
  });

  it('adds, lists and removes reverse rules', async () => {
    const hostPort = await freePort();
    await v2.reverse(18765, hostPort);
    expect(await v2.listReverses()).to.deep.include({ remote: 'tcp:18765', local: `tcp:${hostPort}` });
    await v2.removeReverse(18765);
    expect((await v2.listReverses()).some((r) => r.remote === 'tcp:18765')).to.equal(false);
    const error = await rejection(v2.removeReverse(18765));
    expect(error).to.be.instanceOf(DeviceCommandError);
    expect(error.message).to.match(/listener 'tcp:18765' not found/);
  });

  it('names the connected devices when the serial is unknown', async () => {
    const error = await rejection(AdbDevice.open({ serial: 'emulator-5999', port: adb.port }));
    expect(error).to.be.instanceOf(DedupVerifyError).with.property('code', 'DV_DEVICE_NOT_FOUND');
    expect(error.message).to.equal(`No device "emulator-5999" (connected: ${dev.serial}). Is the emulator running? Try \`adb devices\`.`);
  });

  it('reports a missing adb server as DV_ADB_SERVER without starting one', async () => {
    const port = await freePort();
    const error = await rejection(AdbDevice.open({ serial: dev.serial, port }));
    expect(error).to.be.instanceOf(DedupVerifyError).with.property('code', 'DV_ADB_SERVER');
    expect(error.message).to.equal(
      `No adb server on 127.0.0.1:${port} (connection refused). Start one with \`adb -P ${port} start-server\`, or point --adb-host/--adb-port at a running one.`,
    );
  });

  it('reports DV_DEVICE_GONE when the device disappears mid-command', async () => {
    const doomed = await devices.start();
    await adb.connect(doomed.serial);
    const device = await AdbDevice.open({ serial: doomed.serial, port: adb.port });
    const pending = rejection(device.shell('sleep 30', { timeoutMs: 20_000 }));
    await device.shell('true'); // the sleep's stream is open by now
    await doomed.close();
    const error = await pending;
    expect(error).to.be.instanceOf(DedupVerifyError).with.property('code', 'DV_DEVICE_GONE');
    await device.close();
  });
});
