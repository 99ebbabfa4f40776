/**
 * mksh's builtins (funcs.c mkshbuiltins[], mksh-R59c). Builtins run inside the shell; they
 * win over /system/bin binaries of the same name (echo, test, kill, sleep, pwd, ...).
 * Errors print as `<shell>: <builtin>: <message>` (bi_errorf()).
 */
import type { Fds, Interpreter } from './interpreter.js';
import { FunctionReturn, LoopControl, ShellAborted, ShellExit } from './control-flow.js';
import { evaluateTest, TestError } from './test-expr.js';
import { evaluateArithmetic, ArithmeticError } from './arithmetic.js';
import { signalNumber, SIGNALS } from './process-table.js';
import { resolveAndroidPath } from '../fs/android-path.js';
import { isFsError } from '../fs/fs-error.js';
import { isDirMode } from '../fs/file-mode.js';

export type Builtin = (sh: Interpreter, argv: readonly string[], fds: Fds) => Promise<number>;

const out = async (sh: Interpreter, fds: Fds, text: string): Promise<void> => {
  await fds.output(1).write(text);
  void sh;
};

/** Prints `<shell>: <name>: <message>`. */
async function builtinError(sh: Interpreter, fds: Fds, name: string, message: string): Promise<void> {
  await sh.error(fds, `${name}: ${message}`);
}

function parseCount(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Single-quotes a value for `set`/`export` listings when it needs quoting. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Backslash sequences of mksh's echo/print (misc.c unbksl(), funcs.c c_print()): \a \b \e \E \f
 * \n \r \t \v \\, \0 followed by up to three octal digits, \x with up to two hex digits,
 * \u/\U with up to 4/8 hex digits; \c ends the output (no newline). Others stay as written.
 */
export function expandEchoEscapes(s: string): { text: string; stop: boolean } {
  let text = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i + 1 >= s.length) {
      text += c;
      continue;
    }
    const n = s[++i]!;
    switch (n) {
      case 'a':
        text += '\x07';
        break;
      case 'b':
        text += '\b';
        break;
      case 'e':
      case 'E':
        text += '\x1b';
        break;
      case 'f':
        text += '\f';
        break;
      case 'n':
        text += '\n';
        break;
      case 'r':
        text += '\r';
        break;
      case 't':
        text += '\t';
        break;
      case 'v':
        text += '\v';
        break;
      case '\\':
        text += '\\';
        break;
      case 'c':
        return { text, stop: true };
      case '0': {
        const m = /^[0-7]{0,3}/.exec(s.slice(i + 1))![0];
        text += String.fromCharCode(parseInt(m === '' ? '0' : m, 8) & 0xff);
        i += m.length;
        break;
      }
      case 'x':
      case 'u':
      case 'U': {
        const max = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(s.slice(i + 1));
        if (m === null) {
          text += `\\${n}`;
          break;
        }
        text += String.fromCodePoint(parseInt(m[0], 16));
        i += m[0].length;
        break;
      }
      default:
        text += `\\${n}`;
    }
  }
  return { text, stop: false };
}

/** mksh echo: `-n`, `-e`, `-E` only in leading arguments made of those letters; escapes on by default. */
const echo: Builtin = async (sh, argv, fds) => {
  let expand = true;
  let newline = true;
  let i = 1;
  while (i < argv.length && /^-[eEn]+$/.test(argv[i]!)) {
    for (const f of argv[i]!.slice(1)) {
      if (f === 'n') newline = false;
      else if (f === 'e') expand = true;
      else expand = false;
    }
    i++;
  }
  const joined = argv.slice(i).join(' ');
  if (!expand) {
    await out(sh, fds, joined + (newline ? '\n' : ''));
    return 0;
  }
  const { text, stop } = expandEchoEscapes(joined);
  await out(sh, fds, text + (newline && !stop ? '\n' : ''));
  return 0;
};

/** mksh print: -n (no newline), -r (raw), -e (escapes, the default), `--`. */
const print: Builtin = async (sh, argv, fds) => {
  let expand = true;
  let newline = true;
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (!/^-[nreR]+$/.test(a)) break;
    for (const f of a.slice(1)) {
      if (f === 'n') newline = false;
      else if (f === 'r' || f === 'R') expand = false;
      else expand = true;
    }
  }
  const joined = argv.slice(i).join(' ');
  const { text, stop } = expand ? expandEchoEscapes(joined) : { text: joined, stop: false };
  await out(sh, fds, text + (newline && !stop ? '\n' : ''));
  return 0;
};

function testHost(sh: Interpreter): Parameters<typeof evaluateTest>[1] {
  return { fs: sh.host.fs, uid: sh.state.uid, cwd: sh.state.cwd, getVar: (n) => sh.state.get(n) };
}

const test: Builtin = async (sh, argv, fds) => {
  const name = argv[0]!;
  let args = argv.slice(1);
  if (name === '[') {
    if (args.at(-1) !== ']') {
      await builtinError(sh, fds, name, 'missing ]');
      return 2;
    }
    args = args.slice(0, -1);
  }
  try {
    return (await evaluateTest(args, testHost(sh))) ? 0 : 1;
  } catch (e) {
    if (e instanceof TestError) {
      await builtinError(sh, fds, name, e.message);
      return 2;
    }
    throw e;
  }
};

const doubleBracket: Builtin = async (sh, argv, fds) => {
  const args = argv.slice(1);
  if (args.at(-1) !== ']]') {
    await sh.error(fds, `syntax error: unexpected EOF`);
    return 2;
  }
  try {
    return (await evaluateTest(args.slice(0, -1), testHost(sh), { doubleBracket: true })) ? 0 : 1;
  } catch (e) {
    if (e instanceof TestError) {
      await builtinError(sh, fds, '[[', e.message);
      return 2;
    }
    throw e;
  }
};

const cd: Builtin = async (sh, argv, fds) => {
  const args = argv.slice(1).filter((a) => a !== '-L' && a !== '-P');
  let target = args[0] ?? sh.state.get('HOME') ?? '/';
  let printDir = false;
  if (target === '-') {
    target = sh.state.get('OLDPWD') ?? sh.state.cwd;
    printDir = true;
  }
  const abs = resolveAndroidPath(target, sh.state.cwd);
  try {
    const st = await sh.host.fs.stat(abs, sh.state.uid);
    if (!isDirMode(st.mode)) {
      await builtinError(sh, fds, argv[0]!, `${abs}: Not a directory`);
      return 1;
    }
    if (!(await sh.host.fs.access(abs, sh.state.uid, 1))) {
      await builtinError(sh, fds, argv[0]!, `${abs}: Permission denied`);
      return 1;
    }
  } catch (e) {
    if (isFsError(e)) {
      await builtinError(sh, fds, argv[0]!, `${abs}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  sh.state.set('OLDPWD', sh.state.cwd);
  sh.state.cwd = abs;
  sh.state.set('PWD', abs);
  if (printDir) await out(sh, fds, `${abs}\n`);
  return 0;
};

const pwd: Builtin = async (sh, argv, fds) => {
  let dir = sh.state.cwd;
  if (argv.includes('-P')) {
    try {
      dir = await sh.host.fs.realpath(dir, sh.state.uid);
    } catch {
      // keep the logical directory
    }
  }
  await out(sh, fds, `${dir}\n`);
  return 0;
};

/** read [-r] [name ...]: one line from stdin, split on IFS; REPLY without names. */
const read: Builtin = async (sh, argv, fds) => {
  let raw = false;
  let i = 1;
  for (; i < argv.length && argv[i]!.startsWith('-'); i++) {
    const a = argv[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-r') raw = true;
    else {
      await builtinError(sh, fds, 'read', `${a}: unknown option`);
      return 1;
    }
  }
  const names = argv.slice(i);
  const input = fds.input(0);
  let line = await input.readLine();
  const eof = line === null;
  line ??= '';
  if (!raw) {
    while (line.endsWith('\\')) {
      const more = await input.readLine();
      if (more === null) {
        line = line.slice(0, -1);
        break;
      }
      line = line.slice(0, -1) + more;
    }
    line = line.replace(/\\(.)/g, '$1');
  }
  const ifs = sh.state.get('IFS') ?? ' \t\n';
  if (names.length === 0) {
    sh.state.set('REPLY', line);
    return eof ? 1 : 0;
  }
  const ws = [...ifs].filter((c) => ' \t\n'.includes(c)).join('');
  let rest = line.replace(new RegExp(`^[${escapeClass(ws)}]+`), '');
  for (let n = 0; n < names.length; n++) {
    const name = names[n]!;
    if (n === names.length - 1) {
      sh.state.set(name, rest.replace(new RegExp(`[${escapeClass(ws)}]+$`), ''));
      break;
    }
    let j = 0;
    while (j < rest.length && !ifs.includes(rest[j]!)) j++;
    sh.state.set(name, rest.slice(0, j));
    rest = rest.slice(j);
    rest = rest.replace(new RegExp(`^[${escapeClass(ws)}]*[${escapeClass(ifs.replace(/[ \t\n]/g, ''))}]?[${escapeClass(ws)}]*`), '');
    if (ifs === '') rest = '';
  }
  return eof ? 1 : 0;
};

function escapeClass(s: string): string {
  return s === '' ? '\\u0000-\\u0000' : s.replace(/[\]\\^-]/g, '\\$&').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
}

/** kill [-s SIG | -SIG] pid... ; kill -l */
const kill: Builtin = async (sh, argv, fds) => {
  const args = argv.slice(1);
  if (args[0] === '-l') {
    const lines: string[] = [];
    for (const [name, n] of Object.entries(SIGNALS)) lines.push(`${n} ${name}`);
    await out(sh, fds, `${lines.join('\n')}\n`);
    return 0;
  }
  let sig: number = SIGNALS.TERM;
  if (args[0] === '-s' || args[0] === '-n') {
    const n = args[1] === undefined ? undefined : signalNumber(args[1]);
    if (n === undefined) {
      await builtinError(sh, fds, 'kill', `${args[1] ?? ''}: bad signal`);
      return 1;
    }
    sig = n;
    args.splice(0, 2);
  } else if (args[0] !== undefined && /^-./.test(args[0]) && args[0] !== '--') {
    const n = signalNumber(args[0].slice(1));
    if (n === undefined) {
      await builtinError(sh, fds, 'kill', `${args[0].slice(1)}: bad signal`);
      return 1;
    }
    sig = n;
    args.shift();
  }
  if (args[0] === '--') args.shift();
  if (args.length === 0) {
    await builtinError(sh, fds, 'kill', 'usage: kill [-s signame | -signum | -signame] { job | pid | pgrp } ...');
    return 1;
  }
  const table = sh.host.processes;
  let status = 0;
  for (const a of args) {
    if (!/^-?\d+$/.test(a)) {
      await builtinError(sh, fds, 'kill', `${a}: arguments must be jobs or process IDs`);
      status = 1;
      continue;
    }
    const result = table.signal(Math.abs(Number(a)), sig, sh.state.uid);
    if (result === 'ESRCH') {
      await builtinError(sh, fds, 'kill', `${a}: No such process`);
      status = 1;
    } else if (result === 'EPERM') {
      await builtinError(sh, fds, 'kill', `${a}: Operation not permitted`);
      status = 1;
    } else if (result === 'EACCES') {
      await builtinError(sh, fds, 'kill', `${a}: Permission denied`);
      status = 1;
    }
  }
  return status;
};

/** mksh's sleep (c_sleep): one argument, fractions allowed. */
const sleep: Builtin = async (sh, argv, fds) => {
  const args = argv.slice(1);
  if (args[0] === '--') args.shift();
  if (args.length !== 1 || !/^(\d+(\.\d*)?|\.\d+)$/.test(args[0]!)) {
    await builtinError(sh, fds, 'sleep', 'syntax error');
    return 1;
  }
  await abortableDelay(Number(args[0]) * 1000, sh.session.signal);
  return 0;
};

/** Waits `ms`, or throws ShellAborted when the session ends first. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ShellAborted());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ShellAborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const RESERVED_WORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'while', 'until', 'do', 'done', 'in', 'function', '{', '}', '!', '[[', 'time', 'select']);

/** How `command -v` / `type` describe a name; undefined when not found. */
async function describe(sh: Interpreter, name: string, verbose: boolean): Promise<string | undefined> {
  if (RESERVED_WORDS.has(name)) return verbose ? `${name} is a reserved word` : name;
  if (SPECIAL_BUILTINS.has(name)) return verbose ? `${name} is a special shell builtin` : name;
  if (sh.state.functions.has(name)) return verbose ? `${name} is a function` : name;
  if (BUILTINS.has(name)) return verbose ? `${name} is a shell builtin` : name;
  const found = await sh.lookupCommand(name);
  if (found.kind === 'registered' || found.kind === 'script') {
    const path = found.path;
    return verbose ? `${name} is a tracked alias for ${path}` : path;
  }
  return undefined;
}

const command: Builtin = async (sh, argv, fds) => {
  let i = 1;
  let mode: 'run' | 'v' | 'V' = 'run';
  for (; i < argv.length && argv[i]!.startsWith('-'); i++) {
    const a = argv[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a.includes('v')) mode = 'v';
    if (a.includes('V')) mode = 'V';
  }
  const rest = argv.slice(i);
  if (rest.length === 0) return 0;
  if (mode === 'run') return sh.runArgv(rest, fds, { skipFunctions: true });
  let status = 0;
  for (const name of rest) {
    const d = await describe(sh, name, mode === 'V');
    if (d === undefined) {
      if (mode === 'V') await builtinError(sh, fds, argv[0]!, `${name}: not found`);
      status = 1;
    } else await out(sh, fds, `${d}\n`);
  }
  return status;
};

const type: Builtin = async (sh, argv, fds) => {
  let status = 0;
  for (const name of argv.slice(1)) {
    const d = await describe(sh, name, true);
    if (d === undefined) {
      await out(sh, fds, `${name} not found\n`);
      status = 1;
    } else await out(sh, fds, `${d}\n`);
  }
  return status;
};

const whence: Builtin = async (sh, argv, fds) => {
  const verbose = argv.includes('-v');
  let status = 0;
  for (const name of argv.slice(1).filter((a) => !a.startsWith('-'))) {
    const d = await describe(sh, name, verbose);
    if (d === undefined) status = 1;
    else await out(sh, fds, `${d}\n`);
  }
  return status;
};

/** `%#3.3o`: three octal digits, a leading 0 added when missing (mksh c_umask). */
function formatUmask(mask: number): string {
  const s = mask.toString(8).padStart(3, '0');
  return s.startsWith('0') ? s : `0${s}`;
}

const umask: Builtin = async (sh, argv, fds) => {
  const arg = argv[1];
  if (arg === undefined) {
    await out(sh, fds, `${formatUmask(sh.state.umask)}\n`);
    return 0;
  }
  if (!/^[0-7]+$/.test(arg)) {
    await builtinError(sh, fds, 'umask', `${arg}: bad number`);
    return 1;
  }
  sh.state.umask = parseInt(arg, 8) & 0o777;
  return 0;
};

const ulimit: Builtin = async (sh, _argv, fds) => {
  await out(sh, fds, 'unlimited\n');
  return 0;
};

const wait: Builtin = async (sh) => {
  let status = 0;
  while (sh.session.jobs.size > 0) {
    for (const job of [...sh.session.jobs]) status = await job;
  }
  return status;
};

const letBuiltin: Builtin = async (sh, argv, fds) => {
  let value = 0;
  try {
    for (const expr of argv.slice(1)) {
      value = evaluateArithmetic(expr, { get: (n) => sh.state.get(n), set: (n, v) => void sh.state.set(n, v) });
    }
  } catch (e) {
    if (e instanceof ArithmeticError) {
      await builtinError(sh, fds, 'let', e.message);
      return 1;
    }
    throw e;
  }
  return value === 0 ? 1 : 0;
};

const typeset: Builtin = async (sh, argv, fds) => {
  let exportIt = false;
  for (const a of argv.slice(1)) {
    if (a.startsWith('-') || a.startsWith('+')) {
      if (a.includes('x')) exportIt = a.startsWith('-');
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      await builtinError(sh, fds, argv[0]!, `${a}: is not an identifier`);
      return 1;
    }
    const value = eq < 0 ? (sh.state.get(name) ?? '') : a.slice(eq + 1);
    sh.state.set(name, value, { export: exportIt });
  }
  return 0;
};

const noop: Builtin = () => Promise.resolve(0);
const trueBuiltin: Builtin = () => Promise.resolve(0);
const falseBuiltin: Builtin = () => Promise.resolve(1);

/** Regular builtins: found after functions. */
export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ['[', test],
  ['test', test],
  ['[[', doubleBracket],
  ['echo', echo],
  ['print', print],
  ['cd', cd],
  ['chdir', cd],
  ['pwd', pwd],
  ['read', read],
  ['true', trueBuiltin],
  ['false', falseBuiltin],
  ['kill', kill],
  ['sleep', sleep],
  ['command', command],
  ['type', type],
  ['whence', whence],
  ['umask', umask],
  ['ulimit', ulimit],
  ['wait', wait],
  ['let', letBuiltin],
  ['typeset', typeset],
  ['local', typeset],
  ['alias', noop],
  ['unalias', noop],
]);

// ----------------------------------------------------------------------------- special builtins

const exit: Builtin = async (sh, argv, fds) => {
  const n = parseCount(argv[1], sh.state.lastStatus);
  if (n === undefined) {
    await builtinError(sh, fds, 'exit', `${argv[1]!}: bad number`);
    throw new ShellExit(1);
  }
  sh.state.lastStatus = n & 0xff;
  throw new ShellExit(n & 0xff);
};

const returnBuiltin: Builtin = async (sh, argv, fds) => {
  const n = parseCount(argv[1], sh.state.lastStatus);
  if (n === undefined) {
    await builtinError(sh, fds, 'return', `${argv[1]!}: bad number`);
    return 1;
  }
  throw new FunctionReturn(n & 0xff);
};

const loopControl =
  (kind: 'break' | 'continue'): Builtin =>
  async (sh, argv, fds) => {
    const n = parseCount(argv[1], 1);
    if (n === undefined || n < 1) {
      await builtinError(sh, fds, kind, `${argv[1] ?? ''}: bad number`);
      return 1;
    }
    throw new LoopControl(kind, n);
  };

const exportBuiltin: Builtin = async (sh, argv, fds) => {
  const names = argv.slice(1).filter((a) => a !== '-p');
  const readonly = argv[0] === 'readonly';
  if (names.length === 0) {
    const lines = [...sh.state.vars.entries()]
      .filter(([, v]) => (readonly ? v.readonly : v.exported))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${argv[0]!} ${k}=${shellQuote(v.value)}`);
    if (lines.length > 0) await out(sh, fds, `${lines.join('\n')}\n`);
    return 0;
  }
  for (const a of names) {
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      await builtinError(sh, fds, argv[0]!, `${a}: is not an identifier`);
      return 1;
    }
    const existing = sh.state.vars.get(name);
    if (existing?.readonly === true && eq >= 0) {
      await builtinError(sh, fds, argv[0]!, `${name}: is read only`);
      return 1;
    }
    const value = eq < 0 ? (existing?.value ?? '') : a.slice(eq + 1);
    if (eq >= 0 || existing !== undefined || !readonly) {
      sh.state.vars.set(name, {
        value,
        exported: readonly ? (existing?.exported ?? false) : true,
        readonly: readonly || (existing?.readonly ?? false),
      });
    }
  }
  return 0;
};

const unset: Builtin = async (sh, argv, fds) => {
  let functions = false;
  for (const a of argv.slice(1)) {
    if (a === '-f') {
      functions = true;
      continue;
    }
    if (a === '-v') {
      functions = false;
      continue;
    }
    if (functions) sh.state.functions.delete(a);
    else if (!sh.state.unset(a)) {
      await builtinError(sh, fds, 'unset', `${a}: is read only`);
      return 1;
    }
  }
  return 0;
};

const set: Builtin = async (sh, argv, fds) => {
  const args = argv.slice(1);
  if (args.length === 0) {
    const lines = [...sh.state.vars.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${shellQuote(v.value)}`);
    await out(sh, fds, lines.length > 0 ? `${lines.join('\n')}\n` : '');
    return 0;
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      sh.state.positional = args.slice(i + 1);
      return 0;
    }
    if (a === '-o' || a === '+o') {
      const name = args[++i];
      const on = a === '-o';
      if (name === 'errexit') sh.state.errexit = on;
      else if (name === 'nounset') sh.state.nounset = on;
      else if (name === 'pipefail') sh.state.pipefail = on;
      else if (name === undefined) return 0;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(a)) {
      const on = a.startsWith('-');
      for (const f of a.slice(1)) {
        if (f === 'e') sh.state.errexit = on;
        else if (f === 'u') sh.state.nounset = on;
        else if (!'xvfhmCabn'.includes(f)) {
          await builtinError(sh, fds, 'set', `-${f}: unknown option`);
          return 1;
        }
      }
      continue;
    }
    sh.state.positional = args.slice(i);
    return 0;
  }
  return 0;
};

const shift: Builtin = async (sh, argv, fds) => {
  const n = parseCount(argv[1], 1);
  if (n === undefined || n > sh.state.positional.length) {
    await builtinError(sh, fds, 'shift', `${argv[1] ?? n ?? ''}: bad number`);
    return 1;
  }
  sh.state.positional = sh.state.positional.slice(n);
  return 0;
};

const evalBuiltin: Builtin = (sh, argv, fds) => sh.evalString(argv.slice(1).join(' '), fds);

const exec: Builtin = async (sh, argv, fds) => {
  // `exec` alone (only redirections) is handled by the interpreter.
  const status = await sh.runArgv(argv.slice(1), fds, { skipFunctions: true });
  throw new ShellExit(status);
};

const dot: Builtin = async (sh, argv, fds) => {
  const file = argv[1];
  if (file === undefined) {
    await builtinError(sh, fds, argv[0]!, 'missing argument');
    return 1;
  }
  const path = resolveAndroidPath(file, sh.state.cwd);
  let text: string;
  try {
    text = (await sh.host.fs.readFile(path, sh.state.uid)).toString('utf8');
  } catch (e) {
    if (isFsError(e)) {
      await builtinError(sh, fds, argv[0]!, `${file}: not found`);
      throw new ShellExit(1);
    }
    throw e;
  }
  const saved = sh.state.positional;
  if (argv.length > 2) sh.state.positional = argv.slice(2);
  try {
    return await sh.evalString(text, fds);
  } catch (e) {
    if (e instanceof FunctionReturn) return e.status;
    throw e;
  } finally {
    if (argv.length > 2) sh.state.positional = saved;
  }
};

const trap: Builtin = async (sh, argv, fds) => {
  const args = argv.slice(1);
  if (args.length < 2) return 0;
  const action = args[0]!;
  for (const cond of args.slice(1)) {
    if (cond === 'EXIT' || cond === '0') sh.state.exitTrap = action === '-' || action === '' ? undefined : action;
    else if (signalNumber(cond) === undefined) {
      await builtinError(sh, fds, 'trap', `${cond}: bad signal`);
      return 1;
    }
  }
  return 0;
};

const times: Builtin = async (sh, _argv, fds) => {
  await out(sh, fds, '0m0.00s 0m0.00s\n0m0.00s 0m0.00s\n');
  return 0;
};

/** POSIX special builtins: found before functions; their assignments stay. */
export const SPECIAL_BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  [':', trueBuiltin],
  ['.', dot],
  ['source', dot],
  ['break', loopControl('break')],
  ['continue', loopControl('continue')],
  ['eval', evalBuiltin],
  ['exec', exec],
  ['exit', exit],
  ['export', exportBuiltin],
  ['readonly', exportBuiltin],
  ['return', returnBuiltin],
  ['set', set],
  ['shift', shift],
  ['times', times],
  ['trap', trap],
  ['unset', unset],
]);

