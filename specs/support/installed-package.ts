/**
 * The published package as a user gets it: `npm run build`, `npm pack`, then `npm install
 * <tarball> [other packages]` into an empty folder with no repository around it. The install
 * uses `--ignore-scripts` and `--prefer-offline`, and copies the native addon of better-sqlite3
 * (the same version, built for this Node) from the project's node_modules: without a network
 * that addon is compiled from source, minutes on a small machine, which tests better-sqlite3
 * rather than this package (the first-hour acceptance check does the full install).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without npm's per-script variables (a spec may itself run under `npm test`). */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

export function exec(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Exec> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd: options.cwd, env: options.env ?? cleanEnv(), timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface InstalledPackage {
  /** The temp folder holding the tarball and the user's folder (remove it when done). */
  readonly work: string;
  readonly tarball: string;
  /** The tarball's entries, `package/…`. */
  readonly entries: readonly string[];
  /** The user's folder: `npm init -y`, then the tarball (and `extra`) installed. */
  readonly app: string;
}

function check(step: string, r: Exec): void {
  if (r.code !== 0) throw new Error(`${step} failed (${r.code}):\n${(r.stdout + r.stderr).slice(-3000)}`);
}

/**
 * Builds, packs and installs the package, with `extra` packages (`name@version`) installed beside
 * it and `linked` packages of the project's own node_modules linked beside it (with their bins):
 * a user's own copy of a peer such as webdriverio, without installing its hundreds of
 * dependencies again (Node resolves a linked package's own imports from where it really lies).
 */
export async function installPackage(tempPrefix: string, extra: readonly string[] = [], linked: readonly string[] = []): Promise<InstalledPackage> {
  const work = await mkdtemp(join(tmpdir(), tempPrefix));
  try {
    check('npm run build', await exec('npm', ['run', 'build'], { cwd: ROOT }));
    // The build just ran: pack without running `prepare` (a second build) again.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
    check('npm pack', pack);
    const packed = JSON.parse(pack.stdout) as { filename: string }[];
    const tarball = join(work, packed[0]?.filename ?? '');
    const list = await exec('tar', ['tzf', tarball], { cwd: work });
    check('tar tzf', list);
    const app = join(work, 'app');
    await mkdir(app);
    check('npm init', await exec('npm', ['init', '-y'], { cwd: app }));
    check(
      `npm install ${[tarball, ...extra].join(' ')}`,
      await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', tarball, ...extra], { cwd: app, timeoutMs: 600_000 }),
    );
    const addon = 'node_modules/better-sqlite3';
    const versionOf = async (dir: string): Promise<string> => (JSON.parse(await readFile(join(dir, addon, 'package.json'), 'utf8')) as { version: string }).version;
    if ((await versionOf(app)) === (await versionOf(ROOT))) {
      await mkdir(join(app, addon, 'build', 'Release'), { recursive: true });
      await cp(join(ROOT, addon, 'build', 'Release', 'better_sqlite3.node'), join(app, addon, 'build', 'Release', 'better_sqlite3.node'));
    } else {
      check('npm rebuild better-sqlite3', await exec('npm', ['rebuild', 'better-sqlite3'], { cwd: app, timeoutMs: 600_000 }));
    }
    for (const name of linked) await linkProjectPackage(app, name);
    return { work, tarball, entries: list.stdout.split('\n').filter((l) => l !== ''), app };
  } catch (e) {
    await rm(work, { recursive: true, force: true });
    throw e;
  }
}

/** node_modules/NAME → the project's copy, and its bins into node_modules/.bin. */
async function linkProjectPackage(app: string, name: string): Promise<void> {
  const source = join(ROOT, 'node_modules', name);
  const target = join(app, 'node_modules', name);
  await mkdir(dirname(target), { recursive: true });
  await symlink(source, target, 'dir');
  const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as { name: string; bin?: string | Record<string, string> };
  const bins = typeof manifest.bin === 'string' ? { [manifest.name.split('/').pop() ?? manifest.name]: manifest.bin } : (manifest.bin ?? {});
  await mkdir(join(app, 'node_modules', '.bin'), { recursive: true });
  for (const [bin, path] of Object.entries(bins)) await symlink(join(source, path), join(app, 'node_modules', '.bin', bin));
}

export { runInGroup, type GroupResult } from './process-group.js';
