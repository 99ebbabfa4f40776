/**
 * The device commands of a scenario as history events (`action` events, docs/design.md §5): the
 * records a RecordingDevice kept of what was really sent, named after what each command does,
 * with the step of the harness that sent it (`ActionLabel`).
 *
 * Every command that changes the device is an event of its own, in the order sent. A command
 * that only reads (a `date`, a `dumpsys`, a `pidof`, a `run-as PKG cat`, a pull) is folded: the
 * reads between two other events are one event per distinct read (same way sent, same command
 * line, same exit code, failed or not), at the place and time of the first, with `count` the
 * times it was sent, `durationMs` their total and the last one's result. Polls (a job state read
 * until it changes, the workdb read until the job is there) thus cost one line per state seen.
 * Reads sent together in one shell invocation (src/device/shell-batch.ts) are each their own
 * record and event, with their own exit code, and a `detail` that says which of how many
 * commands of the invocation it was.
 */
import type { CommandRecord } from '../device/recording-device.js';
import type { ActionEvent } from '../history/events.js';
import { MARKER_TAG } from './log-observer.js';

/** What the harness says about the commands sent during one of its steps. */
export interface ActionLabel {
  /** The name of the commands in the step that change the device (default: what the command is). */
  readonly action?: string;
  /** A sentence on the command, or one made from its record (e.g. from its output). */
  readonly detail?: string | ((record: CommandRecord<ActionLabel>) => string | undefined);
  /** The run the commands belong to. */
  readonly run?: number;
  /** A probe run (forced without moving the clock, out of the run numbering). */
  readonly probe?: boolean;
  /** A kill made while the fixture server held the nth request to `path`. */
  readonly heldRequest?: { readonly path: string; readonly nth: number };
  /**
   * A command line the harness built that only reads or waits (a shell loop that asks
   * JobScheduler until a job has let go): a `read`, though its shell syntax hides what it runs.
   */
  readonly readOnly?: boolean;
}

export type LabelledRecord = CommandRecord<ActionLabel>;

/** An action event made from records, with the bytes the command wrote (stdin or a pushed file). */
export interface CommandEvent {
  readonly event: ActionEvent;
  readonly data?: Buffer;
}

/** Commands that read and change nothing, by their first word(s). */
const READ_COMMANDS = new Set(['cat', 'dumpsys', 'getprop', 'id', 'ls', 'pidof', 'ps', 'stat', 'true', 'uptime', 'whoami', 'wc', 'head', 'tail', 'grep']);
const READ_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  settings: ['get', 'list'],
  pm: ['list', 'path', 'dump'],
  'cmd jobscheduler': ['get-job-state'],
  'cmd notification': ['list', 'get'],
  'cmd package': ['list', 'resolve-activity', 'query-activities'],
};
/** A command line with any of these does more than run one command. */
const SHELL_SYNTAX = /[;&|<>`$(){}\n]/;

/** The words of a record's command: its argv, or its line split at blanks when it has no shell syntax. */
function wordsOf(record: LabelledRecord): readonly string[] | undefined {
  if (record.argv !== undefined) return record.argv;
  if (SHELL_SYNTAX.test(record.command)) return undefined;
  return record.command.trim().split(/\s+/);
}

/** The command `run-as PKG …` runs, or the words themselves. */
function unwrapRunAs(words: readonly string[]): readonly string[] {
  return words[0] === 'run-as' && words.length > 2 ? words.slice(2) : words;
}

function isReadWords(words: readonly string[]): boolean {
  const [first = '', second = '', third = ''] = words;
  if (first === 'date') return words.slice(1).every((w) => w.startsWith('+'));
  if (first === 'logcat') return words.includes('-d');
  // The harness's sync marker (log-observer.ts): a line in the log buffer under the harness's own
  // tag, which neither the app nor the checker reads.
  if (first === 'log') return words.length === 6 && words[1] === '-p' && words[2] === 'i' && words[3] === '-t' && words[4] === MARKER_TAG && words[5]!.startsWith('sync ');
  if (READ_COMMANDS.has(first)) return true;
  if (first === 'cmd') return READ_SUBCOMMANDS[`cmd ${second}`]?.includes(third) ?? false;
  return READ_SUBCOMMANDS[first]?.includes(second) ?? false;
}

/**
 * Whether a recorded command only reads. Anything not known to read counts as a change (so that
 * every change is kept); a command given input on stdin always does.
 */
export function isReadOnlyCommand(record: LabelledRecord): boolean {
  switch (record.via) {
    case 'pull':
    case 'list-reverses':
    case 'getprop':
      return true;
    case 'push':
    case 'reverse':
    case 'remove-reverse':
      return false;
    case 'stream':
    case 'stream-end': {
      const words = wordsOf(record);
      return words !== undefined && words[0] === 'logcat';
    }
    case 'shell':
    case 'exec-out': {
      if (record.data !== undefined) return false;
      if (record.context?.readOnly === true) return true;
      const words = wordsOf(record);
      return words !== undefined && words.length > 0 && isReadWords(unwrapRunAs(words));
    }
    default: {
      const unknown: never = record.via;
      throw new Error(`unknown way a command was sent: ${String(unknown)}`);
    }
  }
}

/** The action name of a command that changes the device, from what it is. */
export function changeActionName(record: LabelledRecord): string {
  if (record.via === 'push' || record.via === 'reverse' || record.via === 'remove-reverse') return record.via;
  const words = wordsOf(record);
  if (words === undefined) return 'command';
  const inner = unwrapRunAs(words);
  const [first = '', second = '', third = ''] = inner;
  if (first === 'kill') return 'kill';
  if (words[0] === 'run-as' && record.data !== undefined) return 'write-app-file';
  if (first === 'date') return 'set-time';
  switch (`${first} ${second}`) {
    case 'am force-stop':
      return 'force-stop';
    case 'am start':
    case 'am start-activity':
      return 'start-app';
    case 'am broadcast':
      return 'broadcast';
    case 'pm clear':
      return 'clear-app-data';
    case 'pm grant':
      return 'grant';
    case 'pm revoke':
      return 'revoke';
    case 'settings put':
    case 'settings delete':
      return 'setting';
    case 'cmd alarm':
      return third === 'set-time' ? 'set-time' : 'command';
    case 'cmd jobscheduler':
      return third === 'run' ? 'force-run' : 'command';
    default:
      return 'command';
  }
}

/** The event of one record (no folding); `action` named by the label, else by the command. */
export function commandEvent(record: LabelledRecord): CommandEvent {
  const read = isReadOnlyCommand(record);
  const label = read ? undefined : record.context;
  const labelDetail = typeof label?.detail === 'function' ? label.detail(record) : label?.detail;
  const batched = record.batch !== undefined ? `command ${record.batch.index} of ${record.batch.size} sent in one shell invocation` : undefined;
  const detail = labelDetail !== undefined && batched !== undefined ? `${labelDetail} (${batched})` : (labelDetail ?? batched);
  const event: ActionEvent = {
    type: 'action',
    t: record.startedAt,
    action: read ? 'read' : (label?.action ?? changeActionName(record)),
    ...(record.argv !== undefined ? { argv: [...record.argv] } : { command: record.command }),
    via: record.via,
    ...(record.path !== undefined ? { path: record.path } : {}),
    ...(record.mode !== undefined ? { mode: record.mode } : {}),
    ...(record.exitCode !== undefined ? { exitCode: record.exitCode } : {}),
    ...(record.durationMs !== undefined ? { durationMs: Math.round(record.durationMs) } : {}),
    ...(record.bytes !== undefined && record.bytes > 0 ? { bytes: record.bytes } : {}),
    ...(record.via === 'shell' && record.data !== undefined ? { stdinBytes: record.data.length } : {}),
    ...(record.output !== undefined ? { result: record.output } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(label?.run !== undefined ? { run: label.run } : {}),
    ...(label?.probe === true ? { probe: true } : {}),
    ...(label?.heldRequest !== undefined ? { heldRequest: { path: label.heldRequest.path, nth: label.heldRequest.nth } } : {}),
    ...(detail !== undefined ? { detail } : {}),
  };
  return { event, ...(record.data !== undefined ? { data: record.data } : {}) };
}

/** Reads that fold together: same way, same command, same exit code, failed or not. */
function foldKey(record: LabelledRecord): string {
  return JSON.stringify([record.via, record.command, record.exitCode ?? null, record.error !== undefined]);
}

/**
 * Turns records (in the order sent) into events: every change its own event, in order; the
 * reads before each change (and after the last one) folded, one event per distinct read, in the
 * order of their first sending.
 */
export function commandEvents(records: readonly LabelledRecord[]): CommandEvent[] {
  const out: CommandEvent[] = [];
  let reads = new Map<string, { event: ActionEvent; durationMs: number }>();
  const flushReads = (): void => {
    for (const { event, durationMs } of reads.values()) out.push({ event: { ...event, durationMs: Math.round(durationMs) } });
    reads = new Map();
  };
  for (const record of records) {
    if (!isReadOnlyCommand(record)) {
      flushReads();
      out.push(commandEvent(record));
      continue;
    }
    const key = foldKey(record);
    const seen = reads.get(key);
    const { event } = commandEvent(record);
    if (seen === undefined) {
      reads.set(key, { event, durationMs: record.durationMs ?? 0 });
      continue;
    }
    // The same read again: counted, timed together, the last one's result and size kept.
    const count = (seen.event.count ?? 1) + 1;
    const { result: _result, bytes: _bytes, ...kept } = seen.event;
    seen.event = {
      ...kept,
      count,
      ...(event.bytes !== undefined ? { bytes: event.bytes } : {}),
      ...(event.result !== undefined ? { result: event.result } : {}),
    };
    seen.durationMs += record.durationMs ?? 0;
  }
  flushReads();
  return out;
}
