/**
 * `cmd alarm`: set-time, set-timezone, help.
 * Source: AlarmManagerService.ShellCmd (com.android.server.AlarmManagerService on Android 11,
 * com.android.server.alarm.AlarmManagerService from 12; help text as framework copies print it,
 * e.g. an Android 11 services.jar copy, KirbyNx/Swx-ROM-Galaxy-A70 system/Framework/services.jar/
 * smali/com/android/server/AlarmManagerService$ShellCmd.smali, which already has set-time). `set-time` prints
 * nothing and returns 0 when setTime() succeeds; exceptions are printed with `pw.println(e)` on
 * stdout and return -1. setTime needs android.permission.SET_TIME, which the shell holds
 * (packages/Shell/AndroidManifest.xml), so no root is needed.
 */
import { Uid } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { JavaException, handleDefaultCommands, parseJavaLong, type CommandOutput, type ShellArgs } from './shell-command.js';

function printHelp(out: CommandOutput, api: number): void {
  out.println('Alarm manager service (alarm) commands:');
  out.println('  help');
  out.println('    Print this help text.');
  out.println('  set-time TIME');
  out.println('    Set the system clock time to TIME where TIME is milliseconds');
  out.println('    since the Epoch.');
  out.println('  set-timezone TZ');
  out.println('    Set the system timezone to TZ where TZ is an Olson id.');
  if (api >= 31) {
    out.println('  get-config-version');
    out.println('    Returns an integer denoting the version of device_config keys the service is sync\'ed to. As long as this returns the same version, the values of the config are guaranteed to remain the same.');
  }
}

export function alarmHandler(system: AndroidSystem, callerUid: number): (cmd: string | null, args: ShellArgs, out: CommandOutput) => number {
  const api = system.device.apiLevel;
  return (cmd, args, out) => {
    try {
      switch (cmd ?? '') {
        case 'set-time': {
          const millis = parseJavaLong(args.getNextArgRequired());
          if (callerUid !== Uid.root && callerUid !== Uid.shell && callerUid !== Uid.system) {
            throw new JavaException('java.lang.SecurityException', `setTime: Neither user ${callerUid} nor current process has android.permission.SET_TIME.`);
          }
          system.device.clock.set(millis);
          return 0;
        }
        case 'set-timezone': {
          const tz = args.getNextArgRequired();
          system.device.props.set('persist.sys.timezone', tz);
          return 0;
        }
        default:
          return handleDefaultCommands(cmd, out, (o) => printHelp(o, api));
      }
    } catch (e) {
      if (e instanceof JavaException) {
        out.println(e.toString());
        return -1;
      }
      throw e;
    }
  };
}
