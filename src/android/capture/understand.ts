/**
 * Reading device output offline, the way the harness reads it live: for each kind of output
 * the harness relies on, how many records its parsers understood and which lines they did not.
 *
 * A line is "not understood" when it names a record kind the harness relies on (a `JOB …`
 * header, a `NotificationRecord(`, a `notification_enqueue` event, a `Worker result` line, a
 * runtime-permission line, a workdb table the harness reads…) and the parser does not read it,
 * or when the output as a whole is not what the command prints. Lines that name nothing the
 * harness reads (the many detail lines of a dumpsys) are neither.
 *
 * The kind comes from the command that printed the text (the provenance header's `command`,
 * or the `device.json` of a capture directory), else from the file name, else from the text
 * itself. A pasted terminal transcript (`$ adb shell …` prompt lines) is read command by
 * command.
 */
import { parseBroadcastResult, parseStartActivity } from '../parsers/activity-manager.js';
import { isJobHeader, namesJobHeader, parseJobState, parseRunJobOutput } from '../parsers/job-scheduler.js';
import { parsePastedLogLine } from '../parsers/pasted-logcat.js';
import { parseNotificationCanceled, parseNotificationEnqueue } from '../parsers/notification-events.js';
import { parseNotificationRecords, splitKey } from '../parsers/notification-records.js';
import { parseDumpsysPackage } from '../parsers/packages.js';
import { classifyRunAsError } from '../parsers/run-as.js';
import { parseSharedPrefs } from '../parsers/shared-prefs.js';
import { namesWorkerResult, parseWorkerResult, WORKER_WRAPPER_TAG } from '../parsers/work-manager-log.js';

export const CaptureKind = [
  'getprop',
  'setting',
  'date',
  'pidof',
  'package-list',
  'dumpsys-package',
  'run-as-id',
  'shared-prefs',
  'workdb-schema',
  'dumpsys-jobscheduler',
  'job-state',
  'job-run',
  'dumpsys-notification',
  'notification-list',
  'notification-get',
  'logcat',
  'am-start',
  'am-broadcast',
] as const;
export type CaptureKind = (typeof CaptureKind)[number];

export interface Understanding {
  /** Records (or outputs) the parsers read. */
  readonly understood: number;
  /** Lines that name something the harness relies on and were not read, verbatim. */
  readonly notUnderstood: string[];
}

export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Null when the exit status is not known (a pasted output). */
  readonly exitCode: number | null;
}

const ADB_PREFIX = /^(?:\$\s*)?(?:adb(?:\.exe)?(?:\s+-[sPH]\s+\S+|\s+-[de])*\s+)?(?:shell\s+|exec-out\s+)?/;

/** The command as the device shell receives it: `adb -s X shell ` and a `$ ` prompt removed. */
export function deviceCommand(command: string): string {
  return command.trim().replace(ADB_PREFIX, '').trim();
}

/** The kind of output a command prints; null for a command the harness does not read. */
export function kindOfCommand(command: string): CaptureKind | null {
  const c = deviceCommand(command);
  const rules: [RegExp, CaptureKind][] = [
    [/^getprop(\s|$)/, 'getprop'],
    [/^settings get /, 'setting'],
    [/^date(\s|$)/, 'date'],
    [/^pidof /, 'pidof'],
    [/^(pm path|pm list packages)(\s|$)/, 'package-list'],
    [/^dumpsys package /, 'dumpsys-package'],
    [/^run-as \S+ id(\s|$)/, 'run-as-id'],
    [/^run-as \S+ cat \S*workdb/, 'workdb-schema'],
    [/^run-as \S+ cat shared_prefs\//, 'shared-prefs'],
    [/^dumpsys jobscheduler(\s|$)/, 'dumpsys-jobscheduler'],
    [/^cmd jobscheduler get-job-state /, 'job-state'],
    [/^cmd jobscheduler run /, 'job-run'],
    [/^dumpsys notification(\s|$)/, 'dumpsys-notification'],
    [/^cmd notification list(\s|$)/, 'notification-list'],
    [/^cmd notification get /, 'notification-get'],
    [/^logcat(\s|$)/, 'logcat'],
    [/^am start /, 'am-start'],
    [/^am broadcast /, 'am-broadcast'],
  ];
  return rules.find(([pattern]) => pattern.test(c))?.[1] ?? null;
}

/** The kind from a file name as `capture` writes them (`dumpsys-jobscheduler-pkg.txt`, `logcat-events.txt`…). */
export function kindOfFileName(name: string): CaptureKind | null {
  const base = (name.split('/').pop() ?? name).replace(/\.(stderr\.)?(txt|log|sql)$/, '');
  const prefixes: [string, CaptureKind][] = [
    ['getprop', 'getprop'],
    ['settings-get', 'setting'],
    ['date', 'date'],
    ['pidof', 'pidof'],
    ['pm-path', 'package-list'],
    ['pm-list-packages', 'package-list'],
    ['dumpsys-package', 'dumpsys-package'],
    ['run-as-id', 'run-as-id'],
    ['workdb-schema', 'workdb-schema'],
    ['shared-prefs', 'shared-prefs'],
    ['dumpsys-jobscheduler', 'dumpsys-jobscheduler'],
    ['cmd-jobscheduler-get-job-state', 'job-state'],
    ['cmd-jobscheduler-run', 'job-run'],
    ['dumpsys-notification', 'dumpsys-notification'],
    ['cmd-notification-list', 'notification-list'],
    ['cmd-notification-get', 'notification-get'],
    ['logcat', 'logcat'],
    ['am-start', 'am-start'],
    ['am-broadcast', 'am-broadcast'],
  ];
  return prefixes.find(([prefix]) => base === prefix || base.startsWith(`${prefix}-`))?.[1] ?? null;
}

/** The kind from the text alone (a pasted output with no command). */
export function kindOfText(text: string): CaptureKind | null {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const first = lines[0] ?? '';
  if (lines.some((l) => namesJobHeader(l))) return 'dumpsys-jobscheduler';
  if (lines.some((l) => l.includes('NotificationRecord('))) return 'dumpsys-notification';
  if (lines.some((l) => parsePastedLogLine(l) !== null)) return 'logcat';
  if (/^\[[^\]]+\]: \[/.test(first)) return 'getprop';
  if (/^Running job/.test(first) || /^Could not find job |^Package not found: /.test(first)) return 'job-run';
  if (/^package:/.test(first)) return 'package-list';
  if (/^(PRAGMA user_version|CREATE )/.test(first)) return 'workdb-schema';
  return null;
}

/** What each kind of output has that the harness reads: named when a file has lines but none of it. */
const EXPECTED: Readonly<Record<CaptureKind, string>> = {
  getprop: '"[name]: [value]" lines (getprop)',
  setting: 'one value (settings get)',
  date: 'the device time (date +%s or date)',
  pidof: 'process ids (pidof)',
  'package-list': '"package:NAME" lines (pm list packages / pm path)',
  'dumpsys-package': 'a "Package [name]" block (dumpsys package)',
  'run-as-id': 'a "uid=N(name) gid=N" line (run-as PKG id)',
  'shared-prefs': 'a shared-preferences XML file',
  'workdb-schema': 'the workdb schema: "PRAGMA user_version = N;" and CREATE TABLE lines',
  'dumpsys-jobscheduler': 'JobScheduler\'s job lines, "JOB #u0a190/7: 4a1b2c0 PKG/SERVICE" (or "JOB {namespace} #u0a190/7: …" on API 34+) (dumpsys jobscheduler)',
  'job-state': 'a job state (cmd jobscheduler get-job-state: "waiting", "ready", "active", "pending" … or "unknown(…)")',
  'job-run': '"Running job [FORCED]" or JobScheduler\'s error (cmd jobscheduler run)',
  'dumpsys-notification': '"NotificationRecord(…)" lines (dumpsys notification --noredact)',
  'notification-list': 'notification keys, "0|PKG|ID|TAG|UID" (cmd notification list)',
  'notification-get': 'a "NotificationRecord(…)" (cmd notification get KEY)',
  logcat:
    'log lines: threadtime "MM-DD HH:MM:SS.mmm PID TID P TAG: message" (also with -v uid, year, epoch), -v time "MM-DD HH:MM:SS.mmm P/TAG( PID): message", -v brief "P/TAG( PID): message", or Android Studio\'s copy "YYYY-MM-DD HH:MM:SS.mmm PID-TID TAG PKG P message"',
  'am-start': '"Starting: Intent { … }" or an "Error: …" (am start)',
  'am-broadcast': '"Broadcast completed: result=N" (am broadcast)',
};

/**
 * The line that starts a dump, printed also when it lists nothing: NotificationManagerService
 * dumpImpl's "Current Notification Manager state[ (filtered to …)]:" and JobSchedulerService
 * dumpInternal's "Registered N jobs:" (the same lines as the fixtures under
 * fixtures/device-output/ and the parsers cite).
 */
const HEADING: Partial<Record<CaptureKind, RegExp>> = {
  'dumpsys-notification': /^Current Notification Manager state\b/,
  'notification-get': /^Current Notification Manager state\b/,
  'dumpsys-jobscheduler': /^Registered \d+ jobs:$/,
};

/**
 * Reads one command's output as the harness would. `command` supplies the package where one is
 * needed. A file with lines of which the reader understood none is not understood as a whole:
 * one entry names what such output has (logcat's own dividers are not lines of a record).
 */
export function understandOutput(kind: CaptureKind, output: CommandOutput, command = ''): Understanding {
  const read = READERS[kind](output, deviceCommand(command));
  if (read.understood > 0 || read.notUnderstood.length > 0) return read;
  const lines = nonEmpty(`${output.stdout}\n${output.stderr}`).filter((l) => !DIVIDER.test(l));
  if (lines.length === 0) return read;
  // A dump with no record of its kind (no job, no notification showing) is still that dump.
  const heading = HEADING[kind];
  if (heading !== undefined && lines.some((l) => heading.test(l))) return { understood: 1, notUnderstood: [] };
  return { understood: 0, notUnderstood: [`(none of its ${lines.length} line(s) is a record dedup-verify reads: expected ${EXPECTED[kind]})`] };
}

type Reader = (output: CommandOutput, command: string) => Understanding;

const NONE: Understanding = { understood: 0, notUnderstood: [] };

function linesOf(text: string): string[] {
  return text.replace(/\r\n/g, '\n').split('\n');
}

function nonEmpty(text: string): string[] {
  return linesOf(text).filter((l) => l.trim() !== '');
}

/** Every non-empty line must pass `test`. */
function everyLine(text: string, test: (line: string) => boolean): Understanding {
  const notUnderstood: string[] = [];
  let understood = 0;
  for (const line of nonEmpty(text)) {
    if (test(line.trim())) understood++;
    else notUnderstood.push(line);
  }
  return { understood, notUnderstood };
}

/** A run-as failure the harness names (not debuggable, unknown package…), else the stderr lines. */
function runAsStderr(stderr: string): Understanding {
  if (stderr.trim() === '') return NONE;
  return classifyRunAsError(stderr) !== null ? { understood: 1, notUnderstood: [] } : { understood: 0, notUnderstood: nonEmpty(stderr) };
}

const GETPROP_LINE = /^\[([^\]]+)\]: \[([\s\S]*)\]$/;

function readGetprop({ stdout }: CommandOutput, command: string): Understanding {
  // `getprop NAME` prints the bare value (toybox toys/android/getprop.c), possibly empty.
  if (/^getprop\s+[\w.-]+\s*$/.test(command)) return nonEmpty(stdout).length <= 1 ? { understood: 1, notUnderstood: [] } : { understood: 0, notUnderstood: nonEmpty(stdout) };
  const notUnderstood: string[] = [];
  let understood = 0;
  let pending: string | null = null;
  for (const line of linesOf(stdout)) {
    if (pending !== null) {
      // A value with a newline in it (toybox prints it as is) continues until the closing `]`.
      pending = `${pending}\n${line}`;
      if (GETPROP_LINE.test(pending)) {
        understood++;
        pending = null;
      }
      continue;
    }
    if (line.trim() === '') continue;
    if (GETPROP_LINE.test(line)) understood++;
    else if (/^\[[^\]]+\]: \[/.test(line)) pending = line;
    else notUnderstood.push(line);
  }
  if (pending !== null) notUnderstood.push(...pending.split('\n'));
  return { understood, notUnderstood };
}

function readSetting({ stdout }: CommandOutput): Understanding {
  const lines = nonEmpty(stdout);
  return lines.length === 1 ? { understood: 1, notUnderstood: [] } : { understood: 0, notUnderstood: lines.length === 0 ? ['(no output: settings get prints the value or "null")'] : lines };
}

function readDate({ stdout }: CommandOutput): Understanding {
  return everyLine(stdout, (l) => /^\d+$/.test(l) || /^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \w+ \d{4}$/.test(l));
}

function readPidof({ stdout }: CommandOutput): Understanding {
  return everyLine(stdout, (l) => /^\d+(\s+\d+)*$/.test(l));
}

function readPackageList({ stdout }: CommandOutput): Understanding {
  return everyLine(stdout, (l) => /^package:\S+/.test(l));
}

const PERMISSION_LINE = /^\s+([\w.]+): granted=(true|false)/;

function readDumpsysPackage({ stdout }: CommandOutput, command: string): Understanding {
  const pkg = /^dumpsys package (\S+)/.exec(command)?.[1];
  const lines = linesOf(stdout);
  if (pkg === undefined) {
    // No package named: read the first Package block, as a person would.
    const named = lines.map((l) => /^ {2}Package \[([^\]]+)\]/.exec(l)?.[1]).find((p) => p !== undefined);
    if (named === undefined) return { understood: 0, notUnderstood: ['(no "Package [name]" block)'] };
    return readDumpsysPackage({ stdout, stderr: '', exitCode: 0 }, `dumpsys package ${named}`);
  }
  const dump = parseDumpsysPackage(stdout, pkg);
  if (dump === null) return { understood: 0, notUnderstood: [lines.find((l) => l.trim() !== '') ?? `(no "Package [${pkg}]" block)`] };
  const permissions = new Set([...Object.keys(dump.installPermissions), ...dump.users.flatMap((u) => Object.keys(u.runtimePermissions))]);
  const notUnderstood = lines.filter((l) => {
    const name = PERMISSION_LINE.exec(l)?.[1];
    return name !== undefined && !permissions.has(name) && l.includes('permission');
  });
  return { understood: 1 + permissions.size, notUnderstood };
}

function readRunAsId({ stdout, stderr }: CommandOutput): Understanding {
  const out = everyLine(stdout, (l) => /^uid=\d+\(\S+\) gid=\d+/.test(l) || /^\d+$/.test(l));
  const err = runAsStderr(stderr);
  return { understood: out.understood + err.understood, notUnderstood: [...out.notUnderstood, ...err.notUnderstood] };
}

function readSharedPrefs({ stdout, stderr }: CommandOutput): Understanding {
  if (stdout.trim() === '') return runAsStderr(stderr);
  try {
    return { understood: Object.keys(parseSharedPrefs(stdout)).length, notUnderstood: [] };
  } catch (e) {
    return { understood: 0, notUnderstood: [`(${e instanceof Error ? e.message : String(e)})`] };
  }
}

/** Columns the harness reads from each WorkManager table (android/work-db.ts). */
const WORKDB_COLUMNS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  WorkSpec: [['id'], ['state'], ['worker_class_name'], ['interval_duration'], ['last_enqueue_time', 'period_start_time']],
  WorkName: [['name'], ['work_spec_id']],
  SystemIdInfo: [['work_spec_id'], ['system_id']],
};

/** Column names of a one-line `CREATE TABLE name (…)`. */
export function createTableColumns(statement: string): { table: string; columns: string[] } | null {
  const match = /^CREATE TABLE (?:IF NOT EXISTS )?[`"[]?(\w+)[`"\]]?\s*\(([\s\S]*)\)\s*;?$/i.exec(statement.trim());
  if (match === null) return null;
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of match[2] ?? '') {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  const columns = parts
    .map((p) => p.trim())
    .filter((p) => !/^(PRIMARY KEY|FOREIGN KEY|UNIQUE|CHECK|CONSTRAINT)\b/i.test(p))
    .map((p) => /^[`"[]?(\w+)/.exec(p)?.[1] ?? '')
    .filter((c) => c !== '');
  return { table: match[1] ?? '', columns };
}

function readWorkdbSchema({ stdout, stderr }: CommandOutput): Understanding {
  if (stdout.trim() === '') return runAsStderr(stderr);
  const notUnderstood: string[] = [];
  let understood = 0;
  let version = false;
  for (const line of nonEmpty(stdout)) {
    const text = line.trim();
    if (/^PRAGMA user_version = \d+;$/.test(text)) {
      version = true;
      understood++;
      continue;
    }
    if (/^CREATE TABLE /i.test(text)) {
      const table = createTableColumns(text);
      const needed = table === null ? undefined : WORKDB_COLUMNS[table.table];
      const missing = needed === undefined || table === null ? [] : needed.filter((any) => !any.some((c) => table.columns.includes(c)));
      if (table === null || missing.length > 0) notUnderstood.push(line);
      else understood++;
      continue;
    }
    if (/^CREATE (UNIQUE )?(INDEX|TRIGGER|VIEW) /i.test(text)) {
      understood++;
      continue;
    }
    notUnderstood.push(line);
  }
  if (!version) notUnderstood.push('(no "PRAGMA user_version = N;" line: the schema version is unknown)');
  return { understood, notUnderstood };
}

function readDumpsysJobs({ stdout }: CommandOutput): Understanding {
  const notUnderstood: string[] = [];
  let understood = 0;
  for (const line of linesOf(stdout)) {
    if (!namesJobHeader(line)) continue;
    if (isJobHeader(line)) understood++;
    else notUnderstood.push(line);
  }
  return { understood, notUnderstood };
}

function readJobState({ stdout, stderr, exitCode }: CommandOutput): Understanding {
  const state = parseJobState(stdout, stderr, exitCode ?? (stdout.trim().startsWith('unknown(') ? 1 : 0));
  if (state.kind === 'known') return { understood: state.states.length, notUnderstood: [] };
  return state.reason === 'other' ? { understood: 0, notUnderstood: nonEmpty(`${stdout}\n${stderr}`) } : { understood: 1, notUnderstood: [] };
}

function readJobRun({ stdout, stderr, exitCode }: CommandOutput): Understanding {
  const result = parseRunJobOutput(stdout, stderr, exitCode ?? (/^Running job/m.test(stdout) ? 0 : -1));
  return result.kind === 'error' ? { understood: 0, notUnderstood: nonEmpty(`${stdout}\n${stderr}`) } : { understood: 1, notUnderstood: [] };
}

function readNotificationDump({ stdout }: CommandOutput): Understanding {
  const lines = linesOf(stdout);
  const notUnderstood: string[] = [];
  let understood = 0;
  for (const line of lines) {
    if (!line.includes('NotificationRecord(')) continue;
    if (parseNotificationRecords(line).length === 1) understood++;
    else notUnderstood.push(line);
  }
  return { understood, notUnderstood };
}

function readNotificationList({ stdout }: CommandOutput): Understanding {
  return everyLine(stdout, (l) => splitKey(l) !== null);
}

function readNotificationGet({ stdout, stderr }: CommandOutput): Understanding {
  if (/^error: no active notification matching key: /m.test(`${stdout}\n${stderr}`)) return { understood: 1, notUnderstood: [] };
  return readNotificationDump({ stdout, stderr, exitCode: null });
}

/** logcat's own dividers (`--------- beginning of main`, `--------- switch to events`). */
const DIVIDER = /^--------- (beginning of|switch to) \S+/;

function readLogcat({ stdout }: CommandOutput): Understanding {
  const notUnderstood: string[] = [];
  let understood = 0;
  for (const line of linesOf(stdout)) {
    if (line.trim() === '' || DIVIDER.test(line)) continue;
    const parsed = parsePastedLogLine(line);
    if (parsed === null) {
      notUnderstood.push(line);
      continue;
    }
    const { tag, message } = parsed;
    const ok =
      tag === 'notification_enqueue'
        ? parseNotificationEnqueue(message) !== null
        : tag === 'notification_canceled'
          ? parseNotificationCanceled(message) !== null
          : tag === WORKER_WRAPPER_TAG && namesWorkerResult(message)
            ? parseWorkerResult(message) !== null
            : true;
    if (ok) understood++;
    else notUnderstood.push(line);
  }
  return { understood, notUnderstood };
}

function readAmStart({ stdout, stderr }: CommandOutput): Understanding {
  const lines = nonEmpty(`${stdout}\n${stderr}`);
  // Started (`Starting: Intent { … }`), or an error line the harness reports (`Error: …`).
  if (parseStartActivity(stdout, stderr).kind === 'error' || lines.some((l) => l.startsWith('Starting: '))) return { understood: 1, notUnderstood: [] };
  return { understood: 0, notUnderstood: lines };
}

function readAmBroadcast({ stdout }: CommandOutput): Understanding {
  return parseBroadcastResult(stdout) !== null ? { understood: 1, notUnderstood: [] } : { understood: 0, notUnderstood: nonEmpty(stdout) };
}

const READERS: Readonly<Record<CaptureKind, Reader>> = {
  getprop: readGetprop,
  setting: readSetting,
  date: readDate,
  pidof: readPidof,
  'package-list': readPackageList,
  'dumpsys-package': readDumpsysPackage,
  'run-as-id': readRunAsId,
  'shared-prefs': readSharedPrefs,
  'workdb-schema': readWorkdbSchema,
  'dumpsys-jobscheduler': readDumpsysJobs,
  'job-state': readJobState,
  'job-run': readJobRun,
  'dumpsys-notification': readNotificationDump,
  'notification-list': readNotificationList,
  'notification-get': readNotificationGet,
  logcat: readLogcat,
  'am-start': readAmStart,
  'am-broadcast': readAmBroadcast,
};

/** One command's part of a pasted terminal transcript. */
export interface TranscriptPart {
  /** The command after the `$ ` prompt; null for text before the first prompt. */
  readonly command: string | null;
  readonly text: string;
}

/**
 * A prompt line of a pasted transcript and the command after it: a host shell's (`$ adb …`,
 * `user@host:~$ adb …`, `# adb …`, `% adb …`), Windows' (`PS C:\> adb …`, `C:\Users\me> adb …`),
 * or the device's own shell (`generic_x86_64:/ $ logcat -d`, `emu64xa:/ # dumpsys …`). The
 * command must be adb or one dedup-verify reads, so output that happens to hold a `$` is not
 * taken for a prompt.
 */
const PROMPT = /^(?:PS [^>]*>|[A-Za-z]:\\[^>]*>|(?:[\w.@-]+(?::[^\s$#%]*)?\s?)?[$#%]|>)\s*(\S.*)$/;

export function promptCommand(line: string): string | null {
  const command = PROMPT.exec(line.replace(/\r$/, ''))?.[1];
  if (command === undefined) return null;
  return /^adb(?:\.exe)?\s/.test(command) || kindOfCommand(command) !== null ? command : null;
}

/** Splits a transcript at its prompt lines (promptCommand); one part (command null) when it has none. */
export function splitTranscript(text: string): TranscriptPart[] {
  const parts: TranscriptPart[] = [];
  let command: string | null = null;
  let current: string[] = [];
  for (const line of linesOf(text)) {
    const prompt = promptCommand(line);
    if (prompt !== null) {
      if (command !== null || current.some((l) => l.trim() !== '')) parts.push({ command, text: current.join('\n') });
      command = prompt;
      current = [];
    } else current.push(line);
  }
  parts.push({ command, text: current.join('\n') });
  return parts;
}
