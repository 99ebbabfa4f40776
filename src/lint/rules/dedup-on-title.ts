/**
 * Rule `dedup-on-title`: the dedup identity is display text.
 *
 * docs/sources/000: "Key the dedup on a stable identifier, not on display text … A title is what you
 * show, and a title can be edited upstream between two runs." Flagged:
 * - an existence check whose argument is a title (`isNotificationExists(item.title)`,
 *   `seen.contains(item.title)`, `item.title in seen`);
 * - a key built from a title (`val key = item.title`, `link = item.title` in an entity,
 *   `val notificationId = item.title.hashCode()`), also a composite that includes it;
 * - a notification id or tag built from a title (`notify(item.title.hashCode(), n)`);
 * - a Room `@Query` that looks rows up by a title column (`WHERE title = :title`).
 */
import type { Annotation } from '../declarations.js';
import type { ParsedFile, Project, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { callsIn, isNotifyCall } from '../project.js';
import type { Range } from '../syntax.js';
import { callOpenParen, chainStart, leftOperand, rangeText, splitArgs, statementEnd, tokensIn } from '../syntax.js';
import { isKeyword, splitStatements, tokenizeSql, whereColumns } from '../sql.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.DedupOnTitle;
const TITLE_NAMES = new Set(['title', 'displayName', 'displayTitle', 'headline', 'subject', 'label', 'text', 'getTitle', 'getDisplayName', 'getHeadline', 'getSubject', 'getText', 'contentTitle']);
const TITLE_COLUMNS = /^(title|display_?name|display_?title|headline|subject|label|text|content_?title)$/i;
const EXIST_CALL = /^(is\w*Exists?|exists?\w*|\w+Exists?|contains|containsKey|has(Notified|Seen|Key|Item|Entry|Notification)\w*|isNotified|wasNotified|alreadyNotified|isAlreadyNotified|isSeen|wasSeen|alreadySeen|isKnown|isDuplicate|findBy\w*|countBy\w*)$/;
const KEY_NAME = /^(key|\w*Key|link|url|guid|uniqueId|dedupId|notificationId|notificationTag|tag)$/;

/** True when token `i` reads a title-like value (`item.title`, `getTitle()`, a `title` local). */
function isTitleAt(file: ParsedFile, i: number): boolean {
  const t = file.tokens[i] as Token;
  if (t.kind !== TokenKind.Identifier || !TITLE_NAMES.has(t.value)) return false;
  const next = file.tokens[i + 1];
  if (isOp(next, '=') || isOp(next, ':')) return false; // a named argument, parameter or assignment target
  const prev = file.tokens[i - 1];
  if (isIdent(prev, 'string') && isOp(file.tokens[i - 2], '.')) return false; // R.string.title
  if (t.value === 'text' && !(isOp(prev, '.') || isOp(prev, '?.'))) return false; // a bare `text` is too vague
  return true;
}

/** True when token `i` is the value of a named argument whose name is not a key (`title = item.title`). */
function inNonKeyNamedArg(file: ParsedFile, i: number, range: Range): boolean {
  for (let k = i - 1; k >= range.start; k--) {
    const t = file.tokens[k] as Token;
    if (isOp(t, ')') || isOp(t, ']') || isOp(t, '}')) {
      k = Math.min(k, file.match[k] ?? k);
      continue;
    }
    if (isOp(t, '(') || isOp(t, ',')) {
      const name = file.tokens[k + 1];
      return isIdent(name) && isOp(file.tokens[k + 2], '=') && k + 3 <= i && !KEY_NAME.test((name as Token).value);
    }
  }
  return false;
}

function titleIn(file: ParsedFile, range: Range, skipNonKeyArgs = false): Token | undefined {
  for (let i = range.start; i <= range.end; i++) {
    if (isTitleAt(file, i) && !(skipNonKeyArgs && inNonKeyNamedArg(file, i, range))) return file.tokens[i];
    const t = file.tokens[i] as Token;
    if (t.templates) {
      for (const tpl of t.templates) {
        const hit = tpl.find((x, k) => x.kind === TokenKind.Identifier && TITLE_NAMES.has(x.value) && (x.value !== 'text' || isOp(tpl[k - 1], '.')));
        if (hit) return hit;
      }
    }
  }
  return undefined;
}

function queryTitleColumn(ann: Annotation): string | undefined {
  if (ann.name !== 'Query') return undefined;
  for (const sql of ann.strings) {
    for (const stmt of splitStatements(tokenizeSql(sql))) {
      if (!isKeyword(stmt[0], 'SELECT')) continue;
      const col = whereColumns(stmt).find((c) => TITLE_COLUMNS.test(c.column));
      if (col) return col.column;
    }
  }
  return undefined;
}

export function checkDedupOnTitle(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const add = (file: ParsedFile, at: Token, message: string): void => {
    findings.push({ file: file.path, line: at.line, column: at.column, rule: RULE, message });
  };
  const why = 'a title edited upstream makes the same item look new and notify again; key on the link (or another stable id)';
  for (const file of project.files) {
    // existence checks with a title argument
    for (const i of callsIn(file, EXIST_CALL)) {
      const open = callOpenParen(file, i);
      if (open < 0) continue;
      for (const a of splitArgs(file, open)) {
        const hit = titleIn(file, a);
        if (hit) {
          const start = chainStart(file, i);
          add(file, file.tokens[start] as Token, `dedup check \`${rangeText(file, { start, end: file.match[open] ?? open }, 60)}\` is keyed on the title: ${why}`);
          break;
        }
      }
    }
    // `item.title in seen`
    for (let i = 0; i < file.tokens.length; i++) {
      if (!isIdent(file.tokens[i], 'in')) continue;
      const left = leftOperand(file, isOp(file.tokens[i - 1], '!') ? i - 1 : i);
      if (left.end < left.start) continue;
      if (isOp(file.tokens[left.start - 1], '(') && isIdent(file.tokens[left.start - 2], 'for')) continue;
      const hit = titleIn(file, left);
      if (hit) {
        const right = statementEnd(file, i + 1);
        add(file, file.tokens[left.start] as Token, `dedup check \`${rangeText(file, { start: left.start, end: Math.min(right, i + 3) })}\` is keyed on the title: ${why}`);
      }
    }
    // notification id or tag from the title
    for (const i of callsIn(file, 'notify')) {
      if (!isNotifyCall(file, i)) continue;
      const args = splitArgs(file, callOpenParen(file, i));
      for (const a of args.slice(0, args.length - 1)) {
        const hit = titleIn(file, a);
        if (hit) {
          add(file, file.tokens[i] as Token, `notification id/tag \`${rangeText(file, a)}\` is built from the title: ${why}`);
          break;
        }
      }
    }
    // named arguments `link = item.title` and field assignments `entity.key = item.title`
    for (let i = 0; i < file.tokens.length; i++) {
      const t = file.tokens[i] as Token;
      if (t.kind !== TokenKind.Identifier || !KEY_NAME.test(t.value) || !isOp(file.tokens[i + 1], '=')) continue;
      const prev = file.tokens[i - 1];
      const namedArg = file.language === 'kotlin' && (isOp(prev, '(') || isOp(prev, ','));
      const fieldAssign = isOp(prev, '.');
      if (!namedArg && !fieldAssign) continue;
      const value = { start: i + 2, end: statementEnd(file, i + 2, namedArg) };
      const hit = titleIn(file, value);
      if (hit) add(file, t, `dedup key \`${t.value}\` is built from the title (\`${rangeText(file, value, 50)}\`): ${why}`);
    }
    // Room DAO lookups by title
    for (const fn of file.decls.functions) {
      for (const ann of fn.annotations) {
        const col = queryTitleColumn(ann);
        if (col) {
          add(file, file.tokens[ann.index] as Token, `DAO query \`${fn.name}\` looks rows up by the \`${col}\` column: ${why}`);
        }
      }
    }
  }
  // key declarations `val key = item.title`
  for (const d of project.values) {
    if (!KEY_NAME.test(d.name)) continue;
    const hit = titleIn(d.file, d.init, true);
    if (!hit) continue;
    // a boolean or a log line is not a key
    if (tokensIn(d.file, d.init).some((x) => isOp(x, '==') || isOp(x, '!=') || isIdent(x, /^is[A-Z]/))) continue;
    add(d.file, d.file.tokens[d.nameIndex] as Token, `dedup key \`${d.name}\` is built from the title (\`${rangeText(d.file, d.init, 50)}\`): ${why}`);
  }
  return { findings, unresolved: [] };
}
