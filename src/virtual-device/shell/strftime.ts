/**
 * strftime(3) as bionic implements it (libc/tzcode/strftime.c, C locale), plus the GNU padding
 * flags `-` (none), `_` (spaces) and `0` (zeros) that bionic accepts. `%N` and `%:z` are not
 * strftime: toybox's date handles them itself (see date.ts).
 */
import type { LocalTime } from '../clock.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function isoWeek(t: LocalTime): { year: number; week: number } {
  // ISO 8601: weeks start on Monday; week 1 holds the year's first Thursday.
  const wday = (t.weekday + 6) % 7;
  const thursdayYday = t.yearDay - wday + 3;
  let year = t.year;
  let yday = thursdayYday;
  const daysIn = (y: number): number => ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365);
  if (yday < 0) {
    year--;
    yday += daysIn(year);
  } else if (yday >= daysIn(year)) {
    yday -= daysIn(year);
    year++;
  }
  return { year, week: Math.floor(yday / 7) + 1 };
}

/** Formats `t` (epochSec is its Unix time, for %s). */
export function strftime(format: string, t: LocalTime, epochSec: number): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%' || i + 1 >= format.length) {
      out += c;
      continue;
    }
    let j = i + 1;
    let flag = '';
    if ('-_0^#'.includes(format[j]!)) flag = format[j++]!;
    const conv = format[j];
    if (conv === undefined) {
      out += format.slice(i);
      break;
    }
    i = j;
    const num = (n: number, width: number, padChar = '0'): string => {
      if (flag === '-') return String(n);
      const p = flag === '_' ? ' ' : flag === '0' ? '0' : padChar;
      return String(n).padStart(width, p);
    };
    const text = (s: string): string => (flag === '^' ? s.toUpperCase() : s);
    const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
    switch (conv) {
      case 'a':
        out += text(DAYS[t.weekday]!.slice(0, 3));
        break;
      case 'A':
        out += text(DAYS[t.weekday]!);
        break;
      case 'b':
      case 'h':
        out += text(MONTHS[t.month - 1]!.slice(0, 3));
        break;
      case 'B':
        out += text(MONTHS[t.month - 1]!);
        break;
      case 'c':
        out += strftime('%a %b %e %H:%M:%S %Y', t, epochSec);
        break;
      case 'C':
        out += num(Math.floor(t.year / 100), 2);
        break;
      case 'd':
        out += num(t.day, 2);
        break;
      case 'D':
        out += strftime('%m/%d/%y', t, epochSec);
        break;
      case 'e':
        out += num(t.day, 2, ' ');
        break;
      case 'F':
        out += strftime('%Y-%m-%d', t, epochSec);
        break;
      case 'g':
        out += num(isoWeek(t).year % 100, 2);
        break;
      case 'G':
        out += num(isoWeek(t).year, 4);
        break;
      case 'H':
        out += num(t.hour, 2);
        break;
      case 'I':
        out += num(hour12, 2);
        break;
      case 'j':
        out += num(t.yearDay + 1, 3);
        break;
      case 'k':
        out += num(t.hour, 2, ' ');
        break;
      case 'l':
        out += num(hour12, 2, ' ');
        break;
      case 'm':
        out += num(t.month, 2);
        break;
      case 'M':
        out += num(t.minute, 2);
        break;
      case 'n':
        out += '\n';
        break;
      case 'p':
        out += t.hour < 12 ? 'AM' : 'PM';
        break;
      case 'P':
        out += t.hour < 12 ? 'am' : 'pm';
        break;
      case 'r':
        out += strftime('%I:%M:%S %p', t, epochSec);
        break;
      case 'R':
        out += strftime('%H:%M', t, epochSec);
        break;
      case 's':
        out += String(epochSec);
        break;
      case 'S':
        out += num(t.second, 2);
        break;
      case 't':
        out += '\t';
        break;
      case 'T':
        out += strftime('%H:%M:%S', t, epochSec);
        break;
      case 'u':
        out += String(t.weekday === 0 ? 7 : t.weekday);
        break;
      case 'U':
        out += num(Math.floor((t.yearDay + 7 - t.weekday) / 7), 2);
        break;
      case 'V':
        out += num(isoWeek(t).week, 2);
        break;
      case 'w':
        out += String(t.weekday);
        break;
      case 'W':
        out += num(Math.floor((t.yearDay + 7 - ((t.weekday + 6) % 7)) / 7), 2);
        break;
      case 'x':
        out += strftime('%m/%d/%y', t, epochSec);
        break;
      case 'X':
        out += strftime('%H:%M:%S', t, epochSec);
        break;
      case 'y':
        out += num(t.year % 100, 2);
        break;
      case 'Y':
        out += flag === '' ? String(t.year) : num(t.year, 4);
        break;
      case 'z': {
        const sign = t.offsetMinutes < 0 ? '-' : '+';
        const abs = Math.abs(t.offsetMinutes);
        out += `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
        break;
      }
      case 'Z':
        out += text(t.abbreviation);
        break;
      case '+':
        out += strftime('%a %b %e %H:%M:%S %Z %Y', t, epochSec);
        break;
      case '%':
        out += '%';
        break;
      default:
        out += `%${flag}${conv}`;
    }
  }
  return out;
}
