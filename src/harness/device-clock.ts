/**
 * The device's wall clock as the host knows it: the host clock plus an offset, so that a time on
 * the device costs no round trip. The offset is measured from a `date +%s%3N` that goes out with
 * reads the harness sends anyway (one shell invocation, src/device/shell-batch.ts), at the middle
 * of the host times around that invocation. Each `set-time` of the harness moves the offset to
 * the time it set (the device clock was set somewhere during that command) and asks for a new
 * measurement with the next reads.
 *
 * One per session: only the harness moves the clock while a session has the device (auto_time is
 * off; the session saved and restores the clock), so the offset holds from one scenario to the
 * next; each new harness still asks for a measurement with its first reads (`remeasure`). A device clock that drifts from the host's by a few ms per minute is within the margins
 * the harness uses it with (a run is made due one second past its time; items are hours apart).
 */
import type { HostClock } from '../host-clock.js';

export class DeviceClock {
  private offset: number | undefined;
  private stale = true;

  constructor(private readonly host: HostClock) {}

  /** True before the first measurement and after every set: the next reads should carry a `date`. */
  get wantsReading(): boolean {
    return this.stale;
  }

  /** True once the offset is known (measured, or moved by a set). */
  get known(): boolean {
    return this.offset !== undefined;
  }

  /** The device time now, estimated; undefined before the offset is known. */
  now(): number | undefined {
    return this.offset === undefined ? undefined : this.host.now() + this.offset;
  }

  /**
   * Asks for a new measurement with the next reads, the offset kept until then: each scenario
   * starts with one, so a clock moved by something else between scenarios is caught at once.
   */
  remeasure(): void {
    this.stale = true;
  }

  /** The device printed `deviceMs` during a command sent at host time `before` and answered at `after`. */
  measured(deviceMs: number, before: number, after: number): void {
    this.offset = deviceMs - (before + after) / 2;
    this.stale = false;
  }

  /** The harness set the device clock to `deviceMs` with a command sent at `before` and answered at `after`. */
  wasSet(deviceMs: number, before: number, after: number): void {
    this.offset = deviceMs - (before + after) / 2;
    this.stale = true;
  }
}
