/**
 * Java and Android framework value formatting that system services print: String.hashCode,
 * Integer.toHexString, UserHandle.formatUid, TimeUtils.formatDuration, identity hash codes.
 */

/**
 * java.lang.String#hashCode(): s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in 32-bit
 * two's-complement arithmetic (OpenJDK java/lang/String.java, StringLatin1/StringUTF16.hashCode).
 */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** java.lang.Integer#toHexString(int): the unsigned 32-bit value in lower-case hex, no padding. */
export function integerToHexString(n: number): string {
  return (n >>> 0).toString(16);
}

/** String.format("0x%08x", n) for a 32-bit int. */
export function hex08(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}

/** android.os.Process.FIRST_APPLICATION_UID and UserHandle.PER_USER_RANGE. */
export const FIRST_APPLICATION_UID = 10000;
export const PER_USER_RANGE = 100000;

export function userIdOf(uid: number): number {
  return Math.floor(uid / PER_USER_RANGE);
}

export function appIdOf(uid: number): number {
  return uid % PER_USER_RANGE;
}

/**
 * UserHandle.formatUid (frameworks/base core/java/android/os/UserHandle.java): system uids print
 * as the plain number (`1000`), app uids as `u<user>a<appId - 10000>` (`u0a190`), isolated uids as
 * `u<user>i<n>`.
 */
export function formatUid(uid: number): string {
  if (uid < FIRST_APPLICATION_UID) return String(uid);
  const appId = appIdOf(uid);
  const user = userIdOf(uid);
  if (appId >= 99000 && appId <= 99999) return `u${user}i${appId - 99000}`;
  if (appId >= FIRST_APPLICATION_UID) return `u${user}a${appId - FIRST_APPLICATION_UID}`;
  return `u${user}s${appId}`;
}

/**
 * android.util.TimeUtils#formatDuration(long, StringBuilder): `+1h2m3s4ms`, `-30s0ms`, `0`.
 * Fields print from the first non-zero one on; seconds and milliseconds always print once a
 * field printed (frameworks/base core/java/android/util/TimeUtils.java formatDurationLocked).
 */
export function formatDuration(durationMs: number): string {
  if (durationMs === 0) return '0';
  const sign = durationMs > 0 ? '+' : '-';
  let rest = Math.abs(Math.trunc(durationMs));
  const ms = rest % 1000;
  rest = Math.floor(rest / 1000);
  const days = Math.floor(rest / 86400);
  rest -= days * 86400;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  const seconds = rest - minutes * 60;
  let out = sign;
  let printed = false;
  const field = (value: number, unit: string, always: boolean): void => {
    if (always || printed || value > 0) {
      out += `${value}${unit}`;
      printed = true;
    }
  };
  field(days, 'd', false);
  field(hours, 'h', false);
  field(minutes, 'm', false);
  field(seconds, 's', printed);
  field(ms, 'ms', true);
  return out;
}

/**
 * Identity hash codes (System.identityHashCode) for objects a service prints: ART derives them
 * from a per-thread xorshift generator, so they look random; this one is a seeded xorshift32 so a
 * device's dumps are reproducible. Values are positive 31-bit ints, as ART's are.
 */
export class IdentityHashes {
  private state: number;

  constructor(seed: string) {
    let s = javaStringHashCode(seed) | 1;
    if (s === 0) s = 0x2545f491;
    this.state = s;
  }

  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x | 0;
    return (x >>> 1) & 0x7fffffff;
  }
}

/** java.lang.Boolean#toString and friends print lower-case `true`/`false`. */
export function javaBool(b: boolean): string {
  return b ? 'true' : 'false';
}

/** java.lang.Float#toString for the small values services print (5.0, 0.0, 1.5). */
export function javaFloat(f: number): string {
  if (Number.isInteger(f)) return `${f}.0`;
  return String(Math.fround(f));
}
