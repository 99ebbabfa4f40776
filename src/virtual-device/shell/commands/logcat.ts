/**
 * logcat (system/logging/logcat/logcat.cpp, android-14.0.0_r29) over the device's log
 * buffers.
 *
 * - Buffers: `-b NAME` (repeatable, also comma/space lists; `all`, `default` = main,system,crash);
 *   without -b: main,system,crash,kernel.
 * - `-d` dumps and exits; `-t N|TIME` prints the last N lines / lines since TIME and exits;
 *   `-T N|TIME` the same, then keeps streaming; otherwise logcat streams until the stream
 *   closes (the shell's abort signal).
 * - `-c` clears the selected buffers and exits; `-g` prints their sizes.
 * - Filters: FILTERSPEC arguments, else $ANDROID_LOG_TAGS (adb logcat exports it), `-s` is
 *   `*:S`; `--pid`, `-e REGEX`, `-m N`.
 * - Text formats: logcat/format.ts (`-v`, default threadtime, or $ANDROID_PRINTF_LOG), with
 *   `--------- beginning of BUFFER` dividers; `-B` writes the raw binary entries and ignores
 *   tag filters (the BINARY branch of Logcat::Run never calls ProcessBuffer).
 * - A reader of an app uid sees only its own entries (logd's permission check); shell and root
 *   are in AID_LOG and see everything.
 * Errors go through error(3): `logcat: MESSAGE`, status 1.
 */
import type { Command, CommandContext, LogBufferName } from '../../types.js';
import { LOG_BUFFER_NAMES, type LogBuffers, type StoredLogEntry } from '../../logcat/log-buffers.js';
import { LogFilter } from '../../logcat/log-filter.js';
import { applyFormatWord, defaultLogFormat, dividerLine, encodeBinaryEntry, formatLogEntry, type LogFormat } from '../../logcat/format.js';
import { deviceTimeZone, fromLocalTime, localTime } from '../../clock.js';
import { isAppUid } from '../../fs/android-ids.js';
import type { FsWriter } from '../../fs/virtual-fs.js';
import { pathOf, perrorMsg, tb } from './toybox.js';

const DELIMITERS = /[,:; \t\n\r\f]/;
const SHORT_WITH_ARG = 'tTGfrnvbPme';
const SHORT_FLAGS = 'cdDhLgsQBSp';
const LONG_OPTIONS: Readonly<Record<string, { short: string; arg: 'none' | 'required' | 'optional' }>> = {
  binary: { short: 'B', arg: 'none' },
  buffer: { short: 'b', arg: 'required' },
  'buffer-size': { short: 'g', arg: 'optional' },
  clear: { short: 'c', arg: 'none' },
  debug: { short: 'debug', arg: 'none' },
  dividers: { short: 'D', arg: 'none' },
  file: { short: 'f', arg: 'required' },
  format: { short: 'v', arg: 'required' },
  grep: { short: 'e', arg: 'required' },
  head: { short: 'm', arg: 'required' },
  help: { short: 'h', arg: 'none' },
  id: { short: 'id', arg: 'required' },
  last: { short: 'L', arg: 'none' },
  'max-count': { short: 'm', arg: 'required' },
  pid: { short: 'pid', arg: 'required' },
  print: { short: 'print', arg: 'none' },
  proto: { short: 'proto', arg: 'none' },
  prune: { short: 'p', arg: 'optional' },
  regex: { short: 'e', arg: 'required' },
  'rotate-count': { short: 'n', arg: 'required' },
  'rotate-kbytes': { short: 'r', arg: 'required' },
  statistics: { short: 'S', arg: 'none' },
  tail: { short: 't', arg: 'required' },
  uid: { short: 'uid', arg: 'required' },
  wrap: { short: 'wrap', arg: 'optional' },
};

class LogcatError extends Error {}

interface Options {
  buffers: Set<LogBufferName>;
  clear: boolean;
  dump: boolean;
  binary: boolean;
  dividers: boolean;
  silent: boolean;
  getSize: boolean;
  tailLines: number | undefined;
  tailTimeMs: number | undefined;
  pid: number | undefined;
  uids: Set<number> | undefined;
  regex: RegExp | undefined;
  maxCount: number | undefined;
  file: string | undefined;
  formatWords: string[];
  filterSpecs: string[];
  help: boolean;
}

/** getopt_long with GNU argument permutation: options anywhere, `--` ends them. */
function parseOptions(ctx: CommandContext, timeZone: string, warnings: string[]): Options {
  const o: Options = {
    buffers: new Set(),
    clear: false,
    dump: false,
    binary: false,
    dividers: false,
    silent: false,
    getSize: false,
    tailLines: undefined,
    tailTimeMs: undefined,
    pid: undefined,
    uids: undefined,
    regex: undefined,
    maxCount: undefined,
    file: undefined,
    formatWords: [],
    filterSpecs: [],
    help: false,
  };
  const argv = ctx.argv.slice(1);
  const apply = (opt: string, value: string | undefined): void => {
    switch (opt) {
      case 's':
        o.silent = true;
        break;
      case 'c':
        o.clear = true;
        break;
      case 'd':
      case 'L':
        o.dump = true;
        break;
      case 't':
      case 'T': {
        if (opt === 't') o.dump = true;
        const v = value!;
        if (/^\d+$/.test(v)) {
          const n = Number(v);
          if (n < 1) {
            warnings.push(`WARNING: -${opt} ${v} invalid, setting to 1\n`);
            o.tailLines = 1;
          } else o.tailLines = n;
        } else {
          const t = parseLogTime(v, ctx.device.clock.now(), timeZone);
          if (t === undefined) throw new LogcatError(`-${opt} '${v}' not in time format.`);
          o.tailTimeMs = t;
        }
        break;
      }
      case 'D':
        o.dividers = true;
        break;
      case 'e':
        try {
          o.regex = new RegExp(value!);
        } catch {
          throw new LogcatError(`Invalid regex '${value!}'.`);
        }
        break;
      case 'm':
        if (!/^\d+$/.test(value!) || Number(value) < 1) throw new LogcatError(`-m '${value!}' isn't an integer greater than zero.`);
        o.maxCount = Number(value);
        break;
      case 'g':
        if (value === undefined) o.getSize = true;
        break;
      case 'b':
        for (const name of value!.split(DELIMITERS)) {
          if (name === '') continue;
          if (name === 'default') ['main', 'system', 'crash'].forEach((b) => o.buffers.add(b as LogBufferName));
          else if (name === 'all') LOG_BUFFER_NAMES.forEach((b) => o.buffers.add(b));
          else if ((LOG_BUFFER_NAMES as readonly string[]).includes(name)) o.buffers.add(name as LogBufferName);
          else if (name !== 'stats' && name !== 'security') throw new LogcatError(`Unknown -b buffer '${name}'.`);
        }
        break;
      case 'B':
        o.binary = true;
        break;
      case 'f':
        o.file = value;
        break;
      case 'v':
        o.formatWords.push(...value!.split(DELIMITERS).filter((w) => w !== ''));
        break;
      case 'pid':
        if (o.pid !== undefined) throw new LogcatError('Only one --pid argument can be provided.');
        if (!/^\d+$/.test(value!) || Number(value) < 1) throw new LogcatError(`pid '${value!}' out of range.`);
        o.pid = Number(value);
        break;
      case 'uid':
        o.uids ??= new Set();
        for (const u of value!.split(DELIMITERS)) {
          if (u === '') continue;
          if (!/^\d+$/.test(u)) throw new LogcatError(`Unable to parse UID '${u}'`);
          o.uids.add(Number(u));
        }
        break;
      case 'h':
        o.help = true;
        break;
      default:
        // -G -r -n -p -P -S -Q --id --wrap --print --proto --debug: accepted, not modelled.
        break;
    }
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      o.filterSpecs.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const def = LONG_OPTIONS[name];
      if (def === undefined) throw new LogcatError(`Unknown option '${a}'.`);
      let value: string | undefined;
      if (def.arg === 'required') {
        value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
        if (value === undefined) throw new LogcatError(`Option '${a}' needs an argument.`);
      } else if (def.arg === 'optional' && eq >= 0) value = a.slice(eq + 1);
      apply(def.short, value);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        if (SHORT_WITH_ARG.includes(c)) {
          const attached = a.slice(j + 1);
          const value = attached !== '' ? attached : argv[++i];
          if (value === undefined) throw new LogcatError(`Option '${a}' needs an argument.`);
          apply(c, value);
          break;
        }
        if (SHORT_FLAGS.includes(c)) {
          apply(c, undefined);
          continue;
        }
        throw new LogcatError(`Unknown option '${a}'.`);
      }
      continue;
    }
    o.filterSpecs.push(a);
  }
  return o;
}

/** parseTime(): 'MM-DD hh:mm:ss.mmm', 'YYYY-MM-DD hh:mm:ss.mmm' or 'sssss.mmm'. */
export function parseLogTime(text: string, nowMs: number, timeZone: string): number | undefined {
  const frac = (f: string | undefined): number => (f === undefined || f === '' ? 0 : Number(`0.${f}`) * 1000);
  let m = /^(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d*))?/.exec(text);
  if (m !== null) {
    const year = localTime(nowMs, timeZone).year;
    return fromLocalTime({ year, month: Number(m[1]), day: Number(m[2]), hour: Number(m[3]), minute: Number(m[4]), second: Number(m[5]) }, timeZone) + frac(m[6]);
  }
  m = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d*))?/.exec(text);
  if (m !== null) {
    return fromLocalTime({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6]) }, timeZone) + frac(m[7]);
  }
  m = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (m !== null) return Number(m[1]) * 1000 + frac(m[2]);
  return undefined;
}

/** format_of_size(): value in B, KiB, MiB or GiB. */
function sizeText(value: number): string {
  const units = ['', 'Ki', 'Mi', 'Gi'];
  let v = value;
  let i = 0;
  while (i < units.length - 1 && v >= 1024) {
    v = Math.floor(v / 1024);
    i++;
  }
  return `${v} ${units[i]!}B`;
}

export const logcat: Command = async (ctx) => {
  const t = tb(ctx);
  const logs: LogBuffers = t.host.logs;
  const timeZone = deviceTimeZone(ctx.device.props, ctx.env);
  const warnings: string[] = [];
  let o: Options;
  try {
    o = parseOptions(ctx, timeZone, warnings);
  } catch (e) {
    if (e instanceof LogcatError) {
      await ctx.stderr.write(`logcat: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  for (const w of warnings) await ctx.stderr.write(w);
  if (o.help) {
    await ctx.stdout.write('\n  Usage: logcat [OPTION]... [FILTERSPEC]...\n\n');
    return 0;
  }
  if (o.buffers.size === 0) ['main', 'system', 'crash', 'kernel'].forEach((b) => o.buffers.add(b as LogBufferName));

  const format: LogFormat = defaultLogFormat(timeZone);
  let formatSet = false;
  for (const word of o.formatWords) {
    const r = applyFormatWord(format, word);
    if (r === 'invalid') {
      await ctx.stderr.write(`logcat: Invalid -v '${word}'.\n`);
      return 1;
    }
    if (r === 'verb') formatSet = true;
  }
  if (!formatSet) {
    for (const word of (ctx.env.get('ANDROID_PRINTF_LOG') ?? '').split(DELIMITERS).filter((w) => w !== '')) {
      const r = applyFormatWord(format, word);
      if (r === 'invalid') await ctx.stderr.write(`invalid format in ANDROID_PRINTF_LOG '${word}'\n`);
      if (r === 'verb') formatSet = true;
    }
    if (!formatSet) applyFormatWord(format, 'threadtime');
  }

  const filter = new LogFilter();
  const explicitSpecs = o.filterSpecs;
  if (o.silent) filter.addRule('*:s');
  if (explicitSpecs.length === 0) {
    const envTags = ctx.env.get('ANDROID_LOG_TAGS');
    if (envTags !== undefined && !filter.addString(envTags)) {
      await ctx.stderr.write(`logcat: Invalid filter expression '${envTags}' in ANDROID_LOG_TAGS.\n`);
      return 1;
    }
  } else {
    for (const spec of explicitSpecs) {
      if (!filter.addString(spec)) {
        await ctx.stderr.write(`logcat: Invalid filter expression '${spec}'.\n`);
        return 1;
      }
    }
  }

  if (o.clear) {
    logs.clear(o.buffers);
    return 0;
  }
  if (o.getSize) {
    for (const b of LOG_BUFFER_NAMES.filter((n) => o.buffers.has(n))) {
      const { capacity, used } = logs.sizeOf(b);
      await ctx.stdout.write(`${b}: ring buffer is ${sizeText(capacity)} (${sizeText(used)} consumed, ${sizeText(used)} readable), max entry is 5120 B, max payload is 4068 B\n`);
    }
    return 0;
  }

  // logd shows a reader outside AID_LOG only its own uid's entries.
  let uids = o.uids;
  if (isAppUid(ctx.uid)) uids = new Set([ctx.uid]);

  let out: { write(data: string | Uint8Array): Promise<void> } = ctx.stdout;
  let fileWriter: FsWriter | undefined;
  if (o.file !== undefined) {
    try {
      fileWriter = await t.fs.openWrite(pathOf(ctx, o.file), ctx.uid, { append: true, mode: 0o640 });
    } catch (e) {
      await perrorMsg(ctx, `couldn't open output file '${o.file}'`, e);
      return 1;
    }
    const w = fileWriter;
    out = { write: (d) => w.write(Buffer.from(d)) };
  }

  const printedStart = new Set<LogBufferName>();
  let lastPrinted: LogBufferName | undefined;
  let printCount = 0;
  const limitReached = (): boolean => o.maxCount !== undefined && printCount >= o.maxCount;
  const emit = async (entry: StoredLogEntry): Promise<void> => {
    if (o.binary) {
      await out.write(encodeBinaryEntry(entry));
      return;
    }
    if (!filter.shouldPrint(entry.tag, entry.priority)) return;
    if (o.regex !== undefined && !o.regex.test(entry.message)) return;
    printCount++;
    let text = '';
    if (lastPrinted !== entry.buffer) {
      if (!printedStart.has(entry.buffer) || o.dividers) text += dividerLine(entry.buffer, printedStart.has(entry.buffer));
      printedStart.add(entry.buffer);
      lastPrinted = entry.buffer;
    }
    text += formatLogEntry(entry, format);
    await out.write(text);
  };

  const readFilter = {
    buffers: o.buffers,
    ...(o.pid === undefined ? {} : { pid: o.pid }),
    ...(uids === undefined ? {} : { uids }),
    ...(o.tailLines === undefined ? {} : { tail: o.tailLines }),
    ...(o.tailTimeMs === undefined ? {} : { sinceMs: o.tailTimeMs }),
  };
  // Subscribe before the snapshot so nothing written in between is lost.
  const queue: StoredLogEntry[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = o.dump
    ? () => undefined
    : logs.subscribe({ buffers: o.buffers, ...(o.pid === undefined ? {} : { pid: o.pid }), ...(uids === undefined ? {} : { uids }) }, (e) => {
        queue.push(e);
        wake?.();
      });
  try {
    const snapshot = logs.read(readFilter);
    let lastSeq = 0;
    for (const entry of snapshot) {
      if (ctx.signal.aborted || limitReached()) return 0;
      await emit(entry);
      lastSeq = entry.seq;
    }
    if (o.dump) return 0;
    const onAbort = (): void => wake?.();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!ctx.signal.aborted && !limitReached()) {
        const next = queue.shift();
        if (next === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (next.seq <= lastSeq) continue;
        await emit(next);
      }
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
    return 0;
  } finally {
    unsubscribe();
    await fileWriter?.close();
  }
};
