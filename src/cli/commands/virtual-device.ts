/**
 * `dedup-verify virtual-device [--port N] [--count K] [--api LEVEL] [--bug NAME]… [--no-root]
 * [--no-sqlite3] [--latency MS] [--app-log-level LEVEL] [--app-profile NAME] [--physical]` (docs/design.md §7, §9): starts K virtual devices on consecutive 127.0.0.1 ports,
 * prints `virtual device listening on 127.0.0.1:PORT` per device once it accepts connections,
 * and runs until SIGINT or SIGTERM, then closes every connection and removes the devices'
 * temp directories.
 */
import { DedupVerifyError, ErrorCode, UsageError } from '../../errors.js';
import { MAX_LATENCY_MS, isValidLatencyMs } from '../../virtual-device/adbd/delayed-link.js';
import { API_LEVELS, PHYSICAL_API_LEVEL, isApiLevel, type ApiLevel } from '../../virtual-device/profiles.js';
import { startVirtualDevices, type RunningVirtualDevice } from '../../virtual-device/server.js';
import { appLogLevelOption, appProfileOption, assertBugNames } from '../inputs.js';
import type { AppProfile } from '../../virtual-device/apps/feed-notifier/app-profiles.js';
import type { AppLogLevel } from '../../virtual-device/types.js';
import type { CliIo } from '../io.js';
import { untilStopped } from '../until-stopped.js';

/** More devices than this in one process is a typo, not a farm. */
const MAX_COUNT = 64;

export interface VirtualDeviceCliOptions {
  port: number;
  count: number;
  api: ApiLevel;
  bugs: string[];
  noRoot: boolean;
  noSqlite3: boolean;
  /** One-way delay of every packet a device sends, in ms (0: none). */
  latency: number;
  /** The reference app's WorkManager minimum log level. */
  appLogLevel: AppLogLevel;
  /** Answer as a phone (no qemu properties, a phone's build). */
  physical: boolean;
  /** The shape the reference app is written in. */
  appProfile: AppProfile;
}

export interface VirtualDeviceControl {
  /** Stops the devices like SIGINT/SIGTERM do (tests, embedding). */
  readonly signal?: AbortSignal;
}

function readOptions(opts: Readonly<Record<string, unknown>>): VirtualDeviceCliOptions {
  const port = opts['port'] ?? 0;
  const count = opts['count'] ?? 1;
  const api = opts['api'] ?? 34;
  const bug = opts['bug'] ?? [];
  const latency = opts['latency'] ?? 0;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port takes a TCP port from 0 to 65535 (got ${JSON.stringify(port)}).`);
  }
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new UsageError(`--count takes a number of devices from 1 to ${MAX_COUNT} (got ${JSON.stringify(count)}).`);
  }
  if (port !== 0 && port + count - 1 > 65535) {
    throw new UsageError(`--port ${port} with --count ${count} runs past port 65535. Use a lower --port or a smaller --count.`);
  }
  if (typeof api !== 'number' || !isApiLevel(api)) {
    throw new UsageError(`--api takes one of ${API_LEVELS.join(', ')} (got ${JSON.stringify(api)}).`);
  }
  if (!isValidLatencyMs(latency)) {
    throw new UsageError(`--latency takes a whole number of milliseconds from 0 to ${MAX_LATENCY_MS} (got ${JSON.stringify(latency)}), e.g. --latency 100.`);
  }
  if (!Array.isArray(bug) || !bug.every((b): b is string => typeof b === 'string')) throw new UsageError('--bug takes a bug name.');
  // The same check and message as `run --virtual --bug`: a misspelt bug must not start a correct app.
  assertBugNames(bug);
  const appLogLevel = appLogLevelOption(opts['appLogLevel'] ?? 'info');
  const appProfile = appProfileOption(opts['appProfile'] ?? 'reference');
  // A phone answers as one real build (a Pixel 8 on Android 14, src/virtual-device/profiles.ts):
  // another --api would be silently dropped.
  if (opts['physical'] === true && opts['api'] !== undefined && api !== PHYSICAL_API_LEVEL) {
    throw new UsageError(`--physical answers as a Pixel 8 on Android 14 (API ${PHYSICAL_API_LEVEL}); leave out --api ${api}, or leave out --physical for an emulator of API ${api}.`);
  }
  return { port, count, api, bugs: bug, noRoot: opts['root'] === false, noSqlite3: opts['sqlite3'] === false, latency, appLogLevel, physical: opts['physical'] === true, appProfile };
}

export async function runVirtualDevice(opts: Readonly<Record<string, unknown>>, io: CliIo, control: VirtualDeviceControl = {}): Promise<number> {
  const options = readOptions(opts);
  let devices: RunningVirtualDevice[];
  try {
    devices = await startVirtualDevices({
      port: options.port,
      count: options.count,
      apiLevel: options.api,
      bugs: options.bugs,
      noRoot: options.noRoot,
      noSqlite3: options.noSqlite3,
      latencyMs: options.latency,
      appLogLevel: options.appLogLevel,
      physical: options.physical,
      appProfile: options.appProfile,
    });
  } catch (e) {
    const where = options.count === 1 ? `127.0.0.1:${options.port}` : `${options.count} consecutive ports from 127.0.0.1:${options.port}`;
    if ((e as { code?: unknown }).code === 'EADDRINUSE') {
      throw new UsageError(`Cannot listen on ${where}: a port is in use. Stop the program listening there or pass --port with free ports (--port 0 picks them).`, { cause: e });
    }
    throw new DedupVerifyError(ErrorCode.Internal, `Cannot start the virtual device on ${where}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const stopped = untilStopped(control.signal);
  for (const d of devices) io.stdout(`virtual device listening on ${d.serial}\n`);
  await stopped;
  await Promise.all(devices.map((d) => d.close()));
  return 0;
}
