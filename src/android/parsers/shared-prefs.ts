/**
 * SharedPreferences files (`shared_prefs/<name>.xml`), written by SharedPreferencesImpl through
 * AOSP `com.android.internal.util.XmlUtils.writeMapXml` (frameworks/base core/java/com/android/
 * internal/util/XmlUtils.java): a `<map>` of `<string name="k">v</string>`,
 * `<int|long|float|boolean name="k" value="v" />`, `<null name="k" />` and
 * `<set name="k"><string>v</string>…</set>`. Text values are XML-escaped.
 * A file starting with the binary-XML magic `ABX` is not text and is rejected.
 */

export type PrefValue =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'int' | 'long' | 'float'; readonly value: number }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'set'; readonly value: readonly string[] }
  | { readonly type: 'null'; readonly value: null };

export class SharedPrefsFormatError extends Error {
  override readonly name = 'SharedPrefsFormatError';
}

export function parseSharedPrefs(xml: string): Record<string, PrefValue> {
  if (xml.startsWith('ABX')) throw new SharedPrefsFormatError('binary XML (ABX) shared preferences are not supported');
  const map = /<map\s*\/>|<map>([\s\S]*)<\/map>/.exec(xml);
  if (map === null) throw new SharedPrefsFormatError('no <map> element');
  const body = map[1] ?? '';
  const prefs: Record<string, PrefValue> = {};
  const element = /<(string|int|long|float|boolean|null|set)\s+name="([^"]*)"\s*(?:value="([^"]*)"\s*)?(\/>|>([\s\S]*?)<\/\1>)/g;
  for (const match of body.matchAll(element)) {
    const [, type = '', rawName = '', rawValue, , content = ''] = match;
    const name = unescapeXml(rawName);
    switch (type) {
      case 'string':
        prefs[name] = { type: 'string', value: unescapeXml(content) };
        break;
      case 'int':
      case 'long':
      case 'float':
        prefs[name] = { type, value: Number(rawValue ?? 'NaN') };
        break;
      case 'boolean':
        prefs[name] = { type: 'boolean', value: rawValue === 'true' };
        break;
      case 'null':
        prefs[name] = { type: 'null', value: null };
        break;
      case 'set':
        prefs[name] = { type: 'set', value: [...content.matchAll(/<string>([\s\S]*?)<\/string>/g)].map((m) => unescapeXml(m[1] ?? '')) };
        break;
      default:
        break;
    }
  }
  return prefs;
}

export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[entity] ?? '';
  });
}
