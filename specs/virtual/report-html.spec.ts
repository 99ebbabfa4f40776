/**
 * report.html in a real browser (Debian's headless Chromium through playwright-core): the page
 * of a failing run renders, the lost items and the killed runs are visible, the anomaly links
 * scroll to their evidence and to their marks, and the page logs no error and requests nothing
 * but itself. And `dedup-verify report DIR` through the CLI entry (main).
 */
import { expect } from 'chai';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { main, type CliIo } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/load-config.js';
import { AdbDevice } from '../../src/device/adb-device.js';
import { writeReproScripts } from '../../src/report/repro.js';
import { DeviceSession } from '../../src/harness/device-session.js';
import { backToBack } from '../../src/scenarios/back-to-back.js';
import { killMidRun } from '../../src/scenarios/kill-mid-run.js';
import type { Scenario } from '../../src/harness/types.js';
import { freePort, type AdbServer } from '../support/adb-server.js';
import { virtualLab } from '../support/lab.js';
import { runBash } from '../support/run-output.js';
import { parseHistoryText } from '../../src/history/jsonl.js';
import { renderHtmlReport } from '../../src/report/html/render.js';
import { renderJunit } from '../../src/report/junit.js';
import type { RunReport } from '../../src/report/types.js';

// The browser globals used by the functions that run inside the page (tsconfig has no DOM lib).
declare const document: { getElementById(id: string): { getBoundingClientRect(): { top: number; bottom: number; height: number } } | null };
declare const window: { innerHeight: number };
declare const location: { hash: string };
declare function getComputedStyle(element: unknown): { backgroundColor: string; display: string };

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'fixtures', 'reports');
const SCREENSHOT = join(tmpdir(), 'dedup-verify-report-failing.png');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function captureIo(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => {
      io.out += t;
    },
    stderr: (t: string) => {
      io.err += t;
    },
  };
  return io;
}

async function runDir(fixture: string, files: readonly string[] = ['report.json', 'history.jsonl']): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dv-report-'));
  for (const f of files) await copyFile(join(FIXTURES, fixture, f), join(dir, f));
  return dir;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/** Resolves once the element is entirely inside the viewport (smooth scrolling takes a moment). */
async function waitInViewport(page: Page, id: string): Promise<void> {
  await page.waitForFunction(
    (elementId) => {
      const el = document.getElementById(elementId);
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
    },
    id,
    { timeout: 10_000 },
  );
}

describe('report.html in headless Chromium', function () {
  this.timeout(60_000);
  let dir: string;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  let report: RunReport;
  const problems: string[] = [];
  const requests: string[] = [];

  before(async () => {
    dir = await runDir('failing');
    const io = captureIo();
    expect(await main(['node', 'dedup-verify', 'report', dir], io)).to.equal(0);
    report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
    profile = await mkdtemp(join(tmpdir(), 'dv-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
  });

  after(async () => {
    await context?.close();
    await rm(profile, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  it('renders the failing verdict, and the lost items are visible without opening anything', async () => {
    expect(await page.title()).to.equal('dedup-verify FAIL: com.example.feednotifier on emulator-5554');
    expect(await page.locator('header .verdict-big').textContent()).to.equal('FAIL');
    const lost = report.scenarios.flatMap((s) => s.anomalies.filter((a) => a.kind === 'lost').map((a) => a.item));
    expect(lost).to.have.length(2);
    for (const item of lost) {
      // In the findings box at the top of the page: on screen as the page opens.
      const finding = page.locator('section.findings li', { hasText: item });
      expect(await finding.count()).to.equal(1);
      expect(await finding.isVisible()).to.equal(true);
      const box = await finding.boundingBox();
      expect(box !== null && box.y + box.height <= 1000, `finding for ${item} is on the first screen`).to.equal(true);
      expect(await finding.textContent()).to.match(/run \d was killed/);
    }
    await page.screenshot({ path: SCREENSHOT });
  });

  it('shows the killed runs as red columns and the lost marks inside them', async () => {
    const killed = page.locator('#s1 table.timeline thead th.o-killed');
    expect(await killed.count()).to.equal(3);
    expect(await killed.allTextContents()).to.deep.equal(['run 1✕ killedam kill', 'run 3✕ killedam kill', 'run 5✕ killedam force-stop']);
    expect(await killed.first().evaluate((el) => getComputedStyle(el).backgroundColor)).to.equal('rgb(207, 34, 46)');
    const marks = page.locator('#s1 table.timeline a.mk.lost');
    expect(await marks.count()).to.equal(2);
    for (const i of [0, 1]) expect(await marks.nth(i).isVisible()).to.equal(true);
    // Each lost mark sits in a hatched (killed) cell.
    const cells = await marks.evaluateAll((els) => els.map((el) => (el as unknown as { closest(s: string): { className: string } | null }).closest('td')?.className ?? ''));
    expect(cells).to.deep.equal(['o-killed', 'o-killed']);
  });

  it('scrolls to the anomaly and its evidence when a finding is clicked', async () => {
    await page.locator('section.findings a[href="#s1-a1"]').click();
    await page.waitForFunction(() => location.hash === '#s1-a1');
    await waitInViewport(page, 's1-a1-ev');
    expect(await page.locator('#s1-a1-ev').textContent()).to.include('$ am kill com.example.feednotifier');
  });

  it('scrolls to the evidence of an anomaly from its "evidence" link', async () => {
    await page.locator('#s2-a3 a[href="#s2-a3-ev"]').click();
    await waitInViewport(page, 's2-a3-ev');
    expect(await page.locator('#s2-a3-ev').textContent()).to.include('notification_enqueue');
  });

  it('goes from a mark to its anomaly and back to the mark', async () => {
    await page.locator('#s1-a2-m').click();
    await page.waitForFunction(() => location.hash === '#s1-a2');
    await waitInViewport(page, 's1-a2-ev');
    await page.locator('#s1-a2 a[href="#s1-a2-m"]').click();
    await waitInViewport(page, 's1-a2-m');
    expect(await page.locator('#s1-a2-m').textContent()).to.equal('✕ lost');
  });

  it('hides the lanes without anomalies when asked, with no script', async () => {
    const lanes = page.locator('#s1 table.timeline tr.lane');
    expect(await lanes.count()).to.equal(15);
    await page.locator('#s1 .tl-tools input[type=checkbox]').check();
    const visible = await lanes.evaluateAll((rows) => rows.filter((r) => getComputedStyle(r).display !== 'none').length);
    expect(visible).to.equal(2);
    await page.locator('#s1 .tl-tools input[type=checkbox]').uncheck();
  });

  it('logged no error and requested nothing but the page itself', () => {
    expect(problems).to.deep.equal([]);
    const page = pathToFileURL(join(dir, 'report.html')).href;
    expect([...new Set(requests)]).to.deep.equal([page]);
  });
});

describe('dedup-verify report DIR', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('re-renders report.html and junit.xml from report.json and history.jsonl', async () => {
    const dir = await runDir('multi-device');
    dirs.push(dir);
    const io = captureIo();
    expect(await main(['node', 'dedup-verify', 'report', dir], io)).to.equal(0);
    expect(io.out).to.equal(`report.html written to ${dir}/report.html\n`);
    expect(io.err).to.equal('');
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
    const history = parseHistoryText(await readFile(join(dir, 'history.jsonl'), 'utf8'));
    expect(await readFile(join(dir, 'report.html'), 'utf8')).to.equal(renderHtmlReport(report, history));
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).to.equal(renderJunit(report));
  });

  it('writes the page without timelines, with a warning, when history.jsonl is missing', async () => {
    const dir = await runDir('failing', ['report.json']);
    dirs.push(dir);
    const io = captureIo();
    expect(await main(['node', 'dedup-verify', 'report', dir], io)).to.equal(0);
    expect(io.err).to.equal(`warning: ${dir}/history.jsonl is missing, so there are no timelines; run --out DIR writes it next to report.json.\n`);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).to.include('Timelines incomplete:');
  });

  it('exits 2 with one line naming the file and the fix when report.json is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dv-report-'));
    dirs.push(dir);
    const io = captureIo();
    expect(await main(['node', 'dedup-verify', 'report', dir], io)).to.equal(2);
    expect(io.err).to.equal(`error: No report.json in ${dir}. Pass a directory written by \`dedup-verify run --out DIR\`, or download the run's report.json and history.jsonl into it.\n`);
    expect(await exists(join(dir, 'report.html'))).to.equal(false);
  });

  it('exits 2 with one line naming the file when report.json is not a report', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dv-report-'));
    dirs.push(dir);
    await writeFile(join(dir, 'report.json'), '{"verdict": "fail", "scenarios": [');
    const io = captureIo();
    expect(await main(['node', 'dedup-verify', 'report', dir], io)).to.equal(2);
    expect(io.err.split('\n').filter((l) => l !== '')).to.have.length(1);
    expect(io.err).to.match(new RegExp(`^error: report ${join(dir, 'report.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON \\(.*\\); re-run with --out to write it again\\. Fix or replace `));
    await writeFile(join(dir, 'report.json'), '{"verdict": "maybe"}');
    const io2 = captureIo();
    expect(await main(['node', 'dedup-verify', 'report', dir], io2)).to.equal(2);
    expect(io2.err).to.equal(`error: report ${join(dir, 'report.json')} is not a dedup-verify report: verdict must be one of pass, fail, unknown, got "maybe". Fix or replace ${join(dir, 'report.json')} (run --out writes it).\n`);
  });

  it('exits 2 when DIR does not exist', async () => {
    const io = captureIo();
    const missing = join(tmpdir(), 'dv-no-such-dir-for-report');
    expect(await main(['node', 'dedup-verify', 'report', missing], io)).to.equal(2);
    expect(io.err).to.equal(`error: No directory ${missing}. Pass the directory a run wrote with --out (it holds report.json and history.jsonl).\n`);
  });
});

describe('repro/<scenario>.sh against a virtual device with the same bug', function () {
  this.timeout(120_000);
  const lab = virtualLab('dv-repro-');
  const devices = lab.devices;
  let adb: AdbServer;
  let work: string;
  before(() => ({ adb, work } = lab));

  /** Runs a script with bash, asynchronously: the virtual devices live in this process. */
  const runScript = (args: readonly string[], env: NodeJS.ProcessEnv): ReturnType<typeof runBash> => runBash(args, env, ROOT);

  /** Runs `scenario` with the harness on a device with `bug`, and writes its repro script. */
  async function record(scenario: Scenario, bug: string, apiLevel: 30 | 33 | 34) {
    const config = await loadConfig(join(ROOT, 'fixtures', 'reference-app.config.json'));
    const recorded = await devices.start({ bugs: [bug], apiLevel });
    await adb.connect(recorded.serial);
    const device = await AdbDevice.open({ serial: recorded.serial, port: adb.port });
    let outcome: Awaited<ReturnType<DeviceSession['runScenario']>>;
    try {
      const session = await DeviceSession.open({ device, config, adb: { host: '127.0.0.1', port: adb.port }, progress: () => undefined });
      try {
        outcome = await session.runScenario(scenario);
      } finally {
        await session.close();
      }
    } finally {
      await device.close();
    }
    const [script] = await writeReproScripts(join(work, scenario.name), [{ scenario: scenario.name, device: recorded.serial, pkg: config.app.package, feedDevicePort: config.feed.devicePort, steps: outcome.repro, anomalies: outcome.report.anomalies }]);
    return { report: outcome.report, script: script! };
  }

  /** Replays a script on a fresh device with `bug`; returns its exit code and output. */
  async function replay(script: string, bug: string, apiLevel: 30 | 33 | 34, waitS: number) {
    const fresh = await devices.start({ bugs: [bug], apiLevel });
    await adb.connect(fresh.serial);
    const shellOut = async (cmd: string) => (await adb.adb(['-s', fresh.serial, 'shell', cmd])).stdout.toString('utf8').trim();
    const autoTimeBefore = await shellOut('settings get global auto_time');
    // The user's own rule on the app's port: the script takes the port over and gives it back.
    await adb.adb(['-s', fresh.serial, 'reverse', 'tcp:8765', 'tcp:4321']);
    const reversesBefore = (await adb.adb(['-s', fresh.serial, 'reverse', '--list'])).stdout.toString('utf8').trim();
    expect(reversesBefore).to.match(/ tcp:8765 tcp:4321$/);
    // The app's data directory (but cache/ and code_cache/): each entry, and each file's checksum.
    const appData = async () => {
      const names = (await shellOut('run-as com.example.feednotifier ls -RA .')).replace(/\r/g, '').split(/\n\n/).filter((sec) => !/^\.\/(cache|code_cache)(\/|:)/.test(sec));
      const files = (await shellOut("run-as com.example.feednotifier ls -lRA . | grep -c '^-'")).trim();
      const db = await shellOut('run-as com.example.feednotifier md5sum databases/feed.db');
      return { names, files, db };
    };
    // The app has run once before (its databases exist): the replay's rows must not stay.
    await shellOut('am start -n com.example.feednotifier/.MainActivity');
    await shellOut('am force-stop com.example.feednotifier');
    const dataBefore = await appData();
    expect(dataBefore.db).to.match(/^[0-9a-f]{32} /);
    const result = await runScript([script, fresh.serial, String(await freePort())], {
      ANDROID_ADB_SERVER_PORT: String(adb.port),
      DEDUP_VERIFY: `${process.execPath} --import tsx ${join(ROOT, 'specs', 'support', 'cli-entry.ts')}`,
      WAIT_S: String(waitS),
    });
    // The device is left as it was found.
    expect(await shellOut('settings get global auto_time'), result.out).to.equal(autoTimeBefore);
    expect((await adb.adb(['-s', fresh.serial, 'reverse', '--list'])).stdout.toString('utf8').trim()).to.equal(reversesBefore);
    expect(await appData(), result.out).to.deep.equal(dataBefore);
    expect(result.out).to.include("repro: device clock, auto_time, the app's data and reverse rule put back; serve-feed stopped.");
    return result;
  }

  it('replays back-to-back recorded on API 34 on a fresh API 33 device: the second run posts the items again', async () => {
    const { report, script } = await record(backToBack, 'no-db-check', 34);
    expect(report.verdict).to.equal('fail');
    const duplicated = report.anomalies.filter((a) => a.kind === 'duplicated');
    expect(duplicated).to.have.length(5);

    const { code, out } = await replay(script, 'no-db-check', 33, 30);
    expect(code, out).to.equal(0);
    // The job is found on this device, without a namespace (API 33), whatever id it has.
    expect(out).to.match(/^job \d+ of com\.example\.feednotifier$/m);
    // Both forced runs post the same five notification ids (status 0: posts, not updates).
    const runs = out.split(/^== step \d+: forced run \d+$/m).slice(1);
    expect(runs).to.have.length(2);
    const posted = runs.map((r) => [...r.matchAll(/notification_enqueue: \[\d+,\d+,com\.example\.feednotifier,(-?\d+),NULL,0,.*\),0\]$/gm)].map((m) => m[1]).sort());
    expect(posted[0]).to.have.length(5);
    expect(posted[1]).to.deep.equal(posted[0]);
    for (const a of duplicated) expect(out).to.include(`>> watch: run ${a.runs?.[1] ?? ''}: here ${a.item} is posted again, already posted in run ${a.runs?.[0] ?? ''}: duplicated`);
  });

  it('replays kill-mid-run to the end: each kill waits for its request in the serve-feed log, and a run not due after a late kill is reported, not fatal', async () => {
    const { report, script } = await record(killMidRun, 'record-before-notify', 34);
    expect(report.verdict).to.equal('fail');

    const { code, out } = await replay(script, 'record-before-notify', 34, 10);
    expect(code, out).to.equal(0);
    expect(out).to.include('== done: every recorded step was replayed');
    // Every kill the harness made is made here too, in the recorded order.
    const recordedKills = [...(await readFile(script, 'utf8')).matchAll(/^say '(step \d+: (?:am kill|am force-stop|run-as) [^']*)'$/gm)].map((m) => m[1]);
    expect(recordedKills.length).to.be.greaterThan(0);
    const replayedKills = [...out.matchAll(/^== (step \d+: (?:am kill|am force-stop|run-as) .*)$/gm)].map((m) => m[1]);
    expect(replayedKills).to.deep.equal(recordedKills);
    // A run that did not come is excused only by a kill before it (placed approximately).
    const lines = out.split('\n');
    lines.forEach((line, i) => {
      const m = /because the kill of step (\d+) was not replayed exactly/.exec(line);
      if (!line.includes('no WM-WorkerWrapper result line')) return;
      expect(m, out).to.not.equal(null);
      expect(lines.slice(0, i).some((l) => l.startsWith(`== step ${m![1]!}: `)), out).to.equal(true);
    });
  });
});
