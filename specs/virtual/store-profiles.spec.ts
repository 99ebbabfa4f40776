/**
 * The app profiles that remember what they notified otherwise than in a key table, driven through
 * the harness by the real CLI (real adb on a private server, embedded virtual devices):
 * `row-id` (Feeder's feed_items: a row per item before the post, a `notified` flag, the
 * notification id the row's id) and `watermark` (a `<long>` high-water mark in SharedPreferences).
 * Every scenario that applies passes and records what it read; each bug switch that applies fails
 * its scenario; `init` + `run --device` with the config init wrote passes; and a config with no
 * `database` skips the scenarios that need a record, each with its reason.
 */
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCENARIOS } from '../../src/scenarios/index.js';
import { runCli } from '../support/cli.js';
import { runAndRead, segment } from '../support/run-output.js';
import { virtualLab } from '../support/lab.js';

const PKG = 'com.example.feednotifier';

interface Report {
  verdict: string;
  scenarios: { name: string; verdict: string; error?: string; anomalies: { kind: string; item: string; detail: string; tolerated?: boolean }[] }[];
}

/** The bug switches that do nothing in a profile, and what the scenario that catches them elsewhere gives there (docs/real-apps.md). */
const NOT_IN_PROFILE: Readonly<Record<string, Readonly<Record<string, 'pass' | 'skipped'>>>> = {
  'row-id': {},
  // No key: an edited title changes nothing the mark reads. No table: nothing to index.
  watermark: { 'key-on-title': 'pass', 'no-unique-index': 'skipped' },
};

describe('flag and watermark stores: the row-id and watermark profiles through the harness (virtual devices, real adb)', function () {
  this.timeout(600_000);
  const lab = virtualLab('dv-store-profiles-');
  const env = (): NodeJS.ProcessEnv => ({ ANDROID_ADB_SERVER_PORT: String(lab.adb.port) });

  const run = (name: string, args: string[]): ReturnType<typeof runAndRead<Report>> => runAndRead<Report>(join(lab.work, name), args, env());


  it('row-id: every scenario passes; flags set are stored, db-is-truth clears them, the schema holds the composite index and the NOT NULL key', async () => {
    const { code, report, history, stderr } = await run('row-id', ['--virtual', '--app-profile', 'row-id']);
    expect(report.scenarios.map((s) => [s.name, s.verdict]), stderr.slice(-3000)).to.deep.equal(SCENARIOS.map((s) => [s.name, 'pass']));
    expect(code).to.equal(0);
    const back = segment(history, 'back-to-back');
    expect(back.filter((e) => e.type === 'stored')).to.have.length(5);
    expect(back.filter((e) => e.type === 'notified').map((e) => (e.type === 'notified' ? e.item : ''))).to.have.length(5).and.satisfy((items: string[]) => items.every((i) => i.includes('/back-to-back/')));
    const truth = segment(history, 'db-is-truth');
    expect(truth.filter((e) => e.type === 'action' && e.action === 'forget-rows').map((e) => (e.type === 'action' ? e.detail : ''))).to.deep.equal(['cleared notified of 4 row(s) of feed_items (4 key(s))']);
    expect(truth.filter((e) => e.type === 'forgotten')).to.have.length(1);
    expect(truth.filter((e) => e.type === 'stored')).to.have.length(8);
    // Every row of the table (earlier scenarios' too); the scenario's own four items once each.
    const read = segment(history, 'process-death-replay').filter((e) => e.type === 'rows');
    expect(read.map((e) => (e.type === 'rows' ? [e.table, e.keyColumn, e.keys.filter((k) => k?.includes('/process-death-replay/') === true).length] : []))).to.deep.equal([['feed_items', 'guid', 4]]);
    const identity = report.scenarios.find((s) => s.name === 'durable-identity')!;
    expect(identity.anomalies.map((a) => a.kind)).to.deep.equal(['key-unique-per-columns', 'key-required']);
    const schema = segment(history, 'durable-identity').find((e) => e.type === 'schema');
    expect(schema?.type === 'schema' ? [schema.table, schema.keyColumn, schema.replay?.rowsAdded, schema.nullKeyRowsStored] : []).to.deep.equal(['feed_items', 'guid', 0, undefined]);
  });

  it('watermark: every scenario but durable-identity passes (skipped: no table); the mark covers what was stored, db-is-truth moves it back', async () => {
    const { code, report, history, stderr } = await run('watermark', ['--virtual', '--app-profile', 'watermark']);
    expect(report.scenarios.map((s) => [s.name, s.verdict]), stderr.slice(-3000)).to.deep.equal(SCENARIOS.map((s) => [s.name, s.name === 'durable-identity' ? 'skipped' : 'pass']));
    expect(report.scenarios.find((s) => s.name === 'durable-identity')?.error).to.equal(
      'database.kind "watermark" keeps one mark in SharedPreferences, no table: there is no key column to index and no row to insert again',
    );
    expect(code).to.equal(0);
    expect(segment(history, 'back-to-back').filter((e) => e.type === 'stored')).to.have.length(5);
    const truth = segment(history, 'db-is-truth');
    const moves = truth.filter((e) => e.type === 'action' && e.action === 'move-mark').map((e) => (e.type === 'action' ? e.detail ?? '' : ''));
    expect(moves).to.have.length(1);
    expect(moves[0]).to.match(/^moved last_notified_published_at in shared_prefs\/notifier_state\.xml back from \d+ \(.+\) to \d+ \(.+\): 4 item\(s\) no longer at or before it$/);
    const forgotten = truth.filter((e) => e.type === 'forgotten');
    expect(forgotten.map((e) => (e.type === 'forgotten' && e.items !== 'all' ? e.items.length : -1))).to.deep.equal([4]);
    // The move went out as a write of the app's file, replayed by the repro script.
    expect(truth.some((e) => e.type === 'action' && e.action === 'write-app-file' && (e.argv ?? []).join(' ').includes('shared_prefs/notifier_state.xml'))).to.equal(true);
    const rows = segment(history, 'process-death-replay').filter((e) => e.type === 'rows');
    expect(rows.map((e) => (e.type === 'rows' ? [e.table, e.keyColumn, e.keys.length] : []))).to.deep.equal([['shared_prefs/notifier_state.xml', 'last_notified_published_at', 4]]);
  });

  for (const profile of ['row-id', 'watermark'] as const) {
    for (const scenario of SCENARIOS) {
      for (const bug of scenario.catches) {
        const elsewhere = NOT_IN_PROFILE[profile]?.[bug];
        it(`${profile}: --bug ${bug} ${elsewhere === undefined ? 'fails' : `does nothing to (${elsewhere})`} ${scenario.name}`, async () => {
          const { code, report, stderr } = await run(`${profile}-${bug}-${scenario.name}`, ['--virtual', '--app-profile', profile, '--bug', bug, '--scenario', scenario.name]);
          const s = report.scenarios.find((x) => x.name === scenario.name);
          expect(s?.verdict, stderr.slice(-2000)).to.equal(elsewhere ?? 'fail');
          if (elsewhere === undefined) {
            expect(code).to.equal(1);
            expect(s?.anomalies.filter((a) => a.tolerated !== true).length).to.be.greaterThan(0);
          }
        });
      }
    }
  }

  for (const profile of ['row-id', 'watermark'] as const) {
    it(`${profile}: init proposes the store, and run --device with the config it wrote passes back-to-back, db-is-truth and kill-mid-run`, async () => {
      const d = await lab.devices.start({ appProfile: profile });
      await lab.adb.connect(d.serial);
      await lab.adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
      const file = join(lab.work, `${profile}.config.json`);
      const init = await runCli(['init', '--device', d.serial, '--package', PKG, '--out', file], { env: env() });
      expect(init.code, init.stderr).to.equal(0);
      const written = JSON.parse(await readFile(file, 'utf8')) as { database: { kind: string }; notifications: { match: string } };
      expect([written.database.kind, written.notifications.match]).to.deep.equal(profile === 'row-id' ? ['flag', 'row-id'] : ['watermark', 'hashcode-id']);
      const { code, report, stderr } = await run(`${profile}-device`, ['--device', d.serial, '--config', file, '--scenario', 'back-to-back', '--scenario', 'db-is-truth', '--scenario', 'kill-mid-run']);
      expect(report.scenarios.map((s) => [s.name, s.verdict]), stderr.slice(-3000)).to.deep.equal([['back-to-back', 'pass'], ['db-is-truth', 'pass'], ['kill-mid-run', 'pass']]);
      expect(code).to.equal(0);
      await lab.devices.stopAll();
    });
  }

  it('no database: the scenarios that need a record are skipped with their reason, the others pass on the notifications alone', async () => {
    const config = JSON.parse(await readFile(new URL('../../fixtures/reference-app.config.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    delete config['database'];
    delete config['$schema'];
    const file = join(lab.work, 'no-database.config.json');
    await writeFile(file, JSON.stringify(config));
    const needsRecord = ['db-is-truth', 'kill-mid-run', 'process-death-replay', 'durable-identity'];
    const { code, report, history, stderr } = await run('no-database', ['--virtual', '--config', file, '--scenario', 'back-to-back', ...needsRecord.flatMap((s) => ['--scenario', s])]);
    expect(report.scenarios.map((s) => [s.name, s.verdict]), stderr.slice(-3000)).to.deep.equal([['back-to-back', 'pass'], ...needsRecord.map((s) => [s, 'skipped'])]);
    for (const s of report.scenarios.slice(1)) expect(s.error).to.match(/^the config has no "database": /);
    expect(code).to.equal(0);
    // Nothing was read as the app's record, so no run stored anything.
    expect(history.filter((e) => e.type === 'stored' || e.type === 'rows')).to.deep.equal([]);
  });
});
