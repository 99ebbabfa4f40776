/**
 * `dedup-verify doctor`: is this device and app ready for dedup-verify? Each check says what it
 * found and, when it fails, the fix. Exit 0 when every required check passes, 2 otherwise.
 */
import { describeError } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import { createAdbClient, findAdbBinary, isLocalHost, listDevices, probeAdbServer } from '../../device/adb-server.js';
import { checkRunAs } from '../../android/app-data.js';
import { getPackageInfo, hasNotificationPermission } from '../../android/packages.js';
import { getSdkLevel } from '../../android/properties.js';
import { getAutoTime, readDeviceTimeMs } from '../../android/clock.js';
import { readWorkSnapshot } from '../../scenario/work-state.js';
import { findJob, WORKMANAGER_JOB_SERVICE } from '../../android/job-scheduler.js';
import { loadConfig } from '../../config/load-config.js';
import { DEFAULT_CONFIG_FILE, type Config } from '../../config/types.js';
import { existsSync } from 'node:fs';
import { defaultAdbPort } from './run-devices.js';
import { referenceAppConfigPath } from './run.js';
import type { CliIo } from '../main.js';

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly found: string;
  readonly fix?: string;
}

export async function runDoctor(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const checks: DoctorCheck[] = [];
  const add = (c: DoctorCheck): void => {
    checks.push(c);
    if (opts['json'] !== true) io.stdout(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.found}${c.ok || !c.fix ? '' : `\n     fix: ${c.fix}`}\n`);
  };
  const finish = (): number => {
    if (opts['json'] === true) io.stdout(`${JSON.stringify({ ok: checks.every((c) => c.ok), checks }, null, 2)}\n`);
    return checks.every((c) => c.ok) ? 0 : 2;
  };

  let adbPath: string | undefined;
  const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : '127.0.0.1';
  const endpoint = { host, port: typeof opts['adbPort'] === 'number' ? opts['adbPort'] : defaultAdbPort() };
  if (isLocalHost(host)) {
    try {
      adbPath = findAdbBinary();
      add({ name: 'adb', ok: true, found: adbPath });
    } catch (e) {
      add({ name: 'adb', ok: false, found: describeError(e), fix: 'apt-get install adb, or install Android SDK platform-tools and put adb on PATH' });
      return finish();
    }
  }
  const version = await probeAdbServer(endpoint);
  add({
    name: 'adb server',
    ok: version !== null,
    found: version === null ? `nothing answers on ${endpoint.host}:${endpoint.port}` : `${endpoint.host}:${endpoint.port}, protocol ${version}`,
    fix: `adb -P ${endpoint.port} start-server`,
  });
  if (version === null) return finish();

  const online = (await listDevices(createAdbClient(endpoint), endpoint)).filter((d) => d.state === 'device').map((d) => d.serial);
  const serial = typeof opts['device'] === 'string' ? opts['device'] : online.length === 1 ? online[0] : undefined;
  add({
    name: 'device',
    ok: serial !== undefined && online.includes(serial),
    found: serial === undefined ? `${online.length} online (${online.join(', ') || 'none'})` : online.includes(serial) ? `${serial} online` : `${serial} not online (online: ${online.join(', ') || 'none'})`,
    fix: online.length > 1 ? 'pick one with --device SERIAL' : 'start an emulator (or `adb connect HOST:PORT`) and check `adb devices`',
  });
  if (serial === undefined || !online.includes(serial)) return finish();

  let config: Config;
  try {
    const path = typeof opts['config'] === 'string' ? opts['config'] : existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : referenceAppConfigPath();
    config = await loadConfig(path);
    add({ name: 'config', ok: true, found: `${path} (app ${config.app.package})` });
  } catch (e) {
    add({ name: 'config', ok: false, found: describeError(e), fix: 'write one with `dedup-verify init --device SERIAL --package PKG`' });
    return finish();
  }

  const device = await AdbDevice.open({ serial, host: endpoint.host, port: endpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) });
  try {
    const pkg = config.app.package;
    const api = await getSdkLevel(device);
    add({ name: 'API level', ok: api >= 26, found: String(api), fix: 'dedup-verify needs notification channels: API 26 or newer' });
    const info = await getPackageInfo(device, pkg);
    add({ name: 'app installed', ok: info !== null, found: info === null ? `${pkg} not installed` : `${pkg}`, fix: 'install a debug build of the app (./gradlew installDebug)' });
    if (info === null) return finish();
    const runAs = await checkRunAs(device, pkg);
    add({
      name: 'debuggable (run-as)',
      ok: runAs.ok,
      found: runAs.ok ? `run-as works, uid ${runAs.uid}` : runAs.message,
      fix: 'install a debuggable build (android:debuggable="true"): dedup-verify reads the app database through run-as',
    });
    add({
      name: 'notification permission',
      ok: hasNotificationPermission(info, api),
      found: api >= 33 ? (hasNotificationPermission(info, api) ? 'POST_NOTIFICATIONS granted' : 'POST_NOTIFICATIONS not granted') : `not a runtime permission on API ${api}`,
      fix: `adb shell pm grant ${pkg} android.permission.POST_NOTIFICATIONS`,
    });
    if (runAs.ok) {
      try {
        const work = await readWorkSnapshot(device, config);
        const spec = work.namedSpecs[0];
        const job = spec?.systemId === undefined ? null : await findJob(device, { pkg, jobId: spec.systemId, serviceClass: WORKMANAGER_JOB_SERVICE });
        add({
          name: 'periodic work scheduled',
          ok: job !== null,
          found: spec === undefined ? `no periodic work named "${config.work.uniqueName}"` : job === null ? `WorkSpec ${spec.id} has no registered job` : `job ${job.jobId}${job.namespace ? ` in namespace ${job.namespace}` : ''}, interval ${spec.intervalDuration} ms`,
          fix: `launch the app once (adb shell am start -n ${pkg}/${config.app.launchActivity ?? '.MainActivity'}) and check work.uniqueName in the config`,
        });
      } catch (e) {
        add({ name: 'periodic work scheduled', ok: false, found: describeError(e), fix: `launch the app once so WorkManager creates its database` });
      }
    }
    const autoTime = await getAutoTime(device);
    const now = await readDeviceTimeMs(device);
    const setTime = await device.shell(['cmd', 'alarm', 'set-time', String(now)]);
    add({
      name: 'clock can be set',
      ok: setTime.exitCode === 0,
      found: setTime.exitCode === 0 ? `cmd alarm set-time works (auto_time=${autoTime ?? 'unset'})` : (setTime.stderr || setTime.stdout.toString()).trim(),
      fix: 'use an emulator image where `cmd alarm set-time` works, or a userdebug image where `adb root` works',
    });
    const reverses = await device.listReverses();
    add({ name: 'adb reverse', ok: true, found: `${reverses.length} rule(s) present` });
  } finally {
    await device.close();
  }
  return finish();
}
