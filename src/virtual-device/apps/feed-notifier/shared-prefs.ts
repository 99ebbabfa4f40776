/**
 * SharedPreferences files as Android writes them (frameworks/base core/java/android/app/
 * SharedPreferencesImpl.java -> XmlUtils.writeMapXml with FastXmlSerializer): an XML declaration
 * `<?xml version='1.0' encoding='utf-8' standalone='yes' ?>`, a `<map>` with one element per
 * entry indented by four spaces, e.g. `<long name="k" value="1" />`.
 */
import type { AppFiles } from '../../system/app-framework.js';

function escapeXml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

export class SharedPreferences {
  private readonly files: AppFiles;
  private readonly path: string;

  constructor(files: AppFiles, name: string) {
    this.files = files;
    this.path = `${files.dataDir}/shared_prefs/${name}.xml`;
  }

  private read(): Map<string, number> {
    const out = new Map<string, number>();
    const data = this.files.readFile(this.path);
    if (data === undefined) return out;
    const re = /<long name="([^"]*)" value="(-?\d+)" \/>/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(data.toString('utf8'))) !== null) out.set(m[1]!, Number(m[2]));
    return out;
  }

  getLong(key: string, defValue: number): number {
    return this.read().get(key) ?? defValue;
  }

  /** Editor.putLong(key, value).commit(). */
  putLong(key: string, value: number): void {
    const map = this.read();
    map.set(key, value);
    this.files.mkdirs(`${this.files.dataDir}/shared_prefs`);
    let xml = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n";
    for (const [k, v] of map) xml += `    <long name="${escapeXml(k)}" value="${v}" />\n`;
    xml += '</map>\n';
    this.files.writeFile(this.path, xml);
  }
}
