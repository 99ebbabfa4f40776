/**
 * `cmd jobscheduler`: run, get-job-state, cancel, help.
 * Sources: frameworks/base apex/jobscheduler/service/java/com/android/server/job/
 * JobSchedulerShellCommand.java — API 34+ (yaap/frameworks_base @3ddcaa00: `-n | --namespace`,
 * the namespace part of the error lines) and pre-14 (Ankits-lab/frameworks_base @150a9240: no
 * namespace option, `-u` parsed with Integer.parseInt). onCommand catches every exception and
 * prints `Exception: <e>` on stdout (-1); printError writes to stderr; `Running job[ [FORCED]]`.
 * Permission: android.permission.CHANGE_APP_IDLE_STATE, held by shell (and root passes).
 */
import { Uid } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { CMD_ERR_CONSTRAINTS, CMD_ERR_NO_JOB, CMD_ERR_NO_PACKAGE } from '../job-scheduler.js';
import { JavaException, handleDefaultCommands, parseJavaInt, type CommandOutput, type ShellArgs } from './shell-command.js';

function printHelp(out: CommandOutput, api: number): void {
  const ns = api >= 34;
  out.println('Job scheduler (jobscheduler) commands:');
  out.println('  help');
  out.println('    Print this help text.');
  out.println(`  run [-f | --force] [-s | --satisfied] [-u | --user USER_ID]${ns ? ' [-n | --namespace NAMESPACE]' : ''} PACKAGE JOB_ID`);
  out.println('    Trigger immediate execution of a specific scheduled job. For historical');
  out.println('    reasons, some constraints, such as battery, are ignored when this');
  out.println("    command is called. If you don't want any constraints to be ignored,");
  out.println('    include the -s flag.');
  out.println('    Options:');
  out.println('      -f or --force: run the job even if technical constraints such as');
  out.println('         connectivity are not currently met. This is incompatible with -f ');
  out.println('         and so an error will be reported if both are given.');
  if (ns) {
    out.println('      -n or --namespace: specify the namespace this job sits in; the default');
    out.println('         is null (no namespace).');
  }
  out.println('      -s or --satisfied: run the job only if all constraints are met.');
  out.println('         This is incompatible with -f and so an error will be reported');
  out.println('         if both are given.');
  out.println("      -u or --user: specify which user's job is to be run; the default is");
  out.println('         the primary or system user');
  out.println(`  cancel [-u | --user USER_ID]${ns ? ' [-n | --namespace NAMESPACE]' : ''} PACKAGE [JOB_ID]`);
  out.println('    Cancel a scheduled job.  If a job ID is not supplied, all jobs scheduled');
  out.println('    by that package will be canceled.  USE WITH CAUTION.');
  out.println('    Options:');
  out.println("      -u or --user: specify which user's job is to be run; the default is");
  out.println('         the primary or system user');
  if (ns) {
    out.println('      -n or --namespace: specify the namespace this job sits in; the default');
    out.println('         is null (no namespace).');
  }
  out.println(`  get-job-state [-u | --user USER_ID]${ns ? ' [-n | --namespace NAMESPACE]' : ''} PACKAGE JOB_ID`);
  out.println('    Return the current state of a job, may be any combination of:');
  out.println('      pending: currently on the pending list, waiting to be active');
  out.println('      active: job is actively running');
  out.println("      user-stopped: job can't run because its user is stopped");
  out.println("      backing-up: job can't run because app is currently backing up its data");
  out.println("      no-component: job can't run because its component is not available");
  out.println('      ready: job is ready to run (all constraints satisfied or bypassed)');
  out.println('      waiting: if nothing else above is printed, job not ready to run');
  out.println('    Options:');
  out.println("      -u or --user: specify which user's job is to be run; the default is");
  out.println('         the primary or system user');
}

/** JobSchedulerShellCommand.printError. */
function printError(out: CommandOutput, code: number, pkg: string, userId: number, namespace: string | null, jobId: number): boolean {
  const ns = namespace === null ? '' : ` / namespace ${namespace}`;
  switch (code) {
    case CMD_ERR_NO_PACKAGE:
      out.errPrintln(`Package not found: ${pkg} / user ${userId}`);
      return true;
    case CMD_ERR_NO_JOB:
      out.errPrintln(`Could not find job ${jobId} in package ${pkg}${ns} / user ${userId}`);
      return true;
    case CMD_ERR_CONSTRAINTS:
      out.errPrintln(`Job ${jobId} in package ${pkg}${ns} / user ${userId} has functional constraints but --force not specified`);
      return true;
    default:
      return false;
  }
}

interface CommonOptions {
  force: boolean;
  satisfied: boolean;
  userId: number;
  namespace: string | null;
}

/** Parses options; returns undefined after printing `Error: unknown option '<opt>'`. */
function parseOptions(args: ShellArgs, out: CommandOutput, api: number, allowed: readonly string[]): CommonOptions | undefined {
  const o: CommonOptions = { force: false, satisfied: false, userId: 0, namespace: null };
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    const known = (name: string): boolean => allowed.includes(name);
    if ((opt === '-f' || opt === '--force') && known('force')) o.force = true;
    else if ((opt === '-s' || opt === '--satisfied') && known('satisfied')) o.satisfied = true;
    else if (opt === '-u' || opt === '--user') o.userId = parseJavaInt(args.getNextArgRequired());
    else if ((opt === '-n' || opt === '--namespace') && api >= 34) o.namespace = args.getNextArgRequired();
    else {
      out.println(`Error: unknown option '${opt}'`);
      return undefined;
    }
  }
  return o;
}

export function jobschedulerHandler(system: AndroidSystem, callerUid: number): (cmd: string | null, args: ShellArgs, out: CommandOutput) => number {
  const api = system.device.apiLevel;
  const jobs = system.jobs;
  const checkPermission = (operation: string): void => {
    if (callerUid === Uid.root || callerUid === Uid.shell || callerUid === Uid.system) return;
    throw new JavaException('java.lang.SecurityException', `Uid ${callerUid} not permitted to ${operation}`);
  };
  return (cmd, args, out) => {
    try {
      switch (cmd ?? '') {
        case 'run': {
          checkPermission('force scheduled jobs');
          const o = parseOptions(args, out, api, ['force', 'satisfied']);
          if (o === undefined) return -1;
          if (o.force && o.satisfied) {
            out.println('Cannot specify both --force and --satisfied');
            return -1;
          }
          const pkg = args.getNextArgRequired();
          const jobId = parseJavaInt(args.getNextArgRequired());
          const ret = jobs.runCommand(pkg, o.userId, o.namespace, jobId, o.satisfied, o.force);
          if (printError(out, ret, pkg, o.userId, o.namespace, jobId)) return ret;
          out.println(o.force ? 'Running job [FORCED]' : 'Running job');
          return ret;
        }
        case 'get-job-state': {
          checkPermission('get job state');
          const o = parseOptions(args, out, api, []);
          if (o === undefined) return -1;
          const pkg = args.getNextArgRequired();
          const jobId = parseJavaInt(args.getNextArgRequired());
          const { out: text, code } = jobs.jobState(pkg, o.userId, o.namespace, jobId);
          out.print(text);
          printError(out, code, pkg, o.userId, o.namespace, jobId);
          return code;
        }
        case 'cancel': {
          checkPermission('cancel jobs');
          const o = parseOptions(args, out, api, []);
          if (o === undefined) return -1;
          if (o.userId < 0) {
            out.println('Error: must specify a concrete user ID');
            return -1;
          }
          // cancelJob passes a missing PACKAGE on as null (executeCancelCommand reports it).
          const pkg = args.getNextArg();
          const idText = args.getNextArg();
          const jobId = idText === null ? undefined : parseJavaInt(idText);
          const { out: text, code } = jobs.cancelCommand(pkg, o.userId, o.namespace, jobId);
          out.print(text);
          return code;
        }
        default:
          return handleDefaultCommands(cmd, out, (o) => printHelp(o, api));
      }
    } catch (e) {
      if (e instanceof JavaException) {
        out.println(`Exception: ${e.toString()}`);
        return -1;
      }
      throw e;
    }
  };
}
