/**
 * Intent.parseCommandArgs (frameworks/base core/java/android/content/Intent.java): the intent
 * options `am start` and `am broadcast` accept, and the trailing URI / package / component.
 */
import { IntentFlag, parseComponentName, type Intent, type IntentExtra } from '../intent.js';
import { JavaException, illegalArgument, parseJavaInt, type ShellArgs } from './shell-command.js';

export interface ParsedIntent {
  readonly intent: Intent;
  readonly userId: number;
  /** `am start -W`. */
  readonly wait: boolean;
  /** `am start -S`: force-stop the target first. */
  readonly stopFirst: boolean;
}

/** Parses intent options; `extraOption` handles command-specific options (returns false if unknown). */
export function parseIntentArgs(args: ShellArgs, extraOption?: (opt: string) => boolean): ParsedIntent {
  const intent: Intent = { flags: 0 };
  let userId = -2;
  let wait = false;
  let stopFirst = false;
  const extras = new Map<string, IntentExtra>();
  let opt: string | null;
  while ((opt = args.getNextOption()) !== null) {
    switch (opt) {
      case '-a':
        intent.action = args.getNextArgRequired();
        break;
      case '-d':
        intent.data = args.getNextArgRequired();
        break;
      case '-t':
        intent.type = args.getNextArgRequired();
        break;
      case '-c':
        intent.categories = [...(intent.categories ?? []), args.getNextArgRequired()];
        break;
      case '-n': {
        const raw = args.getNextArgRequired();
        const cn = parseComponentName(raw);
        if (cn === undefined) throw illegalArgument(`Bad component name: ${raw}`);
        intent.component = cn;
        break;
      }
      case '-p':
        intent.package = args.getNextArgRequired();
        break;
      case '-f':
        intent.flags |= decodeFlags(args.getNextArgRequired());
        break;
      case '-e':
      case '--es':
        extras.set(args.getNextArgRequired(), { type: 'string', value: args.getNextArgRequired() });
        break;
      case '--ei':
        extras.set(args.getNextArgRequired(), { type: 'int', value: parseJavaInt(args.getNextArgRequired()) });
        break;
      case '--el':
        extras.set(args.getNextArgRequired(), { type: 'long', value: BigInt(args.getNextArgRequired()) });
        break;
      case '--ez': {
        const key = args.getNextArgRequired();
        const v = args.getNextArgRequired().toLowerCase();
        extras.set(key, { type: 'boolean', value: v === 'true' || v === 't' || v === '1' });
        break;
      }
      case '--include-stopped-packages':
        intent.flags |= IntentFlag.FLAG_INCLUDE_STOPPED_PACKAGES;
        break;
      case '--exclude-stopped-packages':
        intent.flags |= IntentFlag.FLAG_EXCLUDE_STOPPED_PACKAGES;
        break;
      case '--receiver-foreground':
        intent.flags |= IntentFlag.FLAG_RECEIVER_FOREGROUND;
        break;
      case '--receiver-include-background':
        intent.flags |= IntentFlag.FLAG_RECEIVER_INCLUDE_BACKGROUND;
        break;
      case '--user': {
        const u = args.getNextArgRequired();
        userId = u === 'current' || u === 'cur' ? -2 : u === 'all' ? -1 : parseJavaInt(u);
        break;
      }
      case '-W':
        wait = true;
        break;
      case '-S':
        stopFirst = true;
        break;
      default:
        if (extraOption !== undefined && extraOption(opt)) break;
        throw illegalArgument(`Unknown option: ${opt}`);
    }
  }
  if (extras.size > 0) intent.extras = extras;
  const rest = args.getNextArg();
  if (rest !== null) {
    const cn = rest.includes('/') && !rest.includes(':') ? parseComponentName(rest) : undefined;
    if (cn !== undefined) intent.component = cn;
    else if (rest.includes(':')) intent.data = rest;
    else intent.package = rest;
  }
  return { intent, userId, wait, stopFirst };
}

function decodeFlags(s: string): number {
  const n = s.startsWith('0x') || s.startsWith('0X') ? parseInt(s.slice(2), 16) : parseInt(s, 10);
  if (Number.isNaN(n)) throw new JavaException('java.lang.NumberFormatException', `For input string: "${s}"`);
  return n;
}
