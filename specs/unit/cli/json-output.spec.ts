/**
 * `--json` on the commands that print results and need no device: `report DIR --json` and
 * `restore --json` when no interrupted run left a state file. Temp files only, no sockets.
 */
import { expect } from 'chai';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from '../../../src/cli/main.js';

const FIXTURES = new URL('../../../fixtures/reports/', import.meta.url);

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return { code: await main(['node', 'dedup-verify', ...args], io), out, err };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('--json output of report and restore', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function tempDir(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'dv-json-spec-'));
    dirs.push(d);
    return d;
  }

  it('report DIR --json prints the files it wrote and the verdict of the run', async () => {
    const dir = await tempDir();
    for (const f of ['report.json', 'history.jsonl']) await copyFile(new URL(`multi-device/${f}`, FIXTURES), join(dir, f));
    const { verdict } = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { verdict: string };
    const r = await cli(['report', dir, '--json']);
    expect(r.code, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal({ dir, html: join(dir, 'report.html'), junit: join(dir, 'junit.xml'), verdict, warnings: [] });
    expect(await readFile(join(dir, 'report.html'), 'utf8')).to.match(/^<!DOCTYPE html>/i);
  });

  it('report --json lists a missing history as a warning', async () => {
    const dir = await tempDir();
    await copyFile(new URL('multi-device/report.json', FIXTURES), join(dir, 'report.json'));
    const r = await cli(['report', dir, '--json']);
    expect(r.code).to.equal(0);
    const printed = JSON.parse(r.out) as { warnings: string[] };
    expect(printed.warnings).to.have.length(1);
    expect(printed.warnings[0]).to.include('history.jsonl is missing');
    expect(r.err).to.equal(`warning: ${printed.warnings[0] ?? ''}\n`);
  });

  it('restore --json with no state file prints empty lists and exits 0', async () => {
    const state = await tempDir();
    const all = await cli(['restore', '--json'], { XDG_STATE_HOME: state });
    expect(all.code, all.err).to.equal(0);
    expect(JSON.parse(all.out)).to.deep.equal({ restored: [], nothingToRestore: [], failed: [] });
    const one = await cli(['restore', '--device', 'emulator-5554', '--json'], { XDG_STATE_HOME: state });
    expect(one.code, one.err).to.equal(0);
    expect(JSON.parse(one.out)).to.deep.equal({ restored: [], nothingToRestore: ['emulator-5554'], failed: [] });
    const text = await cli(['restore'], { XDG_STATE_HOME: state });
    expect(text.out).to.equal('Nothing to restore: no interrupted run left a state file.\n');
  });
});
