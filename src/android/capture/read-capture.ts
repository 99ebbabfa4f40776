/**
 * `dedup-verify doctor --capture DIR`: reads a capture directory offline (what `capture`
 * wrote, `fixtures/device-output/`, or files a user pasted) and says, file by file, how many
 * records the harness's parsers understood and which lines they did not. What Android prints for
 * each command, and the source of each format, is cited at its parser (src/android/parsers/):
 * log lines in `epoch` and `threadtime` (AOSP system/logging liblog/logprint.cpp), the
 * `notification_enqueue` / `notification_canceled` events (frameworks/base services/core/java/com/
 * android/server/EventLogTags.logtags, tags 2750/27530), `JOB …` headers (JobSchedulerService.java
 * and JobStatus.java), `NotificationRecord(…)` (NotificationRecord.java), WorkManager's result line
 * (androidx work-runtime WorkerWrapper.kt). This module only finds the files and which parser
 * reads each; it adds no format of its own.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { UsageError } from '../../errors.js';
import { decodeUtf8, describeUtf8Problem } from '../../text.js';
import { DEVICE_JSON, type CaptureManifest } from './record-capture.js';
import { ProvenanceError, readDeviceOutput } from './provenance.js';
import { kindOfCommand, kindOfFileName, kindOfText, splitTranscript, understandOutput, type CaptureKind, type Understanding } from './understand.js';

export interface FileReport {
  /** Path relative to the capture directory. */
  readonly file: string;
  /** What the file was read as; null when nothing the harness reads matches it. */
  readonly kind: CaptureKind | null;
  /** The command that printed it, when known. */
  readonly command: string | null;
  readonly understood: number;
  readonly notUnderstood: string[];
  /** Why a file was not read at all (no reader, a malformed header). */
  readonly hint?: string;
}

export interface CaptureReport {
  readonly device: CaptureManifest | null;
  readonly files: FileReport[];
}

/** Files that are about a capture, not output of a device. */
function isSkipped(name: string): boolean {
  return name.startsWith('.') || name === DEVICE_JSON || /\.(md|json)$/i.test(name);
}

/**
 * The largest capture file read, in bytes: 64 MiB. `capture` writes command outputs and logcat
 * dumps (`logcat -d` prints at most what the ring buffers hold, 256 KiB to a few MiB each by
 * default: AOSP platform/system/logging logd/README.property, persist.logd.size), far below it.
 */
export const MAX_CAPTURE_FILE_BYTES = 64 * 1024 * 1024;

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function notRegular(path: string, what: string): UsageError {
  return new UsageError(
    `capture file ${path} is ${what}, not a regular file; a capture directory holds only the files \`dedup-verify capture\` wrote: copy the output into a regular file or remove it`,
  );
}

/**
 * Every file of the capture, depth first. Anything that is neither a regular file nor a directory
 * is an error, never opened: reading a FIFO would wait for a writer forever, a device (/dev/zero)
 * never ends. A symbolic link is refused rather than followed, so the capture is what is in the
 * directory and nothing it points at.
 */
async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!isSkipped(entry.name)) await walk(path);
        continue;
      }
      if (entry.name === DEVICE_JSON && current === dir) continue; // read and checked by readManifest
      if (!entry.isFile()) throw notRegular(path, kindOf(await lstat(path)));
      if (!isSkipped(entry.name)) out.push(path);
    }
  };
  await walk(dir);
  return out;
}

/**
 * The bytes of a capture file, refused when it is not a regular file or over the size limit. It
 * is opened without following a symbolic link and without blocking (a FIFO opens at once with
 * O_NONBLOCK, POSIX open(2)), and judged by fstat of what was opened, so a file swapped after
 * the listing is judged too.
 */
async function readCaptureFile(path: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw notRegular(path, 'a symbolic link');
    if (code === 'ENXIO') throw notRegular(path, 'a socket');
    throw new UsageError(`capture file ${path} cannot be read (${code ?? String(e)}); check its permissions`, { cause: e });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path, kindOf(info));
    if (info.size > maxBytes) {
      throw new UsageError(`capture file ${path} is ${info.size} bytes, over the limit of ${maxBytes} bytes (64 MiB); capture less (e.g. logcat -d -t 10000) or split the file`);
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A capture file as text; invalid UTF-8 is an error naming the file and the line. */
async function readCaptureText(path: string, maxBytes: number): Promise<string> {
  const decoded = decodeUtf8(await readCaptureFile(path, maxBytes));
  if ('problem' in decoded) {
    throw new UsageError(`capture file ${path} line ${decoded.problem.line} is not valid UTF-8 (${describeUtf8Problem(decoded.problem)}); save the file as UTF-8`);
  }
  return decoded.text;
}

async function readManifest(dir: string, maxBytes: number): Promise<CaptureManifest | null> {
  const path = join(dir, DEVICE_JSON);
  try {
    await lstat(path);
  } catch {
    return null; // no manifest: pasted outputs
  }
  const text = await readCaptureText(path, maxBytes);
  try {
    return JSON.parse(text) as CaptureManifest;
  } catch {
    return null;
  }
}

/**
 * Throws when `dir` is not a readable directory (the caller turns that into a usage error), and
 * a UsageError for a file that is not a regular file, too large or not UTF-8.
 */
export async function readCaptureDir(dir: string, options: { maxFileBytes?: number } = {}): Promise<CaptureReport> {
  const maxBytes = options.maxFileBytes ?? MAX_CAPTURE_FILE_BYTES;
  const info = await stat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory`);
  const device = await readManifest(dir, maxBytes);
  const listed = new Map((device?.files ?? []).map((f) => [f.file, f]));
  const files: FileReport[] = [];
  for (const path of await listFiles(dir)) {
    const file = relative(dir, path).split('\\').join('/');
    files.push(understandFile(file, await readCaptureText(path, maxBytes), listed.get(file)));
  }
  return { device, files };
}

/** One file: header, manifest entry, file name, then the text decide what it is. */
export function understandFile(file: string, text: string, listed?: { readonly command: string; readonly exitCode: number; readonly stream: 'stdout' | 'stderr' }): FileReport {
  let parsed;
  try {
    parsed = readDeviceOutput(text);
  } catch (e) {
    const reason = e instanceof ProvenanceError ? e.message : String(e);
    return { file, kind: null, command: null, understood: 0, notUnderstood: [], hint: `malformed provenance header: ${reason}` };
  }
  const { header, body } = parsed;
  const command = header?.command ?? listed?.command ?? null;
  const exitCode = header?.exitCode ?? listed?.exitCode ?? null;
  const stream = header?.stream ?? listed?.stream ?? 'stdout';
  const output = (kindText: string) => (stream === 'stderr' ? { stdout: '', stderr: kindText, exitCode } : { stdout: kindText, stderr: '', exitCode });

  const kind = (command !== null ? kindOfCommand(command) : null) ?? (command === null ? kindOfFileName(file) : null);
  if (kind !== null) return { file, kind, command, ...understandOutput(kind, output(body), command ?? '') };
  if (command !== null) {
    return { file, kind: null, command, understood: 0, notUnderstood: nonEmpty(body), hint: `dedup-verify does not read the output of "${command}"` };
  }

  // No command known: a pasted transcript (read command by command) or a bare output.
  const parts = splitTranscript(body);
  let total: Understanding = { understood: 0, notUnderstood: [] };
  const kinds = new Set<CaptureKind>();
  for (const part of parts) {
    const partKind = (part.command !== null ? kindOfCommand(part.command) : null) ?? kindOfText(part.text);
    if (partKind === null) {
      const lines = nonEmpty(part.text);
      if (lines.length > 0) total = { understood: total.understood, notUnderstood: [...total.notUnderstood, ...lines] };
      continue;
    }
    kinds.add(partKind);
    const read = understandMixed(partKind, part.text, part.command ?? '');
    total = { understood: total.understood + read.understood, notUnderstood: [...total.notUnderstood, ...read.notUnderstood] };
  }
  const only = kinds.size === 1 ? [...kinds][0] ?? null : null;
  if (kinds.size === 0) {
    return { file, kind: null, command: null, ...total, hint: 'not output of a command dedup-verify reads: name the file after the command (e.g. logcat-events.txt) or start it with a "# command:" line' };
  }
  return { file, kind: only, command: parts.length > 1 ? parts.map((p) => p.command).filter((c) => c !== null).join(' ; ') || null : null, ...total };
}

/**
 * A pasted part: the command's output, and log lines pasted after it read as logcat (a
 * transcript often shows a command, then the log lines it caused).
 */
function understandMixed(kind: CaptureKind, text: string, command: string): Understanding {
  if (kind === 'logcat') return understandOutput('logcat', { stdout: text, stderr: '', exitCode: null });
  const blocks = text.split(/\n\s*\n/);
  let total: Understanding = { understood: 0, notUnderstood: [] };
  for (const block of blocks) {
    const blockKind = kindOfText(block);
    const read = understandOutput(blockKind === 'logcat' ? 'logcat' : kind, { stdout: block, stderr: '', exitCode: null }, command);
    total = { understood: total.understood + read.understood, notUnderstood: [...total.notUnderstood, ...read.notUnderstood] };
  }
  return total;
}

function nonEmpty(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}
