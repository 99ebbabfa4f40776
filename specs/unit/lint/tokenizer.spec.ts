import { expect } from 'chai';
import { matchBrackets } from '../../../src/lint/syntax.js';
import type { Token } from '../../../src/lint/tokenizer.js';
import { languageOf, tokenize } from '../../../src/lint/tokenizer.js';

const kinds = (tokens: readonly Token[]): string[] => tokens.map((t) => `${t.kind}:${t.kind === 'string' || t.kind === 'char' ? JSON.stringify(t.value) : t.text}`);

describe('lint tokenizer', () => {
  it('empty input gives no tokens and no comments', () => {
    expect(tokenize('', 'kotlin')).to.deep.equal({ tokens: [], comments: [] });
  });

  it('drops line comments and nested Kotlin block comments, keeping them aside', () => {
    const src = 'val a = 1 // PeriodicWorkRequestBuilder\n/* outer /* inner */ still outer UUID.randomUUID() */ val b = 2';
    const { tokens, comments } = tokenize(src, 'kotlin');
    expect(tokens.map((t) => t.text)).to.deep.equal(['val', 'a', '=', '1', 'val', 'b', '=', '2']);
    expect(comments.map((c) => [c.line, c.column, c.text])).to.deep.equal([
      [1, 11, '// PeriodicWorkRequestBuilder'],
      [2, 1, '/* outer /* inner */ still outer UUID.randomUUID() */'],
    ]);
  });

  it('Java block comments do not nest (JLS 3.7)', () => {
    const { tokens } = tokenize('/* a /* b */ int x = 1; */', 'java');
    expect(tokens.map((t) => t.text)).to.deep.equal(['int', 'x', '=', '1', ';', '*', '/']);
  });

  it('reads Kotlin string templates as one token with the template tokens aside', () => {
    const { tokens } = tokenize('"a${b + "}"}c$d$"', 'kotlin');
    expect(tokens).to.have.length(1);
    const t = tokens[0] as Token;
    expect(t.kind).to.equal('string');
    expect(t.value).to.equal('ac$');
    expect(t.templates?.map((tpl) => tpl.map((x) => x.text))).to.deep.equal([['b', '+', '"}"'], ['d']]);
  });

  it('ends raw strings at the last three of a longer quote run, and ignores escapes in them', () => {
    const { tokens } = tokenize('val s = """say ""hi"" \\n""""\nval t = 1', 'kotlin');
    expect(kinds(tokens)).to.deep.equal([
      'identifier:val', 'identifier:s', 'operator:=', 'string:"say \\"\\"hi\\"\\" \\\\n\\""',
      'identifier:val', 'identifier:t', 'operator:=', 'number:1',
    ]);
    expect(tokens[4]?.newlineBefore).to.equal(true);
    expect(tokens[3]?.newlineBefore).to.equal(false);
  });

  it('decodes char literals and escapes', () => {
    const { tokens } = tokenize("'\\n' '\\'' '\\u0041' 'x'", 'kotlin');
    expect(tokens.map((t) => [t.kind, t.value])).to.deep.equal([['char', '\n'], ['char', "'"], ['char', 'A'], ['char', 'x']]);
  });

  it('reads numbers with separators, radixes and suffixes, and leaves ranges and member calls alone', () => {
    const { tokens } = tokenize('1_000 48L 0x1F 0b101 1.5e3f 2.0 7u 1..10 24.hours 1.toLong()', 'kotlin');
    const nums = tokens.filter((t) => t.kind === 'number').map((t) => [t.text, t.numberValue, t.numberType]);
    expect(nums).to.deep.equal([
      ['1_000', 1000, 'int'], ['48L', 48, 'long'], ['0x1F', 31, 'int'], ['0b101', 5, 'int'], ['1.5e3f', 1500, 'double'],
      ['2.0', 2, 'double'], ['7u', 7, 'int'], ['1', 1, 'int'], ['10', 10, 'int'], ['24', 24, 'int'], ['1', 1, 'int'],
    ]);
    expect(tokens.map((t) => t.text)).to.include.members(['..', 'hours', 'toLong']);
  });

  it('reads Java octal, long and text blocks', () => {
    const { tokens } = tokenize('long a = 017; long b = 10l; String s = """\n  a "quoted" line\n  """;', 'java');
    expect(tokens.filter((t) => t.kind === 'number').map((t) => [t.text, t.numberValue, t.numberType])).to.deep.equal([
      ['017', 15, 'int'], ['10l', 10, 'long'],
    ]);
    const s = tokens.find((t) => t.kind === 'string') as Token;
    expect(s.value).to.equal('\n  a "quoted" line\n  ');
  });

  it('keeps 1-based line and column positions', () => {
    const { tokens } = tokenize('fun a() {\n    return 1\n}', 'kotlin');
    expect(tokens.map((t) => [t.text, t.line, t.column])).to.deep.equal([
      ['fun', 1, 1], ['a', 1, 5], ['(', 1, 6], [')', 1, 7], ['{', 1, 9], ['return', 2, 5], ['1', 2, 12], ['}', 3, 1],
    ]);
  });

  it('reads backtick identifiers and maximal-munch operators', () => {
    const { tokens } = tokenize('`is ok` ?: a?.b!! :: c..<d -> e === f', 'kotlin');
    expect(tokens.map((t) => [t.kind, t.value])).to.deep.equal([
      ['identifier', 'is ok'], ['operator', '?:'], ['identifier', 'a'], ['operator', '?.'], ['identifier', 'b'], ['operator', '!!'],
      ['operator', '::'], ['identifier', 'c'], ['operator', '..<'], ['identifier', 'd'], ['operator', '->'], ['identifier', 'e'],
      ['operator', '==='], ['identifier', 'f'],
    ]);
  });

  it('never throws on unterminated or unexpected input', () => {
    for (const src of ['"abc', '"""abc', "'a", '/* open', '${', '"${a', '#!?\\ \u0000 `x', '0x', '1e']) {
      expect(() => tokenize(src, 'kotlin')).not.to.throw();
      expect(() => tokenize(src, 'java')).not.to.throw();
    }
    const { tokens } = tokenize('"abc\nval x = 1', 'kotlin');
    expect(tokens.map((t) => t.text)).to.deep.equal(['"abc', 'val', 'x', '=', '1']);
  });

  it('matches brackets, skipping those inside strings and comments', () => {
    const { tokens } = tokenize('f(a, "(", /* ) */ g[1]) { }', 'kotlin');
    const { match } = matchBrackets(tokens);
    const idx = (text: string, from = 0): number => tokens.findIndex((t, i) => i >= from && t.text === text);
    expect(match[idx('(')]).to.equal(idx(')'));
    expect(match[idx('[')]).to.equal(idx(']'));
    expect(match[idx('{')]).to.equal(idx('}'));
  });

  it('tells languages by extension', () => {
    expect([languageOf('A.kt'), languageOf('b.kts'), languageOf('C.java'), languageOf('9.json')]).to.deep.equal(['kotlin', 'kotlin', 'java', undefined]);
  });
});
