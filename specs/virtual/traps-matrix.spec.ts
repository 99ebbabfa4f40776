/**
 * Every bug switch of the reference app is caught by the scenarios docs/design.md §6 names for it,
 * and the correct app passes every scenario, repeatedly (kill points included). Runs the real
 * CLI (`run --virtual`) against embedded virtual devices through a private adb server.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { runCli } from '../support/cli.js';
import { SCENARIOS } from '../../src/scenarios/index.js';

interface Report {
  verdict: string;
  scenarios: { name: string; verdict: string; anomalies: { kind: string; item: string; run?: number; detail: string }[]; trials?: number; violations?: number }[];
}

describe('traps matrix (virtual device, real adb)', function () {
  this.timeout(600_000);
  let adb: AdbServer;
  let work: string;
  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-matrix-'));
  });
  after(async () => {
    await adb.stop();
    await rm(work, { recursive: true, force: true });
  });

  async function run(name: string, args: string[]): Promise<{ code: number | null; report: Report; stderr: string }> {
    const out = join(work, name);
    const r = await runCli(['run', '--virtual', ...args, '--out', out], { env: { ANDROID_ADB_SERVER_PORT: String(adb.port) } });
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    return { code: r.code, report, stderr: r.stderr };
  }

  it('the correct app passes every scenario ten times in a row, kill points included', async () => {
    const { code, report, stderr } = await run('correct', ['--repeat', '10']);
    const failing = report.scenarios.filter((s) => s.verdict !== 'pass').map((s) => `${s.name}: ${s.verdict} ${JSON.stringify(s.anomalies)}`);
    expect(failing, stderr.slice(-3000)).to.deep.equal([]);
    expect(code).to.equal(0);
    expect(new Set(report.scenarios.map((s) => s.name))).to.deep.equal(new Set(SCENARIOS.map((s) => s.name)));
    expect(report.scenarios).to.have.length(SCENARIOS.length * 10);
    const agg = (report as unknown as { aggregate?: { name: string; trials: number; violations: number }[] }).aggregate ?? [];
    expect(agg.map((a) => [a.name, a.trials, a.violations])).to.deep.equal(SCENARIOS.map((s) => [s.name, 10, 0]));
  });

  for (const scenario of SCENARIOS) {
    for (const bug of scenario.catches) {
      it(`--bug ${bug} fails ${scenario.name}, naming the items or the property`, async () => {
        const { code, report, stderr } = await run(`${bug}-${scenario.name}`, ['--bug', bug, '--scenario', scenario.name]);
        const s = report.scenarios.find((x) => x.name === scenario.name);
        expect(s?.verdict, stderr.slice(-2000)).to.equal('fail');
        expect(code).to.equal(1);
        expect(s?.anomalies.length).to.be.greaterThan(0);
        for (const a of s?.anomalies ?? []) expect(a.detail).to.be.a('string').and.not.equal('');
      });
    }
  }

  // The API 35 and 36 profiles: one bug each (the whole matrix on every level would cost CI time).
  for (const [api, bug, scenario] of [['35', 'no-db-check', 'back-to-back'], ['36', 'newest-first', 'oldest-first']] as const) {
    it(`API ${api}: --bug ${bug} fails ${scenario}`, async () => {
      const { code, report, stderr } = await run(`api${api}-${bug}`, ['--api', api, '--bug', bug, '--scenario', scenario]);
      expect(report.scenarios.map((x) => [x.name, x.verdict]), stderr.slice(-2000)).to.deep.equal([[scenario, 'fail']]);
      expect(code).to.equal(1);
    });
  }

  it('two bugs at once are both caught in one run, and an unaffected scenario still passes', async () => {
    const { report } = await run('combo', ['--bug', 'newest-first', '--bug', 'key-on-title', '--scenario', 'oldest-first', '--scenario', 'title-edit', '--scenario', 'back-to-back']);
    const v = Object.fromEntries(report.scenarios.map((s) => [s.name, s.verdict]));
    expect(v).to.deep.equal({ 'oldest-first': 'fail', 'title-edit': 'fail', 'back-to-back': 'pass' });
  });
});
