/**
 * `input keyevent KEY`: HOME (3) brings the launcher to the front, BACK (4) finishes the top
 * activity; other events are accepted and ignored. Source: frameworks/base cmds/input
 * (InputShellCommand: `input [<source>] keyevent [--longpress] <key code number or name> ...`,
 * KeyEvent.keyCodeFromString accepts `KEYCODE_HOME`, `HOME` or the number).
 */
import type { CommandContext } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';

const USAGE = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
`;

function keyCode(s: string): number | undefined {
  if (/^\d+$/.test(s)) return Number(s);
  const name = s.toUpperCase().replace(/^KEYCODE_/, '');
  const codes: Record<string, number> = { HOME: 3, BACK: 4, MENU: 82, POWER: 26, ENTER: 66, APP_SWITCH: 187, WAKEUP: 224 };
  return codes[name];
}

export function inputCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const args = ctx.argv.slice(1).filter((a) => !['keyboard', 'touchscreen', 'dpad', '--longpress', '--doubletap'].includes(a));
    if (args[0] !== 'keyevent' && args[0] !== 'tap' && args[0] !== 'swipe' && args[0] !== 'text') {
      await ctx.stderr.write(USAGE);
      return 1;
    }
    if (args[0] === 'keyevent') {
      if (args.length < 2) {
        await ctx.stderr.write(USAGE);
        return 1;
      }
      for (const k of args.slice(1)) {
        const code = keyCode(k);
        if (code === undefined) {
          await ctx.stderr.write(`Error: Unknown keycode: ${k}\n`);
          return 1;
        }
        if (code === 3) system.activities.goHome();
        else if (code === 4) system.activities.goBack();
      }
    }
    return 0;
  };
}
