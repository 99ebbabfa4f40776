/**
 * The CLI compiled once per test process, for the specs that start it as a child process.
 *
 * Through tsx every child process compiles and loads the sources through the loader hooks again
 * (about half a second each, a few hundred times a suite). Before the first test of a run that
 * holds specs/virtual, the root hook below compiles src/ with the project's own tsc
 * (tsconfig.build.json, as `npm run build`) into a directory of its own under the system's temp
 * directory, with the package's files it reads at run time (package.json, fixtures/, schema/,
 * src/report/repro-prologue.sh, node_modules/) linked beside it, so the compiled CLI finds them as
 * an installed package does. The tree's own dist/ is never touched. A spec started on its own
 * without the hook runs the CLI from the sources through tsx (specs/support/cli-entry.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** What the compiled CLI reads beside its package root (src/ for repro-prologue.sh). */
const LINKED = ['package.json', 'fixtures', 'schema', 'src', 'node_modules'] as const;

let entry: string | undefined;

/** The compiled CLI's entry script, once the root hook has built it; undefined before. */
export function compiledCliEntry(): string | undefined {
  return entry;
}

async function compile(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'dv-spec-cli-'));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  for (const name of LINKED) symlinkSync(join(ROOT, name), join(root, name));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(root, 'dist'), '--declaration', 'false', '--sourceMap', 'false'];
  const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (text += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, text }));
  });
  if (output.code !== 0) throw new Error(`compiling the CLI for the specs failed (tsc exited ${output.code}):\n${output.text}`);
  const script = join(root, 'dist', 'cli-entry.mjs');
  writeFileSync(script, "import { main } from './src/cli/main.js';\n\nprocess.exit(await main(process.argv));\n");
  return script;
}

/** Mocha root hook (.mocharc.json `require`): compiles the CLI before a run that holds specs/virtual. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    const suites = this.test?.parent?.suites ?? [];
    if (!suites.some((s) => (s.file ?? '').includes(`${join('specs', 'virtual')}`))) return;
    this.timeout(300_000);
    entry ??= await compile();
  },
};
