import { expect } from 'chai';
import { Parser, ShellSyntaxError, parseScript } from '../../../src/virtual-device/shell/parser.js';
import type { ListNode, SimpleCommand, Word } from '../../../src/virtual-device/shell/ast.js';

function syntaxError(src: string): string {
  try {
    parseScript(src);
  } catch (e) {
    if (e instanceof ShellSyntaxError) return e.message;
    throw e;
  }
  return 'parsed';
}

function simple(list: ListNode, item = 0, index = 0): SimpleCommand {
  const cmd = list.items[item]!.andOr.first.commands[index]!;
  if (cmd.type !== 'simple') throw new Error(`expected a simple command, got ${cmd.type}`);
  return cmd;
}

const raw = (w: Word): string => w.raw;

describe('sh parser', () => {
  it('splits words at blanks and operators, keeping quotes inside words', () => {
    const list = parseScript(`echo 'a b'"c"\\ d e;ls`);
    expect(simple(list).words.map(raw)).to.deep.equal(['echo', `'a b'"c"\\ d`, 'e']);
    expect(simple(list, 1).words.map(raw)).to.deep.equal(['ls']);
    const quoted = simple(parseScript(`x'y'"z$v"`)).words[0]!.parts.map((p) => p.type);
    expect(quoted).to.deep.equal(['lit', 'sq', 'dq']);
  });

  it('parses && || ; & and pipelines', () => {
    const list = parseScript('a && b || c; d | e | f & g');
    expect(list.items).to.have.length(3);
    expect(list.items[0]!.andOr.rest.map((r) => r.op)).to.deep.equal(['&&', '||']);
    expect(list.items[1]!.andOr.first.commands).to.have.length(3);
    expect(list.items[1]!.background).to.equal(true);
  });

  it('parses redirections with fd numbers and dups', () => {
    const cmd = simple(parseScript('cmd >out 2>&1 <in 2>/dev/null >>log 1>&2 3>x'));
    expect(cmd.redirs.map((r) => [r.fd, r.op, r.target.raw])).to.deep.equal([
      [undefined, '>', 'out'],
      [2, '>&', '1'],
      [undefined, '<', 'in'],
      [2, '>', '/dev/null'],
      [undefined, '>>', 'log'],
      [1, '>&', '2'],
      [3, '>', 'x'],
    ]);
    expect(simple(parseScript('echo a2>b')).words.map(raw)).to.deep.equal(['echo', 'a2']);
  });

  it('recognises assignments only before the command name', () => {
    const cmd = simple(parseScript('A=1 B="x y" cmd C=3'));
    expect(cmd.assigns.map((a) => [a.name, a.value.raw])).to.deep.equal([
      ['A', '1'],
      ['B', '"x y"'],
    ]);
    expect(cmd.words.map(raw)).to.deep.equal(['cmd', 'C=3']);
  });

  it('parses parameter expansions and command substitutions inside words', () => {
    const w = simple(parseScript('echo ${A:-"d e"}$(ls -l | wc -l)`id`$((1+2))$?')).words[1]!;
    expect(w.parts.map((p) => p.type)).to.deep.equal(['param', 'cmdsub', 'cmdsub', 'arith', 'param']);
    const param = w.parts[0]!;
    if (param.type !== 'param') throw new Error('not a param');
    expect([param.name, param.op, param.arg?.raw]).to.deep.equal(['A', ':-', '"d e"']);
    const sub = w.parts[1]!;
    if (sub.type !== 'cmdsub') throw new Error('not a cmdsub');
    expect(sub.body.items[0]!.andOr.first.commands).to.have.length(2);
  });

  it('parses if, while, for, case, groups, subshells and functions', () => {
    const list = parseScript(
      'if a; then b; elif c; then d; else e; fi\nwhile getprop x 2>/dev/null; do sleep 1; done\nfor i in 1 2; do echo $i; done\ncase $x in a|b) y;; *) z;; esac\n{ a; b; } >f\n(cd /; ls)\nf() { echo; }',
    );
    expect(list.items.map((i) => i.andOr.first.commands[0]!.type)).to.deep.equal(['if', 'while', 'for', 'case', 'group', 'subshell', 'funcdef']);
    const loop = list.items[1]!.andOr.first.commands[0]!;
    if (loop.type !== 'while') throw new Error('not a while');
    const cond = loop.cond.items[0]!.andOr.first.commands[0] as SimpleCommand;
    expect(cond.redirs.map((r) => [r.fd, r.target.raw])).to.deep.equal([[2, '/dev/null']]);
    const group = list.items[4]!.andOr.first.commands[0]!;
    expect(group.type === 'group' && group.redirs.length).to.equal(1);
  });

  it('treats reserved words as plain words outside command position', () => {
    expect(simple(parseScript('echo if then fi done')).words.map(raw)).to.deep.equal(['echo', 'if', 'then', 'fi', 'done']);
  });

  it('reads here-documents after the line', () => {
    const cmd = simple(parseScript('cat <<EOF\nhello $X\nEOF\n'));
    expect(cmd.redirs[0]!.heredoc?.literal).to.equal(false);
    expect(cmd.redirs[0]!.heredoc?.body.raw).to.equal('hello $X\n');
  });

  it('parses one line at a time', () => {
    const p = new Parser('echo a\nfi\n');
    expect(p.parseLine()?.items).to.have.length(1);
    expect(() => p.parseLine()).to.throw(ShellSyntaxError, "syntax error: unexpected 'fi'");
  });

  it('reports mksh syntax errors', () => {
    expect(syntaxError('fi')).to.equal("syntax error: unexpected 'fi'");
    expect(syntaxError('echo a; then')).to.equal("syntax error: unexpected 'then'");
    expect(syntaxError('; ls')).to.equal("syntax error: unexpected ';'");
    expect(syntaxError('ls |')).to.equal('syntax error: unexpected EOF');
    expect(syntaxError('while true; do echo')).to.equal("syntax error: unmatched 'while'");
    expect(syntaxError('for x in a b')).to.equal("syntax error: unmatched 'for'");
    expect(syntaxError('( echo')).to.equal("syntax error: unmatched '('");
    expect(syntaxError('echo )')).to.equal("syntax error: unexpected ')'");
    expect(syntaxError('echo "abc')).to.equal('no closing quote');
    expect(syntaxError('echo $(ls')).to.equal('no closing quote');
    expect(syntaxError('cat <<EOF\nno end')).to.equal("here document 'EOF' unclosed");
    expect(syntaxError('if true\nthen\n')).to.equal("syntax error: unmatched 'if'");
    expect(syntaxError('a && && b')).to.equal("syntax error: unexpected '&&'");
    expect(syntaxError('echo >')).to.equal('syntax error: unexpected EOF');
  });
});
