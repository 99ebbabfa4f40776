/**
 * feed.attach end to end: the `subscription` profile of the reference app (its feed is a row of
 * `feeds`, added by a VIEW intent) driven by `dedup-verify run` through the real adb binary on a
 * private server. The session attaches the feed after saving the device and every pm clear
 * attaches it again; the applicable scenarios pass, the bug switches are caught, a wrong step is
 * one line and exit 2, `init` + `run --device` pass with the config init wrote, the repro script
 * replays the attach, and the device is left as found.
 */
import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { main, type CliIo } from '../../src/cli/main.js';
import { virtualLab } from '../support/lab.js';
import { runCli, type CliResult } from '../support/cli.js';
import { pullAppDatabase } from '../support/app-data.js';

const PKG = 'com.example.feednotifier';
const PROFILE_CONFIG = JSON.parse(await readFile(new URL('../../fixtures/profiles/subscription.config.json', import.meta.url), 'utf8')) as Record<string, unknown> & { feed: Record<string, unknown> };
const SCHEMA = new URL('../../schema/dedup-verify.config.schema.json', import.meta.url).pathname;
const SQL_ATTACH = [{ sql: { statements: ["INSERT OR IGNORE INTO feeds (title, url, notify) VALUES ('Fixture', {feedUrl}, 1)"] } }];

interface Report {
  scenarios: { name: string; verdict: string; error?: string; anomalies: { kind: string; informational?: boolean; detail: string }[] }[];
}

interface HistoryLine {
  type: string;
  scenario?: string;
  action?: string;
  argv?: string[];
  detail?: string;
  run?: number;
}

describe('feed.attach: apps whose feeds are subscriptions (virtual devices, real adb)', function () {
  this.timeout(300_000);
  const lab = virtualLab('dv-feed-attach-');

  const env = (): NodeJS.ProcessEnv => ({ ANDROID_ADB_SERVER_PORT: String(lab.adb.port) });
  const run = (...args: string[]): Promise<CliResult> => runCli(['run', '--virtual', '--app-profile', 'subscription', ...args], { env: env() });
  const report = async (out: string): Promise<Report> => JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  const history = async (out: string): Promise<HistoryLine[]> => (await readFile(join(out, 'history.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as HistoryLine);
  const segmentOf = (lines: HistoryLine[], scenario: string): HistoryLine[] => {
    const start = lines.findIndex((l) => l.type === 'config' && l.scenario === scenario);
    const end = lines.findIndex((l, i) => i > start && l.type === 'config');
    return lines.slice(start, end < 0 ? undefined : end);
  };
  const writeConfig = async (name: string, attach: unknown): Promise<string> => {
    const path = join(lab.work, `${name}.config.json`);
    await writeFile(path, JSON.stringify({ ...PROFILE_CONFIG, $schema: SCHEMA, feed: { ...PROFILE_CONFIG.feed, attach } }, null, 2));
    return path;
  };

  it('with the VIEW intent of fixtures/profiles: every applicable scenario passes, cold-process is skipped with the attach that would let it run', async () => {
    const out = join(lab.work, 'intent');
    const r = await run('--out', out);
    expect(r.code, r.stderr).to.equal(0);
    const verdicts = Object.fromEntries((await report(out)).scenarios.map((s) => [s.name, s.verdict]));
    expect(Object.entries(verdicts).filter(([, v]) => v !== 'pass')).to.deep.equal([['cold-process', 'skipped']]);
    const cold = (await report(out)).scenarios.find((s) => s.name === 'cold-process');
    expect(cold?.error).to.match(/^feed\.attach step 1 \(intent\) starts an activity of the app after the pm clear.*only of "sql" steps.* lets this scenario run$/);

    const lines = await history(out);
    // The session's attach opens every segment's history: the am start the harness sent.
    const view = ['am', 'start', '-W', '-a', 'android.intent.action.VIEW', '-d', 'http://127.0.0.1:8765/feed.xml', '-n', `${PKG}/.MainActivity`];
    const backToBack = segmentOf(lines, 'back-to-back');
    expect(backToBack[1]).to.include({ type: 'action', action: 'attach' });
    expect(backToBack[1]?.argv).to.deep.equal(view);
    expect(backToBack[1]?.detail).to.match(/^feed\.attach step 1 of 1 \(intent\), at the start of the session/);
    // first-install: pm clear, then the attach again at once, before the app is started and its first run.
    const first = segmentOf(lines, 'first-install').filter((l) => l.type === 'action' && l.action !== 'read');
    const clear = first.findIndex((l) => l.action === 'clear-app-data');
    const reattach = first.findIndex((l, i) => i > clear && l.action === 'attach');
    expect(clear).to.be.greaterThan(0);
    expect(reattach, JSON.stringify(first.map((l) => l.action))).to.be.greaterThan(clear);
    expect(first[reattach]?.detail).to.match(/after pm clear/);
    expect(first.findIndex((l, i) => i > clear && l.action === 'start-app')).to.be.greaterThan(reattach);
  });

  it('catches no-db-check in back-to-back and no-window in first-install after the pm clear and the attach', async () => {
    expect((await run('--bug', 'no-db-check', '--scenario', 'back-to-back')).code).to.equal(1);
    const out = join(lab.work, 'no-window');
    const r = await run('--bug', 'no-window', '--scenario', 'first-install', '--out', out);
    expect(r.code, r.stderr).to.equal(1);
    const first = (await report(out)).scenarios[0]!;
    expect(first.verdict).to.equal('fail');
    expect(first.anomalies.filter((a) => a.kind === 'unexpected').length).to.be.greaterThan(0);
    // The repro script replays the session's attach and the one after pm clear, as sent.
    const script = await readFile(join(out, 'repro', 'first-install.sh'), 'utf8');
    const replays = script.split('\n').filter((l) => l === `$ADB shell am start -W -a android.intent.action.VIEW -d http://127.0.0.1:8765/feed.xml -n ${PKG}/.MainActivity`);
    expect(replays).to.have.length(2);
    expect(script.indexOf('$ADB shell pm clear com.example.feednotifier')).to.be.lessThan(script.lastIndexOf(replays[0]!));
  });

  it('with an sql attach cold-process runs in a process where no activity ran: it passes, and channel-in-activity fails it', async () => {
    const config = await writeConfig('sql', SQL_ATTACH);
    const out = join(lab.work, 'sql');
    const r = await run('--config', config, '--scenario', 'cold-process', '--scenario', 'first-install', '--scenario', 'back-to-back', '--out', out);
    expect(r.code, r.stdout + r.stderr).to.equal(0);
    const cold = (await report(out)).scenarios.find((s) => s.name === 'cold-process')!;
    expect(cold.verdict).to.equal('pass');
    // The run the app made by itself after pm clear, before the sql attach: nothing to fetch, said so.
    expect(cold.anomalies.filter((a) => a.kind === 'no-fetch').every((a) => a.informational === true && /before feed\.attach pointed the app at the feed again/.test(a.detail))).to.equal(true);
    const actions = segmentOf(await history(out), 'cold-process').filter((l) => l.type === 'action' && l.action !== 'read').map((l) => l.action);
    expect(actions.slice(actions.indexOf('clear-app-data'))).to.not.include('start-app');

    const bug = await run('--config', config, '--bug', 'channel-in-activity', '--scenario', 'cold-process');
    expect(bug.code, bug.stdout).to.equal(1);
    expect(bug.stdout).to.match(/cold-process\s+FAIL\s+3/);
  });

  it('a deep link the app takes (Feeder\'s .xml path filter) passes; one no activity takes is one line and exit 2', async () => {
    const good = await run('--config', await writeConfig('deeplink', [{ deepLink: 'http://127.0.0.1:8765/feed.xml' }]), '--scenario', 'back-to-back');
    expect(good.code, good.stdout + good.stderr).to.equal(0);
    const bad = await run('--config', await writeConfig('deeplink-bad', [{ deepLink: 'exampleapp://subscribe?url={feedUrl}' }]), '--scenario', 'back-to-back');
    expect(bad.code).to.equal(2);
    expect(bad.stdout).to.equal('');
    const errors = bad.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(
      /^error: feed\.attach step 1 of 1 \(deepLink\) failed on \S+: `am start -W -a android\.intent\.action\.VIEW -d exampleapp:\/\/subscribe\?url=http%3A%2F%2F127\.0\.0\.1%3A8765%2Ffeed\.xml -p com\.example\.feednotifier` printed "Error: Activity not started, unable to resolve Intent \{ act=android\.intent\.action\.VIEW dat=exampleapp:\/\/subscribe\?url=http:\/\/127\.0\.0\.1:8765\/feed\.xml flg=0x10000000 pkg=com\.example\.feednotifier \}"; no activity of com\.example\.feednotifier takes this intent: check the URI of feed\.attach\.0\.deepLink/,
    );
    expect(bad.stderr).to.not.match(/\n\s+at /);
  });

  it('a component that does not exist is one line naming the step and the fix, exit 2, and the device is restored', async () => {
    const d = await lab.devices.start({ appProfile: 'subscription' });
    await lab.adb.connect(d.serial);
    const config = await writeConfig('missing', [{ intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}', component: `${PKG}/.Missing` } }]);
    const r = await runCli(['run', '--device', d.serial, '--config', config, '--adb-port', String(lab.adb.port), '--scenario', 'back-to-back']);
    expect(r.code).to.equal(2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).to.deep.equal([
      `error: feed.attach step 1 of 1 (intent) failed on ${d.serial}: \`am start -W -a android.intent.action.VIEW -d http://127.0.0.1:8765/feed.xml -n ${PKG}/.Missing\` printed "Error: Activity class {${PKG}/${PKG}.Missing} does not exist."; ${PKG} has no such activity: name one of its activities in feed.attach.0.intent.component (they are listed by \`adb shell dumpsys package ${PKG}\`)`,
    ]);
    expect((await runCli(['restore', '--device', d.serial, '--adb-port', String(lab.adb.port)])).stdout).to.not.match(/restored/i);
    await lab.devices.stopAll();
  });

  it('doctor\'s forced run goes through the attach: the fetch after it is ok, a wrong step is the failing check with the fix', async () => {
    const d = await lab.devices.start({ appProfile: 'subscription' });
    await lab.adb.connect(d.serial);
    await lab.adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
    const doctor = (config: string): Promise<CliResult> => runCli(['doctor', '--device', d.serial, '--config', config, '--adb-port', String(lab.adb.port)]);
    const good = await doctor(await writeConfig('doctor-good', PROFILE_CONFIG.feed['attach']));
    expect(good.code, good.stdout + good.stderr).to.equal(0);
    expect(good.stdout).to.match(/ok +feed fetched by a forced run: after feed\.attach \(1 step\), the app fetched http:\/\/127\.0\.0\.1:8765\/feed\.xml \(HTTP 200\)/);
    const bad = await doctor(await writeConfig('doctor-bad', [{ intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}', component: '.Missing' } }]));
    expect(bad.code).to.not.equal(0);
    expect(bad.stdout, bad.stdout + bad.stderr).to.match(/feed fetched by a forced run: feed\.attach step 1 of 1 \(intent\) failed on .*does not exist\."; com\.example\.feednotifier has no such activity/);
    await lab.devices.stopAll();
  });

  it('init proposes the VIEW intent; run --device with the config it wrote passes and leaves the feeds table as found', async () => {
    const d = await lab.devices.start({ appProfile: 'subscription' });
    await lab.adb.connect(d.serial);
    await lab.adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
    const path = join(lab.work, 'init', 'dedup-verify.config.json');
    await mkdir(join(lab.work, 'init'), { recursive: true });
    let out = '';
    let err = '';
    const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
    expect(await main(['node', 'dedup-verify', 'init', '--adb-port', String(lab.adb.port), '--device', d.serial, '--package', PKG, '--out', path], io), err).to.equal(0);
    expect(out).to.match(/CONFIRM +feed\.attach: a VIEW intent with the fixture feed's URL to com\.example\.feednotifier\/\.MainActivity/);
    const written = JSON.parse(await readFile(path, 'utf8')) as { feed: unknown };
    expect(written.feed).to.deep.equal(PROFILE_CONFIG.feed);

    const r = await runCli(['run', '--device', d.serial, '--config', path, '--adb-port', String(lab.adb.port), '--scenario', 'back-to-back', '--scenario', 'db-is-truth', '--scenario', 'kill-mid-run', '--scenario', 'first-install']);
    expect(r.code, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.match(/first-install\s+PASS/);
    const feeds = await pullAppDatabase(lab.adb, d.serial, PKG, lab.work, 'databases/feed.db', (db: Database.Database) => db.prepare('SELECT url FROM feeds').all());
    expect(feeds).to.deep.equal([]);
    await lab.devices.stopAll();
  });
});
