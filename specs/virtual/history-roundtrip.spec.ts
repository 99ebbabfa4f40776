/**
 * The history is the one output a run's verdict depends on: for every scenario, on the correct
 * app and under each bug switch it must catch, `run --out D` then `check D/history.jsonl --json`
 * gives the verdict, the counts and the anomalies of `D/report.json`. Real CLI, real adb (a
 * private server), embedded virtual devices.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from '../support/adb-server.js';
import { runCli } from '../support/cli.js';
import { SCENARIOS } from '../../src/scenarios/index.js';
import { reportProblem } from '../../src/report/report-schema.js';
import type { CheckCounts } from '../../src/checker/types.js';

interface Anomaly {
  kind: string;
  item: string;
  detail: string;
  tolerated?: boolean;
  scenario?: string;
}
interface Report {
  verdict: string;
  scenarios: { name: string; verdict: string; counts: CheckCounts; anomalies: Anomaly[] }[];
}
interface Checked {
  verdict: string;
  counts: CheckCounts;
  anomalies: Anomaly[];
}

/** The anomaly each bug switch must produce (the trap, named by the property it breaks). */
const NAMES_THE_TRAP: Readonly<Record<string, string>> = {
  'no-db-check': 'duplicated',
  'dedup-elsewhere': 'lost',
  'memory-only-dedup': 'duplicated',
  'no-window': 'unexpected',
  'newest-first': 'out-of-order',
  'date-defaults-to-now': 'unexpected',
  'key-on-title': 'duplicated',
  'record-before-notify': 'lost',
  'record-after-loop': 'duplicated',
  'window-equals-interval': 'lost',
  'empty-link-kept': 'unexpected',
  'retry-on-401': 'retry-loop',
  'new-key-per-attempt': 'duplicate-effect',
  'duplicate-schedule': 'duplicate-schedule',
  'channel-in-activity': 'lost',
  'no-unique-index': 'no-unique-index',
};

function sumCounts(all: readonly CheckCounts[]): CheckCounts {
  const out = { ...all[0]! };
  for (const c of all.slice(1)) for (const k of Object.keys(c) as (keyof CheckCounts)[]) out[k] += c[k];
  return out;
}

describe('history round trip: run --out D, then check D/history.jsonl (virtual device, real adb)', function () {
  this.timeout(600_000);
  let adb: AdbServer;
  let work: string;
  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), 'dv-roundtrip-'));
  });
  after(async () => {
    await adb.stop();
    await rm(work, { recursive: true, force: true });
  });

  async function roundTrip(name: string, args: string[]): Promise<{ report: Report; checked: Checked; runCode: number | null; checkCode: number | null }> {
    const out = join(work, name);
    const env = { ANDROID_ADB_SERVER_PORT: String(adb.port) };
    const ran = await runCli(['run', '--virtual', ...args, '--out', out], { env });
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    // What run writes is what report DIR accepts back: report.json holds to its schema.
    expect(reportProblem(report), 'report.json against schema/dedup-verify.report.schema.json').to.equal(undefined);
    const check = await runCli(['check', join(out, 'history.jsonl'), '--json'], { env });
    expect(check.stderr, 'check wrote to stderr').to.equal('');
    const checked = JSON.parse(check.stdout) as Checked;
    // Same verdict, same counts, the same anomalies (the check names each one's scenario).
    expect(checked.verdict, ran.stderr.slice(-2000)).to.equal(report.verdict);
    expect(check.code).to.equal(ran.code);
    expect(checked.counts).to.deep.equal(sumCounts(report.scenarios.map((s) => s.counts)));
    const fromReport = report.scenarios.flatMap((s) => s.anomalies.map((a) => ({ ...a, scenario: s.name })));
    // A history of one segment gives its anomalies as they are; of several, each names its scenario.
    const single = report.scenarios.length === 1;
    expect(checked.anomalies).to.deep.equal(single ? report.scenarios[0]!.anomalies : fromReport);
    return { report, checked, runCode: ran.code, checkCode: check.code };
  }

  it('the correct app: every scenario, the same pass from the history alone', async () => {
    const { report, checked } = await roundTrip('correct', []);
    expect(report.verdict).to.equal('pass');
    expect(report.scenarios.map((s) => s.name)).to.deep.equal(SCENARIOS.map((s) => s.name));
    expect(checked.verdict).to.equal('pass');
  });

  for (const scenario of SCENARIOS) {
    for (const bug of scenario.catches) {
      it(`--bug ${bug}: ${scenario.name} fails the same way from the history alone`, async () => {
        const { report, checked } = await roundTrip(`${bug}-${scenario.name}`, ['--bug', bug, '--scenario', scenario.name]);
        expect(report.scenarios[0]?.verdict).to.equal('fail');
        expect(checked.verdict).to.equal('fail');
        const kinds = checked.anomalies.filter((a) => a.tolerated !== true).map((a) => a.kind);
        expect(kinds, JSON.stringify(checked.anomalies)).to.include(NAMES_THE_TRAP[bug]);
      });
    }
  }

  it('record-after-loop: kill-mid-run names every item repeated after one kill, and the kill', async () => {
    const { report } = await roundTrip('record-after-loop-detail', ['--bug', 'record-after-loop', '--scenario', 'kill-mid-run']);
    const failing = report.scenarios[0]!.anomalies.filter((a) => a.kind === 'duplicated' && a.tolerated !== true);
    expect(failing.length).to.be.at.least(2);
    for (const a of failing) expect(a.detail).to.match(/run \d+ was killed before storing it, but that kill already excuses .*kill-mid-run\/k\d-item-\d/);
  });
});
