/**
 * Changing one entry of a SharedPreferences file (`shared_prefs/<name>.xml`) the way the app's
 * own SharedPreferencesImpl would write it: XmlUtils.writeMapXml writes a `<long>` as
 * `<long name="k" value="v" />`, one entry a line indented by four spaces, through
 * FastXmlSerializer, which escapes `&`, `<`, `>`, `"` and control characters in attribute values
 * (frameworks/base core/java/com/android/internal/util/XmlUtils.java writeValueXml;
 * FastXmlSerializer.java @1a300833 ESCAPE_TABLE, `&#N;` for 0-31). Pure: no I/O; the
 * file is read and written by app-data.ts (editSharedPrefs).
 */
import { SharedPrefsFormatError, unescapeXml } from './parsers/shared-prefs.js';

/** An attribute value as FastXmlSerializer escapes it. */
function escapeAttribute(text: string): string {
  const named: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
  return [...text].map((c) => named[c] ?? (c.charCodeAt(0) < 0x20 ? `&#${c.charCodeAt(0)};` : c)).join('');
}

/** The entry elements of the `<map>`: their text, type and (unescaped) name. */
const ENTRY = /<(string|int|long|float|boolean|null|set)\s+name="([^"]*)"[^>]*?(?:\/>|>[\s\S]*?<\/\1>)/g;

/**
 * The file with `<long name="key">` set to `value`: the element is replaced where it is, or added
 * at the end of the map. An entry of that name of another type is an error (the app reads it with
 * getLong and would throw ClassCastException).
 */
export function setLongPref(xml: string, key: string, value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`a <long> value must be a whole number, got ${value}`);
  if (xml.startsWith('ABX')) throw new SharedPrefsFormatError('binary XML (ABX) shared preferences are not supported');
  const element = `<long name="${escapeAttribute(key)}" value="${value}" />`;
  for (const match of xml.matchAll(ENTRY)) {
    if (unescapeXml(match[2] ?? '') !== key) continue;
    if (match[1] !== 'long') throw new SharedPrefsFormatError(`"${key}" is a <${match[1] ?? ''}>, not a <long>`);
    const at = match.index;
    return `${xml.slice(0, at)}${element}${xml.slice(at + match[0].length)}`;
  }
  const empty = /<map\s*\/>/.exec(xml);
  if (empty !== null) return `${xml.slice(0, empty.index)}<map>\n    ${element}\n</map>${xml.slice(empty.index + empty[0].length)}`;
  const end = xml.lastIndexOf('</map>');
  if (end < 0) throw new SharedPrefsFormatError('no <map> element');
  return `${xml.slice(0, end)}    ${element}\n${xml.slice(end)}`;
}
