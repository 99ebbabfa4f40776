/**
 * The device's clocks (docs/design.md §7).
 *
 * - Wall clock (CLOCK_REALTIME, `System.currentTimeMillis()`): host time + an offset. Setting it
 *   (`date`, `cmd alarm set-time`) only moves the offset.
 * - elapsedRealtime (CLOCK_BOOTTIME, `SystemClock.elapsedRealtime()`): milliseconds since the
 *   device was created, read from a monotonic host clock, so setting the wall clock never moves
 *   it (JobScheduler runs on this base: JobStatus.createFromJobInfo reads sElapsedRealtimeClock,
 *   aosp-mirror/platform_frameworks_base apex/jobscheduler/service/java/com/android/server/job/
 *   controllers/JobStatus.java @054fcdf7).
 */
import type { DeviceClock } from './types.js';

/** Where the device reads host time from; injectable so tests control time. */
export interface HostClock {
  /** Host wall-clock time in epoch ms (may have a fractional part). */
  nowMs(): number;
  /** A monotonic reading in ms (arbitrary origin, never goes backwards). */
  monotonicMs(): number;
}

export const systemHostClock: HostClock = {
  nowMs: () => performance.timeOrigin + performance.now(),
  monotonicMs: () => performance.now(),
};

/** A host clock that only moves when told to (for tests). */
export class ManualHostClock implements HostClock {
  private wall: number;
  private mono = 0;

  constructor(startEpochMs: number) {
    this.wall = startEpochMs;
  }

  nowMs(): number {
    return this.wall;
  }

  monotonicMs(): number {
    return this.mono;
  }

  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }

  /** Moves only the host wall clock (as NTP would), not the monotonic one. */
  jumpWall(ms: number): void {
    this.wall += ms;
  }
}

export interface VirtualClockOptions {
  host?: HostClock;
  /** elapsedRealtime() at creation (a freshly booted emulator reports a few seconds). */
  bootElapsedMs?: number;
  /** Initial wall-clock offset from host time. */
  offsetMs?: number;
}

export type ClockChangeListener = (change: { readonly previousMs: number; readonly nowMs: number }) => void;

export class VirtualClock implements DeviceClock {
  private readonly host: HostClock;
  private readonly monoAtBoot: number;
  private readonly bootElapsedMs: number;
  private offset: number;
  private readonly listeners = new Set<ClockChangeListener>();

  constructor(options: VirtualClockOptions = {}) {
    this.host = options.host ?? systemHostClock;
    this.monoAtBoot = this.host.monotonicMs();
    this.bootElapsedMs = options.bootElapsedMs ?? 0;
    this.offset = options.offsetMs ?? 0;
  }

  /** Device wall-clock time in whole epoch ms. */
  now(): number {
    return Math.floor(this.nowPrecise());
  }

  /** Device wall-clock time in epoch ms with sub-millisecond precision (for `date +%N`). */
  nowPrecise(): number {
    return this.host.nowMs() + this.offset;
  }

  elapsedRealtime(): number {
    return Math.floor(this.host.monotonicMs() - this.monoAtBoot + this.bootElapsedMs);
  }

  set(epochMs: number): void {
    const previousMs = this.now();
    this.offset = epochMs - this.host.nowMs();
    const nowMs = this.now();
    for (const listener of [...this.listeners]) listener({ previousMs, nowMs });
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Called after every `set()` (AlarmManager's TIME_SET broadcast hangs off this). */
  onChange(listener: ClockChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A moment broken down in a time zone, like localtime_r(3). */
export interface LocalTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday */
  weekday: number;
  /** 0-365 */
  yearDay: number;
  /** Offset from UTC in minutes (east positive). */
  offsetMinutes: number;
  /** Zone abbreviation for %Z ("UTC", "GMT", ...). */
  abbreviation: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The device's time zone: persist.sys.timezone (bionic reads it when TZ is unset; GMT when
 * both are missing: bionic libc/tzcode/bionic.cpp).
 */
export function deviceTimeZone(props: ReadonlyMap<string, string>, env?: ReadonlyMap<string, string>): string {
  const fromEnv = env?.get('TZ');
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const prop = props.get('persist.sys.timezone');
  return prop !== undefined && prop !== '' ? prop : 'GMT';
}

/** Breaks `epochMs` down in `timeZone` (IANA name, or UTC/GMT). Unknown zones fall back to UTC. */
export function localTime(epochMs: number, timeZone: string): LocalTime {
  const ms = Math.floor(epochMs);
  if (timeZone === 'UTC' || timeZone === 'GMT' || timeZone === 'Etc/UTC' || timeZone === 'Etc/GMT') {
    return breakDownUtc(ms, 0, timeZone.replace('Etc/', ''));
  }
  let fmt = formatters.get(timeZone);
  if (fmt === undefined) {
    try {
      fmt = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        timeZoneName: 'short',
      });
    } catch {
      return breakDownUtc(ms, 0, 'UTC');
    }
    formatters.set(timeZone, fmt);
  }
  const parts = fmt.formatToParts(new Date(ms));
  const num = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const asUtc = Date.UTC(num('year'), num('month') - 1, num('day'), num('hour'), num('minute'), num('second'));
  const offsetMinutes = Math.round((asUtc - (ms - (((ms % 1000) + 1000) % 1000))) / 60000);
  const abbreviation = parts.find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  return breakDownUtc(ms, offsetMinutes, abbreviation);
}

function breakDownUtc(ms: number, offsetMinutes: number, abbreviation: string): LocalTime {
  const d = new Date(ms + offsetMinutes * 60000);
  const year = d.getUTCFullYear();
  const startOfYear = Date.UTC(year, 0, 1);
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
    yearDay: Math.floor((Date.UTC(year, d.getUTCMonth(), d.getUTCDate()) - startOfYear) / 86400000),
    offsetMinutes,
    abbreviation,
  };
}

/** The epoch ms of a local wall-clock time in `timeZone` (mktime(3)). */
export function fromLocalTime(
  fields: { year: number; month: number; day: number; hour: number; minute: number; second: number },
  timeZone: string,
): number {
  const guess = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
  // Two passes settle the offset across DST transitions.
  let t = guess - localTime(guess, timeZone).offsetMinutes * 60000;
  t = guess - localTime(t, timeZone).offsetMinutes * 60000;
  return t;
}
