/**
 * Rule `new-key-per-attempt`: a fresh random id inside `doWork()` is used as the idempotency
 * key of a network call and never persisted.
 *
 * docs/sources/001: "Generate operationId once and persist it with the pending operation. Reuse it on
 * retry … A new UUID inside every doWork() defeats idempotency." Scope: `doWork()` /
 * `startWork()` / `createWork()` of Worker classes and the same-class functions they call.
 * A `UUID.randomUUID()` (or kotlin.uuid `Uuid.random()`) is flagged when its value reaches an
 * idempotency key — a call with an "Idempotency-Key" header argument, a parameter annotated
 * `@Header("Idempotency-Key")` (Retrofit) or named like `idempotencyKey`/`operationId`, or a
 * variable so named — and no persistence call (`insert…`, `save…`, `put…`, `store…`, …) takes
 * it (directly, or through an entity built from it) before the attempt ends.
 */
import type { FunctionDecl } from '../declarations.js';
import type { FunctionRef, ParsedFile, Project, Related, RuleOutput } from '../model.js';
import { RuleId } from '../model.js';
import { functionsOf, reachableFunctions, workerClasses } from '../project.js';
import type { Range } from '../syntax.js';
import { callOpenParen, rangeText, splitArgs, statementAround, within } from '../syntax.js';
import type { Token } from '../tokenizer.js';
import { TokenKind, isIdent, isOp } from '../tokenizer.js';

const RULE = RuleId.NewKeyPerAttempt;
const WORK_ENTRY = new Set(['doWork', 'startWork', 'createWork']);
const KEY_PARAM = /idempot|operation_?id|^op_?id$|request_?id|dedup_?id/i;
const PERSIST_CALL = /^(insert\w*|upsert\w*|save\w*|persist\w*|store\w*|record\w*|put\w*|update\w*|write\w*|enqueue\w*|add(Pending|Operation|Receipt|Outbox)\w*|commit|apply)$/;

function isRandomIdAt(file: ParsedFile, k: number): number {
  const t = file.tokens;
  if (isIdent(t[k], 'UUID') && isOp(t[k + 1], '.') && isIdent(t[k + 2], 'randomUUID') && isOp(t[k + 3], '(')) return k + 2;
  if (isIdent(t[k], 'Uuid') && isOp(t[k + 1], '.') && isIdent(t[k + 2], 'random') && isOp(t[k + 3], '(')) return k + 2;
  return -1;
}

interface CallContext {
  readonly callee: number;
  readonly open: number;
}

/** The calls whose argument lists enclose token `k`, innermost first, up to `limit`. */
function enclosingCalls(file: ParsedFile, k: number, limit: number): CallContext[] {
  const out: CallContext[] = [];
  for (let i = k - 1; i >= limit; i--) {
    const t = file.tokens[i] as Token;
    if (t.kind !== TokenKind.Operator) continue;
    if (t.text === ')' || t.text === ']' || t.text === '}') {
      const o = file.match[i] ?? -1;
      if (o >= 0 && o < i) i = o;
      continue;
    }
    if (t.text === '(' && (file.match[i] ?? -1) > k) {
      let callee = i - 1;
      if (isOp(file.tokens[callee], '>')) {
        // explicit type arguments
        while (callee > limit && !isOp(file.tokens[callee], '<')) callee--;
        callee--;
      }
      if (isIdent(file.tokens[callee])) out.push({ callee, open: i });
    }
  }
  return out;
}

function findMethodParams(project: Project, name: string): FunctionDecl[] {
  return (project.functionsByName.get(name) ?? []).map((r) => r.fn);
}

/** Why the value at token `k` is used as an idempotency key there, or undefined. */
function keyUseAt(project: Project, file: ParsedFile, k: number, limit: number): string | undefined {
  for (const c of enclosingCalls(file, k, limit)) {
    const args = splitArgs(file, c.open);
    const idx = args.findIndex((a) => k >= a.start && k <= a.end);
    if (idx < 0) continue;
    const arg = args[idx];
    const calleeName = (file.tokens[c.callee] as Token).value;
    const headerArg = args.some((a) => {
      for (let m = a.start; m <= a.end; m++) {
        const x = file.tokens[m] as Token;
        if (x.kind === TokenKind.String && /idempotency/i.test(x.value)) return true;
      }
      return false;
    });
    if (headerArg) return `the Idempotency-Key header of \`${calleeName}(…)\``;
    if (arg?.name !== undefined && KEY_PARAM.test(arg.name)) return `the \`${arg.name}\` argument of \`${calleeName}(…)\``;
    for (const fn of findMethodParams(project, calleeName)) {
      const p = arg?.name !== undefined ? fn.params.find((x) => x.name === arg.name) : fn.params[idx];
      if (!p) continue;
      if (p.annotations.some((a) => a.name === 'Header' && a.strings.some((s) => /idempotency/i.test(s)))) {
        return `the @Header("${p.annotations.find((a) => a.name === 'Header')?.strings[0] ?? 'Idempotency-Key'}") parameter \`${p.name}\` of \`${calleeName}(…)\``;
      }
      if (KEY_PARAM.test(p.name)) return `the \`${p.name}\` parameter of \`${calleeName}(…)\``;
    }
  }
  return undefined;
}

/** True when token `k` is an argument of a persistence call (and not a header call). */
function persistedAt(file: ParsedFile, k: number, limit: number): boolean {
  for (const c of enclosingCalls(file, k, limit)) {
    const name = (file.tokens[c.callee] as Token).value;
    if (!PERSIST_CALL.test(name)) continue;
    const args = splitArgs(file, c.open);
    const header = args.some((a) => {
      for (let m = a.start; m <= a.end; m++) if (/idempotency/i.test((file.tokens[m] as Token).value) && file.tokens[m]?.kind === TokenKind.String) return true;
      return false;
    });
    if (!header) return true;
  }
  return false;
}

function statementPersists(file: ParsedFile, stmt: Range): boolean {
  for (let m = stmt.start; m <= stmt.end; m++) {
    const t = file.tokens[m] as Token;
    if (t.kind === TokenKind.Identifier && PERSIST_CALL.test(t.value) && callOpenParen(file, m) >= 0) {
      const args = splitArgs(file, callOpenParen(file, m));
      const header = args.some((a) => {
        for (let x = a.start; x <= a.end; x++) if (file.tokens[x]?.kind === TokenKind.String && /idempotency/i.test((file.tokens[x] as Token).value)) return true;
        return false;
      });
      if (!header) return true;
    }
  }
  return false;
}

/** The variable a statement declares or assigns, when token `k` is in its value. */
function boundName(project: Project, file: ParsedFile, stmt: Range, k: number): string | undefined {
  const d = project.values.find((v) => v.file === file && v.nameIndex >= stmt.start && v.nameIndex <= stmt.end && within(k, v.init));
  if (d) return d.name;
  if (isIdent(file.tokens[stmt.start]) && isOp(file.tokens[stmt.start + 1], '=')) return (file.tokens[stmt.start] as Token).value;
  return undefined;
}

/** Uses of a local after its statement, within the function body. */
function usesOf(file: ParsedFile, name: string, from: number, body: Range): number[] {
  const out: number[] = [];
  for (let m = from; m <= body.end; m++) {
    const t = file.tokens[m] as Token;
    if (t.kind === TokenKind.Identifier && t.value === name && !isOp(file.tokens[m - 1], '.')) out.push(m);
    if (t.templates) {
      // `"$key"` inside a string template still carries the value
      for (const tpl of t.templates) if (tpl.some((x) => x.kind === TokenKind.Identifier && x.value === name)) out.push(m);
    }
  }
  return out;
}

function checkRandomId(project: Project, ref: FunctionRef, k: number): { keyUse: string; at: number } | undefined {
  const { file, fn } = ref;
  const body = fn.body as Range;
  const stmt = statementAround(file, k);
  if (statementPersists(file, stmt)) return undefined;
  let keyUse = keyUseAt(project, file, k, body.start);
  let keyAt = k;
  const name = boundName(project, file, stmt, k);
  if (name !== undefined) {
    const uses = usesOf(file, name, stmt.end + 1, body);
    // entities built from it: `val pending = PendingOp(id = key, …)`
    const aliases: string[] = [];
    for (const u of uses) {
      if (persistedAt(file, u, body.start)) return undefined;
      const s = statementAround(file, u);
      if (statementPersists(file, s)) return undefined;
      const alias = boundName(project, file, s, u);
      if (alias !== undefined && alias !== name) aliases.push(alias);
      if (keyUse === undefined) {
        const use = keyUseAt(project, file, u, body.start);
        if (use !== undefined) {
          keyUse = use;
          keyAt = u;
        }
      }
    }
    for (const a of aliases) {
      for (const u of usesOf(file, a, stmt.end + 1, body)) {
        if (persistedAt(file, u, body.start) || statementPersists(file, statementAround(file, u))) return undefined;
      }
    }
    if (keyUse === undefined && KEY_PARAM.test(name)) keyUse = `\`${name}\``;
  }
  return keyUse === undefined ? undefined : { keyUse, at: keyAt };
}

export function checkNewKeyPerAttempt(project: Project): RuleOutput {
  const findings: RuleOutput['findings'] = [];
  const seen = new Set<string>();
  for (const w of workerClasses(project)) {
    const entries = functionsOf(project, w.file, w.cls).filter((r) => WORK_ENTRY.has(r.fn.name));
    for (const ref of reachableFunctions(project, entries, true)) {
      const body = ref.fn.body;
      if (!body) continue;
      for (let k = body.start; k <= body.end; k++) {
        const end = isRandomIdAt(ref.file, k);
        if (end < 0) continue;
        const t = ref.file.tokens[k] as Token;
        const key = `${ref.file.path}:${k}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const hit = checkRandomId(project, ref, k);
        if (!hit) continue;
        const at = ref.file.tokens[hit.at] as Token;
        const related: Related[] = hit.at !== k ? [{ file: ref.file.path, line: at.line, what: `used as ${hit.keyUse}` }] : [];
        findings.push({
          file: ref.file.path,
          line: t.line,
          column: t.column,
          rule: RULE,
          message:
            `\`${rangeText(ref.file, { start: k, end: end + 2 })}\` in ${ref.fn.name}()${WORK_ENTRY.has(ref.fn.name) ? '' : ' (run from doWork())'} makes a new key on every attempt and is used as ${hit.keyUse} without being persisted: ` +
            'a retry after a timeout sends a different key and the server applies the effect twice; create the operation id once, store it with the pending operation, reuse it on retry',
          ...(related.length > 0 ? { related } : {}),
        });
      }
    }
  }
  return { findings, unresolved: [] };
}
