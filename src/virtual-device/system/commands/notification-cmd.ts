/**
 * `cmd notification`: list, get KEY, allow_listener, disallow_listener, help.
 * Source: aosp-mirror/platform_frameworks_base services/core/java/com/android/server/notification/
 * NotificationShellCmd.java @fd1acebf: `list` prints the keys of
 * mNotificationsByKey; `get` dumps the record unredacted with prefix "" or prints
 * `error: no active notification matching key: <key>` and returns 1; only root and shell may call
 * it (`error: permission denied: callingUid=<uid>`, 255).
 */
import { Uid } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { parseComponentName } from '../intent.js';
import { dumpService } from './dumpsys.js';
import { handleDefaultCommands, type CommandOutput, type ShellArgs } from './shell-command.js';

function printHelp(out: CommandOutput): void {
  out.println('usage: cmd notification SUBCMD [args]');
  out.println('');
  out.println('SUBCMDs:');
  out.println('  allow_listener COMPONENT [user_id (current user if not specified)]');
  out.println('  disallow_listener COMPONENT [user_id (current user if not specified)]');
  out.println('  allow_assistant COMPONENT [user_id (current user if not specified)]');
  out.println('  remove_assistant COMPONENT [user_id (current user if not specified)]');
  out.println('  set_dnd [on|none (same as on)|priority|alarms|all|off (same as all)]');
  out.println('  allow_dnd PACKAGE [user_id (current user if not specified)]');
  out.println('  disallow_dnd PACKAGE [user_id (current user if not specified)]');
  out.println('  reset_assistant_user_set [user_id (current user if not specified)]');
  out.println('  get_approved_assistant [user_id (current user if not specified)]');
  out.println('  post [--help | flags] TAG TEXT');
  out.println('  set_bubbles PACKAGE PREFERENCE (0=none 1=all 2=selected) [user_id (current user if not specified)]');
  out.println('  set_bubbles_channel PACKAGE CHANNEL_ID ALLOW [user_id (current user if not specified)]');
  out.println('  list');
  out.println('  get <notification-key>');
  out.println('  snooze --for <msec> <notification-key>');
  out.println('  unsnooze <notification-key>');
}

export function notificationHandler(system: AndroidSystem, callerUid: number): (cmd: string | null, args: ShellArgs, out: CommandOutput) => number {
  return (cmd, args, out) => {
    if (callerUid !== Uid.root && callerUid !== Uid.shell) {
      out.println(`error: permission denied: callingUid=${callerUid}`);
      return 255;
    }
    switch (cmd ?? '') {
      case 'list':
        for (const r of system.notifications.active()) out.println(r.key);
        return 0;
      case 'get': {
        const key = args.getNextArgRequired();
        const r = system.notifications.get(key);
        if (r === undefined) {
          out.println(`error: no active notification matching key: ${key}`);
          return 1;
        }
        for (const line of r.dump('', false, system.device.apiLevel, system.notifications.active().indexOf(r))) out.println(line);
        return 0;
      }
      case 'allow_listener':
      case 'disallow_listener': {
        // NotificationShellCmd: `Invalid listener - must be a ComponentName` for a bad argument.
        const cn = parseComponentName(args.getNextArgRequired());
        if (cn === undefined) {
          out.println('Invalid listener - must be a ComponentName');
          return 255;
        }
        system.listeners.setApproved(cn, cmd === 'allow_listener');
        return 0;
      }
      default:
        // NotificationShellCmd extends ShellCommand: `dump` is the notification service's dump.
        return handleDefaultCommands(cmd, out, printHelp, { args, text: (a) => dumpService(system, 'notification', a) ?? '' });
    }
  };
}
