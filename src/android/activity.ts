/**
 * ActivityManager through the shell: `am start -n`, `am force-stop`, `am broadcast`.
 *
 * - `am force-stop PKG` prints nothing and exits 0; it also cancels all the app's jobs
 *   (JobSchedulerService.java @f4cdb430 on ACTION_PACKAGE_RESTARTED: "app force stopped") and
 *   its notifications (NotificationManagerService mPackageIntentReceiver, REASON_PACKAGE_CHANGED).
 * - `am kill PKG` is not used: it spares a process running a job (killBackgroundProcesses kills
 *   through ProcessList.killPackageProcessesLSP with minOomAdj SERVICE_ADJ, and JobServiceContext's
 *   binding holds the job's process at PERCEPTIBLE_LOW_APP_ADJ).
 */
import { DeviceCommandError } from '../errors.js';
import { commandFailed, type AndroidDevice, type ShellResult } from '../device/android-device.js';
import { buildShellCommand } from '../device/shell-quote.js';
import { assertComponentName, assertPackageName } from './names.js';
import { parseBroadcastResult, parseStartActivity, type BroadcastResult } from './parsers/activity-manager.js';
import { waitLoop } from './job-scheduler.js';

/** `am start -n COMPONENT` (with `-W`, waits until the launch completes). */
export async function startActivity(device: AndroidDevice, component: string, options: { wait?: boolean } = {}): Promise<void> {
  const argv = startActivityCommand(component, options);
  checkStartActivity(device.serial, component, argv, await device.shell(argv));
}

/** The words of `am start [-W] -n COMPONENT`. */
export function startActivityCommand(component: string, options: { wait?: boolean } = {}): string[] {
  return ['am', 'start', ...(options.wait === true ? ['-W'] : []), '-n', assertComponentName(component)];
}

/** Throws what startActivity throws when `am start` (sent as `argv`) did not start `component`. */
export function checkStartActivity(serial: string, component: string, argv: readonly string[], result: ShellResult): void {
  const parsed = parseStartActivity(result.stdout.toString('utf8'), result.stderr);
  if (parsed.kind === 'error' || result.exitCode !== 0) {
    const message = parsed.kind === 'error' ? parsed.message : `exit ${result.exitCode}`;
    throw new DeviceCommandError(`Could not start ${component} on ${serial}: ${message}`, {
      command: buildShellCommand(argv),
      exitCode: result.exitCode,
      stderr: result.stderr,
    });
  }
}

/** An intent `am start` sends (Intent.parseCommandArgs: `-a`, `-d`, `-t`, `-n`, `-p`). */
export interface StartIntent {
  readonly action: string;
  /** The data URI (`-d`, Uri.parse of the word as given). */
  readonly data?: string;
  /** The MIME type (`-t`). */
  readonly mimeType?: string;
  /** An explicit component (`-n PKG/CLS`). */
  readonly component?: string;
  /** Without a component: the package the intent is resolved in (`-p`, Intent.setPackage). */
  readonly pkg?: string;
}

/**
 * The words of `am start -W -a ACTION [-d DATA] [-t TYPE] [-n COMPONENT | -p PKG]`. The options are
 * Intent.parseCommandArgs's (frameworks/base core/java/android/content/Intent.java, as copied from
 * android-7.0.0_r1 in termux/termux-am-library termux-am-library/src/main/java/com/termux/am/
 * IntentCmd.java @1c99ae21: `-a` setAction, `-d`
 * Uri.parse, `-t` the type of setDataAndType, `-n` ComponentName.unflattenFromString, `-p`
 * setPackage); `-W` is ActivityManagerShellCommand.makeIntent's, which makes runStartActivity
 * wait for the launch and print `Status:`, `LaunchState:`, `Activity:`, `TotalTime:`,
 * `WaitTime:` and `Complete` (aosp-mirror/platform_frameworks_base
 * services/core/java/com/android/server/am/ActivityManagerShellCommand.java @c014fb5c).
 */
export function startIntentCommand(intent: StartIntent): string[] {
  const argv = ['am', 'start', '-W', '-a', intent.action];
  if (intent.data !== undefined) argv.push('-d', intent.data);
  if (intent.mimeType !== undefined) argv.push('-t', intent.mimeType);
  if (intent.component !== undefined) argv.push('-n', assertComponentName(intent.component));
  else if (intent.pkg !== undefined) argv.push('-p', assertPackageName(intent.pkg));
  return argv;
}

export async function forceStop(device: AndroidDevice, pkg: string): Promise<void> {
  await device.shellText(forceStopCommand(pkg));
}

/** The words of `am force-stop PKG`. */
export function forceStopCommand(pkg: string): string[] {
  return ['am', 'force-stop', assertPackageName(pkg)];
}

/**
 * A device shell line that waits, on the device, until no process of `pkg` is left: `pidof`
 * exits 1 when it finds none (toybox pidof_main: `toys.exitval = 1`, cleared by print_pid once a
 * process was printed), asked again after short pauses (waitLoop); exit 1 when one is still there
 * after `deadlineMs`, else 0. Read-only. Sent after a kill in the same invocation, it holds back
 * the reads that follow until the process is gone, as a separate `pidof` after the kill would.
 */
export function awaitProcessGoneCommand(pkg: string, deadlineMs: number): string {
  return waitLoop('while', `pidof ${assertPackageName(pkg)} >/dev/null 2>&1`, deadlineMs, 'exit 1');
}

/** Throws what forceStop throws when `am force-stop` (sent as `argv`) did not exit 0. */
export function checkForceStop(argv: readonly string[], result: ShellResult): void {
  if (result.exitCode !== 0) throw commandFailed(buildShellCommand(argv), result);
}

export interface BroadcastOptions {
  readonly action: string;
  /** Limits delivery to this package (`-p`). */
  readonly pkg?: string;
  /** Delivers to stopped packages too (needed after a force-stop). */
  readonly includeStoppedPackages?: boolean;
  /** String extras (`--es key value`). */
  readonly stringExtras?: Readonly<Record<string, string>>;
}

export async function sendBroadcast(device: AndroidDevice, options: BroadcastOptions): Promise<BroadcastResult> {
  const argv = broadcastCommand(options);
  return broadcastResultFrom(device.serial, argv, await device.shellText(argv));
}

/** The words of `am broadcast` for `options` (sendBroadcast). */
export function broadcastCommand(options: BroadcastOptions): string[] {
  const argv = ['am', 'broadcast', '-a', options.action];
  if (options.pkg !== undefined) argv.push('-p', assertPackageName(options.pkg));
  if (options.includeStoppedPackages === true) argv.push('--include-stopped-packages');
  for (const [key, value] of Object.entries(options.stringExtras ?? {})) argv.push('--es', key, value);
  return argv;
}

/** The result line of `am broadcast` (sent as `argv`, exit 0, `stdout` its output); throws when there is none. */
export function broadcastResultFrom(serial: string, argv: readonly string[], stdout: string): BroadcastResult {
  const result = parseBroadcastResult(stdout);
  if (result === null) {
    throw new DeviceCommandError(`\`am broadcast -a ${argv[3] ?? ''}\` on ${serial} printed no result line.`, {
      command: buildShellCommand(argv),
      stderr: stdout.slice(0, 500),
    });
  }
  return result;
}

/**
 * The signal `run-as PKG kill` may send to the app's process on this API level to end it
 * mid-run:
 * - API 34 and later: SIGKILL, as the low-memory killer sends it (`runas_app` gained `sigkill`
 *   on `untrusted_app_all` in Android 14: AOSP system/sepolicy commit "runas_app: allow sigkill
 *   of untrusted_app", private/runas_app.te `{ ptrace sigkill signal sigstop }`).
 * - API 29 to 33: SIGTERM. run-as runs the command in `runas_app` (system/core run-as/run-as.cpp,
 *   seapp_contexts `fromRunAs=true`), whose policy there is `{ ptrace signal sigstop }`: SELinux
 *   checks SIGKILL as `sigkill` and any other signal as `signal` (torvalds/linux
 *   security/selinux/hooks.c signal_to_av), so `kill -9` is refused (EACCES; toybox prints
 *   `kill: unknown pid 'N'`, exit 1) and `kill -15` is let through. ART handles only SIGQUIT
 *   (stack dump) and SIGUSR1 (GC) and blocks SIGPIPE (art runtime/runtime.cc BlockSignals,
 *   runtime/signal_catcher.cc); SIGTERM takes its default action and ends the process at once,
 *   with no Java code run. To ActivityManager and JobScheduler that is the same death as
 *   SIGKILL's: the binder dies, appDiedLocked logs `Process … has died`, and the bound job
 *   ends with the service gone.
 * - Before API 29 run-as ran the command in the app's own domain: SIGKILL.
 */
export function runAsKillSignal(apiLevel: number): '-9' | '-15' {
  return apiLevel >= 29 && apiLevel < 34 ? '-15' : '-9';
}
