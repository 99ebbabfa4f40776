/**
 * logd's ring buffers (main, system, crash, events, radio, kernel). Entries are stamped with
 * the device wall clock when written, get a global sequence number (logd hands readers the
 * entries of all selected buffers in write order), and the oldest entries of a buffer are
 * pruned once it holds more than its size (logd's default LOG_BUFFER_SIZE is 256 KiB;
 * system/logging/logd/LogUtils.h / README.property `ro.logd.size`).
 */
import type { DeviceClock, EventValue, LogBufferName, LogEntry, LogPriority, LogSink } from '../types.js';
import { renderEventValues } from './event-values.js';

export const LOG_BUFFER_NAMES: readonly LogBufferName[] = ['main', 'radio', 'events', 'system', 'crash', 'kernel'];

/** Log ids as liblog numbers them (android/log.h log_id_t), used in the binary format. */
export const LOG_ID: Readonly<Record<LogBufferName, number>> = { main: 0, radio: 1, events: 2, system: 3, crash: 4, kernel: 7 };

export interface StoredLogEntry extends LogEntry {
  /** Global write order across all buffers. */
  readonly seq: number;
  /** elapsedRealtime() at write time (for `-v monotonic`). */
  readonly elapsedMs: number;
}

export interface LogReadFilter {
  readonly buffers: Iterable<LogBufferName>;
  /** Only entries of this pid (logcat --pid). */
  readonly pid?: number;
  /** Only entries written by these uids (logd shows an app uid only its own logs). */
  readonly uids?: ReadonlySet<number>;
  /** Only the last N matching entries (logcat -t N / -T N). */
  readonly tail?: number;
  /** Only entries at or after this device time (logcat -t TIME / -T TIME). */
  readonly sinceMs?: number;
}

const DEFAULT_CAPACITY = 256 * 1024;
const ENTRY_OVERHEAD = 28;

interface Ring {
  entries: StoredLogEntry[];
  bytes: number;
  capacity: number;
}

type Subscriber = { filter: LogReadFilter; buffers: Set<LogBufferName>; onEntry: (entry: StoredLogEntry) => void };

export class LogBuffers implements LogSink {
  private readonly clock: DeviceClock;
  private readonly rings = new Map<LogBufferName, Ring>();
  private readonly subscribers = new Set<Subscriber>();
  private seq = 0;

  constructor(clock: DeviceClock, options: { capacityBytes?: Partial<Record<LogBufferName, number>> } = {}) {
    this.clock = clock;
    for (const name of LOG_BUFFER_NAMES) {
      this.rings.set(name, { entries: [], bytes: 0, capacity: options.capacityBytes?.[name] ?? DEFAULT_CAPACITY });
    }
  }

  write(entry: Omit<LogEntry, 'timeMs'> & { timeMs?: number }): void {
    const stored: StoredLogEntry = {
      ...entry,
      timeMs: entry.timeMs ?? this.clock.now(),
      seq: ++this.seq,
      elapsedMs: this.clock.elapsedRealtime(),
    };
    const ring = this.ring(stored.buffer);
    ring.entries.push(stored);
    ring.bytes += sizeOf(stored);
    while (ring.bytes > ring.capacity && ring.entries.length > 1) {
      const dropped = ring.entries.shift()!;
      ring.bytes -= sizeOf(dropped);
    }
    for (const sub of [...this.subscribers]) {
      if (sub.buffers.has(stored.buffer) && matches(stored, sub.filter)) sub.onEntry(stored);
    }
  }

  /** Writes a text entry (android.util.Log / __android_log_buf_write). */
  log(
    buffer: Exclude<LogBufferName, 'events'>,
    priority: LogPriority,
    tag: string,
    message: string,
    ids: { pid: number; tid?: number; uid: number },
  ): void {
    this.write({ buffer, priority, tag, message, pid: ids.pid, tid: ids.tid ?? ids.pid, uid: ids.uid });
  }

  /** Writes an events-buffer entry (android.util.EventLog.writeEvent); priority is always I. */
  event(tagNumber: number, tagName: string, values: readonly EventValue[], ids: { pid: number; tid?: number; uid: number }): void {
    this.write({
      buffer: 'events',
      priority: 4,
      tag: tagName,
      message: renderEventValues(values),
      event: { tagNumber, values },
      pid: ids.pid,
      tid: ids.tid ?? ids.pid,
      uid: ids.uid,
    });
  }

  /** The entries of the selected buffers in write order. */
  read(filter: LogReadFilter): StoredLogEntry[] {
    const wanted = new Set(filter.buffers);
    const out: StoredLogEntry[] = [];
    for (const name of wanted) {
      const ring = this.rings.get(name);
      if (ring === undefined) continue;
      for (const e of ring.entries) if (matches(e, filter)) out.push(e);
    }
    out.sort((a, b) => a.seq - b.seq);
    if (filter.tail !== undefined && filter.tail < out.length) return out.slice(out.length - filter.tail);
    return out;
  }

  /** Calls `onEntry` for every later entry that matches; returns the unsubscribe function. */
  subscribe(filter: LogReadFilter, onEntry: (entry: StoredLogEntry) => void): () => void {
    const sub: Subscriber = { filter, buffers: new Set(filter.buffers), onEntry };
    this.subscribers.add(sub);
    return () => {
      this.subscribers.delete(sub);
    };
  }

  clear(buffers: Iterable<LogBufferName>): void {
    for (const name of buffers) {
      const ring = this.rings.get(name);
      if (ring !== undefined) {
        ring.entries = [];
        ring.bytes = 0;
      }
    }
  }

  /** Current size of a buffer in bytes (`logcat -g`). */
  sizeOf(buffer: LogBufferName): { capacity: number; used: number } {
    const ring = this.ring(buffer);
    return { capacity: ring.capacity, used: ring.bytes };
  }

  private ring(name: LogBufferName): Ring {
    const ring = this.rings.get(name);
    if (ring === undefined) throw new Error(`unknown log buffer ${name}`);
    return ring;
  }
}

function matches(e: StoredLogEntry, filter: LogReadFilter): boolean {
  if (filter.pid !== undefined && e.pid !== filter.pid) return false;
  if (filter.uids !== undefined && !filter.uids.has(e.uid)) return false;
  if (filter.sinceMs !== undefined && e.timeMs < filter.sinceMs) return false;
  return true;
}

function sizeOf(e: StoredLogEntry): number {
  return ENTRY_OVERHEAD + Buffer.byteLength(e.tag) + Buffer.byteLength(e.message) + 3;
}
