/**
 * The app's process and data as the harness drives them: start, stop, restart, kill mid-run,
 * `pm clear`. Each command is a recorded step (DeviceSteps.act); waiting for the app to schedule
 * its work again is the scheduling seam's.
 */
import { POST_NOTIFICATIONS, POST_NOTIFICATIONS_RUNTIME_SINCE_API, checkRuntimePermission, hasNotificationPermission, packageInfoCommand, packageInfoFrom, runtimePermissionCommand } from '../android/packages.js';
import { DedupVerifyError, DeviceCommandError, ErrorCode } from '../errors.js';
import { awaitProcessGoneCommand, broadcastCommand, broadcastResultFrom, checkForceStop, checkStartActivity, forceStop, forceStopCommand, runAsKillSignal, sendBroadcast, startActivity, startActivityCommand } from '../android/activity.js';
import type { ForceRunOptions, KillMethod } from './harness.js';
import type { StartReads } from './seams/scheduling.js';

/** Where a run is killed (ForceRunOptions.killAt). */
type KillPoint = NonNullable<ForceRunOptions['killAt']>;
import type { ObservedLine } from './log-observer.js';
import type { ActionLabel } from './command-log.js';
import type { DeviceSteps, SequenceStep } from './device-steps.js';
import type { ShellResult } from '../device/android-device.js';

/** How long a killed process's death line is waited for at least before `pidof` is asked instead. */
const DEATH_LINE_MIN_WAIT_MS = 1_000;

export class AppControl {
  constructor(private readonly steps: DeviceSteps) {}

  private get pkg(): string {
    return this.steps.pkg;
  }

  private get launchComponent(): string {
    const activity = this.steps.config.app.launchActivity ?? '.MainActivity';
    return activity.includes('/') ? activity : `${this.pkg}/${activity}`;
  }

  /** `pm clear`, with POST_NOTIFICATIONS granted back when the app had it. */
  async clearData(): Promise<void> {
    const steps = this.steps;
    // pm clear resets the app's runtime permissions (PermissionManagerServiceImpl.resetRuntimePermissionsInternal
    // when user data is cleared, frameworks/base services/core/java/com/android/server/pm/
    // permission/PermissionManagerServiceImpl.java): on API 33+ POST_NOTIFICATIONS goes, and every later notify()
    // would be dropped before notification_enqueue. A fresh install as the user sets it up has it
    // again, so it is granted back when the app had it (the restore puts every grant back).
    // The grants are read in the same shell invocation as `pm clear`, just before it and after it
    // exited 0 (reads: they change nothing).
    const clearArgv = ['pm', 'clear', this.pkg];
    const infoArgv = packageInfoCommand(this.pkg);
    const readsGrants = steps.apiLevel >= POST_NOTIFICATIONS_RUNTIME_SINCE_API;
    const results = await steps.actInSequence([
      ...(readsGrants ? [{ label: {}, argv: infoArgv }] : []),
      { label: { action: 'clear-app-data', detail: (r) => r.output }, argv: clearArgv },
      ...(readsGrants ? [{ label: {}, argv: infoArgv }] : []),
    ]);
    const [before, cleared, dumped] = readsGrants ? results : [undefined, ...results];
    const info = readsGrants ? packageInfoFrom(succeeded(infoArgv, before), this.pkg) : null;
    const hadNotifications = info !== null && hasNotificationPermission(info, steps.apiLevel);
    const out = succeeded(clearArgv, cleared);
    steps.note(`$ pm clear ${this.pkg} → ${out.trim()}`);
    if (hadNotifications) {
      const after = packageInfoFrom(succeeded(infoArgv, dumped), this.pkg);
      if (after === null || !hasNotificationPermission(after, steps.apiLevel)) {
        // The grant goes first in the invocation of the next change (the app's start), or on its
        // own before anything reads the device.
        const argv = runtimePermissionCommand(this.pkg, POST_NOTIFICATIONS, true);
        steps.deferChange({ label: { action: 'grant', detail: 'pm clear revoked POST_NOTIFICATIONS, which the app had: granted back' }, argv }, (result) =>
          checkRuntimePermission(steps.device.serial, argv, result),
        );
      }
    }
    steps.record({ type: 'forgotten', t: await steps.deviceNow(), items: 'all' });
  }

  /**
   * `am start` of the launch activity. `after`: read-only commands that go in the same shell
   * invocation, each after the one before exited 0 (the scheduler's wait and reads,
   * Scheduling.readsWithStart); their results are returned, as many as ran.
   */
  async start(after: readonly SequenceStep[] = []): Promise<ShellResult[]> {
    const component = this.launchComponent;
    if (after.length === 0) {
      await this.steps.act({ action: 'start-app' }, () => startActivity(this.steps.device, component));
      return [];
    }
    const argv = startActivityCommand(component);
    const [started, ...rest] = await this.steps.actInSequence([{ label: { action: 'start-app' }, argv }, ...after], { waits: true, timeoutMs: this.waitTimeoutMs });
    if (started === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
    checkStartActivity(this.steps.device.serial, component, argv, started);
    return rest;
  }

  /** How long an invocation whose commands wait on the device may take. */
  private get waitTimeoutMs(): number {
    const { runMs, commandMs } = this.steps.config.timeouts;
    return runMs + commandMs;
  }

  /** `am force-stop` then `am start` in one shell invocation, and `after` as with start(). */
  async restart(after: readonly SequenceStep[] = []): Promise<ShellResult[]> {
    const component = this.launchComponent;
    const stopArgv = forceStopCommand(this.pkg);
    const startArgv = startActivityCommand(component);
    // `am force-stop` returns once the package is stopped: ActivityManagerShellCommand.runForceStop
    // calls IActivityManager.forceStopPackage, which runs forceStopPackageLocked before it returns
    // (frameworks/base services/core/java/com/android/server/am/ActivityManagerShellCommand.java,
    // ActivityManagerService.java), so `am start` right after it in the same shell starts a new
    // process, as when sent one after the other.
    const [stopped, started, ...rest] = await this.steps.actInSequence(
      [{ label: { action: 'force-stop' }, argv: stopArgv }, { label: { action: 'start-app' }, argv: startArgv }, ...after],
      after.length > 0 ? { waits: true, timeoutMs: this.waitTimeoutMs } : {},
    );
    if (stopped !== undefined) checkForceStop(stopArgv, stopped);
    if (started === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${startArgv.join(' ')}\` did not run after \`${stopArgv.join(' ')}\``);
    checkStartActivity(this.steps.device.serial, component, startArgv, started);
    return rest;
  }

  async forceStop(): Promise<void> {
    await this.steps.act({ action: 'force-stop' }, () => forceStop(this.steps.device, this.pkg));
  }

  /** The app's process started by a broadcast, with no activity; `after` as with start(). */
  async startProcessWithoutActivity(after: readonly SequenceStep[] = []): Promise<ShellResult[]> {
    // WorkManager's diagnostics receiver is exported (permission DUMP, which the shell holds):
    // the broadcast starts the process without any activity (androidx work/work-runtime/src/main/
    // AndroidManifest.xml: DiagnosticsReceiver, exported, permission android.permission.DUMP).
    const options = { action: 'androidx.work.diagnostics.REQUEST_DIAGNOSTICS', pkg: this.pkg, includeStoppedPackages: true };
    const label = { action: 'start-process', detail: 'start the process without an activity' };
    if (after.length === 0) {
      await this.steps.act(label, () => sendBroadcast(this.steps.device, options));
      return [];
    }
    const argv = broadcastCommand(options);
    const [sent, ...rest] = await this.steps.actInSequence([{ label, argv }, ...after], { waits: true, timeoutMs: this.waitTimeoutMs });
    broadcastResultFrom(this.steps.device.serial, argv, succeeded(argv, sent));
    return rest;
  }

  /** The words of the read of the app's pid (`pidof PKG`), which kill() needs for a `signal` kill. */
  pidCommand(): string[] {
    return ['pidof', this.pkg];
  }

  /**
   * Kills the app process while the worker is held, and checks it is really gone (a kill that
   * did not take would let the worker go on unobserved), with the log stream synced up to then.
   * One shell invocation: the kill, a wait on the device until no process of the app is left
   * (awaitProcessGoneCommand), the sync marker (after a force-stop, whose process leaves no death
   * line) and the read-only `after` (the reads the harness makes after the run), which run only
   * once the process is gone; their results are returned, as many as ran.
   *
   * `pid`: the app's pid as `pidof` printed it once the run started (sent with the run command),
   * for a `signal` kill; asked here when not given.
   */
  async kill(method: KillMethod, label: ActionLabel, pid?: string, after: readonly SequenceStep[] = []): Promise<{ argv: string[]; after: ShellResult[] }> {
    const steps = this.steps;
    const { observer, clock } = steps.ctx;
    const commandMs = steps.config.timeouts.commandMs;
    const gone: SequenceStep = { label: { readOnly: true }, argv: awaitProcessGoneCommand(this.pkg, commandMs) };
    const from = observer.position;
    const sentAt = clock.monotonic();
    let argv: string[];
    // The results of the wait, and of `after` (after the marker, when there is one).
    let wait: ShellResult | undefined;
    let afterResults: ShellResult[];
    let marker: ReturnType<typeof observer.marker> | undefined;
    switch (method) {
      case 'force-stop': {
        // `am force-stop` returns once the package's processes are gone (see restart), which
        // log no death line: the sync marker says the stream holds every line they logged.
        argv = forceStopCommand(this.pkg);
        marker = observer.marker();
        const markerStep: SequenceStep = { label: { readOnly: true }, argv: marker.read.commands[0]! };
        const [stopped, ...rest] = await steps.actInSequence([{ label, argv }, gone, markerStep, ...after], { timeoutMs: 2 * commandMs });
        if (stopped === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
        checkForceStop(argv, stopped);
        wait = rest[0];
        afterResults = rest.slice(2);
        break;
      }
      case 'signal': {
        pid ??= await this.pid();
        if (!/^\d+$/.test(pid)) throw new DedupVerifyError(ErrorCode.DeviceCommand, `no single process of ${this.pkg} to kill (pidof printed "${pid}")`);
        argv = ['run-as', this.pkg, 'kill', runAsKillSignal(steps.apiLevel), pid];
        const [killed, ...rest] = await steps.actInSequence([{ label, argv }, gone, ...after], { timeoutMs: 2 * commandMs });
        if (killed === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${argv.join(' ')}\` was not run`);
        succeeded(argv, killed);
        wait = rest[0];
        afterResults = rest.slice(1);
        break;
      }
      default: {
        const unreachable: never = method;
        throw new Error(`unknown kill method ${String(unreachable)}`);
      }
    }
    if (wait === undefined || wait.exitCode !== 0) {
      const left = await this.pid();
      throw new DedupVerifyError(
        ErrorCode.DeviceCommand,
        `\`${argv.join(' ')}\` left ${this.pkg} running (pid ${left || '?'}); the kill point cannot be observed on this device.`,
      );
    }
    if (marker !== undefined) {
      await marker.arrived(commandMs);
      return { argv, after: afterResults };
    }
    // A process that dies without ActivityManager killing it is reported by
    // ActivityManagerService.appDiedLocked: reportUidInfoMessageLocked(TAG, "Process " +
    // app.processName + " (pid " + pid + ") has died: " + …), which Slog.i's it to the system
    // log (frameworks/base services/core/java/com/android/server/am/ActivityManagerService.java).
    // That line in the session's stream says the process is gone, and comes after every line
    // the process logged: no sync marker is then needed.
    const waitMs = Math.min(commandMs, Math.max(DEATH_LINE_MIN_WAIT_MS, 4 * (clock.monotonic() - sentAt)));
    const died = (l: ObservedLine): boolean => l.tag === 'ActivityManager' && l.message.startsWith(`Process ${this.pkg} (pid ${pid}) has died`);
    if (!(await observer.waitFor(from, died, waitMs, `the death of ${this.pkg} (pid ${pid})`).then(() => true, () => false))) await observer.sync(commandMs);
    return { argv, after: afterResults };
  }

  /**
   * Kills run `run` while request `kill.nth` to `path` is held (kill()), with `reads` (the reads
   * after the run, Scheduling.readsWith) in the kill's invocation, kept for the read after the
   * run. `pidof`: what `pidof PKG`, sent with the run command, printed (a `signal` kill needs it).
   */
  async killRun(kill: KillPoint, run: number, path: string, pidof: ShellResult | undefined, reads: StartReads | undefined): Promise<string[]> {
    const pid = pidof?.exitCode === 0 ? pidof.stdout.toString('utf8').trim() : undefined;
    const { argv, after } = await this.kill(
      kill.kill,
      { action: 'kill', run, heldRequest: { path, nth: kill.nth }, detail: `run ${run} killed while request ${kill.nth} to ${path} was held` },
      pid !== undefined && /^\d+$/.test(pid) ? pid : undefined,
      reads?.steps ?? [],
    );
    reads?.keep(after);
    return argv;
  }

  /** The app's pid as `pidof` prints it (empty when it has no process). */
  private async pid(): Promise<string> {
    return (await this.steps.device.shell(this.pidCommand())).stdout.toString('utf8').trim();
  }
}

/** The stdout of a command of a sequence that exited 0; a DeviceCommandError as shellText throws otherwise. */
function succeeded(argv: readonly string[], result: ShellResult | undefined): string {
  const command = argv.join(' ');
  if (result === undefined) throw new DedupVerifyError(ErrorCode.Internal, `\`${command}\` was not run`);
  if (result.exitCode === 0) return result.stdout.toString('utf8');
  const detail = [result.stderr, result.stdout.toString('utf8')].flatMap((t) => t.split('\n')).find((l) => l.trim() !== '');
  throw new DeviceCommandError(`Device command \`${command}\` exited with ${result.exitCode}${detail !== undefined ? `: ${detail.trim().slice(0, 300)}` : ''}.`, {
    command,
    exitCode: result.exitCode,
    stderr: result.stderr,
  });
}
