/**
 * Validation of names that go into device commands (docs/design.md §8). Values are also quoted
 * (shell-quote.ts); validating first gives a clear error naming the bad value instead of a
 * confusing device-side failure.
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';

/** Java package names as PackageManager accepts them: dot-separated Java identifiers. */
const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;
/** `pkg/.Cls` or `pkg/full.Cls` (ComponentName.unflattenFromString forms). */
const COMPONENT = /^[A-Za-z][A-Za-z0-9_.]*\/[A-Za-z0-9_.$]+$/;

export function assertPackageName(pkg: string): string {
  if (!PACKAGE_NAME.test(pkg)) {
    throw new DedupVerifyError(
      ErrorCode.Config,
      `"${pkg}" is not an Android package name (expected dot-separated identifiers, e.g. com.example.app).`,
    );
  }
  return pkg;
}

export function assertComponentName(component: string): string {
  if (!COMPONENT.test(component)) {
    throw new DedupVerifyError(
      ErrorCode.Config,
      `"${component}" is not a component name (expected package/Class or package/.Class, e.g. com.example.app/.MainActivity).`,
    );
  }
  return component;
}

/** A path relative to an app's data directory, as run-as resolves it (no `..`, not absolute). */
export function assertAppRelativePath(path: string): string {
  if (path === '' || path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '') || path.includes('\0')) {
    throw new DedupVerifyError(
      ErrorCode.Config,
      `"${path}" is not a path inside the app's data directory (use a relative path such as databases/feed.db).`,
    );
  }
  return path;
}

/** An SQL identifier, double-quoted for SQLite. */
export function quoteSqlIdentifier(name: string): string {
  if (name === '' || name.includes('\0')) {
    throw new DedupVerifyError(ErrorCode.Config, `"${name}" is not a usable table or column name.`);
  }
  return `"${name.replace(/"/g, '""')}"`;
}
