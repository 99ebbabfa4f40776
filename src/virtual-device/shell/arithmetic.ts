/**
 * `$((expr))` and `let`: mksh arithmetic, which is 32-bit signed with wraparound
 * (mksh(1) "Arithmetic expressions": `mksh_ari_t` is a 32-bit int in mksh; lksh is the
 * variant with the host's long). Operators, by precedence: unary + - ! ~ ++ --, * / %, + -,
 * << >>, < <= > >=, == !=, &, ^, |, &&, ||, ?:, = *= /= %= += -= <<= >>= &= ^= |=.
 * Numbers: decimal, 0x hex, base#digits. Names read variables (empty or unset is 0).
 */
export class ArithmeticError extends Error {}

export interface ArithmeticVars {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
}

type Tok = { t: 'num'; v: number } | { t: 'name'; v: string } | { t: 'op'; v: string } | { t: 'end' };

const OPS = ['<<=', '>>=', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '+', '-', '*', '/', '%', '<', '>', '=', '&', '^', '|', '!', '~', '?', ':', '(', ')', ','];

const i32 = (n: number): number => n | 0;

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)/.exec(src.slice(i));
    if (num) {
      out.push({ t: 'num', v: parseNumber(num[0], src) });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (name) {
      out.push({ t: 'name', v: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op === undefined) throw new ArithmeticError(`${src}: unexpected '${c}'`);
    out.push({ t: 'op', v: op });
    i += op.length;
  }
  out.push({ t: 'end' });
  return out;
}

function parseNumber(text: string, src: string): number {
  if (/^0[xX]/.test(text)) return i32(parseInt(text.slice(2), 16));
  const based = /^(\d+)#(.+)$/.exec(text);
  if (based) {
    const base = Number(based[1]);
    if (base < 2 || base > 36) throw new ArithmeticError(`${src}: bad number '${text}'`);
    const v = parseInt(based[2]!, base);
    if (Number.isNaN(v)) throw new ArithmeticError(`${src}: bad number '${text}'`);
    return i32(v);
  }
  return i32(Number(text));
}

/** Evaluates an arithmetic expression with 32-bit wraparound. */
export function evaluateArithmetic(src: string, vars: ArithmeticVars): number {
  if (src.trim() === '') return 0;
  const toks = tokenize(src);
  let p = 0;
  const peek = (): Tok => toks[p]!;
  const isOp = (v: string): boolean => {
    const t = peek();
    return t.t === 'op' && t.v === v;
  };
  const expectOp = (v: string): void => {
    if (!isOp(v)) throw new ArithmeticError(`${src}: missing '${v}'`);
    p++;
  };
  const readVar = (name: string, depth = 0): number => {
    const raw = vars.get(name);
    if (raw === undefined || raw.trim() === '') return 0;
    if (/^-?\d+$/.test(raw.trim())) return i32(Number(raw.trim()));
    if (depth > 8) throw new ArithmeticError(`${name}: expression recurses on parameter '${name}'`);
    return evaluateArithmetic(raw, vars);
  };

  // Each level returns a value; `evalOn` false means parse only (short-circuit branches).
  const assignment = (evalOn: boolean): number => {
    const t = peek();
    const next = toks[p + 1];
    if (t.t === 'name' && next?.t === 'op' && ['=', '*=', '/=', '%=', '+=', '-=', '<<=', '>>=', '&=', '^=', '|='].includes(next.v)) {
      p += 2;
      const rhs = assignment(evalOn);
      if (!evalOn) return 0;
      const cur = next.v === '=' ? 0 : readVar(t.v);
      const v = next.v === '=' ? rhs : binary(next.v.slice(0, -1), cur, rhs);
      vars.set(t.v, String(v));
      return v;
    }
    return ternary(evalOn);
  };
  const ternary = (evalOn: boolean): number => {
    const cond = binaryLevel(0, evalOn);
    if (!isOp('?')) return cond;
    p++;
    const a = assignment(evalOn && cond !== 0);
    expectOp(':');
    const b = assignment(evalOn && cond === 0);
    return cond !== 0 ? a : b;
  };
  const LEVELS: string[][] = [['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '<=', '>', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];
  const binaryLevel = (level: number, evalOn: boolean): number => {
    if (level >= LEVELS.length) return unary(evalOn);
    let left = binaryLevel(level + 1, evalOn);
    for (;;) {
      const t = peek();
      if (t.t !== 'op' || !LEVELS[level]!.includes(t.v)) return left;
      p++;
      if (t.v === '&&' || t.v === '||') {
        const shortCircuit = t.v === '&&' ? left === 0 : left !== 0;
        const right = binaryLevel(level + 1, evalOn && !shortCircuit);
        left = shortCircuit ? (t.v === '||' ? 1 : 0) : right !== 0 ? 1 : 0;
        continue;
      }
      const right = binaryLevel(level + 1, evalOn);
      left = evalOn ? binary(t.v, left, right) : 0;
    }
  };
  const binary = (op: string, a: number, b: number): number => {
    switch (op) {
      case '+':
        return i32(a + b);
      case '-':
        return i32(a - b);
      case '*':
        return Math.imul(a, b);
      case '/':
        if (b === 0) throw new ArithmeticError(`${src}: divisor is zero`);
        return i32(Math.trunc(a / b));
      case '%':
        if (b === 0) throw new ArithmeticError(`${src}: divisor is zero`);
        return i32(a % b);
      case '<<':
        return i32(a << (b & 31));
      case '>>':
        return i32(a >> (b & 31));
      case '<':
        return a < b ? 1 : 0;
      case '<=':
        return a <= b ? 1 : 0;
      case '>':
        return a > b ? 1 : 0;
      case '>=':
        return a >= b ? 1 : 0;
      case '==':
        return a === b ? 1 : 0;
      case '!=':
        return a !== b ? 1 : 0;
      case '&':
        return a & b;
      case '^':
        return a ^ b;
      case '|':
        return a | b;
      default:
        throw new ArithmeticError(`${src}: unexpected '${op}'`);
    }
  };
  const unary = (evalOn: boolean): number => {
    const t = peek();
    if (t.t === 'op') {
      if (t.v === '+' || t.v === '-' || t.v === '!' || t.v === '~') {
        p++;
        const v = unary(evalOn);
        if (t.v === '-') return i32(-v);
        if (t.v === '!') return v === 0 ? 1 : 0;
        if (t.v === '~') return ~v;
        return v;
      }
      if (t.v === '++' || t.v === '--') {
        p++;
        const n = peek();
        if (n.t !== 'name') throw new ArithmeticError(`${src}: unexpected '${t.v}'`);
        p++;
        if (!evalOn) return 0;
        const v = i32(readVar(n.v) + (t.v === '++' ? 1 : -1));
        vars.set(n.v, String(v));
        return v;
      }
      if (t.v === '(') {
        p++;
        const v = assignment(evalOn);
        expectOp(')');
        return v;
      }
    }
    if (t.t === 'num') {
      p++;
      return t.v;
    }
    if (t.t === 'name') {
      p++;
      const after = peek();
      if (after.t === 'op' && (after.v === '++' || after.v === '--')) {
        p++;
        if (!evalOn) return 0;
        const v = readVar(t.v);
        vars.set(t.v, String(i32(v + (after.v === '++' ? 1 : -1))));
        return v;
      }
      return evalOn ? readVar(t.v) : 0;
    }
    throw new ArithmeticError(`${src}: unexpected ${t.t === 'end' ? 'end of expression' : `'${String(t.v)}'`}`);
  };

  let value = assignment(true);
  while (isOp(',')) {
    p++;
    value = assignment(true);
  }
  if (peek().t !== 'end') {
    const t = peek();
    throw new ArithmeticError(`${src}: unexpected '${t.t === 'end' ? '' : String(t.v)}'`);
  }
  return value;
}
