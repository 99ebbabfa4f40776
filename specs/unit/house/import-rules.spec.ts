/**
 * The folder rules of docs/design.md "Where things are", checked against the code: every import
 * a module of `src/<folder>/` makes into another part of `src/` is one the table's "may import"
 * cell allows. The table is the rule; this spec reads it, so the map a reviewer reads and the
 * code cannot drift apart.
 *
 * How a cell reads: `name` is a folder of src/ (or `name.ts` a file at the top of src/);
 * "(types)" after it allows type-only imports; "(types, and `file.ts` …)" also allows that file
 * at run time; any other parenthesis naming `file.ts` files allows only those files; any other
 * parenthesis is a comment. "everything below" allows every folder, "nothing outside" none.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf, resolveImport, tsFilesUnder } from '../../support/imports.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');

interface Allowance {
  /** Only type-only imports, except `runtimeFiles`. */
  readonly typesOnly: boolean;
  /** Files of the target allowed even at run time when `typesOnly`. */
  readonly runtimeFiles: readonly string[];
  /** When set, the only files of the target that may be imported. */
  readonly onlyFiles: readonly string[] | null;
}

interface FolderRule {
  readonly everything: boolean;
  readonly allows: ReadonlyMap<string, Allowance>;
}

/** Splits at commas outside parentheses. */
function topLevelParts(cell: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of cell) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

export function parseMayImport(cell: string): FolderRule {
  const text = cell.trim();
  if (text.startsWith('everything below')) return { everything: true, allows: new Map() };
  if (text.startsWith('nothing outside')) return { everything: false, allows: new Map() };
  const allows = new Map<string, Allowance>();
  for (const part of topLevelParts(text)) {
    const match = /^`([^`]+)`\s*(?:\((.*)\))?$/.exec(part);
    if (match === null) throw new Error(`cannot read "${part}" in a may-import cell`);
    const [, name = '', note = ''] = match;
    const files = [...note.matchAll(/`([\w.-]+\.ts)`/g)].map((m) => m[1] ?? '');
    const typesOnly = /^types\b/.test(note);
    allows.set(name, { typesOnly, runtimeFiles: typesOnly ? files : [], onlyFiles: !typesOnly && files.length > 0 ? files : null });
  }
  return { everything: false, allows };
}

/** The table: folder (`cli`, `harness`, …) → its rule. */
function readTable(): Map<string, FolderRule> {
  const design = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');
  const section = design.split('## Where things are')[1]?.split('\n## ')[0] ?? '';
  const rules = new Map<string, FolderRule>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const folder = /^`src\/([\w-]+)\/`$/.exec(cells[1] ?? '')?.[1];
    if (folder === undefined) continue;
    rules.set(folder, parseMayImport(cells[3] ?? ''));
  }
  return rules;
}

interface Violation {
  readonly from: string;
  readonly line: number;
  readonly to: string;
  readonly why: string;
}

/** Where a src/ path belongs: its folder, or the file itself at the top of src/. */
function partOf(srcRelative: string): { part: string; file: string } {
  const segments = srcRelative.split('/');
  return segments.length === 1 ? { part: segments[0] ?? '', file: segments[0] ?? '' } : { part: segments[0] ?? '', file: segments.at(-1) ?? '' };
}

export function judge(rule: FolderRule, to: string, kind: 'runtime' | 'type' | 'dynamic'): string | null {
  if (rule.everything) return null;
  const { part, file } = partOf(to);
  const allowance = rule.allows.get(part);
  if (allowance === undefined) return `${part} is not in its may-import list`;
  if (allowance.onlyFiles !== null && !allowance.onlyFiles.includes(file)) return `only ${allowance.onlyFiles.join(', ')} of ${part} may be imported`;
  if (allowance.typesOnly && kind !== 'type' && !allowance.runtimeFiles.includes(file)) return `${part} may be imported for types only (import type)`;
  return null;
}

function violations(rules: ReadonlyMap<string, FolderRule>): Violation[] {
  const found: Violation[] = [];
  for (const file of tsFilesUnder(SRC)) {
    const from = relative(SRC, file).split(sep).join('/');
    const { part: folder } = partOf(from);
    if (!from.includes('/')) continue; // the files at the top of src/ (index.ts, errors.ts, …) are not folders
    const rule = rules.get(folder);
    if (rule === undefined) {
      found.push({ from, line: 0, to: '', why: `src/${folder}/ has no row in "Where things are"` });
      continue;
    }
    for (const imp of importsOf(file, readFileSync(file, 'utf8'))) {
      const target = resolveImport(file, imp.specifier);
      if (target === undefined || !target.startsWith(SRC + sep)) continue;
      const to = relative(SRC, target).split(sep).join('/');
      if (partOf(to).part === folder && to.includes('/')) continue;
      const why = judge(rule, to, imp.kind);
      if (why !== null) found.push({ from, line: imp.line, to, why });
    }
  }
  return found;
}

describe('folder import rules (docs/design.md "Where things are")', () => {
  it('reads the table: a row per folder of src/', () => {
    const rules = readTable();
    const folders = tsFilesUnder(SRC)
      .map((f) => relative(SRC, f).split(sep))
      .filter((p) => p.length > 1)
      .map((p) => p[0] ?? '');
    expect([...rules.keys()].sort()).to.deep.equal([...new Set(folders)].sort());
  });

  it('reads a cell as the rule it states', () => {
    const rule = parseMayImport("`android`, `config` (types), `device` (types, and `recording-device.ts`, which records), `report` (`repro.ts`), `errors.ts`, `checker` (property names)");
    expect(judge(rule, 'android/clock.ts', 'runtime')).to.equal(null);
    expect(judge(rule, 'config/types.ts', 'type')).to.equal(null);
    expect(judge(rule, 'config/load-config.ts', 'runtime')).to.match(/types only/);
    expect(judge(rule, 'device/recording-device.ts', 'runtime')).to.equal(null);
    expect(judge(rule, 'device/adb-device.ts', 'runtime')).to.match(/types only/);
    expect(judge(rule, 'report/repro.ts', 'runtime')).to.equal(null);
    expect(judge(rule, 'report/json.ts', 'runtime')).to.match(/only repro\.ts/);
    expect(judge(rule, 'errors.ts', 'runtime')).to.equal(null);
    expect(judge(rule, 'checker/kinds.ts', 'runtime')).to.equal(null);
    expect(judge(rule, 'virtual-device/device.ts', 'dynamic')).to.match(/not in its may-import list/);
    expect(judge(parseMayImport('nothing outside `src/virtual-device/`'), 'errors.ts', 'type')).to.match(/not in/);
    expect(judge(parseMayImport('everything below'), 'virtual-device/server.ts', 'runtime')).to.equal(null);
  });

  it('every import from one folder of src/ into another is one its row allows', () => {
    const found = violations(readTable());
    expect(found.map((v) => `src/${v.from}:${v.line} → src/${v.to}: ${v.why}`)).to.deep.equal([]);
  });
});
