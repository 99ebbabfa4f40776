/**
 * Word expansion, in POSIX order: tilde, parameter, command substitution and arithmetic;
 * field splitting on $IFS (only of unquoted expansion results); pathname expansion (only of
 * unquoted glob characters, a pattern without matches stays as written); quote removal.
 */
import type { ListNode, Word, WordPart } from './ast.js';
import type { ShellState } from './shell-state.js';
import type { VirtualFs } from '../fs/virtual-fs.js';
import { evaluateArithmetic, ArithmeticError } from './arithmetic.js';
import { componentMatcher, hasGlobChars, trimPattern, unescapePattern } from './glob.js';
import { resolveAndroidPath } from '../fs/android-path.js';

/** An error that ends a non-interactive shell (mksh errorf()), printed after the shell's name. */
export class ExpansionError extends Error {}

interface Seg {
  text: string;
  quoted: boolean;
}

interface Field {
  segs: Seg[];
  /** Contains quoted or literal text, so it survives even when empty. */
  keep: boolean;
}

export interface ExpandHost {
  readonly state: ShellState;
  readonly fs: VirtualFs;
  /** Runs `$(...)` in a subshell and returns its output; records its exit status. */
  commandSubstitution(body: ListNode): Promise<string>;
  /** Device wall-clock time in epoch ms (for $EPOCHREALTIME and $SECONDS). */
  now(): number;
  /** When this shell started (epoch ms). */
  readonly startedMs: number;
}

const DEFAULT_IFS = ' \t\n';

export class Expander {
  constructor(private readonly host: ExpandHost) {}

  /** Expands command words into arguments (splitting and globbing). */
  async words(words: readonly Word[]): Promise<string[]> {
    const out: string[] = [];
    for (const w of words) out.push(...(await this.fields(w, true)));
    return out;
  }

  /** Expands one word to one string (assignments, redirection targets, `case` words). */
  async single(word: Word): Promise<string> {
    const b = new FieldBuilder(false);
    await this.parts(word.parts, false, b, true);
    return b.fields.map((f) => f.segs.map((s) => s.text).join('')).join(' ');
  }

  /** Expands a word as a pattern: quoted characters are escaped (`case`, `${x#pat}`). */
  async pattern(word: Word): Promise<string> {
    const b = new FieldBuilder(false);
    await this.parts(word.parts, false, b, true);
    return b.fields.map((f) => f.segs.map((s) => (s.quoted ? escapeGlob(s.text) : s.text)).join('')).join(' ');
  }

  private async fields(word: Word, glob: boolean): Promise<string[]> {
    const b = new FieldBuilder(true);
    await this.parts(word.parts, false, b, true);
    const out: string[] = [];
    for (const f of b.fields) {
      if (!f.keep && f.segs.every((s) => s.text === '')) continue;
      const hasUnquotedGlob = glob && f.segs.some((s) => !s.quoted && hasGlobChars(s.text.replace(/\\/g, '')));
      if (hasUnquotedGlob) {
        const pattern = f.segs.map((s) => (s.quoted ? escapeGlob(s.text) : s.text.replace(/\\/g, '\\\\'))).join('');
        const matches = await this.glob(pattern);
        if (matches.length > 0) {
          out.push(...matches);
          continue;
        }
      }
      out.push(f.segs.map((s) => s.text).join(''));
    }
    return out;
  }

  private async parts(parts: readonly WordPart[], quoted: boolean, b: FieldBuilder, wordStart: boolean): Promise<void> {
    let first = wordStart;
    for (const part of parts) {
      switch (part.type) {
        case 'lit': {
          let text = part.value;
          if (first && !quoted && text.startsWith('~')) text = this.tilde(text);
          b.add(text, quoted);
          break;
        }
        case 'sq':
          b.add(part.value, true);
          break;
        case 'dq':
          b.markQuoted();
          await this.parts(part.parts, true, b, false);
          break;
        case 'param':
          await this.param(part, quoted, b);
          break;
        case 'cmdsub': {
          const output = (await this.host.commandSubstitution(part.body)).replace(/\n+$/, '');
          this.addExpansion(output, quoted, b);
          break;
        }
        case 'arith': {
          const text = await this.single(part.expr);
          let value: number;
          try {
            value = evaluateArithmetic(text, {
              get: (n) => this.host.state.get(n),
              set: (n, v) => void this.host.state.set(n, v),
            });
          } catch (e) {
            if (e instanceof ArithmeticError) throw new ExpansionError(e.message);
            throw e;
          }
          this.addExpansion(String(value), quoted, b);
          break;
        }
        default: {
          const unreachable: never = part;
          throw new Error(`unknown word part ${JSON.stringify(unreachable)}`);
        }
      }
      first = false;
    }
  }

  private tilde(text: string): string {
    const slash = text.indexOf('/');
    const user = slash < 0 ? text.slice(1) : text.slice(1, slash);
    if (user !== '') return text;
    const home = this.host.state.get('HOME') ?? '/';
    return home + (slash < 0 ? '' : text.slice(slash));
  }

  private addExpansion(value: string, quoted: boolean, b: FieldBuilder): void {
    if (quoted) b.add(value, true);
    else b.addSplittable(value, this.host.state.get('IFS') ?? DEFAULT_IFS);
  }

  private async param(part: Extract<WordPart, { type: 'param' }>, quoted: boolean, b: FieldBuilder): Promise<void> {
    const state = this.host.state;
    if (part.name === '') throw new ExpansionError(`${part.raw}: bad substitution`);
    // "$@": one field per positional parameter, even when quoted.
    if (part.name === '@' && part.op === undefined) {
      if (quoted) {
        b.addFieldsQuoted(state.positional);
        return;
      }
      for (let i = 0; i < state.positional.length; i++) {
        if (i > 0) b.breakField();
        this.addExpansion(state.positional[i]!, false, b);
      }
      return;
    }
    const value = this.lookup(part.name);
    const set = value !== undefined;
    const nonEmpty = set && value !== '';
    switch (part.op) {
      case undefined:
        if (!set && state.nounset) throw new ExpansionError(`${part.name}: parameter not set`);
        this.addExpansion(value ?? '', quoted, b);
        return;
      case 'length':
        this.addExpansion(String([...(value ?? '')].length), quoted, b);
        return;
      case '-':
      case ':-': {
        const useDefault = part.op === '-' ? !set : !nonEmpty;
        if (useDefault) await this.expandArg(part.arg, quoted, b);
        else this.addExpansion(value ?? '', quoted, b);
        return;
      }
      case '=':
      case ':=': {
        const assign = part.op === '=' ? !set : !nonEmpty;
        if (assign) {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(part.name)) throw new ExpansionError(`${part.raw}: bad substitution`);
          const v = part.arg === undefined ? '' : await this.single(part.arg);
          state.set(part.name, v);
          this.addExpansion(v, quoted, b);
        } else this.addExpansion(value ?? '', quoted, b);
        return;
      }
      case '+':
      case ':+': {
        const useAlt = part.op === '+' ? set : nonEmpty;
        if (useAlt) await this.expandArg(part.arg, quoted, b);
        return;
      }
      case '?':
      case ':?': {
        const fail = part.op === '?' ? !set : !nonEmpty;
        if (fail) {
          const msg = part.arg === undefined ? '' : await this.single(part.arg);
          throw new ExpansionError(`${part.name}: ${msg === '' ? 'parameter null or not set' : msg}`);
        }
        this.addExpansion(value ?? '', quoted, b);
        return;
      }
      case '#':
      case '##':
      case '%':
      case '%%': {
        const pattern = part.arg === undefined ? '' : await this.pattern(part.arg);
        this.addExpansion(trimPattern(value ?? '', pattern, part.op), quoted, b);
        return;
      }
      default: {
        const unreachable: never = part.op;
        throw new Error(`unknown parameter operator ${String(unreachable)}`);
      }
    }
  }

  private async expandArg(arg: Word | undefined, quoted: boolean, b: FieldBuilder): Promise<void> {
    if (arg === undefined) return;
    if (quoted) await this.parts(arg.parts, true, b, false);
    else await this.parts(arg.parts, false, b, false);
  }

  /** The value of a parameter, or undefined when unset. */
  lookup(name: string): string | undefined {
    const state = this.host.state;
    switch (name) {
      case '?':
        return String(state.lastStatus);
      case '$':
        return String(state.pid);
      case '#':
        return String(state.positional.length);
      case '*':
      case '@':
        return state.positional.join((state.get('IFS') ?? DEFAULT_IFS).slice(0, 1));
      case '!':
        return state.lastBackgroundPid === undefined ? undefined : String(state.lastBackgroundPid);
      case '-':
        return state.flags();
      case '0':
        return state.arg0;
      default: {
        if (/^\d+$/.test(name)) return state.positional[Number(name) - 1];
        const value = state.get(name);
        if (value !== undefined) return value;
        // mksh's special parameters (mksh(1) "Parameters"), unless assigned.
        switch (name) {
          case 'RANDOM':
            return String(Math.floor(Math.random() * 32768));
          case 'SECONDS':
            return String(Math.floor((this.host.now() - this.host.startedMs) / 1000));
          case 'EPOCHREALTIME': {
            const ms = this.host.now();
            return `${Math.floor(ms / 1000)}.${String(Math.floor(ms % 1000) * 1000).padStart(6, '0')}`;
          }
          default:
            return undefined;
        }
      }
    }
  }

  /** Pathname expansion of `pattern` (escaped with `\`), as the shell's uid sees the tree. */
  private async glob(pattern: string): Promise<string[]> {
    const absolute = pattern.startsWith('/');
    const components = pattern.split('/').filter((c, i) => c !== '' || i === 0);
    if (absolute) components.shift();
    let current: string[] = [absolute ? '/' : ''];
    let lastLiteral = false;
    for (const component of components) {
      if (component === '') continue;
      const next: string[] = [];
      if (!hasGlobChars(component)) {
        const literal = unescapePattern(component);
        for (const base of current) next.push(joinGlob(base, literal));
        current = next;
        lastLiteral = true;
        continue;
      }
      lastLiteral = false;
      const matches = componentMatcher(component);
      for (const base of current) {
        const dir = resolveAndroidPath(base === '' ? '.' : base, this.host.state.cwd);
        let names: string[];
        try {
          names = (await this.host.fs.readdir(dir, this.host.state.uid)).map((e) => e.name);
        } catch {
          continue;
        }
        for (const name of names) if (matches(name)) next.push(joinGlob(base, name));
      }
      current = next;
      if (current.length === 0) return [];
    }
    if (lastLiteral) {
      const existing: string[] = [];
      for (const p of current) {
        try {
          await this.host.fs.lstat(resolveAndroidPath(p, this.host.state.cwd), this.host.state.uid);
          existing.push(p);
        } catch {
          // not there: not a match
        }
      }
      current = existing;
    }
    return current.sort();
  }
}

function joinGlob(base: string, name: string): string {
  if (base === '') return name;
  if (base.endsWith('/')) return base + name;
  return `${base}/${name}`;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\\\]]/g, '\\$&');
}

class FieldBuilder {
  readonly fields: Field[] = [{ segs: [], keep: false }];

  constructor(private readonly splitting: boolean) {}

  private get current(): Field {
    return this.fields[this.fields.length - 1]!;
  }

  add(text: string, quoted: boolean): void {
    this.current.segs.push({ text, quoted });
    if (quoted || text !== '') this.current.keep = true;
  }

  markQuoted(): void {
    this.current.keep = true;
  }

  breakField(): void {
    this.fields.push({ segs: [], keep: false });
  }

  /** Quoted "$@": the first value joins the current field, each further one starts a field. */
  addFieldsQuoted(values: readonly string[]): void {
    if (values.length === 0) {
      // "$@" with no parameters produces no field unless other quoted text is present.
      const cur = this.current;
      if (cur.segs.length === 0) cur.keep = false;
      return;
    }
    values.forEach((v, i) => {
      if (i > 0) this.breakField();
      this.add(v, true);
    });
  }

  /** An unquoted expansion result: split on IFS when splitting is on. */
  addSplittable(value: string, ifs: string): void {
    if (!this.splitting || ifs === '') {
      this.current.segs.push({ text: value, quoted: false });
      return;
    }
    const ws = [...ifs].filter((c) => c === ' ' || c === '\t' || c === '\n').join('');
    const isWs = (c: string): boolean => ws.includes(c);
    const isIfs = (c: string): boolean => ifs.includes(c);
    let i = 0;
    // Leading IFS whitespace ends the current field.
    if (i < value.length && isWs(value[i]!)) {
      while (i < value.length && isWs(value[i]!)) i++;
      if (this.current.segs.length > 0 || this.current.keep) this.breakField();
    }
    let piece = '';
    while (i < value.length) {
      const c = value[i]!;
      if (!isIfs(c)) {
        piece += c;
        i++;
        continue;
      }
      // One delimiter: IFS whitespace, at most one other IFS character, IFS whitespace.
      this.current.segs.push({ text: piece, quoted: false });
      if (piece !== '') this.current.keep = true;
      piece = '';
      while (i < value.length && isWs(value[i]!)) i++;
      if (i < value.length && isIfs(value[i]!) && !isWs(value[i]!)) {
        // A field ended by a non-whitespace delimiter exists even when empty.
        this.current.keep = true;
        i++;
        while (i < value.length && isWs(value[i]!)) i++;
      }
      this.breakField();
    }
    if (piece !== '') {
      this.current.segs.push({ text: piece, quoted: false });
      this.current.keep = true;
    }
  }
}
