/**
 * Log lines written by system_server (Slog into the system buffer, Log into main, EventLog into
 * events), stamped with system_server's pid and uid 1000 as on a device.
 */
import type { EventValue, LogBufferName, LogPriority, LogSink } from '../types.js';
import { Uid } from '../types.js';

/** One event-log value as a service passes it: null strings are written as `NULL`. */
export type EventArg = number | bigint | string | null;

export class SystemLog {
  private readonly logs: LogSink;
  readonly pid: number;

  constructor(logs: LogSink, systemServerPid: number) {
    this.logs = logs;
    this.pid = systemServerPid;
  }

  /** com.android.server.utils.Slog / android.util.Slog: the system buffer. */
  slog(priority: LogPriority, tag: string, message: string, tid?: number): void {
    this.write('system', priority, tag, message, tid);
  }

  /** android.util.Log from system_server: the main buffer. */
  log(priority: LogPriority, tag: string, message: string, tid?: number): void {
    this.write('main', priority, tag, message, tid);
  }

  private write(buffer: LogBufferName, priority: LogPriority, tag: string, message: string, tid?: number): void {
    this.logs.write({ buffer, priority, tag, message, pid: this.pid, tid: tid ?? this.pid, uid: Uid.system });
  }

  /**
   * EventLog.writeEvent(tag, Object...) from system_server. Ints are `|1`, longs `|2`, strings `|3`
   * (EventLogTags.logtags); a null string is written as the text `NULL`
   * (core/jni/android_util_EventLog.cpp: `if (item == NULL) { ctx << "NULL"; }`).
   */
  event(tagNumber: number, tagName: string, args: readonly EventArg[], tid?: number): void {
    const values: EventValue[] = args.map((a): EventValue => {
      if (a === null) return { type: 'string', value: 'NULL' };
      if (typeof a === 'bigint') return { type: 'long', value: a };
      if (typeof a === 'number') return { type: 'int', value: a | 0 };
      return { type: 'string', value: a };
    });
    const message = values.length === 1 ? render(values[0]!) : `[${values.map(render).join(',')}]`;
    this.logs.write({ buffer: 'events', priority: 4, tag: tagName, message, event: { tagNumber, values }, pid: this.pid, tid: tid ?? this.pid, uid: Uid.system });
  }
}

function render(v: EventValue): string {
  switch (v.type) {
    case 'int':
      return String(v.value);
    case 'long':
      return v.value.toString();
    case 'string':
      return v.value;
    default: {
      const unreachable: never = v;
      return String(unreachable);
    }
  }
}
