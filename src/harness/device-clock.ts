/**
 * The device's wall clock as the host knows it: the host clock plus an offset, so that a time on
 * the device costs no round trip. The offset is measured from a `date +%s%3N` that goes out with
 * reads the harness sends anyway (one shell invocation, src/device/shell-batch.ts), at the middle
 * of the host times around that invocation. Each `set-time` of the harness moves the offset to
 * the time it set (the device clock was set somewhere during that command) and asks for a new
 * measurement with the next reads.
 *
 * A set can wait for the next command that changes the device (`willSet`): from then on the
 * device time is reckoned as if the clock had been set at that moment, and the set that goes out
 * later sets it to that reckoning at the time it is sent (`takePendingSet`), so that every time
 * the harness read in between (a feed's publication times) is the time the device then has.
 * While a set waits, no `date` is asked for: it would read the clock before the set.
 *
 * One per session: only the harness moves the clock while a session has the device (auto_time is
 * off; the session saved and restores the clock), so the offset holds from one scenario to the
 * next; each new harness still asks for a measurement with its first reads (`remeasure`). A device clock that drifts from the host's by a few ms per minute is within the margins
 * the harness uses it with (a run is made due one second past its time; items are hours apart).
 */
import type { HostClock } from '../host-clock.js';
import type { SetTimeMethod } from '../android/clock.js';

export class DeviceClock {
  private offset: number | undefined;
  private stale = true;
  /** The offset the device clock will have once the waiting set is sent. */
  private pendingOffset: number | undefined;
  /**
   * How the harness last set the clock (setDeviceTime's answer). Once `cmd alarm set-time` is
   * known to set it, a set can go in one shell invocation with the command after it.
   */
  setWith: SetTimeMethod | undefined;

  constructor(private readonly host: HostClock) {}

  /** True before the first measurement and after every set: the next reads should carry a `date`. */
  get wantsReading(): boolean {
    return this.stale && this.pendingOffset === undefined;
  }

  /** True once the offset is known (measured, or moved by a set). */
  get known(): boolean {
    return this.offset !== undefined;
  }

  /** The device time now, estimated; undefined before the offset is known. */
  now(): number | undefined {
    if (this.pendingOffset !== undefined) return this.host.now() + this.pendingOffset;
    return this.offset === undefined ? undefined : this.host.now() + this.offset;
  }

  /** True while a set waits to be sent (willSet). */
  get hasPendingSet(): boolean {
    return this.pendingOffset !== undefined;
  }

  /**
   * The clock is to read `deviceMs` now (host time `hostNow`), sent with the next command that
   * changes the device; a later willSet replaces it (the first was never sent).
   */
  willSet(deviceMs: number, hostNow: number): void {
    this.pendingOffset = deviceMs - hostNow;
  }

  /** The waiting set's value now (the time to send with `set-time`), and it no longer waits; undefined when none waits. */
  takePendingSet(): number | undefined {
    if (this.pendingOffset === undefined) return undefined;
    const to = this.host.now() + this.pendingOffset;
    this.pendingOffset = undefined;
    return to;
  }

  /**
   * Asks for a new measurement with the next reads, the offset kept until then: each scenario
   * starts with one, so a clock moved by something else between scenarios is caught at once.
   */
  remeasure(): void {
    this.stale = true;
    // A set that never went out is dropped with the scenario that planned it.
    this.pendingOffset = undefined;
  }

  /** The device printed `deviceMs` during a command sent at host time `before` and answered at `after`. */
  measured(deviceMs: number, before: number, after: number): void {
    this.offset = deviceMs - (before + after) / 2;
    this.stale = false;
  }

  /** The harness set the device clock to `deviceMs` (`how`) with a command sent at `before` and answered at `after`. */
  wasSet(deviceMs: number, before: number, after: number, how?: SetTimeMethod): void {
    this.offset = deviceMs - (before + after) / 2;
    this.stale = true;
    if (how !== undefined) this.setWith = how;
  }
}
