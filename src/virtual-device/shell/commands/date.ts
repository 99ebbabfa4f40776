/**
 * date (landley/toybox toys/posix/date.c 0.8.9).
 *
 * - `date [+FORMAT]`: default format `%a %b %e %H:%M:%S %Z %Y`; `%N` is the nanoseconds
 *   (`%3N` their first 3 digits, so `+%s%3N` is epoch milliseconds), `%:z` the offset `+hh:mm`;
 *   the rest is strftime.
 * - Setting (`date MMDDhhmm[[CC]YY][.ss]`, `date @EPOCH`, `date -s DATE`) calls
 *   settimeofday(), which needs CAP_SYS_TIME: as shell it prints
 *   `date: cannot set date: Operation not permitted` and exits 1, and, like toybox, still
 *   prints the requested time. As root it moves the device clock.
 * - Input formats (lib/xwrap.c xparsedate): @UNIXTIME[.FRACTION], `YYYY-MM-DD[ T]hh:mm:ss`,
 *   the default output format, `hh:mm:ss`, `YYYY-MM-DD hh:mm`, `YYYY-MM-DD`, `hh:mm`,
 *   `MMDDhhmm`, `MMDDhhmmYY`, `MMDDhhmmCCYY`; optional `.ss` / fraction and `Z` or `±hh[:mm]`.
 *   A bad one is `date: bad date STRING`.
 */
import type { Command } from '../../types.js';
import { deviceTimeZone, fromLocalTime, localTime, type LocalTime } from '../../clock.js';
import { strftime } from '../strftime.js';
import { errorMsg, helpExit, pathOf, perrorMsg, tb } from './toybox.js';

const DEFAULT_FORMAT = '%a %b %e %H:%M:%S %Z %Y';
const ISO_FORMATS: Readonly<Record<string, string>> = { d: '%F', h: '%FT%H%:z', m: '%FT%R%:z', s: '%FT%T%:z', n: '%FT%T,%N%:z' };
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export interface ParsedDate {
  epochMs: number;
  nanos: number;
}

/** xparsedate(): parses `text` relative to `nowMs` in `timeZone`; undefined when invalid. */
export function parseDate(text: string, nowMs: number, timeZone: string, endian = true): ParsedDate | undefined {
  const at = /^@(-?\d+)(?:\.(\d*))?$/.exec(text);
  if (at !== null) {
    const frac = (at[2] ?? '').slice(0, 9).padEnd(9, '0');
    return { epochMs: Number(at[1]) * 1000, nanos: Number(frac) };
  }
  const now = localTime(nowMs, timeZone);
  const d2 = '(\\d{1,2})';
  type Fields = { year: number; month: number; day: number; hour: number; minute: number; second: number };
  const base = (): Fields => ({ year: now.year, month: now.month, day: now.day, hour: 0, minute: 0, second: 0 });
  const formats: { re: string; hasSeconds: boolean; apply: (m: string[], f: Fields) => boolean }[] = [
    { re: `(\\d{1,4})-${d2}-${d2} ${d2}:${d2}:${d2}`, hasSeconds: true, apply: (m, f) => setYmdHms(f, m, 1) },
    { re: `(\\d{1,4})-${d2}-${d2}T${d2}:${d2}:${d2}`, hasSeconds: true, apply: (m, f) => setYmdHms(f, m, 1) },
    {
      re: `[A-Za-z]{3} ([A-Za-z]{3}) +(\\d{1,2}) ${d2}:${d2}:${d2} [A-Za-z]+ (\\d{1,4})`,
      hasSeconds: true,
      apply: (m, f) => {
        const month = MONTHS.indexOf(m[1]!.toLowerCase());
        if (month < 0) return false;
        Object.assign(f, { month: month + 1, day: Number(m[2]), hour: Number(m[3]), minute: Number(m[4]), second: Number(m[5]), year: Number(m[6]) });
        return true;
      },
    },
    { re: `${d2}:${d2}:${d2}`, hasSeconds: true, apply: (m, f) => (Object.assign(f, { hour: Number(m[1]), minute: Number(m[2]), second: Number(m[3]) }), true) },
    { re: `(\\d{1,4})-${d2}-${d2} ${d2}:${d2}`, hasSeconds: false, apply: (m, f) => (Object.assign(f, { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: Number(m[4]), minute: Number(m[5]) }), true) },
    { re: `(\\d{1,4})-${d2}-${d2}`, hasSeconds: false, apply: (m, f) => (Object.assign(f, { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }), true) },
    { re: `${d2}:${d2}`, hasSeconds: false, apply: (m, f) => (Object.assign(f, { hour: Number(m[1]), minute: Number(m[2]) }), true) },
    { re: '(\\d{2})(\\d{2})(\\d{2})(\\d{2})', hasSeconds: false, apply: (m, f) => setMdhm(f, m) },
    endian
      ? { re: '(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})', hasSeconds: false, apply: (m, f) => setMdhm(f, m) && ((f.year = twoDigitYear(Number(m[5]))), true) }
      : { re: '(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})', hasSeconds: false, apply: (m, f) => setMdhm(f, ['', m[2]!, m[3]!, m[4]!, m[5]!]) && ((f.year = twoDigitYear(Number(m[1]))), true) },
    endian
      ? { re: '(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})', hasSeconds: false, apply: (m, f) => setMdhm(f, m) && ((f.year = Number(m[5]) * 100 + Number(m[6])), true) }
      : { re: '(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})', hasSeconds: false, apply: (m, f) => setMdhm(f, ['', m[3]!, m[4]!, m[5]!, m[6]!]) && ((f.year = Number(m[1]) * 100 + Number(m[2])), true) },
  ];
  for (const fmt of formats) {
    const m = new RegExp(`^${fmt.re}`).exec(text);
    if (m === null) continue;
    const f = base();
    if (!fmt.apply([...m].map((s) => s ?? ''), f)) continue;
    let rest = text.slice(m[0].length);
    let nanos = 0;
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      if (!fmt.hasSeconds) {
        const s = /^\d{1,2}/.exec(rest);
        if (s !== null) {
          f.second = Number(s[0]);
          rest = rest.slice(s[0].length);
        }
      }
      const frac = /^\d*/.exec(rest)![0];
      nanos = Number(frac.slice(0, 9).padEnd(9, '0'));
      rest = rest.slice(frac.length);
    }
    rest = rest.trimStart();
    let zone = timeZone;
    let offsetMinutes: number | undefined;
    if (rest.startsWith('Z')) {
      offsetMinutes = 0;
      rest = rest.slice(1);
    } else {
      const z = /^([+-])\s*(\d{1,2}):?(\d{2})?/.exec(rest);
      if (z !== null) {
        offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
        rest = rest.slice(z[0].length);
      }
    }
    if (rest.trim() !== '') continue;
    if (f.second > 60 || f.minute > 59 || f.hour > 23 || f.day < 1 || f.day > 31 || f.month < 1 || f.month > 12) return undefined;
    let epochMs: number;
    if (offsetMinutes !== undefined) {
      zone = 'UTC';
      epochMs = fromLocalTime(f, zone) - offsetMinutes * 60000;
    } else epochMs = fromLocalTime(f, zone);
    return { epochMs, nanos };
  }
  return undefined;
}

function setYmdHms(f: { year: number; month: number; day: number; hour: number; minute: number; second: number }, m: string[], start: number): boolean {
  Object.assign(f, { year: Number(m[start]), month: Number(m[start + 1]), day: Number(m[start + 2]), hour: Number(m[start + 3]), minute: Number(m[start + 4]), second: Number(m[start + 5]) });
  return true;
}

function setMdhm(f: { month: number; day: number; hour: number; minute: number }, m: readonly string[]): boolean {
  Object.assign(f, { month: Number(m[1]), day: Number(m[2]), hour: Number(m[3]), minute: Number(m[4]) });
  return true;
}

/** strptime %y: 69-99 are 1969-1999, 00-68 are 2000-2068. */
function twoDigitYear(yy: number): number {
  return yy >= 69 ? 1900 + yy : 2000 + yy;
}

/** puts_time(): strftime plus %N / %<digit>N and %:z. */
export function formatDate(format: string, t: LocalTime, epochSec: number, nanos: number): string {
  let out = '';
  let literal = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '%') {
      const n = format[i + 1];
      const digitN = n !== undefined && /[0-9]/.test(n) && format[i + 2] === 'N';
      if (n === 'N' || digitN || (n === ':' && format[i + 2] === 'z')) {
        out += strftime(literal, t, epochSec);
        literal = '';
        if (n === ':') {
          const z = strftime('%z', t, epochSec);
          out += `${z.slice(0, 3)}:${z.slice(3)}`;
          i += 2;
        } else if (digitN) {
          out += String(nanos).padStart(9, '0').slice(0, Number(n));
          i += 2;
        } else {
          out += String(nanos).padStart(9, '0');
          i += 1;
        }
        continue;
      }
      if (n === '%') {
        literal += '%%';
        i++;
        continue;
      }
    }
    literal += c;
  }
  return out + strftime(literal, t, epochSec);
}

export const date: Command = async (ctx) => {
  const argv = ctx.argv.slice(1);
  let utc = false;
  let dOpt: string | undefined;
  let rOpt: string | undefined;
  let sOpt: string | undefined;
  let iso: string | undefined;
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (a === '-u' || a === '--utc') utc = true;
    else if (a === '-d' || a === '-r' || a === '-s' || a === '-D') {
      const v = argv[++i];
      if (v === undefined) return helpExit(ctx, `Missing argument to ${a}`);
      if (a === '-d') dOpt = v;
      else if (a === '-r') rOpt = v;
      else if (a === '-s') sOpt = v;
    } else if (/^-[drsD]./.test(a)) {
      const v = a.slice(2);
      if (a[1] === 'd') dOpt = v;
      else if (a[1] === 'r') rOpt = v;
      else if (a[1] === 's') sOpt = v;
    } else if (a === '-I' || a.startsWith('-I') || a.startsWith('--iso-8601')) {
      iso = a.startsWith('--iso-8601=') ? a.slice(11) : a.slice(2) || 'd';
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      return helpExit(ctx, `Unknown option '${a.slice(1)}'`);
    } else operands.push(a);
  }
  if (dOpt !== undefined && rOpt !== undefined) return helpExit(ctx, "No 'd' with 'r'");
  const timeZone = utc ? 'UTC' : deviceTimeZone(ctx.device.props, ctx.env);
  let format = DEFAULT_FORMAT;
  if (iso !== undefined) {
    const f = ISO_FORMATS[iso[0] ?? 'd'];
    if (f === undefined) return helpExit(ctx, `bad -I: ${iso}`);
    format = f;
  }
  const clock = ctx.device.clock;
  const precise = 'nowPrecise' in clock && typeof clock.nowPrecise === 'function' ? (clock.nowPrecise as () => number)() : clock.now();
  let epochMs = Math.floor(precise);
  let nanos = Math.min(999_999_999, Math.floor((precise - Math.floor(precise / 1000) * 1000) * 1_000_000));
  if (dOpt !== undefined) {
    const parsed = parseDate(dOpt, clock.now(), timeZone);
    if (parsed === undefined) {
      await errorMsg(ctx, `bad date ${dOpt}`);
      return 1;
    }
    epochMs = parsed.epochMs;
    nanos = parsed.nanos;
  } else if (rOpt !== undefined) {
    try {
      const st = await tb(ctx).fs.stat(pathOf(ctx, rOpt), ctx.uid);
      epochMs = st.mtimeSec * 1000;
      nanos = st.mtimeNsec;
    } catch (e) {
      await perrorMsg(ctx, rOpt, e);
      return 1;
    }
  }
  let setDate = operands[0];
  if (sOpt !== undefined) {
    if (setDate !== undefined) return helpExit(ctx, "can't set two dates at once");
    setDate = sOpt;
  }
  let status = 0;
  if (setDate !== undefined) {
    if (setDate.startsWith('+')) {
      format = setDate.slice(1);
    } else {
      const parsed = parseDate(setDate, clock.now(), timeZone);
      if (parsed === undefined) {
        await errorMsg(ctx, `bad date ${setDate}`);
        return 1;
      }
      epochMs = parsed.epochMs;
      nanos = parsed.nanos;
      if (ctx.uid !== 0) {
        // settimeofday() without CAP_SYS_TIME: perror_msg("cannot set date").
        await errorMsg(ctx, 'cannot set date: Operation not permitted');
        status = 1;
      } else {
        clock.set(epochMs + Math.floor(nanos / 1_000_000));
      }
    }
  }
  const epochSec = Math.floor(epochMs / 1000);
  await ctx.stdout.write(`${formatDate(format, localTime(epochSec * 1000, timeZone), epochSec, nanos)}\n`);
  return status;
};
