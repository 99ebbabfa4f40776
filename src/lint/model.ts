/**
 * The parsed project every rule works on, and the shapes of lint results.
 */
import type { ConstantResolver, ValueDecl } from './constants.js';
import type { ClassDecl, Declarations, FunctionDecl } from './declarations.js';
import type { RoomSchema } from './room-schema.js';
import type { SqlDelightFile, SqlDelightQuery } from './sqldelight.js';
import type { SourceUnit } from './syntax.js';
import type { Comment } from './tokenizer.js';

export const RuleId = {
  WindowVsInterval: 'window-vs-interval',
  DateDefaultsToNow: 'date-defaults-to-now',
  DedupOnTitle: 'dedup-on-title',
  NewestFirst: 'newest-first',
  NewKeyPerAttempt: 'new-key-per-attempt',
  RetryOnAuthFailure: 'retry-on-auth-failure',
  ChannelOnlyInActivity: 'channel-only-in-activity',
  MemoryOnlyDedup: 'memory-only-dedup',
  PeriodicWithoutUniqueName: 'periodic-without-unique-name',
  KeyNotUnique: 'key-not-unique',
  MigrationBackfill: 'migration-backfill',
} as const;
export type RuleId = (typeof RuleId)[keyof typeof RuleId];

export interface Related {
  readonly file: string;
  readonly line: number;
  readonly what: string;
}

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly rule: RuleId;
  readonly message: string;
  readonly related?: readonly Related[];
}

/** A place where a rule could not decide (a value it could not evaluate): never a finding. */
export interface UnresolvedNote {
  readonly file: string;
  readonly line: number;
  readonly rule: RuleId;
  readonly message: string;
}

/** What the linter could not check and why (no WorkManager schedule found, and what was found instead). */
export interface LintNote {
  readonly file?: string;
  readonly line?: number;
  readonly message: string;
}

export interface LintResult {
  readonly findings: readonly Finding[];
  readonly filesScanned: number;
  readonly unresolved: readonly UnresolvedNote[];
  readonly notes: readonly LintNote[];
}

/** A file given to the linter: its display path and its text. */
export interface SourceText {
  readonly path: string;
  readonly text: string;
}

export interface ParsedFile extends SourceUnit {
  readonly decls: Declarations;
  readonly comments: readonly Comment[];
}

/** A function together with the file it is declared in. */
export interface FunctionRef {
  readonly file: ParsedFile;
  readonly fn: FunctionDecl;
}

/** A class together with the file it is declared in. */
export interface ClassRef {
  readonly file: ParsedFile;
  readonly cls: ClassDecl;
}

export interface Project {
  readonly files: readonly ParsedFile[];
  /** Room schema JSON, and the SQLDelight tables in the same shape. */
  readonly schemas: readonly RoomSchema[];
  /** SQLDelight `.sq` and `.sqm` files. */
  readonly sqlFiles: readonly SqlDelightFile[];
  /** The labelled queries of the `.sq` files. */
  readonly sqlQueries: readonly SqlDelightQuery[];
  /** Every function in the project by simple name. */
  readonly functionsByName: ReadonlyMap<string, readonly FunctionRef[]>;
  /** Every named class, object and interface by simple name. */
  readonly classesByName: ReadonlyMap<string, readonly ClassRef[]>;
  /** Every value declaration (constants, fields, locals) and their evaluator. */
  readonly values: readonly ValueDecl[];
  readonly resolver: ConstantResolver;
}

/** What a rule returns. */
export interface RuleOutput {
  readonly findings: Finding[];
  readonly unresolved: UnresolvedNote[];
}
