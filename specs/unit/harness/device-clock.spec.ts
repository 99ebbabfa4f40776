import { expect } from 'chai';
import { DeviceClock } from '../../../src/harness/device-clock.js';

describe('DeviceClock: the device time from the host clock and one offset', () => {
  const host = { ms: 1_000_000, now(): number { return this.ms; }, monotonic(): number { return this.ms; } };

  it('knows nothing before its first measurement, and wants one', () => {
    const clock = new DeviceClock(host);
    expect(clock.known).to.equal(false);
    expect(clock.now()).to.equal(undefined);
    expect(clock.wantsReading).to.equal(true);
  });

  it('takes the device reading at the middle of the host times around it, then follows the host clock', () => {
    const clock = new DeviceClock(host);
    clock.measured(5_000_000, 1_000_000, 1_000_200);
    expect(clock.wantsReading).to.equal(false);
    host.ms = 1_000_100;
    expect(clock.now()).to.equal(5_000_000);
    host.ms = 1_060_100;
    expect(clock.now()).to.equal(5_060_000);
  });

  it('moves to the time a set-time put on the device, and wants a new measurement', () => {
    const clock = new DeviceClock(host);
    clock.measured(5_000_000, 1_000_000, 1_000_000);
    clock.wasSet(9_000_000, 2_000_000, 2_000_040);
    expect(clock.wantsReading).to.equal(true);
    host.ms = 2_000_020;
    expect(clock.now()).to.equal(9_000_000);
    clock.measured(9_000_500, 2_000_500, 2_000_500);
    expect(clock.wantsReading).to.equal(false);
    expect(clock.now()).to.equal(9_000_500 - 480);
  });

  it('asks for a new measurement when told, keeping its estimate until then', () => {
    const clock = new DeviceClock(host);
    host.ms = 3_000_000;
    clock.measured(7_000_000, 3_000_000, 3_000_000);
    clock.remeasure();
    expect(clock.wantsReading).to.equal(true);
    expect(clock.now()).to.equal(7_000_000);
  });
});
