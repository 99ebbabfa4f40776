/**
 * Shared plumbing of the toybox commands (landley/toybox lib/args.c, lib/lib.c, 0.8.9):
 * option parsing (flags may be clustered, options and operands may be mixed, `--` ends
 * options) and error messages: `NAME: message` (error_msg), `NAME: message: strerror`
 * (perror_msg), `NAME: Unknown option 'x' (see "NAME --help")` (help_exit), status 1.
 */
import type { CommandContext } from '../../types.js';
import { toyboxContext, type ToyboxContext } from '../context.js';
import { basenameOf } from '../../fs/android-path.js';
import { resolveAndroidPath } from '../../fs/android-path.js';
import { isFsError } from '../../fs/fs-error.js';
import { toBuffer } from '../streams.js';

export interface OptionSpec {
  /** Single-letter boolean flags, e.g. "nel". */
  flags?: string;
  /** Single-letter options that take an argument, e.g. "nc". */
  args?: string;
  /** Long options: name → the short letter (or a name of its own) and whether it takes a value. */
  long?: Readonly<Record<string, { key: string; arg: boolean }>>;
  /** Stop option parsing at the first operand (toybox's `^` / `<` prefix). */
  stopAtOperand?: boolean;
  /** Accept `-NUMBER` as the value of this option (head -5, tail -5). */
  numberOption?: string;
}

export interface ParsedArgs {
  /** How often each flag was given. */
  readonly flags: ReadonlyMap<string, number>;
  /** Values of options with arguments, in order. */
  readonly values: ReadonlyMap<string, readonly string[]>;
  readonly operands: readonly string[];
  has(flag: string): boolean;
  value(key: string): string | undefined;
}

export function commandName(ctx: CommandContext): string {
  return basenameOf(ctx.argv[0] ?? 'toybox');
}

export async function errorMsg(ctx: CommandContext, message: string): Promise<void> {
  await ctx.stderr.write(`${commandName(ctx)}: ${message}\n`);
}

/** `NAME: subject: strerror` for a filesystem error, else rethrows. */
export async function perrorMsg(ctx: CommandContext, subject: string, e: unknown): Promise<void> {
  if (!isFsError(e)) throw e;
  await ctx.stderr.write(`${commandName(ctx)}: ${subject}: ${e.message}\n`);
}

/** help_exit(): the message plus a pointer to --help. */
export async function helpExit(ctx: CommandContext, message: string): Promise<number> {
  const name = commandName(ctx);
  await ctx.stderr.write(`${name}: ${message} (see "${name} --help")\n`);
  return 1;
}

/** Parses toybox-style options; prints the error and returns undefined on a bad option. */
export async function parseArgs(ctx: CommandContext, spec: OptionSpec): Promise<ParsedArgs | undefined> {
  const flags = new Map<string, number>();
  const values = new Map<string, string[]>();
  const operands: string[] = [];
  const argv = ctx.argv.slice(1);
  const boolFlags = spec.flags ?? '';
  const argFlags = spec.args ?? '';
  const addValue = (key: string, v: string): void => {
    values.set(key, [...(values.get(key) ?? []), v]);
    flags.set(key, (flags.get(key) ?? 0) + 1);
  };
  let onlyOperands = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (onlyOperands || a === '-' || !a.startsWith('-')) {
      operands.push(a);
      if (spec.stopAtOperand === true) onlyOperands = true;
      continue;
    }
    if (a === '--') {
      onlyOperands = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const def = spec.long?.[name];
      if (def === undefined) {
        await helpExit(ctx, `Unknown option '${a.slice(2)}'`);
        return undefined;
      }
      if (def.arg) {
        const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) {
          await helpExit(ctx, `Missing argument to --${name}`);
          return undefined;
        }
        addValue(def.key, v);
      } else flags.set(def.key, (flags.get(def.key) ?? 0) + 1);
      continue;
    }
    if (spec.numberOption !== undefined && /^-\d+$/.test(a)) {
      addValue(spec.numberOption, a.slice(1));
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      if (argFlags.includes(c)) {
        const attached = a.slice(j + 1);
        const v = attached !== '' ? attached : argv[++i];
        if (v === undefined) {
          await helpExit(ctx, `Missing argument to -${c}`);
          return undefined;
        }
        addValue(c, v);
        break;
      }
      if (boolFlags.includes(c)) {
        flags.set(c, (flags.get(c) ?? 0) + 1);
        continue;
      }
      await helpExit(ctx, `Unknown option '${a.slice(j)}'`);
      return undefined;
    }
  }
  return {
    flags,
    values,
    operands,
    has: (f) => (flags.get(f) ?? 0) > 0,
    value: (k) => values.get(k)?.at(-1),
  };
}

export function tb(ctx: CommandContext): ToyboxContext {
  return toyboxContext(ctx);
}

export function pathOf(ctx: CommandContext, p: string): string {
  return resolveAndroidPath(p, ctx.cwd);
}

/**
 * The inputs of a filter command: each operand (`-` is stdin), or stdin without operands.
 * Unreadable files are reported (`NAME: FILE: strerror`) and skipped; `failed` tells.
 */
export async function* inputs(ctx: CommandContext, operands: readonly string[], state: { failed: boolean }): AsyncGenerator<{ name: string; data: AsyncIterable<Buffer> }> {
  const t = tb(ctx);
  const list = operands.length === 0 ? ['-'] : operands;
  for (const name of list) {
    if (name === '-') {
      yield { name, data: stdinBuffers(ctx) };
      continue;
    }
    let data: AsyncIterable<Buffer>;
    try {
      data = await t.fs.openRead(pathOf(ctx, name), ctx.uid);
    } catch (e) {
      await perrorMsg(ctx, name, e);
      state.failed = true;
      continue;
    }
    yield { name, data };
  }
}

async function* stdinBuffers(ctx: CommandContext): AsyncGenerator<Buffer> {
  for await (const chunk of ctx.stdin) yield toBuffer(chunk);
}

/** Reads a whole input to a Buffer. */
export async function collect(data: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of data) parts.push(chunk);
  return Buffer.concat(parts);
}

/** Lines of an input, each with its `\n` terminator when it had one. */
export async function* linesOf(data: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of data) {
    rest = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let nl: number;
    while ((nl = rest.indexOf(0x0a)) >= 0) {
      yield rest.subarray(0, nl + 1).toString('utf8');
      rest = rest.subarray(nl + 1);
    }
  }
  if (rest.length > 0) yield rest.toString('utf8');
}

/** Parses a mode string: octal (`755`) or symbolic (`u+x,go-w`, `a=r`) relative to `current`. */
export function parseMode(spec: string, current: number, isDir: boolean, umask = 0): number | undefined {
  if (/^[0-7]+$/.test(spec)) return parseInt(spec, 8) & 0o7777;
  let mode = current & 0o7777;
  for (const clause of spec.split(',')) {
    const m = /^([ugoa]*)([-+=])([rwxXst]*|[ugo])$/.exec(clause);
    if (m === null) return undefined;
    const who = m[1] === '' ? 'a' : m[1]!;
    const op = m[2]!;
    const perms = m[3]!;
    let whoMask = 0;
    if (who.includes('u') || who.includes('a')) whoMask |= 0o4700;
    if (who.includes('g') || who.includes('a')) whoMask |= 0o2070;
    if (who.includes('o') || who.includes('a')) whoMask |= 0o1007;
    let bits = 0;
    if (/^[ugo]$/.test(perms)) {
      const shift = perms === 'u' ? 6 : perms === 'g' ? 3 : 0;
      const v = (mode >> shift) & 7;
      bits = (v << 6) | (v << 3) | v;
    } else {
      for (const p of perms) {
        if (p === 'r') bits |= 0o444;
        else if (p === 'w') bits |= 0o222;
        else if (p === 'x') bits |= 0o111;
        else if (p === 'X') {
          if (isDir || (mode & 0o111) !== 0) bits |= 0o111;
        } else if (p === 's') bits |= 0o6000;
        else if (p === 't') bits |= 0o1000;
      }
    }
    let effective = bits & whoMask;
    if (m[1] === '') effective &= ~umask;
    if (op === '+') mode |= effective;
    else if (op === '-') mode &= ~effective;
    else mode = (mode & ~whoMask) | effective;
  }
  return mode;
}
