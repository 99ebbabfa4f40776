/**
 * The `run --out DIR` folder: dedup-verify deletes or replaces only the files it wrote there.
 * They are listed in a manifest in the folder (`.dedup-verify-files.json`), written when the run
 * ends. Before a run:
 * - a file the manifest does not list (another tool's `report.json`, a file of the user's) makes
 *   the folder refused, one line, exit 2, unless `--force`; with `--force` such a file is kept,
 *   and only one at a name the tool writes (`report.json`, `history.jsonl`, ...) is replaced;
 * - a symbolic link where the tool writes (those names, and anywhere under `repro/` and
 *   `evidence/`) is refused even with `--force`: the tool opens nothing through one (its writers
 *   also create temporary files with O_EXCL and rename them over the name, and open appended
 *   files with O_NOFOLLOW);
 * - the files the manifest lists are deleted (an earlier run's repro scripts and evidence would
 *   be taken for this run's), then the folders under `repro/` and `evidence/` they leave empty.
 */
import { constants } from 'node:fs';
import { lstat, open, readFile, readdir, rename, rmdir, unlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { UsageError } from '../errors.js';

export const MANIFEST_FILE = '.dedup-verify-files.json';

/** What `run --out` writes at the top of the folder; `repro/` and `evidence/` are written all through. */
const WRITTEN_NAMES: readonly string[] = ['report.json', 'junit.xml', 'history.jsonl', 'report.html', 'repro', 'evidence', MANIFEST_FILE];
const WRITTEN_TREES: readonly string[] = ['repro', 'evidence'];

interface Entry {
  /** Slash-separated, relative to the folder. */
  readonly path: string;
  readonly kind: 'file' | 'dir' | 'symlink' | 'other';
  /** Device and inode: a file the tool replaced (a rename over the name) has another. */
  readonly identity: string;
}

/** Every entry below `dir`, depth first, never through a symbolic link (lstat). */
async function walk(dir: string, prefix = ''): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const name of (await readdir(join(dir, prefix))).sort()) {
    const path = prefix === '' ? name : `${prefix}/${name}`;
    const info = await lstat(join(dir, path));
    const identity = `${info.dev}:${info.ino}`;
    if (info.isSymbolicLink()) out.push({ path, kind: 'symlink', identity });
    else if (info.isDirectory()) out.push({ path, kind: 'dir', identity }, ...(await walk(dir, path)));
    else out.push({ path, kind: info.isFile() ? 'file' : 'other', identity });
  }
  return out;
}

/** Where the tool writes: a top-level name of its own, or anything under repro/ and evidence/. */
function isWrittenPath(path: string): boolean {
  const top = path.split('/')[0] ?? '';
  return WRITTEN_NAMES.includes(top) && (path === top || WRITTEN_TREES.includes(top));
}

/** A manifest entry that names a file inside the folder (no absolute path, no `..`). */
function isInside(path: string): boolean {
  return path !== '' && !path.startsWith('/') && posix.normalize(path) === path && !path.split('/').includes('..');
}

/** The files the manifest lists; empty when there is none (or it is not a regular file, or not one of ours). */
async function readManifest(dir: string): Promise<Set<string>> {
  const path = join(dir, MANIFEST_FILE);
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isFile()) return new Set();
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as { tool?: unknown; files?: unknown };
    if (value.tool !== 'dedup-verify' || !Array.isArray(value.files)) return new Set();
    return new Set(value.files.filter((f): f is string => typeof f === 'string' && isInside(f)));
  } catch {
    return new Set();
  }
}

function listed(paths: readonly string[], max = 3): string {
  return `${paths.slice(0, max).join(', ')}${paths.length > max ? `, … (${paths.length - max} more)` : ''}`;
}

/** A folder prepared for a run's output. */
export class OutputDirectory {
  private constructor(
    readonly dir: string,
    /** Files that were there and are not the tool's (path → identity): never deleted, listed only once the tool replaced one. */
    private readonly foreign: ReadonlyMap<string, string>,
  ) {}

  /**
   * Checks `dir` (an existing directory) and clears what an earlier run wrote there; `shown` is
   * the path as the user gave it. Throws UsageError, before anything is deleted, for a symbolic
   * link where the tool writes, and for files it did not write unless `force`.
   */
  static async prepare(dir: string, shown: string, force: boolean): Promise<OutputDirectory> {
    const entries = await walk(dir);
    const link = entries.find((e) => e.kind === 'symlink' && isWrittenPath(e.path));
    if (link !== undefined) {
      throw new UsageError(`--out ${shown}: ${link.path} is a symbolic link, and dedup-verify writes nothing through one: remove it, or pass another directory.`);
    }
    const ours = await readManifest(dir);
    const foreignEntries = entries.filter((e) => e.kind !== 'dir' && e.path !== MANIFEST_FILE && !(e.kind === 'file' && ours.has(e.path)));
    const foreign = foreignEntries.map((e) => e.path);
    if (foreign.length > 0 && !force) {
      throw new UsageError(
        `--out ${shown} holds ${foreign.length === 1 ? 'a file' : `${foreign.length} files`} dedup-verify did not write (${listed(foreign)}): pass a new or empty directory, or --force to write beside them (kept, but for report.json, junit.xml, history.jsonl and report.html, which are replaced).`,
      );
    }
    for (const e of entries) if (e.kind === 'file' && ours.has(e.path)) await unlink(join(dir, e.path));
    // Deepest first: a folder of repro/ or evidence/ the deletions left empty goes too (a folder
    // that still holds a file, ours or not, stays).
    for (const e of [...entries].reverse()) {
      if (e.kind === 'dir' && WRITTEN_TREES.includes(e.path.split('/')[0] ?? '')) await rmdir(join(dir, e.path)).catch(() => undefined);
    }
    return new OutputDirectory(dir, new Map(foreignEntries.map((e) => [e.path, e.identity])));
  }

  /**
   * Writes the manifest: every regular file in the folder now but the ones that were not ours
   * (a foreign file the run replaced under --force, e.g. report.json, is ours now). Called when
   * the run ends, whether it succeeded or not.
   */
  async finish(): Promise<void> {
    const files = (await walk(this.dir))
      .filter((e) => e.kind === 'file' && e.path !== MANIFEST_FILE && this.foreign.get(e.path) !== e.identity)
      .map((e) => e.path);
    await writeFileNoFollow(join(this.dir, MANIFEST_FILE), `${JSON.stringify({ tool: 'dedup-verify', files }, null, 2)}\n`);
  }
}

/**
 * Writes `path` whole through a temporary file created with O_EXCL (so never a link planted at
 * its name) and renamed over `path` (which replaces a link there instead of following it).
 */
export async function writeFileNoFollow(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}
