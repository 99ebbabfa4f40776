/**
 * repro/<scenario>.sh for a crafted step list: what it reproduces, the commands in order with
 * the recorded clock values and feeds, the job id looked up on the device, the kill and fault
 * steps as comments with the manual alternative, the hints of each run, quoting, and a bash
 * syntax check of the whole script (bash -n).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteBash, renderReproScript, writeReproScripts, type ReproInput } from '../../../src/report/repro.js';
import { loadFixture } from '../android/fixtures.js';
import type { ReproStep } from '../../../src/harness/actions.js';
import type { ReportAnomaly } from '../../../src/report/types.js';

const PKG = 'com.example.feednotifier';
const BASE = 'https://feed.dedup-verify.test/5f3a9c1e/kill-mid-run';
const RUN = ['cmd', 'jobscheduler', 'run', '-f', '-n', 'androidx.work.systemjobscheduler', PKG, '0'];
const FEED1 = `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Feed</title><item><title>Kill point 2, item 1</title><link>${BASE}/k2-item-1</link><pubDate>Mon, 03 Jun 2024 07:00:07 GMT</pubDate></item></channel></rss>`;
const FEED2 = FEED1.replace('item 1', 'item 1 & "edited"');

const STEPS: readonly ReproStep[] = [
  { kind: 'adb-shell', t: 1, argv: ['am', 'force-stop', PKG] },
  { kind: 'adb-shell', t: 2, argv: ['am', 'start', '-n', `${PKG}/.MainActivity`] },
  { kind: 'adb-shell', t: 1717416007100, argv: ['cmd', 'alarm', 'set-time', '1717416007100'], note: 'clock to 2024-06-03T12:00:07.100Z' },
  { kind: 'feed', t: 1717416007100, xml: FEED1, note: 'k2-item-1, k2-item-2' },
  { kind: 'adb-shell', t: 1717416007100, argv: RUN, note: 'forced run 3' },
  { kind: 'kill', t: 1717416007100, argv: ['am', 'kill', PKG], heldRequest: 'request 1 to /receipts' },
  { kind: 'adb-shell', t: 1717416009550, argv: RUN, note: 'forced run 4' },
  { kind: 'wait', t: 1717416009550, what: 'WM-WorkerWrapper "Worker result" line (this run: success)' },
  { kind: 'fault', t: 3, route: '/feed.xml', plan: '{"status":503,"times":2}' },
  { kind: 'feed', t: 1717502413160, xml: FEED2, note: 'k2-item-1 (title edited)' },
  { kind: 'adb-shell', t: 1717502413160, argv: ['cmd', 'alarm', 'set-time', '1717502413160'], note: 'clock to 2024-06-04T12:00:13.160Z' },
  { kind: 'adb-shell', t: 1717502413160, argv: RUN, note: 'forced run 5' },
  { kind: 'wait', t: 1717502413160, what: 'WM-WorkerWrapper "Worker result" line (this run: success)' },
  { kind: 'fault', t: 4, route: '*', plan: 'none' },
  { kind: 'adb-shell', t: 5, argv: ['run-as', PKG, 'sqlite3', 'databases/feed.db', `DELETE FROM "notifications" WHERE "link" IN ('${BASE}/it''s $(touch /tmp/pwned)')`], note: 'delete the recorded rows' },
  { kind: 'adb-shell', t: 6, argv: RUN, note: 'probe: this run must be refused' },
];

const ANOMALIES: ReportAnomaly[] = [
  { kind: 'lost', item: `${BASE}/k2-item-1`, run: 3, epoch: 0, detail: 'never notified in epoch 0, although eligible from run 3 on' },
  { kind: 'duplicated', item: `${BASE}/k3-item-3`, runs: [4, 5], epoch: 0, detail: 'notified 2 times in epoch 0: runs 4 and 5' },
  { kind: 'recovered', item: `${BASE}/k2-item-2`, run: 4, detail: 'eligible from run 3 but first notified in run 4 (epoch 0)' },
];

const INPUT: ReproInput = { scenario: 'kill-mid-run', device: 'emulator-5554', pkg: PKG, feedDevicePort: 8765, steps: STEPS, anomalies: ANOMALIES };

/** The script's lines that are not comments (the commands), trimmed. */
function commands(script: string): string[] {
  return script.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

/** The body of the script after its helper functions: the steps. */
function stepsPart(script: string): string {
  return script.slice(script.indexOf('say "device $SERIAL: saving auto_time and the clock offset"'));
}

function bashSyntax(path: string): { status: number | null; stderr: string } {
  const result = spawnSync('bash', ['-n', path], { encoding: 'utf8' });
  return { status: result.status, stderr: result.stderr };
}

describe('repro scripts', () => {
  const { script, files } = renderReproScript(INPUT);

  it('says in its header what it reproduces: the anomalies, their items and runs', () => {
    const header = script.slice(0, script.indexOf('set -euo pipefail'));
    expect(header.startsWith('#!/usr/bin/env bash\n# Replays the kill-mid-run scenario of com.example.feednotifier by hand')).to.equal(true);
    expect(header).to.include(`#   - lost ${BASE}/k2-item-1 run 3: never notified in epoch 0, although eligible from run 3 on`);
    expect(header).to.include(`#   - duplicated ${BASE}/k3-item-3 runs 4,5: notified 2 times in epoch 0: runs 4 and 5`);
    expect(header).not.to.include('recovered');
    expect(header).to.include('# The runs to watch: run 3, run 4, run 5');
    expect(header).to.include('# Usage: repro/kill-mid-run.sh SERIAL [HOST_PORT]');
  });

  it('is strict bash that takes the serial, and starts serve-feed on the served file, reversed to the device port', () => {
    const lines = commands(script);
    expect(lines.slice(0, 5)).to.deep.equal([
      'set -euo pipefail',
      'SERIAL=${1:?usage: repro/kill-mid-run.sh SERIAL [HOST_PORT]}',
      'PORT=${2:-8765}',
      'ADB="adb -s $SERIAL"',
      'PKG=com.example.feednotifier',
    ]);
    expect(script).to.include('$DV serve-feed --port "$PORT" --file "$FEED" >>"$WORK/serve-feed.log" 2>&1 &');
    expect(script).to.include('$ADB reverse "tcp:$DEVICE_PORT" "tcp:$PORT" >/dev/null');
    expect(script).to.include('DEVICE_PORT=8765');
    expect(script).to.include('use_feed() { cp "$HERE/feeds/$1" "$FEED"; }');
  });

  it('replays the steps in order with the exact clock values, feeds, app commands and forced runs', () => {
    const body = commands(stepsPart(script))
      .filter((l) => !l.startsWith('say ') && !l.startsWith('watch '))
      .map((l) => (l.startsWith(`$ADB shell run-as ${PKG} sqlite3 databases/feed.db `) ? 'RUN-AS (quoting: see below)' : l));
    expect(body).to.deep.equal([
      '$ADB get-state >/dev/null || die "device $SERIAL is not reachable (adb devices)"',
      "ORIG_AUTO_TIME=$($ADB shell settings get global auto_time | tr -d '\\r')",
      "CLOCK_OFFSET_MS=$(( ( $($ADB shell date +%s | tr -d '\\r') - $(date +%s) ) * 1000 ))",
      '$ADB shell settings put global auto_time 0',
      'start_server',
      'if [ "${RESET:-0}" = 1 ]; then',
      '$ADB shell am force-stop "$PKG"',
      'set_clock 1716811207100',
      '$ADB shell pm clear "$PKG"',
      '$ADB shell pm grant "$PKG" android.permission.POST_NOTIFICATIONS >/dev/null 2>&1 || true',
      'fi',
      `$ADB shell am force-stop ${PKG}`,
      `$ADB shell am start -n ${PKG}/.MainActivity`,
      'wait_job',
      'set_clock 1717416007100',
      'use_feed kill-mid-run-step-4.xml',
      'begin_run',
      "kill_point '^[A-Z]+ /receipts([? ]|$)' 1",
      '$ADB shell input keyevent KEYCODE_HOME',
      `$ADB shell am kill ${PKG}`,
      'after_kill 6',
      'show_posts',
      'begin_run',
      'wait_result',
      'show_posts',
      "DIVERGED='the fault of step 9'",
      'use_feed kill-mid-run-step-10.xml',
      'set_clock 1717502413160',
      'begin_run',
      'wait_result',
      'show_posts',
      'RUN-AS (quoting: see below)',
      'begin_run',
      'expect_no_run',
      'show_posts',
    ]);
  });

  it('looks the job id up on the device before each forced run, with -n only when the job has a namespace', () => {
    expect(script).to.include(`refs=$($ADB shell dumpsys jobscheduler "$PKG" | tr -d '\\r'`);
    expect(script).to.include(`$ADB shell cmd jobscheduler run -f \${JOB_NS:+-n "$JOB_NS"} "$PKG" "$JOB"`);
    // The recorded id and namespace appear only in comments.
    for (const line of commands(script)) expect(line).not.to.include('jobscheduler run -f -n androidx.work.systemjobscheduler');
    expect(script).to.include('# Step 5: forced run 3 (recorded: cmd jobscheduler run -f -n androidx.work.systemjobscheduler com.example.feednotifier 0).');
  });

  it('await_lines returns at the wanted line, stops the stream it started, and reports a stream that ended without it', () => {
    const fn = /^await_lines\(\) \{\n[\s\S]*?^\}\n/m.exec(script)?.[0];
    expect(fn).to.be.a('string');
    const bash = (body: string) =>
      spawnSync('bash', ['-c', `set -euo pipefail\nWORK=$(mktemp -d)\n${fn!}\n${body}\nrm -rf "$WORK"`], { encoding: 'utf8' });
    // Two matching lines wanted after one (WANT=1): the stream never ends by itself (tail -f),
    // so returning at all means the line was seen and the stream was stopped.
    const hit = bash(`await_lines 1 '^GET /receipts' 30 sh -c 'printf "GET /feed.xml 200\\nGET /receipts 201\\r\\nGET /receipts 201\\n"; exec tail -f /dev/null'; echo "rc=$? jobs=$(jobs -p | wc -l)"`);
    expect(hit.stdout.trim(), hit.stderr).to.equal('rc=0 jobs=0');
    // A stream that ends without enough matches: 1, at once, under set -e.
    const miss = bash(`if await_lines 1 '^GET /receipts' 30 printf 'GET /receipts 201\\n'; then echo hit; else echo "miss rc=$?"; fi; echo "after"`);
    expect(miss.stdout, miss.stderr).to.equal('miss rc=1\nafter\n');
  });

  describe('find_job (the job lookup of the script, run by bash on a recorded dump)', () => {
    const WM = 'androidx.work.impl.background.systemjob.SystemJobService';
    const fn = (name: string): string => {
      const m = new RegExp(`^${name}\\(\\) \\{(?:.*\\}$|[\\s\\S]*?^\\})`, 'm').exec(script);
      if (m === null) throw new Error(`no ${name}() in the script`);
      return m[0];
    };
    /** Runs find_job with $ADB printing `dump` (CRLF, as adb shell does) for any command. */
    const findJob = (dump: string) => {
      const body = [
        'set -euo pipefail',
        `PKG=${PKG}`,
        `fake_adb() { printf '%s' ${quoteBash(dump.replace(/\n/g, '\r\n'))}; }`,
        'ADB=fake_adb',
        fn('die'),
        fn('find_job'),
        fn('job_refs'),
        'if find_job; then echo "job=$JOB ns=$JOB_NS"; else echo "none rc=$?"; fi',
      ].join('\n');
      return spawnSync('bash', ['-c', body], { encoding: 'utf8' });
    };

    it('picks the app\'s own job on an API 30 dump that lists other apps\' WorkManager jobs (job 0 of each)', () => {
      const api30 = loadFixture('30/dumpsys-jobscheduler-pkg-other-apps.txt').body;
      const r = findJob(api30);
      expect([r.stdout, r.stderr, r.status]).to.deep.equal(['job=0 ns=\n', '', 0]);
      // The other apps' jobs alone: no job of the app (find_job returns 1, wait_job polls).
      const others = api30.split('\n').filter((l) => !l.includes(`${PKG}/`) && !l.startsWith('    ')).join('\n');
      expect(findJob(others).stdout).to.equal('none rc=1\n');
    });

    it('reads the id and namespace of namespaced and traced lines, and only exact package matches', () => {
      const lines = [
        `  JOB androidx.work.systemjobscheduler:u0a190/3: 8c4f1d2 @androidx.work.systemjobscheduler@${PKG}/${WM}`,
        `  JOB androidx.work.systemjobscheduler:u0a191/0: 8c4f1d3 @androidx.work.systemjobscheduler@${PKG}.beta/${WM}`,
        `  JOB androidx.work.systemjobscheduler:u0a192/0: 8c4f1d4 @androidx.work.systemjobscheduler@comXexample.feednotifier/${WM}`,
        `  JOB #u0a193/0: 8c4f1d5 x${PKG}/${WM}`,
        `  JOB #u0a190/9: 8c4f1d6 ${PKG}/${WM}Extra`,
        `  Slot #0(ID=0): JOB #u0a190/7: 8c4f1d7 ${PKG}/${WM}`,
      ];
      expect(findJob(lines.join('\n') + '\n').stdout).to.equal('job=3 ns=androidx.work.systemjobscheduler\n');
      const traced = `  JOB androidx.work.systemjobscheduler:u0a190/1: 258ed68 #FeedPollWorker#@androidx.work.systemjobscheduler@${PKG}/${WM}\n`;
      expect(findJob(traced).stdout).to.equal('job=1 ns=androidx.work.systemjobscheduler\n');
    });

    it('stops when the app itself has several WorkManager jobs, naming them', () => {
      const two = `  JOB #u0a153/0: 6f1c2a4 com.example.photobackup/${WM}\n  JOB #u0a190/0: 3f2a1b0 ${PKG}/${WM}\n  JOB #u0a190/4: 3f2a1b1 ${PKG}/${WM}\n`;
      const r = findJob(two);
      expect(r.status).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.equal(`repro: 2 WorkManager jobs of ${PKG} (id namespace):\n0 \n4 \nrepro: set JOB_ID (and JOB_NAMESPACE) to the periodic work's job (WorkManager's SystemIdInfo.system_id)\n`);
    });
  });

  it('turns the kill of a held request into a comment with the manual alternative, then kills', () => {
    const part = script.slice(script.indexOf('# Step 6:'), script.indexOf('# Step 7:'));
    expect(part).to.include('# Step 6: the harness held request 1 to /receipts during run 3 and killed the app there (am kill com.example.feednotifier).');
    expect(part).to.include('serve-feed cannot hold a request');
    expect(part).to.include('mitmproxy');
    expect(part).to.include('KILL_AT=enter');
  });

  it('kills the app process of this device for a recorded run-as kill -9 PID, not the recorded pid', () => {
    const steps: ReproStep[] = [
      { kind: 'adb-shell', t: 1, argv: RUN, note: 'forced run 2' },
      { kind: 'kill', t: 2, argv: ['run-as', PKG, 'kill', '-9', '4335'], heldRequest: 'request 1 to /receipts' },
    ];
    const killScript = renderReproScript({ ...INPUT, steps }).script;
    const body = commands(stepsPart(killScript)).filter((l) => !l.startsWith('say ') && !l.startsWith('watch '));
    expect(body.slice(-5)).to.deep.equal(['begin_run', "kill_point '^[A-Z]+ /receipts([? ]|$)' 1", 'kill_app_process', 'after_kill 2', 'show_posts']);
    expect(commands(killScript).filter((l) => l.includes('4335') && !l.startsWith('say '))).to.deep.equal([]);
    expect(killScript).to.include('pid=$($ADB shell pidof "$PKG" | tr -d \'\\r\')');
  });

  it('says at each run what to watch for: the lost item, the second post', () => {
    const run3 = script.slice(script.indexOf('# Step 5:'), script.indexOf('# Step 7:'));
    expect(run3).to.include(`watch 'run 3: here ${BASE}/k2-item-1 should be posted and is not: it is lost (notification id `);
    const run5 = script.slice(script.indexOf('# Step 12:'), script.indexOf('# Step 14:'));
    expect(run5).to.include(`# here ${BASE}/k3-item-3 is posted again, already posted in run 4: duplicated`);
    expect(run5.indexOf('show_posts')).to.be.lessThan(run5.indexOf('watch '));
    expect(script).to.include(`posts() { $ADB logcat -b events -d 2>/dev/null | tr -d '\\r' | grep 'notification_enqueue' | grep -F ",$PKG," || true; }`);
  });

  it('keeps fault steps as comments (no command), marks the replay as diverged, and says when faults are cleared', () => {
    const fault = script.slice(script.indexOf('# Step 9:'), script.indexOf('# Step 10:'));
    expect(fault).to.include('{"status":503,"times":2}');
    expect(fault).to.include('serve-feed cannot answer with an error status');
    expect(commands(fault)).to.deep.equal([
      `say 'step 9: not replayed: fault plan {"status":503,"times":2} on /feed.xml (see the comment in the script)'`,
      "DIVERGED='the fault of step 9'",
    ]);
    expect(script).to.include("say 'step 14: faults cleared (serve-feed answers normally)'");
  });

  it('writes each feed step as a file with the exact XML', () => {
    expect(files.map((f) => f.name)).to.deep.equal(['feeds/kill-mid-run-step-4.xml', 'feeds/kill-mid-run-step-10.xml']);
    expect(files[0]!.content).to.equal(`${FEED1}\n`);
    expect(files[1]!.content).to.equal(`${FEED2}\n`);
  });

  it('quotes device arguments so adb hands the device shell exactly the recorded words', () => {
    const line = commands(script).find((l) => l.startsWith('$ADB shell run-as'))!;
    // A stand-in for adb: like adb, it joins its words with spaces and the device shell re-splits them.
    const out = spawnSync('bash', ['-c', `adbf() { sh -c "printargs() { for a in \\"\\$@\\"; do printf '<%s>\\n' \\"\\$a\\"; done; }; printargs $*"; }; ADB=adbf; ${line.replace('$ADB shell ', '$ADB ')}`], { encoding: 'utf8' });
    expect(out.stderr).to.equal('');
    expect(out.stdout.split('\n').filter((l) => l !== '')).to.deep.equal([
      '<run-as>', `<${PKG}>`, '<sqlite3>', '<databases/feed.db>',
      `<DELETE FROM "notifications" WHERE "link" IN ('${BASE}/it''s $(touch /tmp/pwned)')>`,
    ]);
  });

  it('keeps hostile anomaly text inside comments and quoted strings', async () => {
    const evil: ReportAnomaly = { kind: 'lost', item: `https://e.test/x'$(id)\`id\`\n rm -rf / #`, run: 3, detail: "line one\nrm -rf / ; echo 'x" };
    const rendered = renderReproScript({ ...INPUT, anomalies: [evil] });
    for (const l of rendered.script.split('\n')) expect(l.trimStart().startsWith('rm -rf /')).to.equal(false);
    expect(rendered.script).to.include("watch 'run 3: here https://e.test/x'\\''$(id)`id`  rm -rf / # should be posted and is not");
    const dir = await mkdtemp(join(tmpdir(), 'dv-repro-'));
    try {
      await writeFile(join(dir, 'x.sh'), rendered.script);
      expect(bashSyntax(join(dir, 'x.sh'))).to.deep.equal({ status: 0, stderr: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('passes bash -n', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dv-repro-'));
    try {
      await writeFile(join(dir, 'kill-mid-run.sh'), script);
      expect(bashSyntax(join(dir, 'kill-mid-run.sh'))).to.deep.equal({ status: 0, stderr: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('writeReproScripts', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'dv-repro-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('writes repro/<scenario>.sh executable and its feeds, one name per device when a scenario repeats', async () => {
      const written = await writeReproScripts(dir, [INPUT, { ...INPUT, scenario: 'back-to-back' }, { ...INPUT, scenario: 'back-to-back', device: '127.0.0.1:5556' }]);
      expect(written).to.deep.equal([
        join(dir, 'repro', 'kill-mid-run.sh'),
        join(dir, 'repro', 'back-to-back--emulator-5554.sh'),
        join(dir, 'repro', 'back-to-back--127.0.0.1_5556.sh'),
      ]);
      for (const path of written) {
        expect((await stat(path)).mode & 0o777).to.equal(0o755);
        expect(bashSyntax(path)).to.deep.equal({ status: 0, stderr: '' });
      }
      expect(await readFile(join(dir, 'repro', 'kill-mid-run.sh'), 'utf8')).to.equal(script);
      expect(await readFile(join(dir, 'repro', 'feeds', 'kill-mid-run-step-4.xml'), 'utf8')).to.equal(`${FEED1}\n`);
      expect(await readFile(join(dir, 'repro', 'feeds', 'back-to-back--127.0.0.1_5556-step-10.xml'), 'utf8')).to.equal(`${FEED2}\n`);
      expect((await stat(join(dir, 'repro', 'feeds', 'kill-mid-run-step-4.xml'))).mode & 0o777).to.equal(0o644);
    });
  });
});
