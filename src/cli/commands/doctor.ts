/**
 * `dedup-verify doctor`: is this device and app ready for dedup-verify? Each check says what it
 * found and, when it fails, the fix. Exit 0 when every check passes, 2 otherwise. `--json`
 * prints `{ ok, checks: [{ name, ok, found, fix?, warning? }] }` (`fix` only on failing checks;
 * `warning` on a check that holds but that the user should know about: a phone, or WorkManager
 * logging nothing at INFO, doctor-device.ts).
 *
 * The reverse check is real: it adds `adb reverse tcp:D tcp:H` to a listener this process opens
 * on the host, has toybox `nc` on the device carry one line through it, checks that the line
 * arrived, then removes the rule. The line goes one way only: toybox `nc HOST PORT` half-closes
 * the socket at EOF on stdin (toys/net/netcat.c / lib/net.c pollinate(): "Close
 * half-connection … echo GET / | netcat landley.net 80"), and adb has no half-close: the
 * daemon turns that EOF into CLSE, which closes both directions (adb/protocol.txt of
 * platform-tools 29.0.6; adb/sockets.cpp local_socket_close), so an answer from the host could
 * be cut off. The line arriving proves the rule, the device-side listener, the server's
 * connection to the host port and the data path. The clock check sets the clock to the time it
 * already has (`cmd alarm set-time`: AlarmManagerService's shell command; the shell user holds
 * SET_TIME, frameworks/base packages/Shell/AndroidManifest.xml), corrected by the time the round
 * trip took.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { ErrorCode, describeError, hasErrorCode } from '../../errors.js';
import { AdbDevice } from '../../device/adb-device.js';
import type { AndroidDevice } from '../../device/android-device.js';
import { createAdbClient, findAdbBinary, isLocalHost, listDevices, probeAdbServer } from '../../device/adb-server.js';
import { checkRunAs } from '../../android/app-data.js';
import { getPackageInfo, hasNotificationPermission } from '../../android/packages.js';
import { getSdkLevel } from '../../android/properties.js';
import { getAutoTime, readDeviceTimeMs } from '../../android/clock.js';
import { readWorkSnapshot } from '../../harness/work-state.js';
import { findJob, WORKMANAGER_JOB_SERVICE } from '../../android/job-scheduler.js';
import type { JobEntry } from '../../android/parsers/job-scheduler.js';
import { WorkState } from '../../android/work-spec.js';
import type { ScheduledSpec } from '../../harness/harness.js';
import { delay } from '../../harness/device-steps.js';
import { loadConfig } from '../../config/load-config.js';
import { readSavedState, stateDirFor } from '../../harness/device-state.js';
import { DEFAULT_CONFIG_FILE, type Config, type WorkManagerWork } from '../../config/types.js';
import { defaultAdbPort } from './run-devices.js';
import { referenceAppConfigPath } from '../package-root.js';
import type { CliIo } from '../io.js';
import { runTrials } from '../../harness/runner.js';
import { feedProbe } from '../../scenarios/feed-probe.js';
import { feedUrl } from '../../checker/check-history.js';
import { checkEmulator, checkWorkManagerLogLevel } from './doctor-device.js';

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly found: string;
  readonly fix?: string;
  /** Something to know about a check that holds (a phone, quiet WorkManager logs). */
  readonly warning?: string;
}

/** Longest wait for the line to come back through the reverse rule. */
const REVERSE_PROBE_TIMEOUT_MS = 10_000;
/** How long after nc has exited its line may still take to reach the host listener. */
const REVERSE_LINE_DEADLINE_MS = 5_000;

interface ProbeListener {
  readonly server: Server;
  readonly port: number;
  /** Lines received from the device, in order. */
  readonly received: string[];
  /** Open connections (destroyed on close, so closing never waits for the device). */
  readonly sockets: Set<Socket>;
  /** Called with each line as it arrives. */
  onLine?: ((line: string) => void) | undefined;
}

/** A host listener that records the first line of each connection, then closes it. */
function listenForProbe(): Promise<ProbeListener> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  let listener: ProbeListener;
  const server = createServer((socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      const line = buffered.slice(0, newline);
      received.push(line);
      listener.onLine?.(line);
      socket.end();
    });
    socket.on('error', () => {
      // the device side went away; what was received is judged by the caller
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      listener = { server, port: typeof address === 'object' && address ? address.port : 0, received, sockets };
      resolve(listener);
    });
  });
}

/**
 * Waits until the listener has received `line`, or until the deadline. The device's nc exits once
 * it has written the line into its socket; the line then still crosses adbd, the adb server and
 * the host socket, so it may arrive after the shell command has returned.
 */
function awaitLine(listener: ProbeListener, line: string, deadlineMs: number): Promise<boolean> {
  if (listener.received.includes(line)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.onLine = undefined;
      resolve(false);
    }, deadlineMs);
    listener.onLine = (got: string) => {
      if (got !== line) return;
      clearTimeout(timer);
      listener.onLine = undefined;
      resolve(true);
    };
  });
}

function closeListener(listener: ProbeListener): Promise<void> {
  for (const socket of listener.sockets) socket.destroy();
  return new Promise((resolve) => listener.server.close(() => resolve()));
}

/** adb reverse to a host listener, a line through it with nc on the device, the rule removed. */
export async function probeReverse(device: AndroidDevice): Promise<DoctorCheck> {
  const name = 'adb reverse carries a connection';
  const fix = 'update adb (platform-tools) on the host and check `adb reverse --list`; the app reaches the fixture server only through adb reverse';
  const token = `dedup-verify-doctor-${randomBytes(6).toString('hex')}`;
  const before = await device.listReverses();
  const taken = new Set(before.map((r) => r.remote));
  const listener = await listenForProbe();
  // The device port: the host port's number, unless a rule already uses it.
  let devicePort = listener.port;
  while (taken.has(`tcp:${devicePort}`)) devicePort = devicePort >= 65535 ? 1024 : devicePort + 1;
  let outcome: { ok: boolean; found: string };
  let added = false;
  try {
    await device.reverse(devicePort, listener.port);
    added = true;
    const result = await device.shell(`echo ${token} | nc 127.0.0.1 ${devicePort}`, { timeoutMs: REVERSE_PROBE_TIMEOUT_MS });
    const stderr = result.stderr.trim();
    if (result.exitCode === 127 || /nc: (inaccessible or )?not found/.test(stderr)) {
      outcome = { ok: true, found: `rule tcp:${devicePort} → tcp:${listener.port} accepted; this device has no nc, so no line was sent` };
    } else if (result.exitCode === 0 && (await awaitLine(listener, token, REVERSE_LINE_DEADLINE_MS))) {
      outcome = { ok: true, found: `a line went from device tcp:${devicePort} to host tcp:${listener.port}` };
    } else {
      outcome = {
        ok: false,
        found: `\`echo … | nc 127.0.0.1 ${devicePort}\` exited ${result.exitCode}${stderr ? ` (${stderr.split('\n')[0] ?? ''})` : ''} and the host listener on tcp:${listener.port} got ${listener.received.length === 0 ? 'nothing' : 'another line'}`,
      };
    }
  } catch (e) {
    outcome = { ok: false, found: `${added ? `nc through tcp:${devicePort}` : `adb reverse tcp:${devicePort} tcp:${listener.port}`} failed: ${describeError(e)}` };
  }
  await closeListener(listener);
  if (added) {
    try {
      await device.removeReverse(devicePort);
      outcome = { ...outcome, found: `${outcome.found}; rule removed, ${before.length} other rule(s) left as they were` };
    } catch (e) {
      outcome = { ok: false, found: `${outcome.found}; removing the rule failed: ${describeError(e)} (remove it with \`adb reverse --remove tcp:${devicePort}\`)` };
    }
  }
  return { name, ...outcome, ...(outcome.ok ? {} : { fix }) };
}

/** `cmd alarm set-time` to the time the device already has (plus the round trip). */
async function probeClock(device: AndroidDevice): Promise<DoctorCheck> {
  const autoTime = await getAutoTime(device);
  const hostBefore = Date.now();
  const now = await readDeviceTimeMs(device);
  const setTime = await device.shell(['cmd', 'alarm', 'set-time', String(now + (Date.now() - hostBefore))]);
  return {
    name: 'clock can be set',
    ok: setTime.exitCode === 0,
    found:
      setTime.exitCode === 0
        ? `cmd alarm set-time works (auto_time=${autoTime ?? 'unset'}; a run sets it to 0 and puts it back)`
        : `cmd alarm set-time exited ${setTime.exitCode}: ${(setTime.stderr || setTime.stdout.toString()).trim()}`,
    fix: 'use an emulator image where `adb shell cmd alarm set-time` works (any Google APIs or Google Play image, API 26+); dedup-verify moves the clock to force WorkManager runs',
  };
}

/**
 * An interrupted run leaves a state file (src/harness/device-state.ts, read with readSavedState):
 * its device may still have a moved clock, auto_time 0, the run's reverse rule and test data,
 * and `run` refuses the device until `dedup-verify restore` has put it back.
 */
async function checkNoUnrestoredRun(serial: string): Promise<DoctorCheck> {
  const name = 'restored after earlier runs';
  const fix = `dedup-verify restore --device ${serial}`;
  try {
    const state = await readSavedState(serial);
    if (state === null) return { name, ok: true, found: `no state file left by an interrupted run (${stateDirFor(serial)})` };
    return {
      name,
      ok: false,
      found: `an interrupted run left its state file (saved ${state.savedAt}, app ${state.pkg}) in ${stateDirFor(serial)}: the clock, auto_time, reverse rules or app data may still be changed, and run refuses this device until it is restored`,
      fix,
    };
  } catch (e) {
    return { name, ok: false, found: describeError(e), fix: `${fix} (or remove ${stateDirFor(serial)} once the device is as it should be)` };
  }
}

export async function runDoctor(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const checks: DoctorCheck[] = [];
  const add = (check: DoctorCheck): void => {
    // A fix is shown (and kept in --json) only for a failing check.
    const c: DoctorCheck = check.ok || check.fix === undefined ? { name: check.name, ok: check.ok, found: check.found, ...(check.warning !== undefined ? { warning: check.warning } : {}) } : check;
    checks.push(c);
    const tail = `${c.ok || !c.fix ? '' : `\n     fix: ${c.fix}`}${c.warning !== undefined ? `\n     note: ${c.warning}` : ''}`;
    if (opts['json'] !== true) io.stdout(`${c.ok ? (c.warning !== undefined ? 'warn' : 'ok  ') : 'FAIL'} ${c.name}: ${c.found}${tail}\n`);
  };
  const finish = (): number => {
    const ok = checks.every((c) => c.ok);
    if (opts['json'] === true) io.stdout(`${JSON.stringify({ ok, checks }, null, 2)}\n`);
    else io.stdout(ok ? 'Ready: dedup-verify run can drive this device and app.\n' : `${checks.filter((c) => !c.ok).length} check(s) failed: apply the fix shown under each FAIL and run doctor again.\n`);
    return ok ? 0 : 2;
  };

  let adbPath: string | undefined;
  const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : '127.0.0.1';
  const endpoint = { host, port: typeof opts['adbPort'] === 'number' ? opts['adbPort'] : defaultAdbPort() };
  if (isLocalHost(host)) {
    try {
      adbPath = findAdbBinary();
      add({ name: 'adb', ok: true, found: adbPath });
    } catch (e) {
      add({ name: 'adb', ok: false, found: describeError(e), fix: 'install Android SDK platform-tools (or `apt-get install adb`) and put adb on PATH, or set $ADB to its path' });
      return finish();
    }
  }
  const version = await probeAdbServer(endpoint);
  add({
    name: 'adb server',
    ok: version !== null,
    found: version === null ? `nothing answers on ${endpoint.host}:${endpoint.port}` : `${endpoint.host}:${endpoint.port}, protocol ${version}`,
    fix: `adb -P ${endpoint.port} start-server (or pass --adb-port, or set ANDROID_ADB_SERVER_PORT, to the server your emulator is on)`,
  });
  if (version === null) return finish();

  const online = (await listDevices(createAdbClient(endpoint), endpoint)).filter((d) => d.state === 'device').map((d) => d.serial);
  const serial = typeof opts['device'] === 'string' ? opts['device'] : online.length === 1 ? online[0] : undefined;
  add({
    name: 'device',
    ok: serial !== undefined && online.includes(serial),
    found: serial === undefined ? `${online.length} online (${online.join(', ') || 'none'})` : online.includes(serial) ? `${serial} online` : `${serial} not online (online: ${online.join(', ') || 'none'})`,
    fix: online.length > 1 ? 'pick one with --device SERIAL' : 'start the emulator (or `adb connect HOST:PORT`) and check `adb devices`',
  });
  if (serial === undefined || !online.includes(serial)) return finish();
  add(await checkNoUnrestoredRun(serial));

  let config: Config;
  const explicit = typeof opts['config'] === 'string' ? opts['config'] : undefined;
  const path = explicit ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : referenceAppConfigPath());
  try {
    config = await loadConfig(path);
    const source = explicit !== undefined || path === DEFAULT_CONFIG_FILE ? path : `no ./${DEFAULT_CONFIG_FILE}, so the reference-app config ${path}; pass --config for your app`;
    add({ name: 'config', ok: true, found: `${source} (app ${config.app.package})` });
  } catch (e) {
    add({ name: 'config', ok: false, found: describeError(e), fix: 'write one with `dedup-verify init --device SERIAL --package PKG`' });
    return finish();
  }

  const device = await AdbDevice.open({ serial, host: endpoint.host, port: endpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) });
  try {
    const pkg = config.app.package;
    const launch = `adb -s ${serial} shell am start -n ${config.app.launchActivity?.includes('/') ? config.app.launchActivity : `${pkg}/${config.app.launchActivity ?? '.MainActivity'}`}`;
    const api = await getSdkLevel(device);
    add({ name: 'API level', ok: api >= 26, found: String(api), fix: 'use an emulator image or device with API 26 (Android 8.0) or newer: dedup-verify needs notification channels' });
    const info = await getPackageInfo(device, pkg);
    add({ name: 'app installed', ok: info !== null, found: info === null ? `${pkg} not installed` : `${pkg}`, fix: `install a debug build of the app (./gradlew installDebug), or fix app.package in ${path}` });
    if (info !== null) {
      const runAs = await checkRunAs(device, pkg);
      add({
        name: 'debuggable (run-as)',
        ok: runAs.ok,
        found: runAs.ok ? `run-as works, uid ${runAs.uid}` : runAs.message,
        fix: 'install a debuggable build (the debug variant, android:debuggable="true"): dedup-verify reads the app database through run-as',
      });
      const granted = hasNotificationPermission(info, api);
      add({
        name: 'notification permission',
        ok: granted,
        found: api >= 33 ? (granted ? 'POST_NOTIFICATIONS granted' : 'POST_NOTIFICATIONS not granted') : `not a runtime permission on API ${api}`,
        fix: `adb -s ${serial} shell pm grant ${pkg} android.permission.POST_NOTIFICATIONS`,
      });
      const work = config.work;
      if (runAs.ok && work.scheduler === 'jobscheduler') {
        // The app's own JobService: its job is listed by dumpsys jobscheduler once the app scheduled it.
        try {
          const job = await findJob(device, { pkg, ...(work.jobId !== undefined ? { jobId: work.jobId } : {}), ...(work.jobService !== undefined ? { serviceClass: work.jobService } : {}) });
          const wanted = [work.jobId !== undefined ? `job ${work.jobId}` : '', work.jobService !== undefined ? `of ${work.jobService}` : ''].filter((s) => s !== '').join(' ');
          add({
            name: 'periodic job scheduled',
            ok: job !== null,
            found: job === null ? `no ${wanted} of ${pkg} in dumpsys jobscheduler` : `job ${job.jobId}${job.namespace ? ` in namespace ${job.namespace}` : ''} of ${job.serviceClass ?? 'the app'}`,
            fix: `launch the app once (${launch}) so it schedules its job; if it still fails, check work.jobId / work.jobService in ${path} (dedup-verify init lists the app's periodic jobs)`,
          });
        } catch (e) {
          add({ name: 'periodic job scheduled', ok: false, found: describeError(e), fix: `launch the app once so it schedules its job: ${launch}` });
        }
      }
      if (runAs.ok && work.scheduler === 'workmanager') {
        try {
          const { spec, job } = await readScheduledWork(device, config, work);
          add({
            name: 'periodic work scheduled',
            ok: job !== null,
            found:
              spec === undefined
                ? `no periodic work named "${work.uniqueName}"`
                : job === null
                  ? `WorkSpec ${spec.id} has no registered job (force-stopped since it last ran?)`
                  : `"${work.uniqueName}": job ${job.jobId}${job.namespace ? ` in namespace ${job.namespace}` : ''}, interval ${spec.intervalDuration} ms`,
            fix: `launch the app once (${launch}); if it still fails, check work.uniqueName in ${path} (dedup-verify init lists the app's unique work)`,
          });
        } catch (e) {
          add({ name: 'periodic work scheduled', ok: false, found: describeError(e), fix: `launch the app once so WorkManager creates its database and schedules the work: ${launch}` });
        }
        add(await checkWorkManagerLogLevel(device, pkg).catch((e: unknown): DoctorCheck => ({ name: 'WorkManager log level', ok: true, found: `could not tell: ${describeError(e)}` })));
      }
    }
    add(await checkEmulator(device));
    add(await probeClock(device));
    add(await probeReverse(device));
  } finally {
    await device.close();
  }
  // The probe run changes the device (it is restored after): only once everything else holds.
  if (checks.every((c) => c.ok)) add(await probeFetch(serial, endpoint, adbPath, config));
  return finish();
}

/** How long a WorkSpec whose job is missing is looked at again before the check says so. */
const RESCHEDULE_WAIT_MS = 5_000;

/**
 * The unique work's WorkSpec and its registered job. After a run WorkManager registers the next
 * period's job on its task thread (androidx work-runtime Schedulers.registerRescheduling, posted
 * from Processor.onExecuted), so an ENQUEUED WorkSpec whose job is not listed yet (a run just
 * ended, say doctor's own probe of a moment ago) is read again, backing off, for up to
 * RESCHEDULE_WAIT_MS, as a forced run of `run` waits for it.
 */
async function readScheduledWork(device: AndroidDevice, config: Config, work: WorkManagerWork): Promise<{ spec: ScheduledSpec | undefined; job: JobEntry | null }> {
  const started = performance.now();
  for (let pause = 50; ; pause = Math.min(pause * 2, 400)) {
    const spec = (await readWorkSnapshot(device, config, work)).namedSpecs[0];
    const job = spec?.systemId === undefined ? null : await findJob(device, { pkg: config.app.package, jobId: spec.systemId, serviceClass: WORKMANAGER_JOB_SERVICE });
    if (job !== null || spec?.state !== WorkState.ENQUEUED || performance.now() - started > RESCHEDULE_WAIT_MS) return { spec, job };
    await delay(pause);
  }
}

/**
 * One forced run against an empty feed (src/scenarios/feed-probe.ts), in a session that saves
 * and restores the device as `run` does: whether the app fetched the feed where the config
 * serves it, and if not what the checker's `no-fetch` says (the URL, the app's logcat line, the
 * field to check).
 */
async function probeFetch(serial: string, endpoint: { host: string; port: number }, adbPath: string | undefined, config: Config): Promise<DoctorCheck> {
  const name = 'feed fetched by a forced run';
  const url = feedUrl(config.feed);
  const attach = config.feed.attach !== undefined ? `feed.attach (${config.feed.attach.length} step${config.feed.attach.length === 1 ? '' : 's'}), ` : '';
  // The session attaches the feed (feed.attach) before the probe: a step the app refuses is the
  // config's fault, told as the check's finding.
  const result = await runTrials({
    scenarios: [feedProbe],
    repeat: 1,
    infraRetries: 0,
    devices: {
      endpoint,
      serials: [serial],
      created: [],
      open: (s) => AdbDevice.open({ serial: s, host: endpoint.host, port: endpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) }),
    },
    config,
    progress: () => undefined,
    out: undefined,
    signal: new AbortController().signal,
  }).catch((e: unknown) => {
    if (hasErrorCode(e, ErrorCode.Config)) return describeError(e);
    throw e;
  });
  if (typeof result === 'string') return { name, ok: false, found: result, fix: 'correct feed.attach as the line says, then run doctor again' };
  const report = result.scenarios[0];
  const fetches = (result.history[0]?.events ?? []).flatMap((e) => (e.type === 'fetched' ? [e.status] : []));
  if (report?.verdict === 'pass' && fetches.some((s) => s >= 200 && s <= 299)) {
    return { name, ok: true, found: `${attach !== '' ? `after ${attach.slice(0, -2)}, ` : ''}the app fetched ${url} (HTTP ${fetches.join(', ')}) in one forced run; the device was restored` };
  }
  const noFetch = report?.anomalies.find((a) => a.kind === 'no-fetch');
  const other = report?.anomalies.find((a) => a.kind !== 'no-fetch');
  return {
    name,
    ok: false,
    found: noFetch?.detail ?? report?.error ?? other?.detail ?? `the probe run's verdict is ${report?.verdict ?? 'missing'}`,
    fix: noFetch
      ? `correct what the line names (${attach}feed.devicePort or feed.path in the config, or the app's network security config) so the app fetches the feed from ${url}, then run doctor again`
      : 'run `dedup-verify run --scenario back-to-back` and read the anomalies: the forced run did not go through',
  };
}
