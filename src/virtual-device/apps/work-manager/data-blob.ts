/**
 * androidx.work.Data serialization for the `input`/`output` BLOB columns.
 * Source: androidx work/work-runtime/src/main/java/androidx/work/Data_.kt @517f9ce1 — format V1 is
 * a java.io.DataOutputStream: short magic 0xABEF, short version 1, int count, then per entry a
 * type byte (0 null, 1 boolean, 2 byte, 3 int, 4 long, 5 float, 6 double, 7 String), the value,
 * and the key with writeUTF.
 */

export type DataValue = string | number | boolean | null;

const MAGIC = 0xabef;
const VERSION = 1;

/** Java's writeUTF: u16 length + modified UTF-8 (BMP-only text here is plain UTF-8). */
function writeUtf(parts: Buffer[], s: string): void {
  const bytes = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(bytes.length);
  parts.push(len, bytes);
}

export function serializeData(entries: Readonly<Record<string, DataValue>>): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(8);
  head.writeUInt16BE(MAGIC, 0);
  head.writeUInt16BE(VERSION, 2);
  head.writeInt32BE(Object.keys(entries).length, 4);
  parts.push(head);
  for (const [key, value] of Object.entries(entries)) {
    if (value === null) {
      parts.push(Buffer.from([0]));
    } else if (typeof value === 'boolean') {
      parts.push(Buffer.from([1, value ? 1 : 0]));
    } else if (typeof value === 'number') {
      const b = Buffer.alloc(5);
      b.writeUInt8(3, 0);
      b.writeInt32BE(value | 0, 1);
      parts.push(b);
    } else {
      parts.push(Buffer.from([7]));
      writeUtf(parts, value);
    }
    writeUtf(parts, key);
  }
  return Buffer.concat(parts);
}

/** Data.EMPTY as WorkManager stores it. */
export const EMPTY_DATA: Buffer = serializeData({});
