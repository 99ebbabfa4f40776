/**
 * A config whose feed is not where the app fetches it: `run --virtual` through the real adb binary
 * never passes. A wrong `feed.devicePort` (the app's connection is refused: OkHttp's
 * ConnectException in logcat) and a wrong `feed.path` (the app asks another path: a 404 in the
 * fixture server's journal) are `no-fetch`, exit 2, with one line that names the field to check,
 * on the correct app and with every bug switch at once.
 */
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUG_NAMES } from '../../src/virtual-device/apps/feed-notifier/bugs.js';
import { runCli } from '../support/cli.js';
import { virtualLab } from '../support/lab.js';

interface Report {
  scenarios: { name: string; verdict: string; anomalies: { kind: string; run?: number; detail: string }[] }[];
}

describe('run --virtual with the feed misconfigured: no-fetch, never a pass', function () {
  this.timeout(120_000);
  const lab = virtualLab('dv-no-fetch-');

  async function configWith(name: string, feed: Record<string, unknown>): Promise<string> {
    const config = JSON.parse(await readFile('fixtures/reference-app.config.json', 'utf8')) as { feed: Record<string, unknown> };
    config.feed = { ...config.feed, ...feed };
    const file = join(lab.work, `${name}.json`);
    await writeFile(file, JSON.stringify(config));
    return file;
  }

  async function run(name: string, config: string, bugs: readonly string[]): Promise<{ code: number | null; stdout: string; report: Report; history: Record<string, unknown>[] }> {
    const out = join(lab.work, name);
    const r = await runCli(['run', '--virtual', '--config', config, ...bugs.flatMap((b) => ['--bug', b]), '--scenario', 'back-to-back', '--out', out], {
      env: { ANDROID_ADB_SERVER_PORT: String(lab.adb.port) },
    });
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    const history = (await readFile(join(out, 'history.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    return { code: r.code, stdout: r.stdout, report, history };
  }

  for (const bugs of [[], BUG_NAMES]) {
    const label = bugs.length === 0 ? 'the correct app' : 'every bug switch';
    it(`a wrong feed.devicePort on ${label}: exit 2, the refused connection from logcat, and feed.devicePort named`, async () => {
      const r = await run(`port-${bugs.length}`, await configWith('port', { devicePort: 8766 }), bugs);
      expect(r.code, r.stdout).to.equal(2);
      const scenario = r.report.scenarios.find((s) => s.name === 'back-to-back');
      expect(scenario?.verdict).to.equal('unknown');
      const noFetch = scenario?.anomalies.filter((a) => a.kind === 'no-fetch') ?? [];
      expect(noFetch, JSON.stringify(scenario?.anomalies)).to.not.be.empty;
      for (const a of noFetch) {
        expect(a.detail).to.include('http://127.0.0.1:8766/feed.xml');
        expect(a.detail).to.include('java.net.ConnectException: Failed to connect to /127.0.0.1:8765');
        expect(a.detail).to.include('check feed.devicePort');
      }
      const finished = r.history.filter((e) => e['type'] === 'run-finished');
      expect(finished.map((e) => (e['fetchError'] as { cause?: string } | undefined)?.cause)).to.include('connection-refused');
      expect(r.history[0]).to.deep.include({ type: 'config', feed: { devicePort: 8766, path: '/feed.xml' } });
      // The console says it on one line per run, with the fix.
      expect(r.stdout.split('\n').filter((l) => l.includes('no-fetch') && l.includes('check feed.devicePort'))).to.have.length(noFetch.length);
    });
  }

  it('a wrong feed.path with every bug switch: exit 2, the path the app asked (404 in the journal), and feed.path named', async () => {
    const r = await run('path', await configWith('path', { path: '/rss.xml' }), BUG_NAMES);
    expect(r.code, r.stdout).to.equal(2);
    const scenario = r.report.scenarios.find((s) => s.name === 'back-to-back');
    expect(scenario?.verdict).to.equal('unknown');
    const noFetch = scenario?.anomalies.filter((a) => a.kind === 'no-fetch') ?? [];
    expect(noFetch, JSON.stringify(scenario?.anomalies)).to.not.be.empty;
    for (const a of noFetch) expect(a.detail).to.include('the app asked GET /feed.xml → 404, not /rss.xml: check feed.path');
    expect(r.history.filter((e) => e['type'] === 'fetched')).to.deep.equal([]);
  });
});
