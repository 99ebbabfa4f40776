/**
 * Escaping for report.html. Everything that comes from a device, a feed or a history (items
 * are URLs, titles are arbitrary text, evidence lines are raw logcat) goes through `escapeHtml`
 * before it reaches the page, in text and in attribute values alike, whatever its type: a
 * count read back from a handed-in report.json is escaped like a title (`report` validates the
 * file first, src/report/report-schema.ts; this is the second wall). Ids and hrefs are built
 * only from indices (never from data), so no value can break out of an attribute or an anchor.
 */

/** Escapes a value (a string, or anything else as `String(value)`) for HTML content and double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return (typeof value === 'string' ? value : String(value))
    // C0 controls other than tab, newline and carriage return have no place in the page.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** ` name="value"` pairs, escaped; undefined and false values are left out, true gives a bare name. */
export function attrs(values: Readonly<Record<string, string | number | boolean | undefined>>): string {
  let out = '';
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`;
  }
  return out;
}

/** Shortens text for a label, keeping its end (the distinctive part of an item URL). */
export function shortenStart(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}
