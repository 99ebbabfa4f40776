/** The syntax tree of Android's sh (mksh) as far as the virtual device models it. */

export type WordPart =
  /** Unquoted literal text (subject to pathname expansion, not to field splitting). */
  | { readonly type: 'lit'; readonly value: string }
  /** Single-quoted or backslash-escaped text: taken literally. */
  | { readonly type: 'sq'; readonly value: string }
  /** A double-quoted group: no splitting, no globbing; parts inside are quoted. */
  | { readonly type: 'dq'; readonly parts: readonly WordPart[] }
  /** `$name`, `${name}`, `${name:-word}`, `${#name}`, ... */
  | { readonly type: 'param'; readonly name: string; readonly op: ParamOp | undefined; readonly arg: Word | undefined; readonly raw: string }
  /** `$(list)` or `` `list` `` */
  | { readonly type: 'cmdsub'; readonly body: ListNode }
  /** `$((expr))` */
  | { readonly type: 'arith'; readonly expr: Word };

export type ParamOp = '-' | ':-' | '=' | ':=' | '+' | ':+' | '?' | ':?' | '#' | '##' | '%' | '%%' | 'length';

export interface Word {
  readonly parts: readonly WordPart[];
  /** The source text of the word (for messages). */
  readonly raw: string;
}

export type RedirOp = '<' | '>' | '>>' | '>|' | '<>' | '>&' | '<&' | '&>' | '<<' | '<<-';

export interface Redir {
  /** Explicit fd number (`2>`), or undefined for the operator's default. */
  readonly fd: number | undefined;
  readonly op: RedirOp;
  readonly target: Word;
  /** Here-document body (filled when the line ends); `literal` when the delimiter was quoted. */
  heredoc?: { body: Word; literal: boolean };
  readonly raw: string;
}

export interface Assignment {
  readonly name: string;
  readonly value: Word;
}

export interface SimpleCommand {
  readonly type: 'simple';
  readonly assigns: readonly Assignment[];
  readonly words: readonly Word[];
  readonly redirs: readonly Redir[];
}

export interface IfClause {
  readonly cond: ListNode;
  readonly body: ListNode;
}

export interface CaseItem {
  readonly patterns: readonly Word[];
  readonly body: ListNode | undefined;
}

export type CompoundCommand =
  | { readonly type: 'group'; readonly body: ListNode; readonly redirs: readonly Redir[] }
  | { readonly type: 'subshell'; readonly body: ListNode; readonly redirs: readonly Redir[] }
  | { readonly type: 'if'; readonly clauses: readonly IfClause[]; readonly elseBody: ListNode | undefined; readonly redirs: readonly Redir[] }
  | { readonly type: 'while'; readonly until: boolean; readonly cond: ListNode; readonly body: ListNode; readonly redirs: readonly Redir[] }
  | { readonly type: 'for'; readonly name: string; readonly items: readonly Word[] | undefined; readonly body: ListNode; readonly redirs: readonly Redir[] }
  | { readonly type: 'case'; readonly word: Word; readonly items: readonly CaseItem[]; readonly redirs: readonly Redir[] }
  | { readonly type: 'funcdef'; readonly name: string; readonly body: CommandNode; readonly redirs: readonly Redir[] };

export type CommandNode = SimpleCommand | CompoundCommand;

export interface Pipeline {
  readonly negate: boolean;
  readonly commands: readonly CommandNode[];
}

export interface AndOr {
  readonly first: Pipeline;
  readonly rest: readonly { readonly op: '&&' | '||'; readonly pipeline: Pipeline }[];
}

export interface ListItem {
  readonly andOr: AndOr;
  readonly background: boolean;
}

export interface ListNode {
  readonly items: readonly ListItem[];
}
