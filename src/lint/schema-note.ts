/**
 * `key-not-unique` and `migration-backfill` read the database's schema: Room's exported schema
 * JSON (`room.schemaLocation`) or SQLDelight `.sq`/`.sqm` files. When the sources declare a
 * database and no schema of either kind was given, the result says that those rules did not run
 * instead of a silent "no findings".
 */
import type { LintNote, Project } from './model.js';
import { RuleId } from './model.js';
import type { Token } from './tokenizer.js';

/** Where the sources declare a database: a Room `@Database` or `@Entity` class, or an import of the SQLDelight runtime. */
function databaseDeclaration(project: Project): { file: string; line: number; what: string } | undefined {
  for (const file of project.files) {
    for (const cls of file.decls.classes) {
      for (let k = cls.index - 1; k >= Math.max(0, cls.index - 40); k--) {
        const t = file.tokens[k] as Token;
        if (t.text === '}' || t.text === ';') break;
        if (t.text === '@' && /^(Database|Entity)$/.test((file.tokens[k + 1])?.text ?? '')) {
          return { file: file.path, line: t.line, what: `Room @${(file.tokens[k + 1] as Token).text} ${cls.name}` };
        }
      }
    }
  }
  for (const file of project.files) {
    if (file.decls.imports.some((i) => /^(app\.cash|com\.squareup)\.sqldelight\./.test(i))) return { file: file.path, line: 1, what: 'SQLDelight' };
  }
  return undefined;
}

export function schemaNotes(project: Project): LintNote[] {
  if (project.schemas.length > 0) return [];
  const db = databaseDeclaration(project);
  if (!db) return [];
  return [{
    file: db.file,
    line: db.line,
    message:
      `the sources use a database (${db.what}) but no schema was found (Room's exported schema JSON, schemas/<database class>/<version>.json, or SQLDelight .sq/.sqm files): ` +
      `${RuleId.KeyNotUnique} and ${RuleId.MigrationBackfill} did not run; pass the schema directory too (dedup-verify lint app/src/main app/schemas), and set room.schemaLocation if Room exports none`,
  }];
}
