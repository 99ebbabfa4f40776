/**
 * Feed dates as the app parses them: RSS 2.0 `pubDate` in RFC 822 (with RFC 1123 four-digit
 * years, as `SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss Z", Locale.US)` accepts them) and Atom
 * `updated`/`published` in RFC 3339. A date that does not parse yields 0
 * (docs/sources/000_83062cdfb17c0f84.txt: "A failed date parse yields 0L").
 */

const MONTHS: Readonly<Record<string, number>> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

/** RFC 822 §5.1 zones, plus UTC. */
const ZONES: Readonly<Record<string, number>> = { UT: 0, UTC: 0, GMT: 0, Z: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420 };

/** RFC 822 / RFC 1123 date-time to epoch ms, or undefined. */
export function parseRfc822(input: string): number | undefined {
  const m = /^\s*(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s+([+-]\d{4}|[A-Za-z]{1,3})\s*$/.exec(input);
  if (m === null) return undefined;
  const day = Number(m[1]);
  const month = MONTHS[m[2]!.toLowerCase()];
  let year = Number(m[3]);
  if (m[3]!.length === 2) year += year < 50 ? 2000 : 1900;
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month === undefined || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const zone = m[7]!;
  let offsetMin: number;
  if (/^[+-]\d{4}$/.test(zone)) {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMin = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  } else {
    const z = ZONES[zone.toUpperCase()];
    if (z === undefined) return undefined;
    offsetMin = z;
  }
  const utc = Date.UTC(year, month, day, hour, minute, second);
  if (new Date(Date.UTC(year, month, day)).getUTCDate() !== day) return undefined;
  return utc - offsetMin * 60_000;
}

/** RFC 3339 date-time (`2024-05-29T12:00:00Z`, `...+02:00`, fractional seconds) to epoch ms. */
export function parseRfc3339(input: string): number | undefined {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\s*$/.exec(input);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  const frac = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  const zone = m[8]!;
  let offsetMin = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMin = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) + frac - offsetMin * 60_000;
}
