/**
 * The real adb (Debian 29.0.6) and adbkit against a virtual device: connect, list, features,
 * shell v2 (stdout/stderr/exit code/stdin), the legacy shell, exec-out of binary data.
 */
import { expect } from 'chai';
import { readAll, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

describe('virtual adbd: connect and shell', () => {
  const devices = testDevices();
  let adb: AdbServer;
  let dev: RunningVirtualDevice;

  const sh = (...args: string[]): ReturnType<AdbServer['adb']> => adb.adb(['-s', dev.serial, 'shell', ...args]);

  before(async () => {
    adb = await startAdbServer();
    dev = await devices.start();
    await adb.connect(dev.serial);
  });

  after(async () => {
    await adb?.stop();
    await devices.stopAll();
  });

  it('is listed by `adb devices -l` as a device with its product properties', async () => {
    const r = await adb.adb(['devices', '-l']);
    expect(r.stdout.toString()).to.match(
      new RegExp(`^${dev.serial.replace(/\./g, '\\.')}\\s+device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:\\d+$`, 'm'),
    );
    const listed = await adb.client.listDevices();
    expect(listed).to.deep.include({ id: dev.serial, type: 'device' });
  });

  it('advertises exactly the features it implements', async () => {
    const r = await adb.adb(['-s', dev.serial, 'features']);
    expect(r.stdout.toString().trim().split('\n').sort()).to.deep.equal(['fixed_push_mkdir', 'ls_v2', 'shell_v2', 'stat_v2']);
  });

  it('`adb shell echo` prints the output and exits 0', async () => {
    const r = await sh('echo', 'hello');
    expect(r).to.deep.include({ code: 0, stderr: '' });
    expect(r.stdout.toString()).to.equal('hello\n');
  });

  it('carries the exit code and a separate stderr through shell v2', async () => {
    const r = await sh('echo out; echo err 1>&2; exit 7');
    expect(r.code).to.equal(7);
    expect(r.stdout.toString()).to.equal('out\n');
    expect(r.stderr).to.equal('err\n');
  });

  it('reports a missing command with status 127 and Android\'s message', async () => {
    const r = await sh('no_such_cmd_x');
    expect(r.code).to.equal(127);
    expect(r.stderr).to.match(/no_such_cmd_x: inaccessible or not found/);
  });

  it('feeds stdin through shell v2 and closes it at EOF', async () => {
    const r = await adb.adb(['-s', dev.serial, 'shell', 'cat'], { input: 'line one\nline two\n' });
    expect(r.code).to.equal(0);
    expect(r.stdout.toString()).to.equal('line one\nline two\n');
  });

  it('a pty shell turns newlines into CRLF, as a terminal does', async () => {
    const r = await sh('-t', '-t', 'echo', 'tty');
    expect(r.stdout.toString()).to.equal('tty\r\n');
  });

  it('the legacy shell (`adb shell -x`) merges stderr into the stream and returns no exit code', async () => {
    const r = await sh('-x', 'echo to-err 1>&2; exit 3');
    expect(r.code).to.equal(0);
    expect(r.stdout.toString()).to.equal('to-err\n');
  });

  it('`adb exec-out` returns binary data byte for byte', async () => {
    const bytes = Buffer.alloc(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
    bytes.write('\n\r\n\0', 1000, 'latin1');
    const w = await dev.device.fs.openWrite('/data/local/tmp/binary.bin', 2000, { mode: 0o644, createParents: false });
    await w.write(bytes);
    await w.close();
    const r = await adb.adb(['-s', dev.serial, 'exec-out', 'cat', '/data/local/tmp/binary.bin']);
    expect(r.code).to.equal(0);
    expect(Buffer.compare(r.stdout, bytes)).to.equal(0);
  });

  it('adbkit shell() uses the plain shell service and reads its output to the end', async () => {
    const stream = await adb.client.getDevice(dev.serial).shell('echo from-adbkit; echo e 1>&2');
    const out = await readAll(stream);
    expect(out.toString()).to.equal('from-adbkit\ne\n');
  });
});
