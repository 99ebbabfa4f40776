/**
 * What PackageManager reads from an APK at install time: the package name, its version and the
 * components and instrumentation its binary AndroidManifest.xml declares.
 *
 * Formats:
 * - ZIP: PKWARE APPNOTE.TXT §4.3 (end of central directory record 0x06054b50, central directory
 *   file header 0x02014b50, local file header 0x04034b50; method 0 stored, 8 deflated).
 * - Binary XML: AOSP frameworks/base libs/androidfw/include/androidfw/ResourceTypes.h
 *   (ResChunk_header {u16 type, u16 headerSize, u32 size}; RES_XML_TYPE 0x0003,
 *   RES_STRING_POOL_TYPE 0x0001 with UTF8_FLAG 1<<8, RES_XML_RESOURCE_MAP_TYPE 0x0180,
 *   RES_XML_START_ELEMENT_TYPE 0x0102 / END 0x0103; ResXMLTree_attrExt {ns, name, attributeStart,
 *   attributeSize, attributeCount, ...}; ResXMLTree_attribute {ns, name, rawValue, Res_value
 *   {u16 size, u8 res0, u8 dataType, u32 data}}; Res_value TYPE_STRING 0x03, TYPE_INT_DEC 0x10,
 *   TYPE_INT_HEX 0x11, TYPE_INT_BOOLEAN 0x12).
 * - Attribute resource ids (frameworks/base core/res/res/values/public.xml): name 0x01010003,
 *   debuggable 0x0101000f, exported 0x01010010, targetPackage 0x01010021, minSdkVersion
 *   0x0101020c, versionCode 0x0101021b, versionName 0x0101021c, targetSdkVersion 0x01010270.
 *   Build tools may strip attribute names, so ids are looked up first.
 */
import { inflateRawSync } from 'node:zlib';

export interface ApkComponent {
  /** Fully qualified class name. */
  readonly name: string;
  readonly exported: boolean;
  readonly permission?: string;
  readonly actions: readonly string[];
  readonly launcher: boolean;
}

export interface ApkInstrumentation {
  readonly name: string;
  readonly targetPackage: string;
}

export interface ApkManifest {
  readonly packageName: string;
  readonly versionCode: number;
  readonly versionName: string;
  readonly minSdk: number;
  readonly targetSdk: number;
  readonly debuggable: boolean;
  readonly requestedPermissions: readonly string[];
  readonly activities: readonly ApkComponent[];
  readonly services: readonly ApkComponent[];
  readonly receivers: readonly ApkComponent[];
  readonly instrumentations: readonly ApkInstrumentation[];
}

/** Why an APK could not be read; the message is what PackageParser would say. */
export class ApkParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApkParseError';
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/** The bytes of one entry of a ZIP archive, or undefined when the archive has no such entry. */
export function readZipEntry(zip: Buffer, entryName: string): Buffer | undefined {
  // The EOCD record is 22 bytes plus a comment of at most 65535 bytes.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = zip.length - 22; i >= lowest; i--) {
    if (zip.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ApkParseError('not a zip archive (no end of central directory record)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_SIGNATURE) throw new ApkParseError('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name !== entryName) continue;
    if (zip.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) throw new ApkParseError(`corrupt zip local header for ${name}`);
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (method === 0) return Buffer.from(data);
    if (method === 8) return inflateRawSync(data);
    throw new ApkParseError(`unsupported zip compression method ${method} for ${name}`);
  }
  return undefined;
}

const ChunkType = { StringPool: 0x0001, Xml: 0x0003, StartNamespace: 0x0100, EndNamespace: 0x0101, StartElement: 0x0102, EndElement: 0x0103, ResourceMap: 0x0180 } as const;
const ValueType = { Reference: 0x01, String: 0x03, IntDec: 0x10, IntHex: 0x11, IntBoolean: 0x12 } as const;
const UTF8_FLAG = 1 << 8;
const NO_INDEX = 0xffffffff;

const AttrId = {
  name: 0x01010003,
  debuggable: 0x0101000f,
  exported: 0x01010010,
  permission: 0x01010006,
  targetPackage: 0x01010021,
  minSdkVersion: 0x0101020c,
  versionCode: 0x0101021b,
  versionName: 0x0101021c,
  targetSdkVersion: 0x01010270,
} as const;
type AttrName = keyof typeof AttrId | 'package';

type AttrValue = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'int'; readonly value: number } | { readonly kind: 'bool'; readonly value: boolean } | { readonly kind: 'ref'; readonly value: number };

export interface XmlElement {
  readonly name: string;
  readonly attrs: ReadonlyMap<string, AttrValue>;
  readonly children: XmlElement[];
}

function readStringPool(buf: Buffer, start: number): string[] {
  const headerSize = buf.readUInt16LE(start + 2);
  const count = buf.readUInt32LE(start + 8);
  const flags = buf.readUInt32LE(start + 16);
  const stringsStart = start + buf.readUInt32LE(start + 20);
  const utf8 = (flags & UTF8_FLAG) !== 0;
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    let at = stringsStart + buf.readUInt32LE(start + headerSize + i * 4);
    if (utf8) {
      // u8 utf16 length (two bytes when the high bit is set), then u8 utf8 byte length the same way.
      if ((buf[at]! & 0x80) !== 0) at += 2;
      else at += 1;
      let length = buf[at]!;
      if ((length & 0x80) !== 0) {
        length = ((length & 0x7f) << 8) | buf[at + 1]!;
        at += 2;
      } else {
        at += 1;
      }
      strings.push(buf.toString('utf8', at, at + length));
    } else {
      let length = buf.readUInt16LE(at);
      if ((length & 0x8000) !== 0) {
        length = ((length & 0x7fff) << 16) | buf.readUInt16LE(at + 2);
        at += 4;
      } else {
        at += 2;
      }
      strings.push(buf.toString('utf16le', at, at + length * 2));
    }
  }
  return strings;
}

/** Parses an Android binary XML document (compiled AndroidManifest.xml) into an element tree. */
export function parseBinaryXml(buf: Buffer): XmlElement {
  if (buf.length < 8 || buf.readUInt16LE(0) !== ChunkType.Xml) throw new ApkParseError('AndroidManifest.xml is not a binary XML document');
  let strings: string[] = [];
  let resourceIds: number[] = [];
  const root: XmlElement = { name: '#document', attrs: new Map(), children: [] };
  const stack: XmlElement[] = [root];
  let at = buf.readUInt16LE(2);
  const end = Math.min(buf.length, buf.readUInt32LE(4));
  const str = (index: number): string => (index === NO_INDEX ? '' : (strings[index] ?? ''));
  while (at + 8 <= end) {
    const type = buf.readUInt16LE(at);
    const headerSize = buf.readUInt16LE(at + 2);
    const size = buf.readUInt32LE(at + 4);
    if (size < 8 || at + size > end) throw new ApkParseError('corrupt binary XML chunk');
    switch (type) {
      case ChunkType.StringPool:
        strings = readStringPool(buf, at);
        break;
      case ChunkType.ResourceMap:
        resourceIds = [];
        for (let p = at + headerSize; p + 4 <= at + size; p += 4) resourceIds.push(buf.readUInt32LE(p));
        break;
      case ChunkType.StartElement: {
        const ext = at + headerSize;
        const name = str(buf.readUInt32LE(ext + 4));
        const attributeStart = buf.readUInt16LE(ext + 8);
        const attributeSize = buf.readUInt16LE(ext + 10);
        const attributeCount = buf.readUInt16LE(ext + 12);
        const attrs = new Map<string, AttrValue>();
        for (let i = 0; i < attributeCount; i++) {
          const a = ext + attributeStart + i * attributeSize;
          const nameIndex = buf.readUInt32LE(a + 4);
          const raw = buf.readUInt32LE(a + 8);
          const dataType = buf[a + 15]!;
          const data = buf.readUInt32LE(a + 16);
          const id = resourceIds[nameIndex];
          const known = (Object.keys(AttrId) as (keyof typeof AttrId)[]).find((k) => AttrId[k] === id);
          const attrName = known ?? str(nameIndex);
          let value: AttrValue;
          if (dataType === ValueType.String) value = { kind: 'string', value: str(data) };
          else if (dataType === ValueType.IntBoolean) value = { kind: 'bool', value: data !== 0 };
          else if (dataType === ValueType.IntDec || dataType === ValueType.IntHex) value = { kind: 'int', value: data | 0 };
          else if (dataType === ValueType.Reference) value = { kind: 'ref', value: data };
          else if (raw !== NO_INDEX) value = { kind: 'string', value: str(raw) };
          else value = { kind: 'int', value: data | 0 };
          attrs.set(attrName, value);
        }
        const element: XmlElement = { name, attrs, children: [] };
        stack[stack.length - 1]!.children.push(element);
        stack.push(element);
        break;
      }
      case ChunkType.EndElement:
        if (stack.length > 1) stack.pop();
        break;
      default:
        break;
    }
    at += size;
  }
  const manifest = root.children[0];
  if (manifest === undefined) throw new ApkParseError('AndroidManifest.xml has no root element');
  return manifest;
}

function stringAttr(e: XmlElement, name: AttrName): string | undefined {
  const v = e.attrs.get(name);
  if (v === undefined) return undefined;
  if (v.kind === 'string') return v.value;
  if (v.kind === 'int') return String(v.value);
  return undefined;
}

function intAttr(e: XmlElement, name: AttrName, fallback: number): number {
  const v = e.attrs.get(name);
  if (v?.kind === 'int') return v.value;
  if (v?.kind === 'string' && /^\d+$/.test(v.value)) return Number(v.value);
  return fallback;
}

function boolAttr(e: XmlElement, name: AttrName): boolean | undefined {
  const v = e.attrs.get(name);
  if (v?.kind === 'bool') return v.value;
  return undefined;
}

/** PackageParser.buildClassName: `.Foo` and `Foo` are relative to the package. */
function className(pkg: string, name: string): string {
  if (name.startsWith('.')) return pkg + name;
  if (!name.includes('.')) return `${pkg}.${name}`;
  return name;
}

function component(pkg: string, e: XmlElement): ApkComponent {
  const filters = e.children.filter((c) => c.name === 'intent-filter');
  const actions = filters.flatMap((f) => f.children.filter((c) => c.name === 'action').map((a) => stringAttr(a, 'name') ?? ''));
  const categories = filters.flatMap((f) => f.children.filter((c) => c.name === 'category').map((a) => stringAttr(a, 'name') ?? ''));
  const permission = stringAttr(e, 'permission');
  // android:exported defaults to true when the component has intent filters (before API 31).
  const exported = boolAttr(e, 'exported') ?? filters.length > 0;
  return {
    name: className(pkg, stringAttr(e, 'name') ?? ''),
    exported,
    ...(permission !== undefined ? { permission } : {}),
    actions,
    launcher: actions.includes('android.intent.action.MAIN') && categories.includes('android.intent.category.LAUNCHER'),
  };
}

/** Reads the manifest of an APK file's bytes. */
export function readApkManifest(apk: Buffer): ApkManifest {
  const xml = readZipEntry(apk, 'AndroidManifest.xml');
  if (xml === undefined) throw new ApkParseError('no AndroidManifest.xml in the archive');
  const manifest = parseBinaryXml(xml);
  if (manifest.name !== 'manifest') throw new ApkParseError(`root element is <${manifest.name}>, not <manifest>`);
  const packageName = stringAttr(manifest, 'package');
  if (packageName === undefined || packageName === '') throw new ApkParseError('<manifest> has no package attribute');
  const usesSdk = manifest.children.find((c) => c.name === 'uses-sdk');
  const application = manifest.children.find((c) => c.name === 'application');
  const appChildren = application?.children ?? [];
  const minSdk = usesSdk === undefined ? 1 : intAttr(usesSdk, 'minSdkVersion', 1);
  return {
    packageName,
    versionCode: intAttr(manifest, 'versionCode', 0),
    versionName: stringAttr(manifest, 'versionName') ?? '',
    minSdk,
    targetSdk: usesSdk === undefined ? minSdk : intAttr(usesSdk, 'targetSdkVersion', minSdk),
    debuggable: application === undefined ? false : (boolAttr(application, 'debuggable') ?? false),
    requestedPermissions: manifest.children.filter((c) => c.name === 'uses-permission').map((c) => stringAttr(c, 'name') ?? ''),
    activities: appChildren.filter((c) => c.name === 'activity' || c.name === 'activity-alias').map((c) => component(packageName, c)),
    services: appChildren.filter((c) => c.name === 'service').map((c) => component(packageName, c)),
    receivers: appChildren.filter((c) => c.name === 'receiver').map((c) => component(packageName, c)),
    instrumentations: manifest.children
      .filter((c) => c.name === 'instrumentation')
      .map((c) => ({ name: className(packageName, stringAttr(c, 'name') ?? ''), targetPackage: stringAttr(c, 'targetPackage') ?? packageName })),
  };
}
