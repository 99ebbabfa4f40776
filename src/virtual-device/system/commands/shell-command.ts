/**
 * The argument handling and error behaviour of Android's Java shell commands (`cmd SERVICE`,
 * `am`, `pm`, `settings`): frameworks/base core/java/android/os/ShellCommand.java and
 * modules-utils BasicShellCommandHandler.java.
 * - getNextOption(): `-x` / `--long` options until the first non-option or `--`; `-xVALUE` splits
 *   into the option `-x` and its data.
 * - getNextArgRequired(): IllegalArgumentException `Argument expected after "<prev>"`.
 * - exec(): an exception escaping onCommand prints an empty line, `Exception occurred while
 *   executing '<cmd>':` and the stack trace on stderr, and the result is -1.
 * - handleDefaultCommands() (BasicShellCommandHandler: aosp-mirror/platform_frameworks_base
 *   core/java/android/os/BasicShellCommandHandler.java @7b6fdf38, Ankits-lab/frameworks_base
 *   @150a9240; its com.android.modules.utils copy, the base of the API 34
 *   JobSchedulerShellCommand, has the same method: AOSP frameworks/libs/modules-utils
 *   java/com/android/modules/utils/BasicShellCommandHandler.java):
 *   `help`/`-h`/no command print the help, anything else prints `Unknown command: <cmd>`; both
 *   return -1. android.os.ShellCommand (Ankits-lab/frameworks_base @150a9240, the base of
 *   ActivityManagerShellCommand, PackageManagerShellCommand, NotificationShellCmd) first turns
 *   `dump ARGS...` into the service's doDump (the `dumpsys SERVICE ARGS...` text) and returns 0.
 * The return value reaches the shell truncated to 8 bits (-1 -> 255, -1001 -> 23).
 */
import type { CommandContext } from '../../types.js';

/** A Java exception as `Throwable.toString()` prints it. */
export class JavaException extends Error {
  readonly className: string;
  readonly frames: readonly string[];

  constructor(className: string, message: string | null, frames: readonly string[] = []) {
    super(message ?? '');
    this.name = 'JavaException';
    this.className = className;
    this.frames = frames;
  }

  override toString(): string {
    return this.message === '' ? this.className : `${this.className}: ${this.message}`;
  }
}

export function illegalArgument(message: string): JavaException {
  return new JavaException('java.lang.IllegalArgumentException', message);
}

/** Integer.parseInt with Java's NumberFormatException text. */
export function parseJavaInt(s: string): number {
  if (!/^[-+]?\d+$/.test(s)) throw new JavaException('java.lang.NumberFormatException', `For input string: "${s}"`);
  const n = Number(s);
  if (n > 2147483647 || n < -2147483648) throw new JavaException('java.lang.NumberFormatException', `For input string: "${s}"`);
  return n;
}

/** Long.parseLong with Java's NumberFormatException text. */
export function parseJavaLong(s: string): number {
  if (!/^[-+]?\d+$/.test(s)) throw new JavaException('java.lang.NumberFormatException', `For input string: "${s}"`);
  return Number(s);
}

/** ShellCommand's argument cursor. */
export class ShellArgs {
  private readonly args: readonly string[];
  private pos = 0;
  private curArgData: string | null = null;

  constructor(args: readonly string[]) {
    this.args = args;
  }

  getNextOption(): string | null {
    if (this.curArgData !== null) {
      const prev = this.args[this.pos - 1] ?? '';
      throw illegalArgument(`No argument expected after "${prev}"`);
    }
    if (this.pos >= this.args.length) return null;
    const arg = this.args[this.pos]!;
    if (!arg.startsWith('-')) return null;
    this.pos++;
    if (arg === '--') return null;
    if (arg.length > 1 && arg.charAt(1) !== '-') {
      if (arg.length > 2) {
        this.curArgData = arg.slice(2);
        return arg.slice(0, 2);
      }
      this.curArgData = null;
      return arg;
    }
    this.curArgData = null;
    return arg;
  }

  getNextArg(): string | null {
    if (this.curArgData !== null) {
      const arg = this.curArgData;
      this.curArgData = null;
      return arg;
    }
    if (this.pos < this.args.length) return this.args[this.pos++]!;
    return null;
  }

  getNextArgRequired(): string {
    const arg = this.getNextArg();
    if (arg === null) {
      const prev = this.args[this.pos - 1] ?? '';
      throw illegalArgument(`Argument expected after "${prev}"`);
    }
    return arg;
  }

  /** Arguments not consumed yet. */
  rest(): string[] {
    const out = this.curArgData !== null ? [this.curArgData] : [];
    this.curArgData = null;
    out.push(...this.args.slice(this.pos));
    this.pos = this.args.length;
    return out;
  }
}

/** A PrintWriter pair the command writes to; flushed to the adb stream when the command ends. */
export class CommandOutput {
  out = '';
  err = '';

  println(s = ''): void {
    this.out += `${s}\n`;
  }

  print(s: string): void {
    this.out += s;
  }

  errPrintln(s = ''): void {
    this.err += `${s}\n`;
  }
}

export type ShellCommandHandler = (cmd: string | null, args: ShellArgs, out: CommandOutput) => Promise<number> | number;

/** Stack frames printed under an exception (Throwable.printStackTrace), the binder entry points. */
const DEFAULT_FRAMES = ['\tat android.os.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)', '\tat android.os.ShellCommand.exec(ShellCommand.java:38)'];

/**
 * Runs a ShellCommand-style handler: the first argument is the command, the rest its arguments.
 * Writes the collected stdout/stderr and returns the exit status (8-bit).
 */
export async function runShellCommand(ctx: CommandContext, args: readonly string[], handler: ShellCommandHandler): Promise<number> {
  const cursor = new ShellArgs(args);
  const out = new CommandOutput();
  const cmd = cursor.getNextArg();
  let res = -1;
  try {
    res = await handler(cmd, cursor, out);
  } catch (e) {
    if (!(e instanceof JavaException)) throw e;
    out.errPrintln();
    out.errPrintln(`Exception occurred while executing '${cmd ?? ''}':`);
    out.errPrintln(e.toString());
    for (const frame of e.frames.length > 0 ? e.frames : DEFAULT_FRAMES) out.errPrintln(frame);
    res = -1;
  }
  if (out.out !== '') await ctx.stdout.write(out.out);
  if (out.err !== '') await ctx.stderr.write(out.err);
  return res & 0xff;
}

/**
 * BasicShellCommandHandler.handleDefaultCommands; with `dump` (a ShellCommand subclass), the
 * `dump` command prints the service's dump of the remaining arguments and returns 0.
 */
export function handleDefaultCommands(cmd: string | null, out: CommandOutput, help: (out: CommandOutput) => void, dump?: { args: ShellArgs; text: (args: readonly string[]) => string }): number {
  if (cmd === 'dump' && dump !== undefined) {
    out.print(dump.text(dump.args.rest()));
    return 0;
  }
  if (cmd === null || cmd === 'help' || cmd === '-h') help(out);
  else out.println(`Unknown command: ${cmd}`);
  return -1;
}

/** Writes text to stdout and returns 0. */
export async function print(ctx: CommandContext, text: string): Promise<void> {
  if (text !== '') await ctx.stdout.write(text);
}
