/**
 * The host's clocks, behind an interface so that the harness takes them as a dependency (the
 * harness reads no clock of its own: specs drive it with a fake). `now` is the wall clock in
 * epoch ms (maps the fixture server's times onto the device's); `monotonic` measures durations
 * and deadlines.
 */
import { performance } from 'node:perf_hooks';

export interface HostClock {
  now(): number;
  monotonic(): number;
}

export const systemClock: HostClock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
};
