/**
 * `dedup-verify capture`: the outputs of every read-only command the harness relies on, as the
 * device prints them, one file per command with its provenance header, and `device.json`
 * (API level, fingerprint, date, and what each file holds). Nothing on the device changes:
 * every command here only reads (getprop, settings get, dumpsys, `cmd … get-job-state`,
 * `cmd notification list`, `logcat -d` which dumps without clearing, `run-as PKG id` and
 * `run-as PKG cat` of the workdb, whose schema is read from a host copy).
 *
 * A user with an unusual device sends the directory with a bug report; `doctor --capture`
 * reads it offline, and the files can be moved into `fixtures/device-output/` as they are.
 *
 * Why each command only reads (all API levels the harness supports, 26+):
 * - `logcat -d`: "Dump the log and then exit (don't block)"; clearing is `-c` (AOSP
 *   system/logging/logcat/logcat.cpp, the usage text);
 * - `getprop` with no name prints every property as `[name]: [value]` (toybox
 *   toys/android/getprop.c); `settings get global NAME` prints the value or `null`
 *   (frameworks/base packages/SettingsProvider/.../SettingsService.java, `get`);
 * - `dumpsys jobscheduler PKG`, `dumpsys notification --noredact`, `dumpsys package PKG` dump
 *   state (JobSchedulerService.dumpInternal, NotificationManagerService.dumpImpl,
 *   PackageManagerService's dump); `cmd jobscheduler get-job-state` and `cmd notification list`
 *   print state (JobSchedulerShellCommand, NotificationShellCmd);
 * - `run-as PKG id` and `run-as PKG cat FILE` run `id` and `cat` as the app's uid
 *   (system/core run-as/run-as.cpp); the workdb copy is opened on the host only.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AndroidDevice, ShellResult } from '../../device/android-device.js';
import { buildShellCommand } from '../../device/shell-quote.js';
import { withDatabase } from '../app-data.js';
import { jobsOfPackage } from '../job-scheduler.js';
import { parseDumpsysJobs } from '../parsers/job-scheduler.js';
import { pullWorkDatabase, WORK_DATABASE_PATH } from '../work-db.js';
import { formatProvenanceHeader } from './provenance.js';

export const DEVICE_JSON = 'device.json';

export interface CaptureOptions {
  /** The app whose state is captured; without it only device-wide outputs are. */
  readonly pkg?: string;
  /** Names the tool in each file's `source`. */
  readonly toolVersion: string;
  /** The host's wall clock (device.json `date`). */
  readonly now: () => number;
}

export interface CapturedFile {
  readonly file: string;
  readonly command: string;
  readonly exitCode: number;
  readonly stream: 'stdout' | 'stderr';
  readonly bytes: number;
}

export interface CaptureManifest {
  readonly capturedBy: string;
  readonly serial: string;
  readonly package: string | null;
  readonly apiLevel: number | null;
  readonly release: string | null;
  readonly fingerprint: string | null;
  readonly model: string | null;
  /** Host time of the capture, ISO 8601. */
  readonly date: string;
  readonly files: CapturedFile[];
  /** Commands not run, with the reason (no package given, no job registered…). */
  readonly skipped: { readonly command: string; readonly reason: string }[];
}

interface Step {
  readonly file: string;
  readonly argv: readonly string[];
}

/** Captures into `outDir` (created; must be new or empty: the caller checks). */
export async function captureDevice(device: AndroidDevice, outDir: string, options: CaptureOptions): Promise<CaptureManifest> {
  await mkdir(outDir, { recursive: true });
  const files: CapturedFile[] = [];
  const skipped: { command: string; reason: string }[] = [];
  const props = await device.shell(['getprop']);
  const properties = parseProps(props.stdout.toString('utf8'));
  const apiText = properties.get('ro.build.version.sdk');
  const apiLevel = apiText !== undefined && /^\d+$/.test(apiText) ? Number(apiText) : null;
  const fingerprint = properties.get('ro.build.fingerprint') ?? null;
  const source = `dedup-verify capture ${options.toolVersion} from ${device.serial}${fingerprint !== null ? ` (${fingerprint})` : ''}`;

  const write = async (file: string, argv: readonly string[], result: ShellResult): Promise<void> => {
    const command = `adb shell ${buildShellCommand(argv)}`;
    const base = { provenance: 'captured' as const, source, apiLevel: apiLevel === null ? 'unknown' : String(apiLevel), command, exitCode: result.exitCode };
    await writeFile(join(outDir, file), formatProvenanceHeader({ ...base, stream: 'stdout' }) + result.stdout.toString('utf8'));
    files.push({ file, command, exitCode: result.exitCode, stream: 'stdout', bytes: result.stdout.length });
    if (result.stderr.trim() !== '') {
      const errFile = file.replace(/\.txt$/, '.stderr.txt');
      await writeFile(join(outDir, errFile), formatProvenanceHeader({ ...base, stream: 'stderr' }) + result.stderr);
      files.push({ file: errFile, command, exitCode: result.exitCode, stream: 'stderr', bytes: Buffer.byteLength(result.stderr) });
    }
  };
  const run = async (step: Step): Promise<ShellResult> => {
    const result = await device.shell(step.argv);
    await write(step.file, step.argv, result);
    return result;
  };

  await write('getprop.txt', ['getprop'], props);
  await run({ file: 'date.txt', argv: ['date', '+%s%3N'] });
  await run({ file: 'settings-get-global-auto_time.txt', argv: ['settings', 'get', 'global', 'auto_time'] });

  const pkg = options.pkg;
  if (pkg === undefined) {
    for (const command of ['pm path', 'dumpsys package', 'run-as … id', 'pidof', 'dumpsys jobscheduler', 'cmd jobscheduler get-job-state', 'the workdb schema']) {
      skipped.push({ command, reason: 'no --package given' });
    }
  } else {
    await run({ file: 'pm-path.txt', argv: ['pm', 'path', pkg] });
    await run({ file: 'dumpsys-package.txt', argv: ['dumpsys', 'package', pkg] });
    const runAs = await run({ file: 'run-as-id.txt', argv: ['run-as', pkg, 'id'] });
    await run({ file: 'pidof.txt', argv: ['pidof', pkg] });
    const jobsText = (await run({ file: 'dumpsys-jobscheduler-pkg.txt', argv: ['dumpsys', 'jobscheduler', pkg] })).stdout.toString('utf8');
    const jobs = jobsOfPackage(parseDumpsysJobs(jobsText), pkg);
    if (jobs.length === 0) skipped.push({ command: 'cmd jobscheduler get-job-state', reason: `no job of ${pkg} is registered` });
    for (const job of jobs) {
      const argv = ['cmd', 'jobscheduler', 'get-job-state', ...(job.namespace !== null ? ['-n', job.namespace] : []), pkg, String(job.jobId)];
      await run({ file: `cmd-jobscheduler-get-job-state-${job.namespace !== null ? `${job.namespace}-` : ''}${job.jobId}.txt`, argv });
    }
    if (runAs.exitCode !== 0) skipped.push({ command: `run-as ${pkg} cat ${WORK_DATABASE_PATH}`, reason: 'run-as does not work for this package (see run-as-id.stderr.txt)' });
    else await captureWorkdbSchema(device, pkg, outDir, { source, apiLevel }, files, skipped);
  }

  await run({ file: 'dumpsys-notification-noredact.txt', argv: ['dumpsys', 'notification', '--noredact'] });
  await run({ file: 'cmd-notification-list.txt', argv: ['cmd', 'notification', 'list'] });
  await run({ file: 'logcat-events.txt', argv: ['logcat', '-d', '-v', 'epoch', '-b', 'events'] });
  await run({ file: 'logcat-main-system.txt', argv: ['logcat', '-d', '-v', 'epoch', '-b', 'main', '-b', 'system'] });

  const manifest: CaptureManifest = {
    capturedBy: `dedup-verify ${options.toolVersion}`,
    serial: device.serial,
    package: pkg ?? null,
    apiLevel,
    release: properties.get('ro.build.version.release') ?? null,
    fingerprint,
    model: properties.get('ro.product.model') ?? null,
    date: new Date(options.now()).toISOString(),
    files,
    skipped,
  };
  await writeFile(join(outDir, DEVICE_JSON), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * The workdb's schema (no rows): the harness reads WorkSpec, WorkName and SystemIdInfo with the
 * formula of the schema version, so the version and the tables are what a bug report needs.
 */
async function captureWorkdbSchema(
  device: AndroidDevice,
  pkg: string,
  outDir: string,
  meta: { source: string; apiLevel: number | null },
  files: CapturedFile[],
  skipped: { command: string; reason: string }[],
): Promise<void> {
  const command = `adb shell run-as ${pkg} cat ${WORK_DATABASE_PATH} (schema only, read from a host copy)`;
  let pulled;
  try {
    pulled = await pullWorkDatabase(device, pkg);
  } catch (e) {
    skipped.push({ command, reason: e instanceof Error ? e.message : String(e) });
    return;
  }
  try {
    const text = withDatabase(pulled.dbPath, false, (db) => {
      const version = db.pragma('user_version', { simple: true }) as number;
      const rows = db.prepare(`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type DESC, name`).all() as { sql: string }[];
      return [`PRAGMA user_version = ${version};`, ...rows.map((r) => `${r.sql.replace(/\s+/g, ' ').trim()};`)].join('\n') + '\n';
    });
    const header = formatProvenanceHeader({ provenance: 'captured', source: meta.source, apiLevel: meta.apiLevel === null ? 'unknown' : String(meta.apiLevel), command, exitCode: 0, stream: 'stdout' });
    await writeFile(join(outDir, 'workdb-schema.sql'), header + text);
    files.push({ file: 'workdb-schema.sql', command, exitCode: 0, stream: 'stdout', bytes: Buffer.byteLength(text) });
  } finally {
    await pulled.cleanup();
  }
}

function parseProps(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    const match = /^\[([^\]]+)\]: \[(.*)\]$/.exec(line);
    if (match) props.set(match[1] ?? '', match[2] ?? '');
  }
  return props;
}
