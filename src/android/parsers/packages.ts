/**
 * Package manager output.
 *
 * `pm list packages` / `pm path PKG`: one `package:<name or path>` per line (adbkit's
 * GetPackagesCommand parses the same shape: adbkit 3.3.9
 * src/adb/command/host-transport/getpackages.ts).
 *
 * `dumpsys package PKG`: under `Packages:` one `  Package [PKG] (hash):` block with fields at
 * 4 spaces (`userId=`, `versionCode=N minSdk=N targetSdk=N`, `versionName=`, `flags=[ … ]`,
 * `pkgFlags=[ … ]`, `dataDir=`), lists `requested permissions:` / `install permissions:`
 * (`name: granted=true`) at 6, and per user `User N: … installed=true … stopped=false …` with
 * `runtime permissions:` entries at 8 (`name: granted=true, flags=[ … ]`). Layout from a real
 * capture (tekartik/android_utils.dart `test/adb_utils_test.dart`, fixtures/device-output/
 * unknown/dumpsys-package.txt). Flag names from com.android.server.pm.Settings FLAG_DUMP_SPEC
 * (framework copies in the index: 1 "SYSTEM", 2 "DEBUGGABLE", 4 "HAS_CODE", …). The
 * `Hidden system packages:` section repeats a Package block for the factory version; it is
 * skipped.
 */

export function parsePackageList(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => /^package:(.+)$/.exec(l.trim())?.[1]?.trim())
    .filter((v): v is string => v !== undefined && v !== '');
}

export interface PackageUserState {
  readonly userId: number;
  readonly installed: boolean | null;
  readonly stopped: boolean | null;
  /** Runtime permission → granted. */
  readonly runtimePermissions: Readonly<Record<string, boolean>>;
}

export interface PackageDump {
  readonly pkg: string;
  readonly uid: number | null;
  readonly versionCode: number | null;
  readonly versionName: string | null;
  readonly minSdk: number | null;
  readonly targetSdk: number | null;
  /** ApplicationInfo flags as printed (`DEBUGGABLE`, `HAS_CODE`, …). */
  readonly flags: readonly string[];
  readonly debuggable: boolean;
  readonly dataDir: string | null;
  readonly requestedPermissions: readonly string[];
  /** Install-time permission → granted. */
  readonly installPermissions: Readonly<Record<string, boolean>>;
  readonly users: readonly PackageUserState[];
}

/** The package's block of `dumpsys package PKG`; null when it is not there. */
export function parseDumpsysPackage(text: string, pkg: string): PackageDump | null {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const sectionStart = lines.findIndex((l) => l === 'Packages:');
  if (sectionStart < 0) return null;
  const headerIndex = lines.findIndex((l, i) => i > sectionStart && l.startsWith(`  Package [${pkg}] `));
  if (headerIndex < 0) return null;
  const block: string[] = [];
  for (let i = headerIndex + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() !== '' && indentOf(line) <= 2) break;
    block.push(line);
  }
  const field = (name: string): string | null => {
    for (const line of block) {
      if (indentOf(line) !== 4) continue;
      const match = new RegExp(`(?:^| )${name}=(\\S.*?)(?= \\w+=|$)`).exec(line.trim());
      if (match) return match[1] ?? null;
    }
    return null;
  };
  const flagsText = field('flags') ?? field('pkgFlags');
  const flags = flagsText === null ? [] : flagsText.replace(/^\[|\]$/g, '').trim().split(/\s+/).filter((f) => f !== '');
  return {
    pkg,
    uid: intOrNull(field('userId')),
    versionCode: intOrNull(field('versionCode')),
    versionName: field('versionName'),
    minSdk: intOrNull(field('minSdk')),
    targetSdk: intOrNull(field('targetSdk')),
    flags,
    debuggable: flags.includes('DEBUGGABLE'),
    dataDir: field('dataDir'),
    requestedPermissions: listUnder(block, 'requested permissions:', 4).map((l) => l.split(':')[0]?.trim() ?? l),
    installPermissions: grants(listUnder(block, 'install permissions:', 4)),
    users: parseUsers(block),
  };
}

function parseUsers(block: readonly string[]): PackageUserState[] {
  const users: PackageUserState[] = [];
  for (let i = 0; i < block.length; i++) {
    const line = block[i] ?? '';
    const user = /^ {4}User (\d+): (.*)$/.exec(line);
    if (user === null) continue;
    const attrs = user[2] ?? '';
    const sub: string[] = [];
    for (let j = i + 1; j < block.length; j++) {
      const next = block[j] ?? '';
      if (next.trim() !== '' && indentOf(next) <= 4) break;
      sub.push(next);
    }
    users.push({
      userId: Number(user[1]),
      installed: boolAttr(attrs, 'installed'),
      stopped: boolAttr(attrs, 'stopped'),
      runtimePermissions: grants(listUnder(sub, 'runtime permissions:', 6)),
    });
  }
  return users;
}

/** Lines indented deeper than the `title` line that follows it at `titleIndent`. */
function listUnder(block: readonly string[], title: string, titleIndent: number): string[] {
  const start = block.findIndex((l) => indentOf(l) === titleIndent && l.trim() === title);
  if (start < 0) return [];
  const items: string[] = [];
  for (let i = start + 1; i < block.length; i++) {
    const line = block[i] ?? '';
    if (line.trim() === '' || indentOf(line) <= titleIndent) break;
    items.push(line.trim());
  }
  return items;
}

function grants(lines: readonly string[]): Record<string, boolean> {
  const result: Record<string, boolean> = {};
  for (const line of lines) {
    const match = /^([^:\s]+): granted=(true|false)/.exec(line);
    if (match) result[match[1] ?? ''] = match[2] === 'true';
  }
  return result;
}

function boolAttr(attrs: string, name: string): boolean | null {
  const match = new RegExp(`(?:^| )${name}=(true|false)(?: |$)`).exec(attrs);
  return match ? match[1] === 'true' : null;
}

function indentOf(line: string): number {
  return /^ */.exec(line)?.[0].length ?? 0;
}

function intOrNull(text: string | null): number | null {
  return text !== null && /^-?\d+$/.test(text) ? Number(text) : null;
}
