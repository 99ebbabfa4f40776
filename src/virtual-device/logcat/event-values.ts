/**
 * Binary event-log payloads (the events buffer) and their text rendering.
 *
 * Wire format (system/logging/liblog/include/log/log_event_list.h, android_log_event_list):
 * `int32 tag` then one value; a value is a type byte (EVENT_TYPE_INT 0, LONG 1, STRING 2,
 * LIST 3, FLOAT 4) followed by int32 / int64 / (int32 length + bytes) / (uint8 count + values).
 * EventLog.writeEvent(tag, Object...) with several fields writes a LIST.
 *
 * Text rendering (liblog logprint.cpp android_log_printBinaryMessage): lists print as
 * `[a,b,c]`, ints and longs in decimal, strings raw; the line's priority is I.
 */
import type { EventValue } from '../types.js';

export const EventType = { int: 0, long: 1, string: 2, list: 3, float: 4 } as const;

/** `[a,b,c]` for several values, the bare value for one. */
export function renderEventValues(values: readonly EventValue[]): string {
  if (values.length === 1) return renderValue(values[0]!);
  return `[${values.map(renderValue).join(',')}]`;
}

function renderValue(v: EventValue): string {
  switch (v.type) {
    case 'int':
      return String(v.value | 0);
    case 'long':
      return v.value.toString();
    case 'string':
      return v.value;
    default: {
      const unreachable: never = v;
      throw new Error(`unknown event value ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Encodes the payload of an events-buffer entry: tag number then the value (or a list). */
export function encodeEventPayload(tagNumber: number, values: readonly EventValue[]): Buffer {
  const parts: Buffer[] = [int32(tagNumber)];
  if (values.length === 1) parts.push(encodeValue(values[0]!));
  else {
    parts.push(Buffer.from([EventType.list, Math.min(values.length, 255)]));
    for (const v of values.slice(0, 255)) parts.push(encodeValue(v));
  }
  return Buffer.concat(parts);
}

function encodeValue(v: EventValue): Buffer {
  switch (v.type) {
    case 'int':
      return Buffer.concat([Buffer.from([EventType.int]), int32(v.value)]);
    case 'long': {
      const b = Buffer.alloc(9);
      b[0] = EventType.long;
      b.writeBigInt64LE(v.value, 1);
      return b;
    }
    case 'string': {
      const s = Buffer.from(v.value, 'utf8');
      return Buffer.concat([Buffer.from([EventType.string]), int32(s.length), s]);
    }
    default: {
      const unreachable: never = v;
      throw new Error(`unknown event value ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Decodes an events payload back into the tag number and values (lists are flattened one level). */
export function decodeEventPayload(payload: Buffer): { tagNumber: number; values: EventValue[] } {
  const tagNumber = payload.readInt32LE(0);
  let off = 4;
  const values: EventValue[] = [];
  const readOne = (): EventValue => {
    const type = payload[off++] ?? -1;
    switch (type) {
      case EventType.int: {
        const value = payload.readInt32LE(off);
        off += 4;
        return { type: 'int', value };
      }
      case EventType.long: {
        const value = payload.readBigInt64LE(off);
        off += 8;
        return { type: 'long', value };
      }
      case EventType.string: {
        const len = payload.readInt32LE(off);
        off += 4;
        const value = payload.subarray(off, off + len).toString('utf8');
        off += len;
        return { type: 'string', value };
      }
      default:
        throw new Error(`unsupported event type ${String(type)} at offset ${off - 1}`);
    }
  };
  if (payload[off] === EventType.list) {
    const count = payload[off + 1] ?? 0;
    off += 2;
    for (let i = 0; i < count; i++) values.push(readOne());
  } else if (off < payload.length) {
    values.push(readOne());
  }
  return { tagNumber, values };
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n | 0);
  return b;
}
