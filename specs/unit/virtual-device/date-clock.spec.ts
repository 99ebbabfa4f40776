import { expect } from 'chai';
import { createTestDevice, run, START_MS, type TestDevice } from './shell-harness.js';
import type { Shell } from '../../../src/virtual-device/shell/shell.js';
import { ManualHostClock, VirtualClock, localTime } from '../../../src/virtual-device/clock.js';
import { parseDate } from '../../../src/virtual-device/shell/commands/date.js';

describe('virtual device clock', () => {
  it('is host time plus an offset that set() moves, without moving elapsedRealtime', () => {
    const host = new ManualHostClock(1_000_000);
    const clock = new VirtualClock({ host, bootElapsedMs: 7000 });
    const changes: number[] = [];
    clock.onChange(({ nowMs }) => changes.push(nowMs));
    expect(clock.now()).to.equal(1_000_000);
    expect(clock.elapsedRealtime()).to.equal(7000);
    clock.set(5_000_000);
    expect(clock.now()).to.equal(5_000_000);
    expect(clock.offsetMs).to.equal(4_000_000);
    expect(clock.elapsedRealtime()).to.equal(7000);
    host.advance(1500);
    expect(clock.now()).to.equal(5_001_500);
    expect(clock.elapsedRealtime()).to.equal(8500);
    host.jumpWall(60_000);
    expect(clock.elapsedRealtime()).to.equal(8500);
    expect(changes).to.deep.equal([5_000_000]);
  });

  it('breaks times down in UTC and IANA zones', () => {
    const t = localTime(Date.UTC(2024, 0, 15, 12, 0, 0), 'UTC');
    expect([t.year, t.month, t.day, t.hour, t.weekday, t.yearDay, t.offsetMinutes, t.abbreviation]).to.deep.equal([2024, 1, 15, 12, 1, 14, 0, 'UTC']);
    const ny = localTime(Date.UTC(2024, 6, 1, 12, 0, 0), 'America/New_York');
    expect([ny.hour, ny.offsetMinutes]).to.deep.equal([8, -240]);
  });
});

describe('virtual device date', () => {
  let device: TestDevice;
  let shell: Shell;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ device, shell, dispose } = await createTestDevice());
  });
  afterEach(async () => {
    await dispose();
  });

  it('prints epoch milliseconds with +%s%3N', async () => {
    expect((await run(shell, 'date +%s%3N')).stdout).to.equal(`${START_MS}\n`);
    expect((await run(shell, 'date +%s')).stdout).to.equal(`${Math.floor(START_MS / 1000)}\n`);
    expect((await run(shell, 'date +%N')).stdout).to.equal('123000000\n');
  });

  it('follows the device clock when it moves', async () => {
    device.clock.set(Date.UTC(2030, 1, 3, 4, 5, 6));
    expect((await run(shell, 'date +%s')).stdout).to.equal(`${Date.UTC(2030, 1, 3, 4, 5, 6) / 1000}\n`);
  });

  it('uses toybox\'s default format and strftime conversions', async () => {
    expect((await run(shell, 'date')).stdout).to.equal('Wed May 29 16:26:40 UTC 2024\n');
    expect((await run(shell, "date '+%Y-%m-%dT%T%z %a %e %j %:z'")).stdout).to.equal('2024-05-29T16:26:40+0000 Wed 29 150 +00:00\n');
    expect((await run(shell, 'date -u +%H:%M')).stdout).to.equal('16:26\n');
  });

  it('renders the device time zone from persist.sys.timezone', async () => {
    device.props.set('persist.sys.timezone', 'America/Los_Angeles');
    expect((await run(shell, 'date +%H:%M%z')).stdout).to.equal('09:26-0700\n');
  });

  it('refuses to set the time as shell like toybox, still printing the requested time', async () => {
    const r = await run(shell, 'date 010203042025.05');
    expect(r.status).to.equal(1);
    expect(r.stderr).to.equal('date: cannot set date: Operation not permitted\n');
    expect(r.stdout).to.equal('Thu Jan  2 03:04:05 UTC 2025\n');
    expect(device.clock.offsetMs).to.equal(0);
    for (const cmd of ['date -s "2025-01-02 03:04:05"', 'date @1735787045']) {
      const s = await run(shell, cmd);
      expect(s.stderr, cmd).to.equal('date: cannot set date: Operation not permitted\n');
      expect(s.status, cmd).to.equal(1);
    }
  });

  it('sets the device clock as root', async () => {
    device.adbdIsRoot = true;
    const r = await run(shell, 'date @1735787045; date +%s');
    expect(r.status).to.equal(0);
    expect(r.stdout).to.equal('Thu Jan  2 03:04:05 UTC 2025\n1735787045\n');
    const pos = await run(shell, 'date 060708092026 >/dev/null; date +%F_%T');
    expect(pos.stdout).to.equal('2026-06-07_08:09:00\n');
  });

  it('converts dates with -d and rejects bad ones', async () => {
    expect((await run(shell, 'date -d "2024-02-29 12:00:00" +%s')).stdout).to.equal(`${Date.UTC(2024, 1, 29, 12) / 1000}\n`);
    expect((await run(shell, 'date -d @0 -u')).stdout).to.equal('Thu Jan  1 00:00:00 UTC 1970\n');
    const bad = await run(shell, 'date -d yesterday');
    expect(bad.stderr).to.equal('date: bad date yesterday\n');
    expect(bad.status).to.equal(1);
  });

  it('parses xparsedate formats relative to now', () => {
    const now = Date.UTC(2024, 4, 29, 16, 26, 40);
    expect(parseDate('12:34', now, 'UTC')?.epochMs).to.equal(Date.UTC(2024, 4, 29, 12, 34));
    expect(parseDate('2024-01-02T03:04:05Z', now, 'UTC')?.epochMs).to.equal(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(parseDate('2024-01-02 03:04:05 +0100', now, 'UTC')?.epochMs).to.equal(Date.UTC(2024, 0, 2, 2, 4, 5));
    expect(parseDate('01020304', now, 'UTC')?.epochMs).to.equal(Date.UTC(2024, 0, 2, 3, 4));
    expect(parseDate('0102030499', now, 'UTC')?.epochMs).to.equal(Date.UTC(1999, 0, 2, 3, 4));
    expect(parseDate('@1.5', now, 'UTC')).to.deep.equal({ epochMs: 1000, nanos: 500000000 });
    expect(parseDate('13020304', now, 'UTC')).to.equal(undefined);
  });
});
