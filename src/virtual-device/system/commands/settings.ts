/**
 * `settings` (`cmd settings`): get/put/delete/list on the global, system and secure tables.
 * Source: frameworks/base packages/SettingsProvider/src/com/android/providers/settings/
 * SettingsService.java (MyShellCommand): `get` prints the value or `null`, `put` prints nothing,
 * `delete` prints `Deleted <n> rows`, `list` prints `key=value` lines; a bad namespace prints
 * `Invalid namespace '<ns>'` on stderr. On Android 11+ /system/bin/settings runs `cmd settings`.
 */
import type { CommandContext } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import type { SettingsNamespace } from '../settings-provider.js';
import { runShellCommand, type CommandOutput, type ShellArgs } from './shell-command.js';

function printHelp(out: CommandOutput): void {
  out.println('Settings provider (settings) commands:');
  out.println('  help');
  out.println('      Print this help text.');
  out.println('  get [--user <USER_ID> | current] NAMESPACE KEY');
  out.println('      Retrieve the current value of KEY.');
  out.println('  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]');
  out.println('      Change the contents of KEY to VALUE.');
  out.println('      TAG to associate with the setting.');
  out.println('      {default} to set as the default, case-insensitive only for global/secure namespace');
  out.println('  delete [--user <USER_ID> | current] NAMESPACE KEY');
  out.println('      Delete the entry for KEY.');
  out.println('  list [--user <USER_ID> | current] NAMESPACE');
  out.println('      Print all defined keys.');
  out.println('      NAMESPACE is one of {system, secure, global}, case-insensitive');
}

type Verb = 'get' | 'put' | 'delete' | 'list';

export function settingsHandler(system: AndroidSystem): (cmd: string | null, args: ShellArgs, out: CommandOutput) => number {
  return (cmd, args, out) => {
    if (cmd === null || cmd === 'help' || cmd === '-h') {
      printHelp(out);
      return 0;
    }
    if (cmd !== 'get' && cmd !== 'put' && cmd !== 'delete' && cmd !== 'list') {
      out.errPrintln(`Invalid command: ${cmd}`);
      return -1;
    }
    const verb: Verb = cmd;
    let table: SettingsNamespace | undefined;
    let key: string | undefined;
    let value: string | undefined;
    let arg: string | null;
    while ((arg = args.getNextArg()) !== null) {
      if (arg === '--user') {
        args.getNextArgRequired();
        continue;
      }
      if (table === undefined) {
        const ns = arg.toLowerCase();
        if (ns !== 'global' && ns !== 'system' && ns !== 'secure') {
          out.errPrintln(`Invalid namespace '${arg}'`);
          return -1;
        }
        table = ns;
        if (verb === 'list') break;
      } else if (key === undefined) {
        key = arg;
        if (verb !== 'put') break;
      } else if (value === undefined) {
        value = arg;
      }
    }
    if (table === undefined || (verb !== 'list' && key === undefined) || (verb === 'put' && value === undefined)) {
      printHelp(out);
      return -1;
    }
    const settings = system.settings;
    switch (verb) {
      case 'get':
        out.println(settings.get(table, key!) ?? 'null');
        return 0;
      case 'put':
        settings.put(table, key!, value!);
        return 0;
      case 'delete':
        out.println(`Deleted ${settings.delete(table, key!)} rows`);
        return 0;
      case 'list':
        for (const [k, v] of settings.list(table)) out.println(`${k}=${v}`);
        return 0;
      default: {
        const unreachable: never = verb;
        return unreachable;
      }
    }
  };
}

export function settingsCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return (ctx) => runShellCommand(ctx, ctx.argv.slice(1), settingsHandler(system));
}
