/**
 * `am` (`cmd activity`): start, force-stop, kill, broadcast.
 * Source: frameworks/base services/core/java/com/android/server/am/ActivityManagerShellCommand.java
 * (runStartActivity: `Starting: <Intent>` on stdout before FLAG_ACTIVITY_NEW_TASK is added, the
 * START_* warnings/errors on stderr unless -W, exit 0 — aosp-mirror/platform_frameworks_base
 * @c014fb5c: START_CLASS_NOT_FOUND prints NO_CLASS_ERROR_CODE (`Error type 3`) and `Error:
 * Activity class <component.toShortString()> does not exist.`; runForceStop / runKill print nothing;
 * runSendBroadcast adds FLAG_RECEIVER_FROM_SHELL, prints `Broadcasting: <Intent>`, waits for the
 * ordered broadcast and prints `Broadcast completed: result=<code>[, data="<data>"]`).
 * On Android 11+ /system/bin/am runs `cmd activity "$@"` for these commands.
 * `am instrument` (ActivityManagerShellCommand.runInstrument + cmds/am Instrument.java): options
 * -r -e -p -w --user --no-window-animation --no-hidden-api-checks …; with -w the
 * TextStatusReporter prints each status bundle as sorted `INSTRUMENTATION_STATUS: k=v` lines and
 * `INSTRUMENTATION_STATUS_CODE: n` (or, without -r, only its `stream` value) and the result as
 * `INSTRUMENTATION_RESULT: k=v` + `INSTRUMENTATION_CODE: n` (or the `stream` value); a start
 * that fails throws AndroidException `INSTRUMENTATION_FAILED: <pkg>/<cls>`.
 */
import type { CommandContext } from '../../types.js';
import type { Bundle } from '../instrumentation.js';
import { StartResult } from '../activity-manager.js';
import type { AndroidSystem } from '../android-system.js';
import { IntentFlag, flattenToShortString, flattenToString, intentToString, parseComponentName, type ComponentName } from '../intent.js';
import { dumpService } from './dumpsys.js';
import { parseIntentArgs } from './intent-args.js';
import { JavaException, handleDefaultCommands, illegalArgument, parseJavaInt, runShellCommand, type CommandOutput, type ShellArgs } from './shell-command.js';

/**
 * The chooser an implicit intent that several activities take starts instead (frameworks/base
 * core/java/com/android/internal/app/ResolverActivity.java, in the `android` package).
 */
const RESOLVER_ACTIVITY: ComponentName = { packageName: 'android', className: 'com.android.internal.app.ResolverActivity' };

/** NO_CLASS_ERROR_CODE printed before "Error: Activity class ... does not exist." */
const NO_CLASS_ERROR_CODE = 'Error type 3';

function printHelp(out: CommandOutput): void {
  out.println('Activity manager (activity) commands:');
  out.println('  help');
  out.println('      Print this help text.');
  out.println('  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]');
  out.println('          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]');
  out.println('          [--track-allocation] [--user <USER_ID> | current] <INTENT>');
  out.println('      Start an Activity.  Options are:');
  out.println('      -W: wait for launch to complete');
  out.println('      -S: force stop the target app before starting the activity');
  out.println('  broadcast [--user <USER_ID> | all | current] <INTENT>');
  out.println('      Send a broadcast Intent.  Options are:');
  out.println('      --user <USER_ID> | all | current: Specify which user to send to; if not');
  out.println('          specified then send to all users.');
  out.println('  force-stop [--user <USER_ID> | all | current] <PACKAGE>');
  out.println('      Completely stop the given application package.');
  out.println('  kill [--user <USER_ID> | all | current] <PACKAGE>');
  out.println('      Kill all background processes associated with the given application.');
}

function skipUserOption(args: ShellArgs): void {
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    if (opt === '--user') parseUser(args.getNextArgRequired());
  }
}

function parseUser(u: string): number {
  if (u === 'all') return -1;
  if (u === 'current' || u === 'cur') return -2;
  return parseJavaInt(u);
}

async function runStart(system: AndroidSystem, args: ShellArgs, out: CommandOutput): Promise<number> {
  const parsed = parseIntentArgs(args);
  const intent = parsed.intent;
  if (parsed.stopFirst && intent.component !== undefined) {
    out.println(`Stopping: ${intent.component.packageName}`);
    system.activities.forceStop(intent.component.packageName, 'from pid 0');
  }
  out.println(`Starting: ${intentToString(intent)}`);
  intent.flags |= IntentFlag.FLAG_ACTIVITY_NEW_TASK;
  const started = Date.now();
  // An implicit intent (no -n) goes to the one activity whose filters take it (of the -p package
  // when given), to the chooser when several do, and is not resolved when none does.
  const found = intent.component === undefined ? system.activities.resolveActivities(intent) : [];
  const target = intent.component ?? (found.length === 1 ? found[0] : undefined);
  const hadProcess = target !== undefined && system.activities.processOf(target.packageName) !== undefined;
  let result: StartResult;
  let who: ComponentName | undefined = target;
  if (target !== undefined) result = await system.activities.startActivity(target, intent);
  else if (found.length > 1) {
    result = StartResult.SUCCESS;
    who = RESOLVER_ACTIVITY;
  } else result = StartResult.INTENT_NOT_RESOLVED;
  const line = (s: string): void => (parsed.wait ? out.println(s) : out.errPrintln(s));
  let launched = false;
  switch (result) {
    case StartResult.SUCCESS:
      launched = true;
      break;
    case StartResult.TASK_TO_FRONT:
      launched = true;
      line('Warning: Activity not started, its current task has been brought to the front');
      break;
    case StartResult.DELIVERED_TO_TOP:
      launched = true;
      line('Warning: Activity not started, intent has been delivered to currently running top-most instance.');
      break;
    case StartResult.CLASS_NOT_FOUND:
      line(NO_CLASS_ERROR_CODE);
      line(`Error: Activity class {${intent.component?.packageName ?? ''}/${intent.component?.className ?? ''}} does not exist.`);
      break;
    case StartResult.INTENT_NOT_RESOLVED:
      line(`Error: Activity not started, unable to resolve ${intentToString(intent)}`);
      break;
    default: {
      const unreachable: never = result;
      line(`Error: Activity not started, unknown error code ${String(unreachable)}`);
    }
  }
  if (parsed.wait && launched && who !== undefined) {
    const elapsed = Date.now() - started;
    out.println('Status: ok');
    out.println(`LaunchState: ${result === StartResult.TASK_TO_FRONT ? 'HOT' : hadProcess ? 'WARM' : 'COLD'}`);
    out.println(`Activity: ${flattenToShortString(who)}`);
    out.println(`TotalTime: ${elapsed}`);
    out.println(`WaitTime: ${elapsed + 2}`);
    out.println('Complete');
  }
  return 0;
}

async function runBroadcast(system: AndroidSystem, args: ShellArgs, out: CommandOutput): Promise<number> {
  const parsed = parseIntentArgs(args);
  const intent = parsed.intent;
  intent.flags |= IntentFlag.FLAG_RECEIVER_FROM_SHELL;
  out.println(`Broadcasting: ${intentToString(intent)}`);
  const result = await system.activities.broadcast(intent);
  let line = `Broadcast completed: result=${result.resultCode}`;
  if (result.resultData !== undefined) line += `, data="${result.resultData}"`;
  out.println(line);
  return 0;
}

/** Options of runInstrument that take no value. */
const INSTRUMENT_FLAGS = new Set(['-r', '-w', '-m', '--no-window-animation', '--no-hidden-api-checks', '--no-test-api-access', '--no-isolated-storage', '--no-logcat', '--no-restart']);

function sortedKeys(b: Bundle): string[] {
  return [...b.keys()].sort();
}

async function runInstrument(system: AndroidSystem, ctx: CommandContext | undefined, args: ShellArgs, out: CommandOutput): Promise<number> {
  let wait = false;
  let raw = false;
  const extras = new Map<string, string>();
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    if (opt === '-e') {
      const key = args.getNextArgRequired();
      extras.set(key, args.getNextArgRequired());
    } else if (opt === '-p' || opt === '--user' || opt === '--abi' || opt === '-f') {
      args.getNextArgRequired();
    } else if (INSTRUMENT_FLAGS.has(opt)) {
      if (opt === '-w') wait = true;
      if (opt === '-r') raw = true;
    } else {
      out.errPrintln(`Error: Unknown option: ${opt}`);
      return -1;
    }
  }
  const cnArg = args.getNextArgRequired();
  const component = parseComponentName(cnArg);
  if (component === undefined) throw illegalArgument(`Bad component name: ${cnArg}`);
  // Status lines go out as they come (the watcher prints from binder callbacks), through
  // System.out (frameworks/base cmds/am/src/com/android/commands/am/Instrument.java,
  // TextStatusReporter: System.out.print / println), a java.io.PrintStream, which never throws: a
  // write to an stdout whose reader went away (the adb stream closed: EPIPE) only sets its error
  // flag (PrintStream.checkError), so a status sent after the host hung up is lost and nothing
  // else happens.
  const write = (text: string): void => {
    if (ctx !== undefined) ctx.stdout.write(text).catch(() => undefined);
    else out.print(text);
  };
  const printBundle = (prefix: string, codeLine: string, code: number, b: Bundle, newline: boolean): void => {
    const pretty = raw ? undefined : b.get('stream');
    if (pretty !== undefined) {
      write(newline ? `${pretty}\n` : pretty);
      return;
    }
    write(sortedKeys(b).map((k) => `${prefix}: ${k}=${b.get(k) ?? ''}\n`).join('') + `${codeLine}: ${code}\n`);
  };
  let resolveFinished: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    resolveFinished = resolve;
  });
  const watcher = wait
    ? {
        status: (code: number, b: Bundle) => printBundle('INSTRUMENTATION_STATUS', 'INSTRUMENTATION_STATUS_CODE', code, b, false),
        finished: (code: number, b: Bundle) => {
          printBundle('INSTRUMENTATION_RESULT', 'INSTRUMENTATION_CODE', code, b, true);
          resolveFinished();
        },
      }
    : undefined;
  if (!(await system.instrumentation.start(component, extras, watcher))) {
    throw new JavaException('android.util.AndroidException', `INSTRUMENTATION_FAILED: ${flattenToString(component)}`, [
      '\tat com.android.commands.am.Instrument.run(Instrument.java:567)',
      '\tat com.android.server.am.ActivityManagerShellCommand.runInstrument(ActivityManagerShellCommand.java:1487)',
    ]);
  }
  if (!wait) return 0;
  // The am process ends when the instrumentation finishes, or when its adb stream is closed (the
  // instrumentation itself keeps running: it lives in the target process).
  const aborted = new Promise<void>((resolve) => {
    if (ctx === undefined) return;
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([finished, aborted]);
  return 0;
}

export function amHandler(system: AndroidSystem, ctx?: CommandContext): (cmd: string | null, args: ShellArgs, out: CommandOutput) => Promise<number> {
  return async (cmd, args, out) => {
    switch (cmd ?? '') {
      case 'instrument':
        return runInstrument(system, ctx, args, out);
      case 'start':
      case 'start-activity':
        return runStart(system, args, out);
      case 'force-stop': {
        skipUserOption(args);
        system.activities.forceStop(args.getNextArgRequired(), 'from pid 0');
        return 0;
      }
      case 'kill': {
        skipUserOption(args);
        system.activities.killBackground(args.getNextArgRequired());
        return 0;
      }
      case 'broadcast':
        return runBroadcast(system, args, out);
      default:
        // ActivityManagerShellCommand extends ShellCommand: `dump` is the activity service's dump.
        return handleDefaultCommands(cmd, out, printHelp, { args, text: (a) => dumpService(system, 'activity', a) ?? '' });
    }
  };
}

export function amCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return (ctx) => runShellCommand(ctx, ctx.argv.slice(1), amHandler(system, ctx));
}
