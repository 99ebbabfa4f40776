import { expect } from 'chai';
import { formatPosixDate, readDeviceTimeMs, restoreClock, restoredTimeMs, saveClock, setDeviceTime, shiftDeviceTime } from '../../../src/android/clock.js';
import { DeviceCommandError } from '../../../src/errors.js';
import { FakeDevice } from './fake-device.js';

/** A device whose clock is `offset` ahead of a fake host clock; commands as Android answers them. */
function clockDevice(options: { root?: boolean; alarmMissing?: boolean; autoTime?: string | null } = {}) {
  let hostNow = 1_000_000;
  let offset = 1717000000000 - hostNow;
  let autoTime: string | null = options.autoTime === undefined ? '1' : options.autoTime;
  const host = { nowMs: () => hostNow };
  const device = new FakeDevice((argv) => {
    const line = argv.join(' ');
    if (line === 'date +%s%3N') return { stdout: `${hostNow + offset}\n` };
    if (line === 'settings get global auto_time') return { stdout: `${autoTime ?? 'null'}\n` };
    if (line.startsWith('settings put global auto_time ')) {
      autoTime = argv[4] ?? null;
      return {};
    }
    if (line === 'settings delete global auto_time') {
      autoTime = null;
      return { stdout: 'Deleted 1 rows\n' };
    }
    if (argv[0] === 'cmd' && argv[1] === 'alarm' && argv[2] === 'set-time') {
      if (options.alarmMissing) return { exitCode: 255, stderr: 'Unknown command: set-time\n' };
      offset = Number(argv[3]) - hostNow;
      return {};
    }
    if (line === 'id -u') return { stdout: options.root ? '0\n' : '2000\n' };
    if (argv[0] === 'date' && argv[1] === '-u') {
      if (!options.root) return { exitCode: 1, stderr: 'date: cannot set date: Operation not permitted\n' };
      const m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d{4})\.(\d\d)$/.exec(argv[2] ?? '');
      if (m === null) return { exitCode: 1, stderr: 'date: bad date\n' };
      offset = Date.UTC(Number(m[5]), Number(m[1]) - 1, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[6])) - hostNow;
      return { stdout: 'Wed Jun  5 00:00:00 UTC 2024\n' };
    }
    return { exitCode: 127, stderr: `unexpected ${line}` };
  });
  return { device, host, advanceHost: (ms: number) => (hostNow += ms), autoTime: () => autoTime, deviceNow: () => hostNow + offset };
}

describe('device clock', () => {
  it('reads epoch ms, falling back to seconds when %N is not supported', async () => {
    expect(await readDeviceTimeMs(clockDevice().device)).to.equal(1717000000000);
    const old = new FakeDevice((argv) => (argv[1] === '+%s%3N' ? { stdout: '1717000000%3N\n' } : { stdout: '1717000000\n' }));
    expect(await readDeviceTimeMs(old)).to.equal(1717000000000);
  });

  it('formats the POSIX date form in UTC', () => {
    expect(formatPosixDate(Date.UTC(2024, 5, 5, 7, 8, 9, 999))).to.equal('060507082024.09');
  });

  it('restores to saved time + host time elapsed, then auto_time', async () => {
    const c = clockDevice();
    const snapshot = await saveClock(c.device, c.host);
    expect(snapshot).to.deep.equal({ deviceTimeMs: 1717000000000, hostTimeMs: 1_000_000, autoTime: '1' });
    await shiftDeviceTime(c.device, 2 * 86400_000);
    expect(c.autoTime()).to.equal('0');
    expect(c.deviceNow()).to.equal(1717000000000 + 2 * 86400_000);
    c.advanceHost(90_000);
    await restoreClock(c.device, snapshot, c.host);
    expect(c.deviceNow()).to.equal(1717000090000);
    expect(c.autoTime()).to.equal('1');
    expect(restoredTimeMs(snapshot, 1_000_000 - 5)).to.equal(1717000000000);
  });

  it('restores an unset auto_time by deleting it', async () => {
    const c = clockDevice({ autoTime: null });
    const snapshot = await saveClock(c.device, c.host);
    await shiftDeviceTime(c.device, 1000);
    await restoreClock(c.device, snapshot, c.host);
    expect(c.autoTime()).to.equal(null);
    expect(c.device.commandLines()).to.include('settings delete global auto_time');
  });

  it('falls back to date as root when cmd alarm set-time fails', async () => {
    const c = clockDevice({ root: true, alarmMissing: true });
    expect(await setDeviceTime(c.device, Date.UTC(2024, 5, 5, 0, 0, 30))).to.equal('root-date');
    expect(c.deviceNow()).to.equal(Date.UTC(2024, 5, 5, 0, 0, 30));
  });

  it('explains the fix when the clock cannot be set', async () => {
    const c = clockDevice({ root: false, alarmMissing: true });
    try {
      await setDeviceTime(c.device, 1717000000000);
      expect.fail('setDeviceTime passed');
    } catch (e) {
      expect(e).to.be.instanceOf(DeviceCommandError);
      expect((e as Error).message).to.equal(
        'Could not set the clock of fake-1: `cmd alarm set-time 1717000000000` exited 255 (Unknown command: set-time) and adbd is not root. ' +
          'Use an emulator image that allows `adb root` (a "Google APIs" image), run `adb root`, and try again.',
      );
    }
  });
});
