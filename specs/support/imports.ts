/**
 * The imports of the project's TypeScript modules as the compiler emits them
 * (verbatimModuleSyntax): what the house specs read to check cycles and folder rules.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

export type ImportKind = 'runtime' | 'type' | 'dynamic';

export interface ModuleImport {
  specifier: string;
  kind: ImportKind;
  line: number;
}

/** Every import and re-export of one module with a string specifier, in source order. */
export function importsOf(fileName: string, text: string): ModuleImport[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: ModuleImport[] = [];
  const add = (specifier: ts.Node, kind: ImportKind): void => {
    if (!ts.isStringLiteralLike(specifier)) return;
    found.push({ specifier: specifier.text, kind, line: source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly === true ? 'type' : 'runtime');
    } else if (ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier) add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'runtime');
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, node.isTypeOnly ? 'type' : 'runtime');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first) add(first, 'dynamic');
    } else if (ts.isImportTypeNode(node)) {
      add(ts.isLiteralTypeNode(node.argument) ? node.argument.literal : node.argument, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The .ts file a relative specifier names, as NodeNext resolves it; undefined for packages and non-TS files. */
export function resolveImport(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

export function tsFilesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...tsFilesUnder(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

