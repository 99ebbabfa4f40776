/**
 * bin/dedup-verify.js, the published entry point, run by a real node process from a copy of the
 * package layout: without a build it says so in one line naming the fix (exit 2); with one it
 * checks the Node version (the real check, compiled from src/cli/node-version.ts) before it
 * loads the CLI. The CLI module itself is a stand-in that records its arguments: what is under
 * test is the entry point's order of loading, not the commands.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = new URL('../../', import.meta.url);

interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

function node(args: readonly string[]): Promise<Exec> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe('bin/dedup-verify.js (a real node process)', function () {
  this.timeout(60_000);
  let work: string;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-bin-spec-'));
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /** A package folder holding bin/dedup-verify.js and, with `built`, dist/src/cli/. */
  async function layout(name: string, built: boolean): Promise<string> {
    const dir = join(work, name);
    await mkdir(join(dir, 'bin'), { recursive: true });
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
    await copyFile(new URL('bin/dedup-verify.js', ROOT), join(dir, 'bin', 'dedup-verify.js'));
    if (built) {
      const cli = join(dir, 'dist', 'src', 'cli');
      await mkdir(cli, { recursive: true });
      const source = await readFile(new URL('src/cli/node-version.ts', ROOT), 'utf8');
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2020 } }).outputText;
      await writeFile(join(cli, 'node-version.js'), js);
      await writeFile(join(cli, 'main.js'), 'export async function main(argv) {\n  process.stdout.write(`main ${argv.slice(2).join(" ")}\\n`);\n  return 0;\n}\n');
    }
    return join(dir, 'bin', 'dedup-verify.js');
  }

  it('without dist/ prints one line naming `npm run build` and reinstalling, and exits 2', async () => {
    const bin = await layout('unbuilt', false);
    const r = await node([bin, '--version']);
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trimEnd().split('\n'), r.stderr).to.have.length(1);
    expect(r.stderr).to.match(/^dedup-verify is not built: .*dist\/src\/cli\/ has no main\.js\. In a checkout of its sources run `npm run build`; an installed copy is incomplete: reinstall it \(npm install dedup-verify\)\.\n$/);
    expect(r.stderr).to.not.match(/ERR_MODULE_NOT_FOUND|\n\s+at /);
  });

  it('with dist/ checks the Node version, then hands the arguments to main', async () => {
    const bin = await layout('built', true);
    const r = await node([bin, 'run', '--virtual']);
    expect(r.stderr).to.equal('');
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal('main run --virtual\n');
  });

  it('on a Node older than engines.node prints the version message and never loads main', async () => {
    const bin = await layout('old-node', true);
    const preload = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.20.4"})';
    const r = await node(['--import', preload, bin, 'run']);
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(/^dedup-verify needs Node\.js 20\.19 or newer \(this is 18\.20\.4\)\. Install Node\.js 20 LTS/);
    expect(r.stderr.trimEnd().split('\n')).to.have.length(1);
  });
});
