import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderConsoleReport } from '../../../src/report/console.js';
import { readJsonReport, renderJsonReport, writeJsonReport } from '../../../src/report/json.js';
import { escapeXml, renderJunit, writeJunit } from '../../../src/report/junit.js';
import type { RunReport, ScenarioReport } from '../../../src/report/types.js';
import { findAll, parseXml, type XmlNode } from './tiny-xml.js';

const D1 = '127.0.0.1:5555';
const D2 = 'emulator-5554';
const ZERO = { lostCount: 0, duplicatedCount: 0, unexpectedCount: 0, outOfOrderCount: 0, notifiedCount: 0, recoveredCount: 0, shedCount: 0, eligibleCount: 0 };
const WEIRD = 'https://e/?a=1&b=<2>"\'';

function scenario(name: string, device: string, verdict: ScenarioReport['verdict'], extra: Partial<ScenarioReport> = {}): ScenarioReport {
  return { name, device, verdict, durationMs: 1500, counts: { ...ZERO, notifiedCount: 3, eligibleCount: 3 }, anomalies: [], ...extra };
}

function report(scenarios: ScenarioReport[], extra: Partial<RunReport> = {}): RunReport {
  return {
    verdict: 'fail', device: `${D1}, ${D2}`, app: { package: 'com.example.feednotifier' },
    startedAt: '2024-06-01T12:00:00.000Z', durationMs: 12_345, scenarios, ...extra,
  };
}

const duplicated = scenario('back-to-back', D2, 'fail', {
  counts: { ...ZERO, duplicatedCount: 2, notifiedCount: 6, eligibleCount: 3 },
  anomalies: [
    { kind: 'duplicated', item: WEIRD, epoch: 0, runs: [1, 2], detail: 'notified 2 times in epoch 0: runs 1 and 2' },
    { kind: 'duplicated', item: 'https://e/b', epoch: 0, runs: [1, 2], detail: 'notified 2 times in epoch 0: runs 1 and 2', evidence: ['I notification_enqueue: [10190,...]'] },
  ],
});

const MIXED = report([
  scenario('back-to-back', D1, 'pass'),
  duplicated,
  scenario('missed-run', D1, 'unknown', { error: 'device 127.0.0.1:5555 went away (adb: device offline)', counts: ZERO }),
  scenario('durable-identity', D2, 'skipped', { error: 'needs sqlite3 on the device', counts: ZERO, durationMs: 0 }),
]);

function testcases(xml: string): XmlNode[] {
  return findAll(parseXml(xml), 'testcase');
}

describe('reporters', () => {
  describe('junit.xml', () => {
    it('has a testsuite per device and a testcase per scenario x device, with the serial', () => {
      const root = parseXml(renderJunit(MIXED));
      expect(root.name).to.equal('testsuites');
      expect(root.attrs).to.deep.include({ name: 'dedup-verify', tests: '4', failures: '1', errors: '1', skipped: '1', time: '12.345' });
      const suites = findAll(root, 'testsuite');
      expect(suites.map((s) => [s.attrs['name'], s.attrs['tests'], s.attrs['failures'], s.attrs['errors'], s.attrs['skipped']])).to.deep.equal([
        [`dedup-verify.${D1}`, '2', '0', '1', '0'],
        [`dedup-verify.${D2}`, '2', '1', '0', '1'],
      ]);
      expect(testcases(renderJunit(MIXED)).map((c) => [c.attrs['name'], c.attrs['classname'], c.attrs['device'], c.attrs['time']])).to.deep.equal([
        ['back-to-back', `dedup-verify.${D1}`, D1, '1.500'],
        ['missed-run', `dedup-verify.${D1}`, D1, '1.500'],
        ['back-to-back', `dedup-verify.${D2}`, D2, '1.500'],
        ['durable-identity', `dedup-verify.${D2}`, D2, '0.000'],
      ]);
    });

    it('puts a failure listing the anomalies on a failed scenario, XML-escaped', () => {
      const failed = testcases(renderJunit(MIXED)).find((c) => c.attrs['device'] === D2 && c.attrs['name'] === 'back-to-back')!;
      const failure = failed.children.find((c) => c.name === 'failure')!;
      expect(failure.attrs).to.deep.equal({ message: '2 anomalies: 2 duplicated', type: 'duplicated' });
      expect(failure.text).to.equal([
        `duplicated ${WEIRD} runs 1,2: notified 2 times in epoch 0: runs 1 and 2`,
        'duplicated https://e/b runs 1,2: notified 2 times in epoch 0: runs 1 and 2',
        '  evidence: I notification_enqueue: [10190,...]',
      ].join('\n'));
      expect(failed.children.map((c) => c.name)).to.deep.equal(['failure']);
    });

    it('puts an error on an unknown scenario and skipped on a skipped one', () => {
      const cases = testcases(renderJunit(MIXED));
      const unknown = cases.find((c) => c.attrs['name'] === 'missed-run')!;
      expect(unknown.children.map((c) => [c.name, c.attrs['message'], c.attrs['type']])).to.deep.equal([
        ['error', 'device 127.0.0.1:5555 went away (adb: device offline)', 'unknown'],
      ]);
      const skipped = cases.find((c) => c.attrs['name'] === 'durable-identity')!;
      expect(skipped.children.map((c) => [c.name, c.attrs['message']])).to.deep.equal([['skipped', 'needs sqlite3 on the device']]);
      const passed = cases.find((c) => c.attrs['name'] === 'back-to-back' && c.attrs['device'] === D1)!;
      expect(passed.children).to.deep.equal([]);
    });

    it('merges repeats into one testcase with violations / trials and the 95% interval', () => {
      const lost = { kind: 'lost', item: 'https://e/k1', run: 1, epoch: 0, detail: 'never notified in epoch 0, although eligible from run 1 on ("K1", published 2024-06-01T09:00:00.000Z)' };
      const xml = renderJunit(report([
        scenario('kill-mid-run', D1, 'pass', { repeat: 1 }),
        scenario('kill-mid-run', D1, 'fail', { repeat: 2, anomalies: [lost] }),
        scenario('kill-mid-run', D1, 'pass', { repeat: 3 }),
      ], { device: D1 }));
      const cases = testcases(xml);
      expect(cases).to.have.length(1);
      const failure = cases[0]!.children[0]!;
      expect(failure.name).to.equal('failure');
      expect(failure.attrs['message']).to.equal('1 anomaly: 1 lost; 1/3 trials violated (95% interval 6.1%-79.2%)');
      expect(failure.text).to.equal(`1/3 trials violated (95% interval 6.1%-79.2%)\nlost https://e/k1 run 1 trial 2: ${lost.detail}`);
      expect(cases[0]!.attrs['time']).to.equal('4.500');
    });

    it('lists tolerated anomalies and evidence of a passing scenario in system-out', () => {
      const xml = renderJunit(report([scenario('kill-mid-run', D1, 'pass', {
        anomalies: [{ kind: 'duplicated', item: 'https://e/k2', runs: [1, 2], tolerated: true, detail: 'notified 2 times in epoch 0: runs 1 and 2; tolerated: allowedDuplicates is 1' }],
        evidence: ['kill point: between the 1st notification and its row (am kill)'],
      })], { verdict: 'pass', device: D1 }));
      const out = testcases(xml)[0]!.children;
      expect(out.map((c) => c.name)).to.deep.equal(['system-out']);
      expect(out[0]!.text).to.equal([
        'duplicated (tolerated) https://e/k2 runs 1,2: notified 2 times in epoch 0: runs 1 and 2; tolerated: allowedDuplicates is 1',
        'evidence: kill point: between the 1st notification and its row (am kill)',
      ].join('\n'));
    });

    it('escapes the five special characters and drops characters XML forbids', () => {
      expect(escapeXml('a<b>&"c\'\u0001\u0007d\te')).to.equal('a&lt;b&gt;&amp;&quot;c&apos;d\te');
    });

    it('writes the file', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dv-junit-'));
      try {
        await writeJunit(join(dir, 'junit.xml'), MIXED);
        expect(await readFile(join(dir, 'junit.xml'), 'utf8')).to.equal(renderJunit(MIXED));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('report.json', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'dv-json-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('round-trips with the docs/design.md §9 field names', async () => {
      const path = join(dir, 'report.json');
      await writeJsonReport(path, MIXED);
      const text = await readFile(path, 'utf8');
      expect(text).to.equal(renderJsonReport(MIXED));
      const json = JSON.parse(text) as Record<string, unknown> & { scenarios: Record<string, unknown>[] };
      expect(json).to.include.keys('verdict', 'device', 'app', 'startedAt', 'durationMs', 'scenarios');
      expect(json.scenarios[1]).to.include.keys('name', 'device', 'verdict', 'durationMs', 'counts', 'anomalies');
      expect(json.scenarios[1]!['counts']).to.include.keys('lostCount', 'duplicatedCount', 'unexpectedCount', 'outOfOrderCount', 'notifiedCount');
      expect(await readJsonReport(path)).to.deep.equal(MIXED);
    });

    it('says what is wrong with a file that is not a report', async () => {
      const path = join(dir, 'report.json');
      await writeFile(path, JSON.stringify({ verdict: 'pass', device: D1, app: {}, scenarios: [{ name: 'x', verdict: 'maybe', anomalies: [], counts: {} }] }));
      let error: unknown;
      try {
        await readJsonReport(path);
      } catch (e) {
        error = e;
      }
      expect((error as Error).message).to.equal(`report ${path} is not a dedup-verify report: scenarios[0].verdict must be one of pass, fail, unknown, skipped, got "maybe"`);
    });
  });

  describe('console', () => {
    it('prints the table, the anomalies and the verdict of one device', () => {
      const one = report([scenario('back-to-back', D2, 'fail', { ...duplicated, durationMs: 4200 }), scenario('missed-run', D2, 'pass', { durationMs: 61_000 })], { device: D2 });
      expect(renderConsoleReport(one)).to.equal([
        `dedup-verify: com.example.feednotifier on ${D2}`,
        '',
        'scenario      verdict  lost  dup  unexp  order  notified  violated   time',
        '------------  -------  ----  ---  -----  -----  --------  --------  -----',
        'back-to-back  FAIL        0    2      0      0         6            4.2 s',
        'missed-run    PASS        0    0      0      0         3            1 min',
        '',
        'anomalies:',
        '  back-to-back (fail):',
        `    duplicated ${WEIRD} runs 1,2: notified 2 times in epoch 0: runs 1 and 2`,
        '    duplicated https://e/b runs 1,2: notified 2 times in epoch 0: runs 1 and 2',
        '      evidence: I notification_enqueue: [10190,...]',
        '',
        'verdict: FAIL (1 pass, 1 fail, 0 unknown, 0 skipped) in 12.3 s',
        '',
      ].join('\n'));
    });

    it('adds the device column, the per-scenario aggregate and tainted devices for several devices', () => {
      const text = renderConsoleReport(report([
        scenario('back-to-back', D1, 'pass'),
        scenario('back-to-back', D1, 'pass'),
        duplicated,
      ], { devices: [{ serial: D1, verdict: 'pass', tainted: true }, { serial: D2, verdict: 'fail' }] }));
      const lines = text.split('\n');
      expect(lines[2]).to.equal('scenario      device          verdict  lost  dup  unexp  order  notified  violated   time');
      expect(lines[4]).to.equal(`back-to-back  ${D1}  PASS        0    0      0      0         6       0/2    3 s`);
      expect(lines[5]).to.equal(`back-to-back  ${D2}   FAIL        0    2      0      0         6            1.5 s`);
      expect(text).to.contain('per scenario, all devices and repeats:\n');
      expect(text).to.contain('\n  back-to-back  FAIL            1/3  6.1%-79.2%          2\n');
      expect(text).to.contain(`device ${D1}: pass, TAINTED (could not be restored: run dedup-verify restore --device ${D1})\n`);
    });
  });
});
