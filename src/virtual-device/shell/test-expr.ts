/**
 * `test` / `[` (a mksh builtin: funcs.c c_test) and `[[ ... ]]`: POSIX's argument-count rules
 * for up to four arguments, then the full grammar with `!`, `-a`, `-o` and parentheses.
 * Exit status 0 true, 1 false, 2 on a usage error. Integer comparisons evaluate their
 * operands as arithmetic expressions, as mksh does.
 */
import type { VirtualFs } from '../fs/virtual-fs.js';
import { resolveAndroidPath } from '../fs/android-path.js';
import { S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK, S_ISGID, S_ISUID, S_ISVTX } from '../fs/file-mode.js';
import { evaluateArithmetic, ArithmeticError } from './arithmetic.js';
import { matchPattern } from './glob.js';

export class TestError extends Error {}

export interface TestHost {
  readonly fs: VirtualFs;
  readonly uid: number;
  readonly cwd: string;
  getVar(name: string): string | undefined;
}

const UNARY = new Set(['-e', '-f', '-d', '-r', '-w', '-x', '-s', '-L', '-h', '-b', '-c', '-p', '-S', '-t', '-z', '-n', '-g', '-u', '-k', '-O', '-G', '-a']);
const BINARY = new Set(['=', '==', '!=', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef']);

export async function evaluateTest(args: readonly string[], host: TestHost, options: { doubleBracket?: boolean } = {}): Promise<boolean> {
  const a = [...args];
  switch (a.length) {
    case 0:
      return false;
    case 1:
      return a[0] !== '';
    case 2:
      if (a[0] === '!') return a[1] === '';
      if (UNARY.has(a[0]!)) return unary(a[0]!, a[1]!, host);
      throw new TestError(`${a[0]!}: unexpected operator`);
    case 3:
      if (BINARY.has(a[1]!) || a[1] === '-a' || a[1] === '-o') {
        if (a[1] === '-a') return a[0] !== '' && a[2] !== '';
        if (a[1] === '-o') return a[0] !== '' || a[2] !== '';
        return binary(a[1]!, a[0]!, a[2]!, host, options.doubleBracket === true);
      }
      if (a[0] === '!') return !(await evaluateTest(a.slice(1), host, options));
      if (a[0] === '(' && a[2] === ')') return a[1] !== '';
      break;
    case 4:
      if (a[0] === '!') return !(await evaluateTest(a.slice(1), host, options));
      if (a[0] === '(' && a[3] === ')') return evaluateTest(a.slice(1, 3), host, options);
      break;
    default:
      break;
  }
  return new ExprParser(a, host, options.doubleBracket === true).parse();
}

class ExprParser {
  private p = 0;
  constructor(
    private readonly a: string[],
    private readonly host: TestHost,
    private readonly dbl: boolean,
  ) {}

  async parse(): Promise<boolean> {
    const v = await this.or();
    if (this.p < this.a.length) throw new TestError(`${this.a[this.p]!}: unexpected operator`);
    return v;
  }

  private async or(): Promise<boolean> {
    let v = await this.and();
    while (this.a[this.p] === '-o' || (this.dbl && this.a[this.p] === '||')) {
      this.p++;
      const r = await this.and();
      v = v || r;
    }
    return v;
  }

  private async and(): Promise<boolean> {
    let v = await this.not();
    while (this.a[this.p] === '-a' || (this.dbl && this.a[this.p] === '&&')) {
      this.p++;
      const r = await this.not();
      v = v && r;
    }
    return v;
  }

  private async not(): Promise<boolean> {
    if (this.a[this.p] === '!') {
      this.p++;
      return !(await this.not());
    }
    return this.primary();
  }

  private async primary(): Promise<boolean> {
    const t = this.a[this.p];
    if (t === undefined) throw new TestError('argument expected');
    if (t === '(') {
      this.p++;
      const v = await this.or();
      if (this.a[this.p] !== ')') throw new TestError(`${this.a[this.p] ?? ''}: ')' expected`);
      this.p++;
      return v;
    }
    const op = this.a[this.p + 1];
    if (op !== undefined && BINARY.has(op) && this.a[this.p + 2] !== undefined) {
      this.p += 3;
      return binary(op, t, this.a[this.p - 1]!, this.host, this.dbl);
    }
    if (UNARY.has(t) && this.a[this.p + 1] !== undefined) {
      this.p += 2;
      return unary(t, this.a[this.p - 1]!, this.host);
    }
    this.p++;
    return t !== '';
  }
}

async function statOf(host: TestHost, path: string, follow: boolean): Promise<{ mode: number; size: number; uid: number; gid: number; mtimeSec: number; dev: number; ino: number } | undefined> {
  try {
    const abs = resolveAndroidPath(path, host.cwd);
    return follow ? await host.fs.stat(abs, host.uid) : await host.fs.lstat(abs, host.uid);
  } catch {
    return undefined;
  }
}

async function unary(op: string, arg: string, host: TestHost): Promise<boolean> {
  const type = async (t: number, follow = true): Promise<boolean> => {
    const st = await statOf(host, arg, follow);
    return st !== undefined && (st.mode & S_IFMT) === t;
  };
  switch (op) {
    case '-z':
      return arg === '';
    case '-n':
      return arg !== '';
    case '-e':
    case '-a':
      return (await statOf(host, arg, true)) !== undefined;
    case '-f':
      return type(S_IFREG);
    case '-d':
      return type(S_IFDIR);
    case '-b':
      return type(S_IFBLK);
    case '-c':
      return type(S_IFCHR);
    case '-p':
      return type(S_IFIFO);
    case '-S':
      return type(S_IFSOCK);
    case '-L':
    case '-h':
      return type(S_IFLNK, false);
    case '-s':
      return ((await statOf(host, arg, true))?.size ?? 0) > 0;
    case '-r':
      return host.fs.access(resolveAndroidPath(arg, host.cwd), host.uid, 4);
    case '-w':
      return host.fs.access(resolveAndroidPath(arg, host.cwd), host.uid, 2);
    case '-x':
      return host.fs.access(resolveAndroidPath(arg, host.cwd), host.uid, 1);
    case '-u':
      return (((await statOf(host, arg, true))?.mode ?? 0) & S_ISUID) !== 0;
    case '-g':
      return (((await statOf(host, arg, true))?.mode ?? 0) & S_ISGID) !== 0;
    case '-k':
      return (((await statOf(host, arg, true))?.mode ?? 0) & S_ISVTX) !== 0;
    case '-O':
      return (await statOf(host, arg, true))?.uid === host.uid;
    case '-G':
      return (await statOf(host, arg, true))?.gid === host.uid;
    case '-t':
      return false;
    default:
      throw new TestError(`${op}: unexpected operator`);
  }
}

function integer(text: string, host: TestHost): number {
  try {
    return evaluateArithmetic(text, { get: (n) => host.getVar(n), set: () => undefined });
  } catch (e) {
    if (e instanceof ArithmeticError) throw new TestError(`${text}: bad number`);
    throw e;
  }
}

async function binary(op: string, l: string, r: string, host: TestHost, dbl: boolean): Promise<boolean> {
  switch (op) {
    case '=':
    case '==':
      return dbl ? matchPattern(r, l) : l === r;
    case '!=':
      return dbl ? !matchPattern(r, l) : l !== r;
    case '<':
      return l < r;
    case '>':
      return l > r;
    case '-eq':
      return integer(l, host) === integer(r, host);
    case '-ne':
      return integer(l, host) !== integer(r, host);
    case '-lt':
      return integer(l, host) < integer(r, host);
    case '-le':
      return integer(l, host) <= integer(r, host);
    case '-gt':
      return integer(l, host) > integer(r, host);
    case '-ge':
      return integer(l, host) >= integer(r, host);
    case '-nt':
    case '-ot': {
      const a = await statOf(host, l, true);
      const b = await statOf(host, r, true);
      if (op === '-nt') return a !== undefined && (b === undefined || a.mtimeSec > b.mtimeSec);
      return b !== undefined && (a === undefined || a.mtimeSec < b.mtimeSec);
    }
    case '-ef': {
      const a = await statOf(host, l, true);
      const b = await statOf(host, r, true);
      return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
    }
    default:
      throw new TestError(`${op}: unexpected operator`);
  }
}
