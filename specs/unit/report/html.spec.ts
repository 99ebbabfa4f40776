/**
 * report.html as text: escaping of hostile items and titles, no external URL, every anomaly
 * listed with its anchors (evidence, timeline mark, back links), killed runs and lost items
 * marked, marks counted and capped, trials and devices split, and writeHtmlReport on files.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHistory } from '../../../src/checker/index.js';
import type { HistoryEvent } from '../../../src/history/events.js';
import { parseHistoryText } from '../../../src/history/jsonl.js';
import { renderHtmlReport, writeHtmlReport } from '../../../src/report/html/render.js';
import { escapeHtml } from '../../../src/report/html/escape.js';
import type { RunReport, ScenarioReport } from '../../../src/report/types.js';
import { A, B, C, H, T, WINDOW, fetched, forgotten, notified, published, run, runFinished, runStarted, stored } from '../checker/builders.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'reports');

async function loadFixture(name: string): Promise<{ report: RunReport; history: HistoryEvent[] }> {
  const dir = join(FIXTURES, name);
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
  const history = parseHistoryText(await readFile(join(dir, 'history.jsonl'), 'utf8'), join(dir, 'history.jsonl'));
  return { report, history };
}

function ids(html: string): string[] {
  return [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!);
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]!);
}

/** The element text from the tag holding `id="…"` to the end of `html` (for local checks). */
function from(html: string, id: string): string {
  const at = html.indexOf(` id="${id}"`);
  expect(at, `no element with id ${id}`).to.be.greaterThan(-1);
  return html.slice(html.lastIndexOf('<', at));
}

/** The `<li …>…</li>` of an anomaly (anomaly entries hold no nested <li> beyond their story list). */
function anomalyEntry(html: string, id: string): string {
  const rest = from(html, id);
  const end = rest.indexOf('<div class="a-links">');
  return rest.slice(0, rest.indexOf('</li>', end) + 5);
}

/** A section of the page: from `<section … id="sN"` to its end. */
function section(html: string, id: string): string {
  const rest = from(html, id);
  return rest.slice(0, rest.indexOf('</section>') + '</section>'.length);
}

/** The timeline tables of a piece of the page (without the legends, which show sample marks). */
function tables(html: string): string {
  return [...html.matchAll(/<table class="timeline">[^]*?<\/table>/g)].map((m) => m[0]).join('\n');
}

function count(html: string, pattern: RegExp): number {
  return [...html.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))].length;
}

function scenarioReport(name: string, history: HistoryEvent[], extra: Partial<ScenarioReport> = {}, allowedDuplicates = 0): ScenarioReport {
  const check = checkHistory(history, { windowMs: WINDOW, allowedDuplicates });
  return {
    name, device: 'emulator-5554', verdict: check.verdict, durationMs: 1000, counts: check.counts,
    anomalies: check.anomalies.map(({ scenario: _s, ...a }) => a), ...extra,
  };
}

function runReport(scenarios: ScenarioReport[], extra: Partial<RunReport> = {}): RunReport {
  const verdict = scenarios.some((s) => s.verdict === 'fail') ? 'fail' : scenarios.some((s) => s.verdict === 'unknown') ? 'unknown' : 'pass';
  return { verdict, device: 'emulator-5554', app: { package: 'com.example.feednotifier' }, startedAt: '2024-06-01T12:00:00.000Z', durationMs: 5000, scenarios, tool: { name: 'dedup-verify', version: '0.1.0' }, ...extra };
}

function segment(scenario: string, device = 'emulator-5554', allowedDuplicates = 0): HistoryEvent {
  return { type: 'config', windowMs: WINDOW, allowedDuplicates, device, scenario };
}

describe('report.html', () => {
  describe('the failing fixture (kill-mid-run under record-before-notify, duplicates, out of order)', () => {
    let html: string;
    let report: RunReport;
    before(async () => {
      const f = await loadFixture('failing');
      report = f.report;
      html = renderHtmlReport(f.report, f.history);
    });

    it('is one HTML document with the verdict, device, app facts, start, duration and tool version in the header', () => {
      expect(html.startsWith('<!DOCTYPE html>')).to.equal(true);
      const header = html.slice(html.indexOf('<header'), html.indexOf('</header>'));
      expect(header).to.include('FAIL');
      expect(header).to.include('emulator-5554');
      expect(header).to.include('API 34, sdk_gphone64_x86_64');
      expect(header).to.include('com.example.feednotifier');
      expect(header).to.include('1.4.2 (142)');
      expect(header).to.include('2024-06-01 12:00:03.512 UTC');
      expect(header).to.include('19.9 s');
      expect(header).to.include('dedup-verify 0.1.0');
      expect(header).to.include('2 lost, 3 duplicated, 3 out of order');
    });

    it('names every lost item verbatim and marks it lost in the column of its killed run', () => {
      const kill = report.scenarios.find((s) => s.name === 'kill-mid-run')!;
      const lost = kill.anomalies.filter((a) => a.kind === 'lost');
      expect(lost.map((a) => a.run)).to.deep.equal([3, 5]);
      const s1 = section(html, 's1');
      for (const [k, a] of lost.entries()) {
        expect(html).to.include(a.item);
        const id = `s1-a${k + 1}`;
        // The anomaly entry: kind, item, its run with the killed outcome, evidence naming the kill.
        const entry = anomalyEntry(html, id);
        expect(entry).to.include('badge b-lost');
        expect(entry).to.include(a.item);
        expect(entry).to.match(new RegExp(`href="#s1-run${a.run}">run ${a.run}</a> <span class="badge b-killed">killed</span>`));
        expect(entry).to.match(/\$ am (kill|force-stop) com\.example\.feednotifier/);
        expect(entry).to.include(`<b>Reading:</b> Its row was stored in run ${a.run}, which was killed, and it was never posted: the row was written before the notification`);
        expect(entry).to.include(`href="#${id}-ev"`);
        expect(entry).to.include(`href="#${id}-m"`);
        // The mark: a "lost" link back to the anomaly, in a hatched killed cell.
        const mark = new RegExp(`<td class="o-killed">[^]*?<a class="mk lost" href="#${id}" id="${id}-m"`);
        expect(s1).to.match(mark);
      }
      expect(count(tables(s1), /class="mk lost"/)).to.equal(2);
    });

    it('shows each killed run as a killed column and a killed entry in the runs list, with the kill command', () => {
      const s1 = section(html, 's1');
      const killedHeaders = [...s1.matchAll(/<th class="col run o-killed"[^>]*>(.*?)<\/th>/g)].map((m) => m[1]!);
      expect(killedHeaders).to.have.length(3);
      expect(killedHeaders.map((h) => /run (\d+)/.exec(h)?.[1])).to.deep.equal(['1', '3', '5']);
      expect(killedHeaders[1]).to.include('am kill');
      expect(killedHeaders[2]).to.include('am force-stop');
      expect(from(s1, 's1-run3').slice(0, 400)).to.match(/^<li id="s1-run3" class="o-killed">/);
    });

    it('puts the failing anomalies up front, each linked to its entry, with the kill that caused a loss', () => {
      const findings = html.slice(html.indexOf('<section class="findings"'), html.indexOf('</section>', html.indexOf('<section class="findings"')));
      expect(count(findings, /<li>/)).to.equal(8);
      expect(findings).to.include('href="#s1-a1"');
      expect(findings).to.include('run 3 was killed (am kill while POST /receipts (request 9) was held)');
      expect(findings).to.include('run 5 was killed (am force-stop while POST /receipts (request 18) was held)');
    });

    it('lists every anomaly with kind, item, runs and detail; every link lands on an id of the page', () => {
      for (const [i, s] of report.scenarios.entries()) {
        s.anomalies.forEach((a, k) => {
          const entry = anomalyEntry(html, `s${i + 1}-a${k + 1}`);
          expect(entry).to.include(`badge b-${a.kind}`);
          expect(entry).to.include(escapeHtml(a.item));
          expect(entry).to.include(escapeHtml(a.detail));
          for (const r of a.runs ?? (a.run !== undefined ? [a.run] : [])) expect(entry).to.include(`>run ${r}</a>`);
          for (const line of a.evidence ?? []) expect(entry).to.include(escapeHtml(line.trim()));
        });
      }
      const known = new Set(ids(html));
      expect(ids(html).length).to.equal(known.size, 'ids are unique');
      const internal = hrefs(html).filter((h) => h.startsWith('#'));
      expect(internal.length).to.be.greaterThan(40);
      for (const h of internal) expect(known.has(h.slice(1)), `dangling link ${h}`).to.equal(true);
    });

    it('marks the second posts of duplicated items and the posts out of order, linked to their anomalies', () => {
      const b2b = section(html, 's2');
      expect(count(tables(b2b), /<a class="mk post a-duplicated" href="#s2-a\d"/)).to.equal(3);
      expect(b2b).to.match(/<a class="mk post a-duplicated" href="#s2-a1" id="s2-a1-m"[^>]*>P2<\/a>/);
      const order = section(html, 's3');
      expect(count(tables(order), /<a class="mk post a-out-of-order"/)).to.equal(3);
      // The place of each post in its run, where the order is the finding: 4, 3, 2 for items 1..3.
      expect([...order.matchAll(/a-out-of-order[^>]*>P<\/a><span class="seq"[^>]*>(\d)<\/span>/g)].map((m) => m[1])).to.deep.equal(['4', '3', '2']);
    });

    it('draws one post mark per notified post of the history, one row mark per stored row', async () => {
      const { history } = await loadFixture('failing');
      const segments: HistoryEvent[][] = [];
      for (const e of history) if (e.type === 'config') segments.push([]); else segments[segments.length - 1]!.push(e);
      segments.forEach((events, i) => {
        const s = section(html, `s${i + 1}`);
        const posts = events.filter((e) => e.type === 'notified' && e.status === 'post').length;
        const rows = events.filter((e) => e.type === 'stored').length;
        expect(count(tables(s), /class="mk post\b/), `posts in s${i + 1}`).to.equal(posts);
        expect(count(tables(s), /class="mk stored\b/), `rows in s${i + 1}`).to.equal(rows);
      });
    });

    it('shows the clock of each run start and the jump since the previous run', () => {
      const s1 = section(html, 's1');
      expect(s1).to.include('<span title="2024-06-03 12:00:07.100 UTC">06-03 12:00:07</span>');
      expect(s1).to.match(/06-03 12:00:07<\/span><br><span class="jump big"[^>]*>\+24 h<\/span>/);
    });

    it('lists the scenario notes', () => {
      const notes = section(html, 's1');
      expect(notes).to.include('<ul class="notes">');
      expect(notes).to.include(escapeHtml('kill point "between the 1st notification and its row (am kill)": killed run 3 posted [] and stored [k2-item-1]'));
    });

    it('has the verdict table: a row per scenario and device with counts and duration', () => {
      const table = html.slice(html.indexOf('<section aria-labelledby="verdicts-h">'));
      expect(table).to.match(/<tr class="row-fail"><td><a href="#s1">kill-mid-run<\/a><\/td><td><span class="badge b-fail">fail<\/span><\/td><td class="num bad">2<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">13<\/td><td class="num"><\/td><td class="num">8.4 s<\/td><\/tr>/);
      expect(table).to.match(/<a href="#s4">title-edit<\/a><\/td><td><span class="badge b-pass">pass<\/span>/);
    });

    it('is the same text every time (pure)', async () => {
      const f = await loadFixture('failing');
      expect(renderHtmlReport(f.report, f.history)).to.equal(html);
    });
  });

  describe('nothing is fetched', () => {
    it('has no src attribute, only in-page links, no url() or @import, and a CSP that forbids every load', async () => {
      for (const name of ['failing', 'passing', 'multi-device']) {
        const f = await loadFixture(name);
        const html = renderHtmlReport(f.report, f.history);
        expect(html).not.to.match(/\ssrc\s*=/i);
        expect(hrefs(html).every((h) => h.startsWith('#'))).to.equal(true);
        expect(html).not.to.match(/url\s*\(/i);
        expect(html).not.to.match(/@import/i);
        expect(html).not.to.match(/<(script|link|img|iframe|object|embed|base)\b/i);
        expect(html).to.include(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`);
        // Items are URLs: they appear as text only.
        expect(html).not.to.match(/href="https?:/);
      }
    });
  });

  describe('escaping', () => {
    const EVIL_ITEM = `https://e.test/a?x=1&y=<script>alert(1)</script>"'><img src=x onerror=alert(2)>`;
    const EVIL_TITLE = `</th></tr><script>alert("t")</script><a href="https://evil.test/">x</a> & 'q'`;
    const EVIL_EVIDENCE = `</pre><script src="https://evil.test/e.js"></script> notification_enqueue: [10190,…]`;

    function hostile(): { report: RunReport; history: HistoryEvent[] } {
      const events: HistoryEvent[] = [
        published(T, EVIL_ITEM, T - 2 * H, EVIL_TITLE),
        published(T, A, T - 3 * H),
        runStarted(T + 10, 1),
        fetched(T + 11, 1, [EVIL_ITEM, A]),
        { type: 'notified', t: T + 12, run: 1, item: EVIL_ITEM, status: 'post', evidence: [EVIL_EVIDENCE] },
        stored(T + 13, 1, EVIL_ITEM),
        { type: 'run-finished', t: T + 14, run: 1, outcome: 'killed', evidence: ['$ am kill <pkg>&"\''] },
        runStarted(T + 24 * H, 2),
        fetched(T + 24 * H + 1, 2, [EVIL_ITEM, A]),
        notified(T + 24 * H + 2, 2, EVIL_ITEM),
        runFinished(T + 24 * H + 3, 2),
      ];
      const s = scenarioReport(`kill<b>"mid"</b>`, events, { device: `dev<i>'1'</i>`, error: '<script>alert("e")</script>', evidence: ['note </li><script>x</script>'] });
      const history: HistoryEvent[] = [segment(s.name, s.device), ...events];
      return { report: runReport([s], { device: s.device, app: { package: `com.evil"><script>alert(3)</script>`, versionName: '<v>' }, devices: [{ serial: s.device, verdict: 'fail', model: '<model>' }] }), history };
    }

    it('escapes items, titles, evidence, device, package, scenario names, notes and errors everywhere', () => {
      const { report, history } = hostile();
      expect(report.scenarios[0]!.anomalies.map((a) => a.kind)).to.deep.equal(['lost', 'duplicated']);
      const html = renderHtmlReport(report, history);
      expect(html).not.to.match(/<(script|img|v|model)\b/i);
      expect(html).not.to.include(`<i>'1'</i>`);
      expect(html).not.to.include('<b>"mid"</b>');
      expect(html).not.to.include('href="https://evil.test');
      expect(html).to.include(escapeHtml(EVIL_ITEM));
      expect(html).to.include(escapeHtml(EVIL_TITLE));
      expect(html).to.include(escapeHtml(EVIL_EVIDENCE));
      expect(html).to.include('kill&lt;b&gt;&quot;mid&quot;&lt;/b&gt;');
      expect(html).to.include('dev&lt;i&gt;&#39;1&#39;&lt;/i&gt;');
      expect(html).to.include('com.evil&quot;&gt;&lt;script&gt;');
      // Every attribute value is quoted and holds no raw quote or angle bracket.
      for (const m of html.matchAll(/\s[a-z-]+="([^"]*)"/g)) expect(m[1]).not.to.match(/[<>]/);
      // The table structure survives the title: as many row ends as row starts.
      expect(count(html, /<tr\b/)).to.equal(count(html, /<\/tr>/));
      expect(count(html, /<li\b/)).to.equal(count(html, /<\/li>/));
      expect(count(html, /<pre\b/)).to.equal(count(html, /<\/pre>/));
    });

    it('escapeHtml turns every markup character into an entity and drops control characters', () => {
      expect(escapeHtml(`<a href="x">'&'</a>\u0000\u0007`)).to.equal('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\uFFFD\uFFFD');
      expect(escapeHtml('line\nnext\ttab')).to.equal('line\nnext\ttab');
    });
  });

  describe('large histories are capped, and the report says so', () => {
    function manyRuns(runs: number, lostRun: number): { report: RunReport; history: HistoryEvent[] } {
      const events: HistoryEvent[] = [published(T, A, T - H), published(T, B, T - H)];
      for (let r = 1; r <= runs; r++) {
        const t = T + r * 1000;
        if (r === lostRun) events.push(published(t, C, t - H));
        events.push(runStarted(t, r), fetched(t + 1, r, r === lostRun ? [A, B, C] : [A]));
        if (r === lostRun) {
          events.push(stored(t + 2, r, C), { type: 'run-finished', t: t + 3, run: r, outcome: 'killed' });
        } else {
          // Notified once, then updated silently (FLAG_ONLY_ALERT_ONCE): many marks, none failing.
          const again: HistoryEvent = { type: 'notified', t: t + 2, run: r, item: A, status: 'update', alertOnce: true };
          events.push(r === 1 ? notified(t + 2, r, A) : again, runFinished(t + 3, r, 'success'));
        }
      }
      const s = scenarioReport('kill-mid-run', events, {}, 1000);
      return { report: runReport([s]), history: [segment('kill-mid-run', 'emulator-5554', 1000), ...events] };
    }

    it('draws at most maxRuns run columns, the runs named by an anomaly and killed runs first', () => {
      const { report, history } = manyRuns(100, 77);
      expect(report.scenarios[0]!.anomalies.filter((a) => a.kind === 'lost').map((a) => a.run)).to.deep.equal([77]);
      const html = renderHtmlReport(report, history, { maxRuns: 20 });
      expect(count(html, /<th class="col run /)).to.equal(20);
      expect(html).to.match(/<th class="col run o-killed"[^>]*><a href="#s1-run77">run 77<\/a>/);
      expect(html).to.include('class="mk lost" href="#s1-a');
      expect(html).to.include('Not everything is drawn: 20 of 100 runs drawn (runs named by an anomaly, killed and refused runs first; at most 20).');
      expect(html).to.match(/<th class="omitted"[^>]*>⋯<br>runs 20–76<br>not drawn<\/th>/);
    });

    it('draws at most maxMarksPerLane marks per lane and counts the rest next to the item', () => {
      const { report, history } = manyRuns(100, 77);
      const html = renderHtmlReport(report, history, { maxMarksPerLane: 10, maxRuns: 1000 });
      const laneA = from(html, 's1-l0');
      const row = laneA.slice(0, laneA.indexOf('</tr>'));
      // A is published (1), served in 100 runs and notified in 99: 10 marks drawn, 190 counted.
      expect(count(row, /class="mk /)).to.equal(10);
      expect(row).to.include('title="190 more marks not drawn (at most 10 per lane)">+190</span>');
      expect(html).to.include('more than 10 marks: the first ones are drawn');
    });

    it('gives lanes to the items named by an anomaly before the others', () => {
      const events: HistoryEvent[] = [];
      const items = Array.from({ length: 300 }, (_, i) => `https://feed.example/item-${i}`);
      for (const item of items) events.push(published(T, item, T - H));
      events.push(runStarted(T + 1000, 1), fetched(T + 1001, 1, items));
      for (const item of items.slice(0, 299)) events.push(notified(T + 1002, 1, item), stored(T + 1003, 1, item));
      events.push(runFinished(T + 1004, 1));
      const s = scenarioReport('first-install', events);
      expect(s.anomalies.map((a) => [a.kind, a.item])).to.deep.equal([['lost', items[299]]]);
      const html = renderHtmlReport(runReport([s]), [segment('first-install'), ...events], { maxLanes: 50 });
      expect(count(html, /<tr class="lane[ "]/)).to.equal(50);
      expect(html).to.match(/<tr class="lane anomalous k-lost" id="s1-l\d+"><th scope="row"><span class="badge b-lost">lost<\/span> <span class="lane-name" title="https:\/\/feed.example\/item-299">/);
      expect(html).to.include('250 more items without a lane (at most 50 lanes; items named by an anomaly first)');
    });
  });

  describe('trials, devices and segments', () => {
    it('gives each device its section and each trial its timeline, with the aggregate table', async () => {
      const f = await loadFixture('multi-device');
      const html = renderHtmlReport(f.report, f.history);
      const titles = [...html.matchAll(/<div class="s-head"><h2 id="(s\d+)-h">([^<]*)<\/h2> <span class="badge b-(\w+)">\w+<\/span> <span>on <code>([^<]*)<\/code>/g)].map((m) => [m[1], m[2], m[3], m[4]]);
      expect(titles).to.deep.equal([
        ['s1', 'back-to-back', 'pass', 'emulator-5554'],
        ['s2', 'missed-run', 'pass', 'emulator-5554'],
        ['s3', 'back-to-back', 'fail', '127.0.0.1:5556'],
        ['s4', 'missed-run', 'unknown', '127.0.0.1:5556'],
      ]);
      expect(html).to.include('<div class="entry" id="s3-t2">');
      expect(section(html, 's3')).to.match(/<h3>trial 2 <span class="badge b-fail">fail<\/span><\/h3>/);
      expect(count(tables(section(html, 's3')), /class="mk post a-duplicated"/)).to.equal(3);
      expect(html).to.include('Per scenario, all devices and repeats');
      expect(html).to.match(/<td class="num">1\/2 <span class="muted">\(95% 9\.5%–90\.5%\)<\/span><\/td>/);
      // The refused run is the finding that leaves missed-run undecided; its mark is the run column.
      expect(html).to.include('What could not be decided');
      expect(anomalyEntry(html, 's4-a1')).to.match(/href="#s4-c\d+">on the timeline ↑<\/a>/);
      expect(html).to.match(/<th class="col run o-refused"[^>]*id="s4-c\d+"/);
    });

    it('splits a scenario entry whose repeats were merged back into its trials by the anomalies’ trial', () => {
      const trial = (posts: string[], first: number): HistoryEvent[] => [published(T, A, T - H), ...run(first, T, [A], [A]), ...run(first + 1, T + 24 * H, [A], posts)];
      const one = trial([], 1);
      const two = trial([A], 3);
      const merged: ScenarioReport = {
        ...scenarioReport('back-to-back', two), trials: 2, violations: 1, undecided: 0, interval95: { low: 0.09, high: 0.9 },
        anomalies: scenarioReport('back-to-back', two).anomalies.map((a) => ({ ...a, trial: 2 })),
      };
      const html = renderHtmlReport(runReport([merged]), [segment('back-to-back'), ...one, segment('back-to-back'), ...two]);
      expect(html).to.include('<div class="entry" id="s1-t1">');
      expect(html).to.include('<div class="entry" id="s1-t2">');
      const t1 = from(html, 's1-t1');
      expect(t1.slice(0, t1.indexOf('id="s1-t2"'))).to.include('<h3 id="s1-t1-anomalies">Anomalies (0)</h3>');
      expect(from(html, 's1-t2')).to.include('<a class="mk post a-duplicated" href="#s1-t2-a1" id="s1-t2-a1-m"');
    });

    it('attaches a history without scenario names to the only scenario, and says when there is none', () => {
      const events = [published(T, A, T - H), ...run(1, T, [A], [A]), forgotten(T + H, [A]), ...run(2, T + 24 * H, [A], [A])];
      const s = scenarioReport('db-is-truth', events);
      const html = renderHtmlReport(runReport([s]), [{ type: 'config', windowMs: WINDOW }, ...events]);
      expect(count(tables(html), /class="mk post\b/)).to.equal(2);
      expect(count(tables(html), /class="mk forgotten\b/)).to.equal(1);
      expect(html).to.include('rows deleted');
      const bare = renderHtmlReport(runReport([s]), []);
      expect(bare).to.include('No history segment for db-is-truth on emulator-5554 in history.jsonl.');
    });

    it('shows a passing report without a findings box', async () => {
      const f = await loadFixture('passing');
      const html = renderHtmlReport(f.report, f.history);
      expect(html).to.include('<header class="page v-pass">');
      expect(html).not.to.include('What failed');
      // The tolerated duplicates of the correct app are listed, not alarmed about.
      expect(html).to.include('duplicated (tolerated)');
      expect(html).to.include('class="mk post a-tolerated"');
      // The reading of the notify-then-record window: notified by the killed run, notified again after it.
      expect(html).to.include('<b>Reading:</b> Notified in run 3, which was killed before its row was stored; run 4 notified it again: the notify-then-record window (tolerated: the kill excuses one item).');
    });
  });

  describe('writeHtmlReport', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'dv-html-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('reads dir/history.jsonl and writes dir/report.html, the same page as renderHtmlReport', async () => {
      await copyFile(join(FIXTURES, 'failing', 'history.jsonl'), join(dir, 'history.jsonl'));
      const f = await loadFixture('failing');
      const warnings: string[] = [];
      await writeHtmlReport(dir, f.report, { onWarning: (w) => warnings.push(w) });
      expect(await readFile(join(dir, 'report.html'), 'utf8')).to.equal(renderHtmlReport(f.report, f.history));
      expect(warnings).to.deep.equal([]);
    });

    it('writes the page without timelines when history.jsonl is missing, and says so', async () => {
      const f = await loadFixture('failing');
      const warnings: string[] = [];
      await writeHtmlReport(dir, f.report, { onWarning: (w) => warnings.push(w) });
      const html = await readFile(join(dir, 'report.html'), 'utf8');
      expect(warnings).to.deep.equal([`${join(dir, 'history.jsonl')} is missing, so there are no timelines; run --out DIR writes it next to report.json.`]);
      expect(html).to.include('Timelines incomplete:');
      expect(html).to.include('https://feed.dedup-verify.test/5f3a9c1e/kill-mid-run/k2-item-1');
    });

    it('keeps what it read before a broken line and names the line', async () => {
      const f = await loadFixture('failing');
      const lines = (await readFile(join(FIXTURES, 'failing', 'history.jsonl'), 'utf8')).split('\n');
      await writeFile(join(dir, 'history.jsonl'), [...lines.slice(0, 30), '{"type":"notified","t":1}', ...lines.slice(30)].join('\n'));
      const warnings: string[] = [];
      await writeHtmlReport(dir, f.report, { onWarning: (w) => warnings.push(w) });
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(/line 31: "notified" event: "run" must be a whole number/);
      const html = await readFile(join(dir, 'report.html'), 'utf8');
      expect(html).to.include('line 31');
      expect(count(tables(section(html, 's1')), /class="mk post\b/)).to.be.greaterThan(0);
    });
  });

  describe('words', () => {
    it('defines every verdict word of docs/design.md §5 in the glossary', async () => {
      const f = await loadFixture('passing');
      const html = renderHtmlReport(f.report, f.history);
      for (const word of ['eligible', 'lost', 'duplicated', 'unexpected', 'out-of-order', 'recovered']) expect(html).to.include(`<dt>${word}</dt>`);
    });
  });
});
