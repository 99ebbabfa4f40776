/**
 * A small, complete lexer for Kotlin and Java source text. Everything the lint rules look at is
 * a token from here: comments are dropped (kept aside for reference), string and char literals
 * become single tokens, so text inside comments and strings can never look like code.
 *
 * Kotlin lexical grammar followed: https://kotlinlang.org/docs/reference/grammar.html
 * (nested block comments, `"…$name…${expr}…"` templates, raw `"""…"""` strings whose closing
 * quote run may be longer than three, backtick identifiers, `1_000`, `0x`, `0b`, `L`/`u` suffixes).
 * Java: JLS §3 (non-nested comments, escapes, `"""` text blocks, `l`/`L`/`f`/`d` suffixes,
 * octal literals).
 */

export const Language = { Kotlin: 'kotlin', Java: 'java' } as const;
export type Language = (typeof Language)[keyof typeof Language];

export const TokenKind = {
  Identifier: 'identifier',
  Number: 'number',
  String: 'string',
  Char: 'char',
  Operator: 'operator',
} as const;
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

export const NumberType = { Int: 'int', Long: 'long', Double: 'double' } as const;
export type NumberType = (typeof NumberType)[keyof typeof NumberType];

export interface Token {
  readonly kind: TokenKind;
  /** The exact source text of the token. */
  readonly text: string;
  /**
   * Identifier: the name (without backticks). String: the literal text with escapes decoded and
   * each template expression left out. Char: the decoded character. Otherwise the text.
   */
  readonly value: string;
  /** 1-based line and column of the first character. */
  readonly line: number;
  readonly column: number;
  /** Offsets into the source text: [start, end). */
  readonly start: number;
  readonly end: number;
  /** A line break (or the start of the file) lies between the previous token and this one. */
  readonly newlineBefore: boolean;
  /** Number tokens: the numeric value (NaN when it does not fit) and its type. */
  readonly numberValue?: number;
  readonly numberType?: NumberType;
  /** Kotlin string templates: the tokens of each `$name` / `${…}` in order. */
  readonly templates?: readonly (readonly Token[])[];
}

export interface Comment {
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

export interface TokenizedSource {
  readonly tokens: readonly Token[];
  readonly comments: readonly Comment[];
}

/** Operators, longest first within each leading character (maximal munch). */
const OPERATORS = [
  '>>>=', '<<=', '>>=', '===', '!==', '...', '..<',
  '->', '::', '?.', '?:', '!!', '..', '==', '!=', '<=', '>=', '&&', '||', '++', '--',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<',
] as const;
/** The operators by their first character, longest first. */
const OPERATORS_BY_FIRST = new Map<string, string[]>();
for (const op of OPERATORS) {
  const list = OPERATORS_BY_FIRST.get(op[0] as string) ?? [];
  list.push(op);
  OPERATORS_BY_FIRST.set(op[0] as string, list);
}
// `>>` and `>>>` are deliberately not joined: they close nested generic types (`List<List<T>>`).

const SINGLE = '(){}[],;.:?!=<>+-*/%&|^~@#';

function isIdentStart(c: string): boolean {
  const k = c.charCodeAt(0);
  if ((k >= 97 && k <= 122) || (k >= 65 && k <= 90) || k === 95 || k === 36) return true;
  return k > 127 && /[\p{L}_$]/u.test(c);
}
function isIdentPart(c: string): boolean {
  const k = c.charCodeAt(0);
  if ((k >= 97 && k <= 122) || (k >= 65 && k <= 90) || (k >= 48 && k <= 57) || k === 95 || k === 36) return true;
  return k > 127 && /[\p{L}\p{Nd}_$]/u.test(c);
}
function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

class Lexer {
  private pos = 0;
  private line = 1;
  private col = 1;
  private sawNewline = true;
  readonly comments: Comment[] = [];

  constructor(
    private readonly src: string,
    private readonly language: Language,
  ) {}

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private advance(n = 1): void {
    for (let k = 0; k < n && this.pos < this.src.length; k++) {
      const c = this.src[this.pos];
      this.pos++;
      if (c === '\n') {
        this.line++;
        this.col = 1;
      } else if (c === '\r') {
        if (this.src[this.pos] !== '\n') {
          this.line++;
          this.col = 1;
        }
      } else {
        this.col++;
      }
    }
  }

  private startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  /** Moves to offset `end`, counting lines and columns as `advance` does, with one char-code test per character. */
  private moveTo(end: number): void {
    const src = this.src;
    const stop = Math.min(end, src.length);
    for (let i = this.pos; i < stop; i++) {
      const q = src.charCodeAt(i);
      if (q === 10) {
        this.line++;
        this.col = 1;
      } else if (q === 13) {
        if (src.charCodeAt(i + 1) !== 10) {
          this.line++;
          this.col = 1;
        }
      } else {
        this.col++;
      }
    }
    this.pos = stop;
  }

  /** Skips whitespace and comments; records whether a line break was crossed. */
  private skipTrivia(): void {
    const src = this.src;
    const n = src.length;
    while (this.pos < n) {
      const k = src.charCodeAt(this.pos);
      if (k === 10 || k === 13) {
        this.sawNewline = true;
        this.advance();
      } else if (k === 32 || k === 9 || k === 12 || k === 11 || k === 0xfeff) {
        this.pos++;
        this.col++;
      } else if (k === 47 && src.charCodeAt(this.pos + 1) === 47) {
        // a line comment holds no line break: move the column in one step
        let e = this.pos + 2;
        while (e < n) {
          const q = src.charCodeAt(e);
          if (q === 10 || q === 13) break;
          e++;
        }
        this.comments.push({ text: src.slice(this.pos, e), line: this.line, column: this.col });
        this.col += e - this.pos;
        this.pos = e;
      } else if (k === 47 && src.charCodeAt(this.pos + 1) === 42) {
        this.skipBlockComment();
      } else {
        return;
      }
    }
  }

  private skipBlockComment(): void {
    const line = this.line;
    const column = this.col;
    const startPos = this.pos;
    const src = this.src;
    const n = src.length;
    const nests = this.language === Language.Kotlin;
    // Kotlin block comments nest; Java's do not (JLS §3.7).
    let depth = 1;
    let p = this.pos + 2;
    while (p < n && depth > 0) {
      const q = src.charCodeAt(p);
      if (q === 42 && src.charCodeAt(p + 1) === 47) {
        depth--;
        p += 2;
      } else if (nests && q === 47 && src.charCodeAt(p + 1) === 42) {
        depth++;
        p += 2;
      } else {
        if (q === 10) this.sawNewline = true;
        p++;
      }
    }
    this.moveTo(p);
    this.comments.push({ text: src.slice(startPos, this.pos), line, column });
  }

  /** Reads tokens until the end of input, or (inside a template) until the closing `}`. */
  readTokens(stopAtBrace: boolean): Token[] {
    const out: Token[] = [];
    let braceDepth = 0;
    for (;;) {
      this.skipTrivia();
      if (this.pos >= this.src.length) return out;
      const c = this.src[this.pos] as string;
      if (stopAtBrace && c === '}' && braceDepth === 0) {
        this.advance();
        return out;
      }
      const tok = this.readToken();
      if (stopAtBrace && tok.kind === TokenKind.Operator) {
        if (tok.text === '{') braceDepth++;
        else if (tok.text === '}') braceDepth--;
      }
      out.push(tok);
    }
  }

  private make(
    kind: TokenKind,
    start: number,
    line: number,
    column: number,
    value: string,
    extra?: { numberValue?: number; numberType?: NumberType; templates?: Token[][] },
  ): Token {
    // an identifier's text is its value: one slice, not two
    const text = kind === TokenKind.Identifier && this.pos - start === value.length ? value : this.src.slice(start, this.pos);
    const tok: Token = extra === undefined
      ? { kind, text, value, line, column, start, end: this.pos, newlineBefore: this.sawNewline }
      : { kind, text, value, line, column, start, end: this.pos, newlineBefore: this.sawNewline, ...extra };
    this.sawNewline = false;
    return tok;
  }

  private readToken(): Token {
    const start = this.pos;
    const line = this.line;
    const column = this.col;
    const c = this.src[this.pos] as string;

    if (c === '"') return this.readString(start, line, column);
    if (c === "'") return this.readChar(start, line, column);
    if (isDigit(c) || (c === '.' && isDigit(this.peek(1)))) return this.readNumber(start, line, column);
    if (c === '`' && this.language === Language.Kotlin) {
      this.advance();
      while (this.pos < this.src.length && this.src[this.pos] !== '`' && this.src[this.pos] !== '\n') this.advance();
      const name = this.src.slice(start + 1, this.pos);
      if (this.src[this.pos] === '`') this.advance();
      return this.make(TokenKind.Identifier, start, line, column, name);
    }
    if (isIdentStart(c)) {
      // identifiers hold no line breaks: move the column in one step
      let end = this.pos + 1;
      while (end < this.src.length && isIdentPart(this.src[end] as string)) end++;
      this.col += end - this.pos;
      this.pos = end;
      return this.make(TokenKind.Identifier, start, line, column, this.src.slice(start, this.pos));
    }
    for (const op of OPERATORS_BY_FIRST.get(c) ?? []) {
      if (this.startsWith(op)) {
        if (op === '..<' && this.language === Language.Java) continue;
        this.advance(op.length);
        return this.make(TokenKind.Operator, start, line, column, op);
      }
    }
    // Any other single character (including ones no grammar uses) is one operator token, so
    // the lexer never fails on unexpected input.
    this.advance();
    const text = SINGLE.includes(c) ? c : this.src.slice(start, this.pos);
    return this.make(TokenKind.Operator, start, line, column, text);
  }

  private readNumber(start: number, line: number, column: number): Token {
    const src = this.src;
    let type: NumberType = NumberType.Int;
    let value: number;
    const lower = (src[this.pos + 1] ?? '').toLowerCase();
    if (src[this.pos] === '0' && (lower === 'x' || lower === 'b')) {
      this.advance(2);
      const digits = this.pos;
      const re = lower === 'x' ? /[0-9a-fA-F_]/ : /[01_]/;
      while (this.pos < src.length && re.test(src[this.pos] as string)) this.advance();
      const body = src.slice(digits, this.pos).replace(/_/g, '');
      value = body === '' ? NaN : parseInt(body, lower === 'x' ? 16 : 2);
    } else {
      const digitsStart = this.pos;
      let isFloat = false;
      while (this.pos < src.length && /[0-9_]/.test(src[this.pos] as string)) this.advance();
      // A fraction needs a digit after the dot: `24.hours`, `1..10` and `1.toLong()` are not doubles.
      if (src[this.pos] === '.' && isDigit(src[this.pos + 1])) {
        isFloat = true;
        this.advance();
        while (this.pos < src.length && /[0-9_]/.test(src[this.pos] as string)) this.advance();
      }
      if ((src[this.pos] === 'e' || src[this.pos] === 'E') &&
        (isDigit(src[this.pos + 1]) || ((src[this.pos + 1] === '+' || src[this.pos + 1] === '-') && isDigit(src[this.pos + 2])))) {
        isFloat = true;
        this.advance(2);
        while (this.pos < src.length && /[0-9_]/.test(src[this.pos] as string)) this.advance();
      }
      const body = src.slice(digitsStart, this.pos).replace(/_/g, '');
      if (isFloat) {
        type = NumberType.Double;
        value = Number(body);
      } else if (this.language === Language.Java && body.length > 1 && body.startsWith('0')) {
        value = parseInt(body, 8); // JLS §3.10.1: a leading 0 means octal
      } else {
        value = Number(body);
      }
    }
    // Suffixes: Kotlin L, u, uL, f/F; Java l/L, f/F, d/D.
    const s = src[this.pos];
    if (s === 'u' || s === 'U') {
      this.advance();
      if (src[this.pos] === 'L') {
        this.advance();
        type = NumberType.Long;
      }
    } else if (s === 'L' || (s === 'l' && this.language === Language.Java)) {
      this.advance();
      type = NumberType.Long;
    } else if (s === 'f' || s === 'F' || ((s === 'd' || s === 'D') && this.language === Language.Java)) {
      this.advance();
      type = NumberType.Double;
    }
    if (type !== NumberType.Double && !Number.isSafeInteger(value)) value = NaN;
    return this.make(TokenKind.Number, start, line, column, this.src.slice(start, this.pos), { numberValue: value, numberType: type });
  }

  private readEscape(): string {
    // at the backslash
    const next = this.src[this.pos + 1];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', s: ' ', '0': '\0', '"': '"', "'": "'", '\\': '\\', $: '$' };
    if (next === 'u') {
      let p = this.pos + 2;
      while (this.src[p] === 'u') p++; // Java allows \uuuu0041
      const hex = this.src.slice(p, p + 4);
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        this.advance(p + 4 - this.pos);
        return String.fromCharCode(parseInt(hex, 16));
      }
    }
    if (next !== undefined && /[0-7]/.test(next) && this.language === Language.Java) {
      const m = /^[0-7]{1,3}/.exec(this.src.slice(this.pos + 1, this.pos + 4));
      if (m) {
        this.advance(1 + m[0].length);
        return String.fromCharCode(parseInt(m[0], 8));
      }
    }
    if (next === '\n' && this.language === Language.Java) {
      this.advance(2); // text block line continuation
      return '';
    }
    this.advance(2);
    return next === undefined ? '' : (simple[next] ?? next);
  }

  private readChar(start: number, line: number, column: number): Token {
    this.advance();
    let value = '';
    while (this.pos < this.src.length && this.src[this.pos] !== "'" && this.src[this.pos] !== '\n') {
      if (this.src[this.pos] === '\\') value += this.readEscape();
      else {
        value += this.src[this.pos];
        this.advance();
      }
    }
    if (this.src[this.pos] === "'") this.advance();
    return this.make(TokenKind.Char, start, line, column, value);
  }

  private readString(start: number, line: number, column: number): Token {
    const raw = this.startsWith('"""');
    this.advance(raw ? 3 : 1);
    let value = '';
    const templates: Token[][] = [];
    const kotlin = this.language === Language.Kotlin;
    // The token's own newline flag must describe what came before the opening quote.
    const newlineBefore = this.sawNewline;
    for (;;) {
      if (this.pos >= this.src.length) break; // unterminated: the literal runs to the end
      const c = this.src[this.pos] as string;
      if (raw) {
        if (this.startsWith('"""')) {
          let run = 0;
          while (this.src[this.pos + run] === '"') run++;
          value += '"'.repeat(run - 3);
          this.advance(run);
          break;
        }
      } else {
        if (c === '"') {
          this.advance();
          break;
        }
        if (c === '\n' || c === '\r') break; // unterminated single-line string
      }
      if (c === '\\' && (!raw || !kotlin)) {
        value += this.readEscape();
        continue;
      }
      if (c === '$' && kotlin) {
        const n = this.src[this.pos + 1];
        if (n === '{') {
          this.advance(2);
          this.sawNewline = false;
          templates.push(this.readTokens(true));
          continue;
        }
        if (n !== undefined && isIdentStart(n) && n !== '$') {
          this.advance();
          const s = this.pos;
          const l = this.line;
          const col = this.col;
          while (this.pos < this.src.length && isIdentPart(this.src[this.pos] as string) && this.src[this.pos] !== '$') this.advance();
          this.sawNewline = false;
          templates.push([this.make(TokenKind.Identifier, s, l, col, this.src.slice(s, this.pos))]);
          continue;
        }
      }
      // a run of ordinary characters in one step (no quote, backslash, `$` or line break in it)
      const src = this.src;
      let e = this.pos + 1;
      while (e < src.length) {
        const q = src.charCodeAt(e);
        if (q === 34 || q === 92 || q === 36 || q === 10 || q === 13) break;
        e++;
      }
      value += src.slice(this.pos, e);
      if (c === '\n' || c === '\r') this.moveTo(e);
      else {
        this.col += e - this.pos;
        this.pos = e;
      }
    }
    this.sawNewline = newlineBefore;
    return this.make(TokenKind.String, start, line, column, value, templates.length > 0 ? { templates } : undefined);
  }
}

/** Tokenizes one source file. Never throws: malformed input yields best-effort tokens. */
export function tokenize(source: string, language: Language): TokenizedSource {
  const lexer = new Lexer(source, language);
  const tokens = lexer.readTokens(false);
  return { tokens, comments: lexer.comments };
}

/** The language of a file by its extension, or undefined when it is not a source file. */
export function languageOf(path: string): Language | undefined {
  if (/\.kts?$/i.test(path)) return Language.Kotlin;
  if (/\.java$/i.test(path)) return Language.Java;
  return undefined;
}

export function isOp(tok: Token | undefined, text: string): boolean {
  return tok !== undefined && tok.kind === TokenKind.Operator && tok.text === text;
}

export function isIdent(tok: Token | undefined, name?: string | RegExp): boolean {
  if (tok === undefined || tok.kind !== TokenKind.Identifier) return false;
  if (name === undefined) return true;
  return typeof name === 'string' ? tok.value === name : name.test(tok.value);
}
