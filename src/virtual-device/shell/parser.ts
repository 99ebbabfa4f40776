/**
 * Lexer and recursive-descent parser for the sh language tools send to Android's
 * /system/bin/sh (mksh R57-R59c, external/mksh). Scripts are parsed one top-level line at a
 * time, as mksh does (`compile()` per line), so earlier lines run before a later line's syntax
 * error is reported.
 *
 * Syntax errors carry mksh's texts (syn.c syntaxerr(), lex.c yylex(), mksh-R59c):
 *   `syntax error: unexpected 'TOKEN'` (newline shows as 'newline'),
 *   `syntax error: unexpected EOF`, `syntax error: unmatched 'if'` (EOF inside a compound),
 *   `no closing quote`, `here document 'EOF' unclosed`.
 * The shell prints them after its name (`/system/bin/sh: `) and exits with status 1.
 */
import type { AndOr, Assignment, CaseItem, CommandNode, CompoundCommand, IfClause, ListItem, ListNode, ParamOp, Pipeline, Redir, RedirOp, SimpleCommand, Word, WordPart } from './ast.js';

export class ShellSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

type Op = ';' | '&' | '&&' | '||' | '|' | '(' | ')' | ';;' | '\n';

type Token =
  | { kind: 'word'; word: Word }
  | { kind: 'op'; op: Op }
  | { kind: 'redir'; fd: number | undefined; op: RedirOp; raw: string }
  | { kind: 'eof' };

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'while', 'until', 'do', 'done', 'in', 'function', '{', '}', '!']);
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SPECIAL_PARAMS = new Set(['?', '$', '#', '@', '*', '!', '-', '0']);

export class Parser {
  private readonly src: string;
  private pos = 0;
  private peeked: Token | null = null;
  private readonly pendingHeredocs: Redir[] = [];
  /** Compound commands being parsed (innermost last), for "unmatched" errors. */
  private readonly nesting: string[] = [];

  constructor(src: string) {
    this.src = src;
  }

  /** True when only blanks, comments and newlines remain. */
  atEnd(): boolean {
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') return true;
      if (t.kind === 'op' && t.op === '\n') {
        this.next();
        continue;
      }
      return false;
    }
  }

  /** Parses the next top-level line (commands up to an unescaped newline). */
  parseLine(): ListNode | null {
    if (this.atEnd()) return null;
    const list = this.parseList(false);
    const t = this.peek();
    if (t.kind === 'op' && t.op === '\n') this.next();
    else if (t.kind !== 'eof') this.unexpected(t);
    return list;
  }

  /** Parses a whole script (used for `$(...)` bodies parsed from separate text). */
  parseAll(): ListNode {
    const items: ListItem[] = [];
    for (;;) {
      const line = this.parseLine();
      if (line === null) break;
      items.push(...line.items);
    }
    return { items };
  }

  // ---------------------------------------------------------------- grammar

  /**
   * A list of and-or commands separated by `;`, `&` (and newlines when `multiline`), up to a
   * reserved word, `)`, `;;` or EOF. Inside compound commands (`multiline`) at least one
   * command is required.
   */
  private parseList(multiline: boolean): ListNode {
    const items: ListItem[] = [];
    if (multiline) this.skipNewlines();
    for (;;) {
      const t = this.peek();
      if (this.isListEnd(t) || (!multiline && items.length > 0 && t.kind === 'op' && t.op === '\n')) {
        if (items.length === 0) this.unexpected(t);
        break;
      }
      const andOr = this.parseAndOr();
      let background = false;
      const sep = this.peek();
      if (sep.kind === 'op' && (sep.op === ';' || sep.op === '&')) {
        this.next();
        background = sep.op === '&';
        items.push({ andOr, background });
        if (multiline) this.skipNewlines();
        continue;
      }
      items.push({ andOr, background });
      if (sep.kind === 'op' && sep.op === '\n') {
        if (!multiline) break;
        this.skipNewlines();
        continue;
      }
      break;
    }
    return { items };
  }

  private isListEnd(t: Token): boolean {
    if (t.kind === 'eof') return true;
    if (t.kind === 'op') return t.op === ')' || t.op === ';;';
    if (t.kind === 'word') {
      const r = reservedOf(t);
      return r !== undefined && ['then', 'else', 'elif', 'fi', 'do', 'done', 'esac', '}'].includes(r);
    }
    return false;
  }

  private parseAndOr(): AndOr {
    const first = this.parsePipeline();
    const rest: { op: '&&' | '||'; pipeline: Pipeline }[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'op' && (t.op === '&&' || t.op === '||')) {
        this.next();
        this.skipNewlines();
        rest.push({ op: t.op, pipeline: this.parsePipeline() });
        continue;
      }
      return { first, rest };
    }
  }

  private parsePipeline(): Pipeline {
    let negate = false;
    const t = this.peek();
    if (reservedOf(t) === '!') {
      this.next();
      negate = true;
    }
    const commands: CommandNode[] = [this.parseCommand()];
    for (;;) {
      const p = this.peek();
      if (p.kind === 'op' && p.op === '|') {
        this.next();
        this.skipNewlines();
        commands.push(this.parseCommand());
        continue;
      }
      return { negate, commands };
    }
  }

  private parseCommand(): CommandNode {
    const t = this.peek();
    const reserved = reservedOf(t);
    switch (reserved) {
      case 'if':
        return this.withRedirs(this.parseIf());
      case 'while':
      case 'until':
        return this.withRedirs(this.parseWhile(reserved === 'until'));
      case 'for':
        return this.withRedirs(this.parseFor());
      case 'case':
        return this.withRedirs(this.parseCase());
      case '{':
        return this.withRedirs(this.parseGroup());
      case 'function':
        return this.parseFunctionKeyword();
      case undefined:
        break;
      default:
        this.unexpected(t);
    }
    if (t.kind === 'op' && t.op === '(') {
      this.next();
      this.nesting.push('(');
      const body = this.parseList(true);
      this.expectOp(')');
      this.nesting.pop();
      return this.withRedirs({ type: 'subshell', body, redirs: [] });
    }
    if (t.kind === 'word' && NAME_RE.test(t.word.raw) && this.isFunctionDefinition()) {
      this.next();
      this.expectOp('(');
      this.expectOp(')');
      this.skipNewlines();
      const body = this.parseCommand();
      return { type: 'funcdef', name: t.word.raw, body, redirs: [] };
    }
    return this.parseSimple();
  }

  private parseSimple(): SimpleCommand {
    const assigns: Assignment[] = [];
    const words: Word[] = [];
    const redirs: Redir[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'redir') {
        redirs.push(this.parseRedir());
        continue;
      }
      if (t.kind === 'word') {
        this.next();
        const assign = words.length === 0 ? asAssignment(t.word) : undefined;
        if (assign !== undefined) assigns.push(assign);
        else words.push(t.word);
        continue;
      }
      break;
    }
    if (assigns.length === 0 && words.length === 0 && redirs.length === 0) this.unexpected(this.peek());
    return { type: 'simple', assigns, words, redirs };
  }

  private parseRedir(): Redir {
    const t = this.next();
    if (t.kind !== 'redir') throw new Error('parseRedir called without a redirection');
    const target = this.next();
    if (target.kind !== 'word') this.unexpected(target);
    const redir: Redir = { fd: t.fd, op: t.op, target: target.word, raw: t.raw };
    if (t.op === '<<' || t.op === '<<-') this.pendingHeredocs.push(redir);
    return redir;
  }

  private withRedirs(cmd: CompoundCommand): CompoundCommand {
    const redirs: Redir[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'redir') break;
      redirs.push(this.parseRedir());
    }
    return redirs.length === 0 ? cmd : { ...cmd, redirs };
  }

  private parseIf(): CompoundCommand {
    this.next();
    this.nesting.push('if');
    const clauses: IfClause[] = [];
    let elseBody: ListNode | undefined;
    const cond = this.parseList(true);
    this.expectReserved('then');
    clauses.push({ cond, body: this.parseList(true) });
    for (;;) {
      const t = this.peek();
      const r = reservedOf(t);
      if (r === 'elif') {
        this.next();
        const c = this.parseList(true);
        this.expectReserved('then');
        clauses.push({ cond: c, body: this.parseList(true) });
        continue;
      }
      if (r === 'else') {
        this.next();
        elseBody = this.parseList(true);
      }
      this.expectReserved('fi');
      break;
    }
    this.nesting.pop();
    return { type: 'if', clauses, elseBody, redirs: [] };
  }

  private parseWhile(until: boolean): CompoundCommand {
    this.next();
    this.nesting.push(until ? 'until' : 'while');
    const cond = this.parseList(true);
    this.expectReserved('do');
    const body = this.parseList(true);
    this.expectReserved('done');
    this.nesting.pop();
    return { type: 'while', until, cond, body, redirs: [] };
  }

  private parseFor(): CompoundCommand {
    this.next();
    this.nesting.push('for');
    const nameTok = this.next();
    if (nameTok.kind !== 'word' || !NAME_RE.test(nameTok.word.raw)) this.unexpected(nameTok);
    let items: Word[] | undefined;
    let t = this.peek();
    if (t.kind === 'op' && t.op === '\n') {
      this.skipNewlines();
      t = this.peek();
    }
    if (reservedOf(t) === 'in') {
      this.next();
      items = [];
      for (;;) {
        const w = this.peek();
        if (w.kind !== 'word') break;
        this.next();
        items.push(w.word);
      }
      const sep = this.next();
      if (!(sep.kind === 'op' && (sep.op === ';' || sep.op === '\n'))) this.unexpected(sep);
    } else if (t.kind === 'op' && t.op === ';') {
      this.next();
    }
    this.skipNewlines();
    const open = this.peek();
    const opener = reservedOf(open);
    if (opener !== 'do' && opener !== '{') this.unexpected(open);
    this.next();
    const body = this.parseList(true);
    this.expectReserved(opener === 'do' ? 'done' : '}');
    this.nesting.pop();
    return { type: 'for', name: nameTok.word.raw, items, body, redirs: [] };
  }

  private parseCase(): CompoundCommand {
    this.next();
    this.nesting.push('case');
    const wordTok = this.next();
    if (wordTok.kind !== 'word') this.unexpected(wordTok);
    this.skipNewlines();
    this.expectReserved('in');
    this.skipNewlines();
    const items: CaseItem[] = [];
    for (;;) {
      let t = this.peek();
      if (reservedOf(t) === 'esac') {
        this.next();
        break;
      }
      if (t.kind === 'op' && t.op === '(') {
        this.next();
        t = this.peek();
      }
      const patterns: Word[] = [];
      for (;;) {
        const p = this.next();
        if (p.kind !== 'word') this.unexpected(p);
        patterns.push(p.word);
        const sep = this.next();
        if (sep.kind === 'op' && sep.op === '|') continue;
        if (sep.kind === 'op' && sep.op === ')') break;
        this.unexpected(sep);
      }
      this.skipNewlines();
      let body: ListNode | undefined;
      const b = this.peek();
      if (!(b.kind === 'op' && b.op === ';;') && reservedOf(b) !== 'esac') body = this.parseList(true);
      items.push({ patterns, body });
      const end = this.peek();
      if (end.kind === 'op' && end.op === ';;') {
        this.next();
        this.skipNewlines();
        continue;
      }
      if (reservedOf(end) === 'esac') continue;
      this.unexpected(end);
    }
    this.nesting.pop();
    return { type: 'case', word: wordTok.word, items, redirs: [] };
  }

  private parseGroup(): CompoundCommand {
    this.next();
    this.nesting.push('{');
    const body = this.parseList(true);
    this.expectReserved('}');
    this.nesting.pop();
    return { type: 'group', body, redirs: [] };
  }

  private parseFunctionKeyword(): CommandNode {
    this.next();
    const name = this.next();
    if (name.kind !== 'word' || !NAME_RE.test(name.word.raw)) this.unexpected(name);
    const t = this.peek();
    if (t.kind === 'op' && t.op === '(') {
      this.next();
      this.expectOp(')');
    }
    this.skipNewlines();
    return { type: 'funcdef', name: name.word.raw, body: this.parseCommand(), redirs: [] };
  }

  /** `name ( )`: a word followed by `(` then `)`. */
  private isFunctionDefinition(): boolean {
    // The name is the peeked token, so pos is just past it.
    let i = this.pos;
    while (this.src[i] === ' ' || this.src[i] === '\t') i++;
    return this.src[i] === '(' && /^\([ \t]*\)/.test(this.src.slice(i));
  }

  private expectReserved(word: string): void {
    const t = this.next();
    if (reservedOf(t) !== word) this.unexpected(t);
  }

  private expectOp(op: Op): void {
    const t = this.next();
    if (!(t.kind === 'op' && t.op === op)) this.unexpected(t);
  }

  private skipNewlines(): void {
    for (;;) {
      const t = this.peek();
      if (t.kind === 'op' && t.op === '\n') this.next();
      else return;
    }
  }

  private unexpected(t: Token): never {
    if (t.kind === 'eof') {
      const open = this.nesting.at(-1);
      if (open !== undefined) throw new ShellSyntaxError(`syntax error: unmatched '${open}'`);
      throw new ShellSyntaxError('syntax error: unexpected EOF');
    }
    throw new ShellSyntaxError(`syntax error: unexpected '${tokenText(t)}'`);
  }

  // ---------------------------------------------------------------- tokens

  private peek(): Token {
    if (this.peeked === null) this.peeked = this.lex();
    return this.peeked;
  }

  private next(): Token {
    const t = this.peek();
    this.peeked = null;
    if (t.kind === 'op' && t.op === '\n') this.readHeredocs();
    return t;
  }

  private lex(): Token {
    this.skipBlanks();
    const c = this.src[this.pos];
    if (c === undefined) return { kind: 'eof' };
    if (c === '#') {
      while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      return this.lex();
    }
    const two = this.src.slice(this.pos, this.pos + 2);
    if (c === '\n') {
      this.pos++;
      return { kind: 'op', op: '\n' };
    }
    if (/[0-9]/.test(c)) {
      const m = /^(\d+)(?=[<>])/.exec(this.src.slice(this.pos));
      if (m) {
        this.pos += m[1]!.length;
        const r = this.lexRedirOp();
        if (r !== undefined) return { ...r, fd: Number(m[1]), raw: m[1]! + r.raw };
      }
    }
    if (c === '<' || c === '>') {
      const r = this.lexRedirOp();
      if (r !== undefined) return r;
    }
    if (two === '&&' || two === '||' || two === ';;') {
      this.pos += 2;
      return { kind: 'op', op: two };
    }
    if (two === '&>') {
      this.pos += 2;
      return { kind: 'redir', fd: undefined, op: '&>', raw: '&>' };
    }
    if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      this.pos++;
      return { kind: 'op', op: c };
    }
    const start = this.pos;
    const parts = this.readWordParts('top');
    return { kind: 'word', word: { parts, raw: this.src.slice(start, this.pos) } };
  }

  private lexRedirOp(): { kind: 'redir'; fd: undefined; op: RedirOp; raw: string } | undefined {
    const rest = this.src.slice(this.pos, this.pos + 3);
    const ops: RedirOp[] = ['<<-', '<<', '<&', '<>', '>>', '>&', '>|', '<', '>'];
    for (const op of ops) {
      if (rest.startsWith(op)) {
        this.pos += op.length;
        return { kind: 'redir', fd: undefined, op, raw: op };
      }
    }
    return undefined;
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c === ' ' || c === '\t') this.pos++;
      else if (c === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  /**
   * Reads word parts. `top`: ends at a metacharacter; `brace`: ends at an unquoted `}` (for
   * `${name-word}`); `dq`: the inside of double quotes, ends at `"` or end of text.
   */
  private readWordParts(mode: 'top' | 'brace' | 'dq-text'): WordPart[] {
    const parts: WordPart[] = [];
    let lit = '';
    const flush = (): void => {
      if (lit !== '') parts.push({ type: 'lit', value: lit });
      lit = '';
    };
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) break;
      if (mode === 'top' && META.has(c)) break;
      if (mode === 'brace' && c === '}') break;
      if (c === '\\') {
        const n = this.src[this.pos + 1];
        if (n === '\n') {
          this.pos += 2;
          continue;
        }
        if (n === undefined) {
          lit += '\\';
          this.pos++;
          continue;
        }
        flush();
        parts.push({ type: 'sq', value: n });
        this.pos += 2;
        continue;
      }
      if (c === "'") {
        flush();
        const end = this.src.indexOf("'", this.pos + 1);
        if (end < 0) throw new ShellSyntaxError('no closing quote');
        parts.push({ type: 'sq', value: this.src.slice(this.pos + 1, end) });
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        flush();
        this.pos++;
        parts.push({ type: 'dq', parts: this.readDoubleQuoted() });
        continue;
      }
      if (c === '$') {
        const part = this.readDollar();
        if (part === undefined) {
          lit += '$';
          continue;
        }
        flush();
        parts.push(part);
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.readBackquote());
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    return parts;
  }

  /** After the opening `"`: reads up to the closing `"`. */
  private readDoubleQuoted(): WordPart[] {
    const parts: WordPart[] = [];
    let lit = '';
    const flush = (): void => {
      if (lit !== '') parts.push({ type: 'lit', value: lit });
      lit = '';
    };
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) throw new ShellSyntaxError('no closing quote');
      if (c === '"') {
        this.pos++;
        break;
      }
      if (c === '\\') {
        const n = this.src[this.pos + 1];
        if (n === '\n') {
          this.pos += 2;
          continue;
        }
        if (n === '$' || n === '`' || n === '"' || n === '\\') {
          lit += n;
          this.pos += 2;
          continue;
        }
        lit += '\\';
        this.pos++;
        continue;
      }
      if (c === '$') {
        const part = this.readDollar();
        if (part === undefined) {
          lit += '$';
          continue;
        }
        flush();
        parts.push(part);
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.readBackquote());
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    return parts;
  }

  /** At a `$`: returns the expansion, or undefined for a literal `$` (pos then past it). */
  private readDollar(): WordPart | undefined {
    const start = this.pos;
    const n = this.src[this.pos + 1];
    if (n === '(' && this.src[this.pos + 2] === '(') {
      const body = this.scanArithmetic(this.pos + 3);
      if (body !== undefined) {
        this.pos = body.end;
        const sub = new Parser(body.text);
        return { type: 'arith', expr: { parts: sub.readWordParts('dq-text'), raw: body.text } };
      }
    }
    if (n === '(') {
      this.pos += 2;
      return { type: 'cmdsub', body: this.parseSubstitutionBody() };
    }
    if (n === '{') {
      this.pos += 2;
      return this.readBraceParam(start);
    }
    if (n !== undefined && /[A-Za-z_]/.test(n)) {
      let i = this.pos + 1;
      while (i < this.src.length && /[A-Za-z0-9_]/.test(this.src[i]!)) i++;
      const name = this.src.slice(this.pos + 1, i);
      this.pos = i;
      return { type: 'param', name, op: undefined, arg: undefined, raw: `$${name}` };
    }
    if (n !== undefined && (/[1-9]/.test(n) || SPECIAL_PARAMS.has(n))) {
      this.pos += 2;
      return { type: 'param', name: n, op: undefined, arg: undefined, raw: `$${n}` };
    }
    this.pos++;
    return undefined;
  }

  /** `$( list )`: parses commands up to the matching `)`. */
  private parseSubstitutionBody(): ListNode {
    this.nesting.push('(');
    try {
      this.skipNewlines();
      const t = this.peek();
      if (t.kind === 'op' && t.op === ')') {
        this.next();
        return { items: [] };
      }
      const body = this.parseList(true);
      const end = this.peek();
      if (end.kind === 'eof') throw new ShellSyntaxError('no closing quote');
      if (!(end.kind === 'op' && end.op === ')')) this.unexpected(end);
      // Consume the `)` without lexing past it: the word continues right after.
      this.peeked = null;
      return body;
    } catch (e) {
      if (e instanceof ShellSyntaxError && e.message.startsWith('syntax error: unmatched')) throw new ShellSyntaxError('no closing quote');
      throw e;
    } finally {
      this.nesting.pop();
    }
  }

  /** After `${`: name, optional operator and word, `}`. */
  private readBraceParam(start: number): WordPart {
    let length = false;
    if (this.src[this.pos] === '#' && this.src[this.pos + 1] !== '}' && /[A-Za-z_0-9?$#@*!-]/.test(this.src[this.pos + 1] ?? '')) {
      length = true;
      this.pos++;
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[?$#@*!0-])/.exec(this.src.slice(this.pos));
    if (m === null) {
      const close = this.src.indexOf('}', this.pos);
      if (close < 0) throw new ShellSyntaxError('no closing quote');
      this.pos = close + 1;
      return { type: 'param', name: '', op: undefined, arg: undefined, raw: this.src.slice(start, this.pos) };
    }
    const name = m[1]!;
    this.pos += name.length;
    if (length) {
      if (this.src[this.pos] !== '}') throw new ShellSyntaxError('no closing quote');
      this.pos++;
      return { type: 'param', name, op: 'length', arg: undefined, raw: this.src.slice(start, this.pos) };
    }
    if (this.src[this.pos] === '}') {
      this.pos++;
      return { type: 'param', name, op: undefined, arg: undefined, raw: this.src.slice(start, this.pos) };
    }
    const ops: ParamOp[] = [':-', ':=', ':+', ':?', '##', '%%', '-', '=', '+', '?', '#', '%'];
    const op = ops.find((o) => this.src.startsWith(o, this.pos));
    if (op === undefined) {
      const close = this.src.indexOf('}', this.pos);
      if (close < 0) throw new ShellSyntaxError('no closing quote');
      this.pos = close + 1;
      // Not a valid expansion: reported as "bad substitution" when expanded.
      return { type: 'param', name: '', op: undefined, arg: undefined, raw: this.src.slice(start, this.pos) };
    }
    this.pos += op.length;
    const argStart = this.pos;
    const parts = this.readWordParts('brace');
    if (this.src[this.pos] !== '}') throw new ShellSyntaxError('no closing quote');
    const arg: Word = { parts, raw: this.src.slice(argStart, this.pos) };
    this.pos++;
    return { type: 'param', name, op, arg, raw: this.src.slice(start, this.pos) };
  }

  /** `$((` … `))` with balanced parentheses; undefined when it is really `$( (…) )`. */
  private scanArithmetic(from: number): { text: string; end: number } | undefined {
    let depth = 0;
    for (let i = from; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === '(') depth++;
      else if (c === ')') {
        if (depth === 0) {
          if (this.src[i + 1] === ')') return { text: this.src.slice(from, i), end: i + 2 };
          return undefined;
        }
        depth--;
      }
    }
    throw new ShellSyntaxError('no closing quote');
  }

  /** `` `cmd` ``: backslash escapes `$`, `` ` `` and `\` inside. */
  private readBackquote(): WordPart {
    let i = this.pos + 1;
    let text = '';
    for (;;) {
      const c = this.src[i];
      if (c === undefined) throw new ShellSyntaxError('no closing quote');
      if (c === '`') break;
      if (c === '\\' && (this.src[i + 1] === '$' || this.src[i + 1] === '`' || this.src[i + 1] === '\\')) {
        text += this.src[i + 1];
        i += 2;
        continue;
      }
      text += c;
      i++;
    }
    this.pos = i + 1;
    return { type: 'cmdsub', body: new Parser(text).parseAll() };
  }

  /** Reads the bodies of here-documents whose operators were on the line just ended. */
  private readHeredocs(): void {
    while (this.pendingHeredocs.length > 0) {
      const redir = this.pendingHeredocs.shift()!;
      const literal = redir.target.parts.some((p) => p.type !== 'lit');
      const delimiter = unquotedText(redir.target.parts);
      const stripTabs = redir.op === '<<-';
      const lines: string[] = [];
      for (;;) {
        if (this.pos >= this.src.length) throw new ShellSyntaxError(`here document '${delimiter}' unclosed`);
        let end = this.src.indexOf('\n', this.pos);
        if (end < 0) end = this.src.length;
        let line = this.src.slice(this.pos, end);
        this.pos = Math.min(end + 1, this.src.length);
        if (stripTabs) line = line.replace(/^\t+/, '');
        if (line === delimiter) break;
        lines.push(`${line}\n`);
      }
      const text = lines.join('');
      const body: Word = literal ? { parts: [{ type: 'sq', value: text }], raw: text } : { parts: new Parser(text).readHeredocText(), raw: text };
      redir.heredoc = { body, literal };
    }
  }

  /** Here-document text: `$` expansions and backquotes; `\` escapes only `$ \` ` and newline. */
  private readHeredocText(): WordPart[] {
    const parts: WordPart[] = [];
    let lit = '';
    const flush = (): void => {
      if (lit !== '') parts.push({ type: 'lit', value: lit });
      lit = '';
    };
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]!;
      if (c === '\\' && ['$', '`', '\\', '\n'].includes(this.src[this.pos + 1] ?? '')) {
        if (this.src[this.pos + 1] !== '\n') lit += this.src[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (c === '$') {
        const part = this.readDollar();
        if (part === undefined) {
          lit += '$';
          continue;
        }
        flush();
        parts.push(part);
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.readBackquote());
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    return [{ type: 'dq', parts }];
  }
}

function reservedOf(t: Token): string | undefined {
  if (t.kind !== 'word') return undefined;
  const only = t.word.parts.length === 1 ? t.word.parts[0] : undefined;
  if (only === undefined || only.type !== 'lit') return undefined;
  return RESERVED.has(only.value) ? only.value : undefined;
}

function tokenText(t: Token): string {
  switch (t.kind) {
    case 'word':
      return t.word.raw;
    case 'op':
      return t.op === '\n' ? 'newline' : t.op;
    case 'redir':
      return t.raw;
    case 'eof':
      return 'EOF';
    default: {
      const unreachable: never = t;
      return String(unreachable);
    }
  }
}

/** `NAME=value` at the start of a simple command. */
function asAssignment(word: Word): Assignment | undefined {
  const first = word.parts[0];
  if (first === undefined || first.type !== 'lit') return undefined;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.value);
  if (m === null) return undefined;
  const restLit = first.value.slice(m[0].length);
  const parts: WordPart[] = restLit === '' ? [] : [{ type: 'lit', value: restLit }];
  parts.push(...word.parts.slice(1));
  return { name: m[1]!, value: { parts, raw: word.raw.slice(m[0].length) } };
}

/** The text of a word with quotes removed and no expansion (here-document delimiters). */
export function unquotedText(parts: readonly WordPart[]): string {
  let out = '';
  for (const p of parts) {
    switch (p.type) {
      case 'lit':
      case 'sq':
        out += p.value;
        break;
      case 'dq':
        out += unquotedText(p.parts);
        break;
      case 'param':
        out += p.raw;
        break;
      case 'cmdsub':
      case 'arith':
        break;
      default: {
        const unreachable: never = p;
        throw new Error(`unknown word part ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return out;
}

/** Parses a complete script at once (for tests and `eval`). Throws ShellSyntaxError. */
export function parseScript(src: string): ListNode {
  return new Parser(src).parseAll();
}
