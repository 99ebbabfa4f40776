/**
 * repro/<scenario>.sh from a recorded scenario (the history's action events of the commands sent,
 * with the feed and fault steps): what it reproduces, every recorded change in order exactly as
 * sent, the job id and the pid looked up on the device, the kill of a held request, the bytes a
 * command wrote, the fault steps as comments with the manual alternative, the hints of each run,
 * quoting, the helpers read from their own file, and a bash syntax check (bash -n).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteBash, renderReproScript, reproPrologue, reproProloguePaths, writeReproScripts, type ReproInput } from '../../../src/report/repro.js';
import { quoteShellArg } from '../../../src/device/shell-quote.js';
import { RecordingDevice } from '../../../src/device/recording-device.js';
import { commandEvents, type ActionLabel } from '../../../src/harness/command-log.js';
import { FakeDevice } from '../android/fake-device.js';
import { loadFixture } from '../android/fixtures.js';
import type { ReproStep } from '../../../src/harness/actions.js';
import type { ActionEvent, RunOutcome } from '../../../src/history/events.js';
import type { ReportAnomaly } from '../../../src/report/types.js';

const PKG = 'com.example.feednotifier';
const BASE = 'https://feed.dedup-verify.test/5f3a9c1e/kill-mid-run';
const RUN = ['cmd', 'jobscheduler', 'run', '-f', '-n', 'androidx.work.systemjobscheduler', PKG, '0'];
const FEED1 = `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Feed</title><item><title>Kill point 2, item 1</title><link>${BASE}/k2-item-1</link><pubDate>Mon, 03 Jun 2024 07:00:07 GMT</pubDate></item></channel></rss>`;
const FEED2 = FEED1.replace('item 1', 'item 1 & "edited"');
/** What the harness wrote after deleting rows: the edited database, with a hostile temp name in the command. */
const WRITE_ARGV = ['run-as', PKG, 'sh', '-c', `cat > 'databases/it''s $(touch /tmp/pwned).dv-1' && mv -f 'databases/it''s $(touch /tmp/pwned).dv-1' databases/feed.db && rm -f databases/feed.db-wal`];
const DB_BYTES = Buffer.from([0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x00, 0xff, 0x0a]);

/** An action event of a device command as the history records it. */
function sent(t: number, action: string, argv: string[], extra: Partial<ActionEvent> = {}): ActionEvent {
  return { type: 'action', t, action, argv, via: 'shell', exitCode: 0, durationMs: 12, ...extra };
}
const step = (event: ActionEvent, data?: Buffer): ReproStep => ({ kind: 'action', event, ...(data !== undefined ? { data } : {}) });
const read = (t: number, argv: string[], extra: Partial<ActionEvent> = {}): ReproStep => step(sent(t, 'read', argv, extra));
const finished = (t: number, run: number, outcome: RunOutcome): ReproStep => ({ kind: 'run-finished', event: { type: 'run-finished', t, run, outcome } });

/** A kill-mid-run record as the harness leaves it: its action events (reads among them), feeds, faults and run ends. */
const STEPS: readonly ReproStep[] = [
  read(0, ['date', '+%s%3N'], { result: '1717416000000' }),
  step(sent(1, 'force-stop', ['am', 'force-stop', PKG])),
  step(sent(2, 'start-app', ['am', 'start', '-n', `${PKG}/.MainActivity`], { result: 'Starting: Intent { cmp=com.example.feednotifier/.MainActivity }' })),
  read(3, ['dumpsys', 'jobscheduler', PKG], { count: 4 }),
  read(3, ['run-as', PKG, 'cat', 'no_backup/androidx.work.workdb'], { count: 4, bytes: 4096 }),
  step(sent(1717416007000, 'set-time', ['cmd', 'alarm', 'set-time', '1717416007100'], { detail: 'clock to 2024-06-03T12:00:07.100Z' })),
  { kind: 'feed', t: 1717416007100, xml: FEED1, note: 'k2-item-1, k2-item-2' },
  step(sent(1717416007120, 'force-run', RUN, { result: 'Running job [FORCED]', run: 3 })),
  read(1717416007300, ['pidof', PKG], { result: '4335' }),
  step(sent(1717416007310, 'kill', ['run-as', PKG, 'kill', '-9', '4335'], { run: 3, heldRequest: { path: '/receipts', nth: 1 }, detail: 'run 3 killed while request 1 to /receipts was held' })),
  read(1717416007320, ['pidof', PKG], { exitCode: 1 }),
  finished(1717416007400, 3, 'killed'),
  step(sent(1717416007500, 'force-stop', ['am', 'force-stop', PKG])),
  step(sent(1717416007510, 'start-app', ['am', 'start', '-n', `${PKG}/.MainActivity`])),
  step(sent(1717416009550, 'force-run', RUN, { run: 4 })),
  read(1717416009600, ['cmd', 'jobscheduler', 'get-job-state', '-n', 'androidx.work.systemjobscheduler', PKG, '0'], { count: 3, result: 'active' }),
  finished(1717416009900, 4, 'success'),
  { kind: 'fault', t: 3, route: '/feed.xml', plan: '{"status":503,"times":2}' },
  { kind: 'feed', t: 1717502413160, xml: FEED2, note: 'k2-item-1 (title edited)' },
  step(sent(1717502413100, 'set-time', ['cmd', 'alarm', 'set-time', '1717502413160'], { detail: 'clock to 2024-06-04T12:00:13.160Z' })),
  step(sent(1717502413170, 'force-run', RUN, { run: 5 })),
  finished(1717502413900, 5, 'success'),
  { kind: 'fault', t: 4, route: '*', plan: 'none' },
  step(sent(1717502414000, 'force-stop', ['am', 'force-stop', PKG])),
  step(sent(1717502414100, 'write-app-file', WRITE_ARGV, { stdinBytes: DB_BYTES.length }), DB_BYTES),
  step({ type: 'action', t: 1717502414200, action: 'forget-rows', detail: 'deleted 1 row(s) of notifications (1 key(s)); 4 remain' }),
  step(sent(1717502414300, 'start-app', ['am', 'start', '-n', `${PKG}/.MainActivity`])),
  step(sent(1717502414400, 'force-run', RUN, { probe: true, detail: 'probe: forced without moving the clock; no run is due' })),
  step({ type: 'action', t: 1717502414500, action: 'probe-run', outcome: 'refused', statuses: [] }),
  step(sent(1717502414600, 'grant', ['pm', 'grant', PKG, 'android.permission.POST_NOTIFICATIONS'], { exitCode: 255, result: 'Exception occurred while executing' })),
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

/** The recorded steps' part: after the server start and the RESET block (when there is one). */
function recordedPart(script: string): string {
  const body = stepsPart(script);
  const rest = body.slice(body.indexOf('\nstart_server\n') + '\nstart_server\n'.length);
  return rest.trimStart().startsWith('if [ "${RESET:-0}" = 1 ]; then') ? rest.slice(rest.indexOf('\nfi\n') + 4) : rest;
}

/** The lines of the recorded steps that send something to the device (adb, or a helper that does). */
function deviceLines(script: string): string[] {
  return commands(recordedPart(script)).filter((l) => l.startsWith('$ADB ') || /^(begin_run|kill_app_process)\b/.test(l));
}

/**
 * What the script must send for each recorded change, in order: the command as sent, except the
 * forced run (the job id is looked up) and the kill of a recorded pid (the pid is looked up).
 */
function expectedDeviceLines(steps: readonly ReproStep[], base: string): string[] {
  const lines: string[] = [];
  let n = 0;
  for (const s of steps) {
    if (s.kind === 'feed' || s.kind === 'fault') n++;
    if (s.kind !== 'action' || s.event.via === undefined || s.event.action === 'read') continue;
    n++;
    const argv = s.event.argv!;
    const failed = s.event.exitCode !== undefined && s.event.exitCode !== 0 ? ' || true' : '';
    if (argv[1] === 'jobscheduler' && argv[2] === 'run') lines.push(failed === '' ? 'begin_run' : `begin_run || echo '   the run command failed here too (it exited ${s.event.exitCode} when recorded)'`);
    else if (argv[0] === 'run-as' && argv[2] === 'kill') lines.push(`kill_app_process ${argv[3]!}`);
    else {
      const adb = `$ADB shell ${argv.map((a) => quoteBash(quoteShellArg(a))).join(' ')}`;
      lines.push(s.data !== undefined ? `${adb} <"$HERE/files/${base}-step-${n}.bin"${failed}` : `${adb}${failed}`);
    }
  }
  return lines;
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
    expect(lines.slice(0, 7)).to.deep.equal([
      'set -euo pipefail',
      'SERIAL=${1:?usage: repro/kill-mid-run.sh SERIAL [HOST_PORT]}',
      'PORT=${2:-8765}',
      'PKG=com.example.feednotifier',
      'SCHEDULER=workmanager',
      "JOB_CLASS='androidx.work.impl.background.systemjob.SystemJobService'",
      'DEVICE_PORT=8765',
    ]);
    // adb is a function, so a serial with spaces stays one argument; the serial is checked first.
    expect(script).to.include('adb_dev() { adb -s "$SERIAL" "$@"; }\nADB=adb_dev\n');
    expect(script).to.include('\ncheck_serial "$SERIAL"\n');
    expect(script).not.to.include('ADB="adb -s $SERIAL"');
    expect(script).to.include('$DV serve-feed --port "$PORT" --file "$FEED" >>"$WORK/serve-feed.log" 2>&1 &');
    expect(script).to.include('$ADB reverse "tcp:$DEVICE_PORT" "tcp:$PORT" >/dev/null');
    expect(script).to.include('DEVICE_PORT=8765');
    expect(script).to.include('use_feed() { cp "$HERE/feeds/$1" "$FEED"; }');
  });

  it('replays the recorded steps in order: clock values, feeds, app commands, forced runs, the kill and the write; no reads', () => {
    const body = commands(stepsPart(script))
      .filter((l) => !l.startsWith('say ') && !l.startsWith('watch '))
      .map((l) => (l.startsWith(`$ADB shell run-as ${PKG} sh -c `) ? 'WRITE (quoting: see below)' : l));
    expect(body).to.deep.equal([
      '$ADB get-state >/dev/null || die "device $SERIAL is not reachable (adb devices)"',
      "ORIG_AUTO_TIME=$($ADB shell settings get global auto_time | tr -d '\\r')",
      "CLOCK_OFFSET_MS=$(( ( $($ADB shell date +%s | tr -d '\\r') - $(date +%s) ) * 1000 ))",
      'save_app_data',
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
      '$ADB shell cmd alarm set-time 1717416007100',
      'use_feed kill-mid-run-step-4.xml',
      'begin_run',
      "kill_point '^[A-Z]+ /receipts([? ]|$)' 1",
      'kill_app_process -9',
      'after_kill 6',
      'show_posts',
      `$ADB shell am force-stop ${PKG}`,
      `$ADB shell am start -n ${PKG}/.MainActivity`,
      'wait_job',
      'begin_run',
      'wait_result',
      'show_posts',
      "DIVERGED='the fault of step 10'",
      'use_feed kill-mid-run-step-11.xml',
      '$ADB shell cmd alarm set-time 1717502413160',
      'begin_run',
      'wait_result',
      'show_posts',
      `$ADB shell am force-stop ${PKG}`,
      'WRITE (quoting: see below)',
      `$ADB shell am start -n ${PKG}/.MainActivity`,
      'wait_job',
      'begin_run',
      'expect_no_run',
      'show_posts',
      `$ADB shell pm grant ${PKG} android.permission.POST_NOTIFICATIONS || true`,
    ]);
    // The reads the harness made (clock, dumpsys, workdb, job state, pid) are not replayed.
    for (const l of commands(recordedPart(script))) expect(l).not.to.match(/date \+%s%3N|get-job-state|no_backup\/androidx\.work\.workdb|pidof/);
  });

  it('sends every recorded change, in the recorded order, exactly as it was sent', () => {
    const expected = expectedDeviceLines(STEPS, 'kill-mid-run');
    expect(expected).to.have.length(15);
    expect(deviceLines(script)).to.deep.equal(expected);
    // Each recorded command line is in the script word for word (through the two quotings).
    for (const s of STEPS) {
      if (s.kind !== 'action' || s.event.via === undefined || s.event.action === 'read' || s.event.action === 'force-run' || s.event.action === 'kill') continue;
      expect(script).to.include(`$ADB shell ${s.event.argv!.map((a) => quoteBash(quoteShellArg(a))).join(' ')}`);
    }
  });

  it('a command that failed when recorded goes on failing quietly; a recorded refused run is expected not to run', () => {
    expect(script).to.include('# When recorded it exited 255 ("Exception occurred while executing"); the script goes on whatever it does here.');
    const steps: ReproStep[] = [
      step(sent(1, 'force-run', RUN, { run: 2 })),
      read(2, ['cmd', 'jobscheduler', 'get-job-state', PKG, '0'], { count: 5, exitCode: 23 }),
      finished(3, 2, 'refused'),
      step(sent(4, 'force-run', RUN, { run: 3, exitCode: 254, result: 'Job 0 not found' })),
      finished(5, 3, 'refused'),
    ];
    const refused = renderReproScript({ ...INPUT, anomalies: [], steps }).script;
    expect(commands(recordedPart(refused)).filter((l) => !l.startsWith('say '))).to.deep.equal([
      'begin_run',
      'expect_no_run',
      'show_posts',
      "begin_run || echo '   the run command failed here too (it exited 254 when recorded)'",
      'expect_no_run',
      'show_posts',
    ]);
    expect(refused).to.include('# Recorded outcome: refused (WorkManager did not run the worker).');
  });

  it('looks the job id up on the device before each forced run, with -n only when the job has a namespace', () => {
    expect(script).to.include(`refs=$($ADB shell dumpsys jobscheduler "$PKG" | tr -d '\\r'`);
    expect(script).to.include(`if [ -n "$JOB_NS" ]; then $ADB shell cmd jobscheduler run "$flag" -n "$(dev_quote "$JOB_NS")" "$PKG" "$JOB"`);
    expect(script).to.include('  local flag=${1:--f}\n');
    // find_job runs in begin_run, before its run command.
    const beginRun = /^begin_run\(\) \{\n[\s\S]*?^\}$/m.exec(script)?.[0] ?? '';
    expect(beginRun.indexOf('  find_job || { wait_job; find_job; }')).to.be.greaterThan(0);
    expect(beginRun.indexOf('$ADB shell cmd jobscheduler run ')).to.be.greaterThan(beginRun.indexOf('find_job'));
    // The recorded id and namespace appear only in comments.
    for (const line of commands(script)) expect(line).not.to.include('jobscheduler run -f -n androidx.work.systemjobscheduler');
    expect(script).to.include('# Step 5: forced run 3 (recorded: cmd jobscheduler run -f -n androidx.work.systemjobscheduler com.example.feednotifier 0).');
    expect(commands(recordedPart(script)).filter((l) => l === 'begin_run')).to.have.length(4);
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

  /** The shell function `name` of the script, as written. */
  const fn = (name: string): string => {
    const m = new RegExp(`^${name}\\(\\) \\{(?:.*\\}$|[\\s\\S]*?^\\})`, 'm').exec(script);
    if (m === null) throw new Error(`no ${name}() in the script`);
    return m[0];
  };

  describe('find_job (the job lookup of the script, run by bash on a recorded dump)', () => {
    const WM = 'androidx.work.impl.background.systemjob.SystemJobService';
    /** Runs find_job with $ADB printing `dump` (CRLF, as adb shell does) for any command. */
    const findJob = (dump: string, jobClass = 'androidx.work.impl.background.systemjob.SystemJobService') => {
      const body = [
        'set -euo pipefail',
        `PKG=${PKG}`,
        `JOB_CLASS=${jobClass}`,
        `fake_adb() { printf '%s' ${quoteBash(dump.replace(/\n/g, '\r\n'))}; }`,
        'ADB=fake_adb',
        fn('die'),
        fn('check_job_id'),
        fn('check_namespace'),
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
      expect(r.stderr).to.equal(`repro: 2 jobs of ${PKG}/${WM} (id namespace):\n0 \n4 \nrepro: set JOB_ID (and JOB_NAMESPACE) to the periodic job (for WorkManager: its SystemIdInfo.system_id)\n`);
    });

    it("finds an app's own JobService job printed short (.Class), not WorkManager's nor another package's", () => {
      const lines = [
        `  JOB #u0a190/0: 8c4f1d2 ${PKG}/${WM}`,
        `  JOB #u0a191/2: 8c4f1d3 ${PKG}.beta/.FeedSyncJobService`,
        `  JOB #u0a190/2: 8c4f1d4 ${PKG}/.FeedSyncJobService`,
      ];
      expect(findJob(lines.join('\n') + '\n', `${PKG}.FeedSyncJobService`).stdout).to.equal('job=2 ns=\n');
      expect(findJob(lines.slice(0, 2).join('\n') + '\n', `${PKG}.FeedSyncJobService`).stdout).to.equal('none rc=1\n');
    });
  });

  describe('values read from the device (run by bash, with an adb that runs the device command line through sh, as adbd does)', () => {
    const WM = 'androidx.work.impl.background.systemjob.SystemJobService';
    /**
     * begin_run against a device whose dumpsys prints `dump`: `shell ARGS` joins ARGS with spaces
     * and runs the line with sh (adbd's shell service), so what the device's shell would run is
     * run here, in a scratch folder; a file `pwned` there means a value was executed.
     */
    const beginRun = (dump: string, env: Record<string, string> = {}) => {
      const dir = mkdtempSync(join(tmpdir(), 'dv-repro-dev-'));
      const body = [
        'set -euo pipefail',
        `PKG=${PKG}`,
        `JOB_CLASS=${WM}`,
        `cd ${quoteBash(dir)}`,
        `adb_dev() { if [ "$1" = shell ] && [ "$2" = dumpsys ]; then printf '%s' ${quoteBash(dump.replace(/\n/g, '\r\n'))}; return; fi; shift; sh -c "printf '<%s>' $*"; }`,
        'ADB=adb_dev',
        'result_count() { echo 0; }; post_count() { echo 0; }; WORK=.; : >serve-feed.log',
        ...['die', 'dev_quote', 'check_job_id', 'check_namespace', 'find_job', 'job_refs', 'has_job', 'wait_job', 'begin_run'].map(fn),
        'begin_run',
      ].join('\n');
      const r = spawnSync('bash', ['-c', body], { encoding: 'utf8', env: { ...process.env, ...env } });
      const pwned = readdirSync(dir).includes('pwned');
      rmSync(dir, { recursive: true, force: true });
      return { ...r, pwned };
    };

    it('a namespace with $(…) reaches the device shell as one quoted word and runs nothing', () => {
      const ns = 'androidx.work.systemjobscheduler$(touch${IFS}pwned)';
      const r = beginRun(`  JOB ${ns}:u0a190/3: 8c4f1d2 @${ns}@${PKG}/${WM}\n`);
      expect(r.pwned, r.stderr).to.equal(false);
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.include(`<cmd><jobscheduler><run><-f><-n><${ns}><${PKG}><3>`);
      // The same through JOB_NAMESPACE.
      const env = beginRun('', { JOB_ID: '3', JOB_NAMESPACE: "x';touch pwned;'" });
      expect(env.pwned).to.equal(false);
      expect(env.stdout).to.include(`<-n><x';touch pwned;'><${PKG}><3>`);
    });

    it('a job id that is not a Java int, or a namespace with a control character, stops the script', () => {
      const big = beginRun('', { JOB_ID: '2147483648' });
      expect([big.status, big.stderr]).to.deep.equal([1, 'repro: job id "2147483648" is not an int: set JOB_ID to the job\'s id in dumpsys jobscheduler\n']);
      const word = beginRun('', { JOB_ID: '3;touch pwned' });
      expect([word.status, word.pwned]).to.deep.equal([1, false]);
      const ctl = beginRun('', { JOB_ID: '3', JOB_NAMESPACE: 'ns\u001b[2J' });
      expect(ctl.status).to.equal(1);
      expect(ctl.stderr).to.equal(`repro: job namespace "$'ns\\E[2J'" is not one JobScheduler.forNamespace gives: set JOB_NAMESPACE to the one in dumpsys jobscheduler\n`);
    });

    it('a serial with spaces stays one argument of adb -s; an empty one or one with a control character is refused', () => {
      const run = (serial: string) =>
        spawnSync('bash', ['-c', [`SERIAL=${quoteBash(serial)}`, 'adb() { printf "<%s>" "$@"; }', fn('die'), fn('adb_dev'), fn('check_serial'), 'check_serial "$SERIAL"', 'ADB=adb_dev', '$ADB shell true'].join('\n')], { encoding: 'utf8' });
      expect(run('my phone 1').stdout).to.equal('<-s><my phone 1><shell><true>');
      expect(run('').stderr).to.equal('repro: empty serial: pass the serial adb devices lists\n');
      expect(run('a\tb').status).to.equal(1);
    });
  });

  it('turns the kill of a held request into a comment with the manual alternative, then kills', () => {
    const part = script.slice(script.indexOf('# Step 6:'), script.indexOf('# Step 7:'));
    expect(part).to.include('# Step 6: the harness held request 1 to /receipts during run 3 and killed the app there (run-as com.example.feednotifier kill -9 4335).');
    expect(part).to.include('serve-feed cannot hold a request');
    expect(part).to.include('mitmproxy');
    expect(part).to.include('KILL_AT=enter');
    // The kill is part of its run, read from the record: the kill point, the kill, then the run's posts.
    expect(commands(part).filter((l) => !l.startsWith('watch '))).to.deep.equal([
      "kill_point '^[A-Z]+ /receipts([? ]|$)' 1",
      "say 'step 6: run-as com.example.feednotifier kill -9 4335'",
      'kill_app_process -9',
      'after_kill 6',
      'show_posts',
    ]);
  });

  it('kills the app process of this device for a recorded run-as kill -9 PID, not the recorded pid; a force-stop kill as sent', () => {
    const steps: ReproStep[] = [
      step(sent(1, 'force-run', RUN, { run: 2 })),
      read(2, ['pidof', PKG], { result: '4335' }),
      step(sent(3, 'kill', ['run-as', PKG, 'kill', '-9', '4335'], { run: 2, heldRequest: { path: '/receipts', nth: 1 } })),
      read(4, ['pidof', PKG], { exitCode: 1 }),
      finished(5, 2, 'killed'),
      step(sent(6, 'force-run', RUN, { run: 3 })),
      step(sent(7, 'kill', ['am', 'force-stop', PKG], { run: 3, heldRequest: { path: '/feed.xml', nth: 2 } })),
      finished(8, 3, 'killed'),
    ];
    const killScript = renderReproScript({ ...INPUT, steps }).script;
    const body = commands(recordedPart(killScript)).filter((l) => !l.startsWith('say ') && !l.startsWith('watch '));
    expect(body).to.deep.equal([
      'begin_run', "kill_point '^[A-Z]+ /receipts([? ]|$)' 1", 'kill_app_process -9', 'after_kill 2', 'show_posts',
      'begin_run', "kill_point '^[A-Z]+ /feed\\.xml([? ]|$)' 2", `$ADB shell am force-stop ${PKG}`, 'after_kill 4', 'show_posts',
    ]);
    expect(commands(killScript).filter((l) => l.includes('4335') && !l.startsWith('say '))).to.deep.equal([]);
    expect(killScript).to.include('pid=$($ADB shell pidof "$PKG" | tr -d \'\\r\')');
  });

  it('replays a recorded run-as kill -15 (API 29-33, where run-as may not send SIGKILL) with that signal', () => {
    const steps: ReproStep[] = [
      step(sent(1, 'force-run', RUN, { run: 2 })),
      step(sent(2, 'kill', ['run-as', PKG, 'kill', '-15', '4335'], { run: 2, heldRequest: { path: '/receipts', nth: 1 } })),
      finished(3, 2, 'killed'),
    ];
    const killScript = renderReproScript({ ...INPUT, steps }).script;
    expect(commands(recordedPart(killScript)).filter((l) => l.startsWith('kill_app_process'))).to.deep.equal(['kill_app_process -15']);
    expect(killScript).to.include('$ADB shell run-as "$PKG" kill "$sig" "$pid"');
  });

  it('says at each run what to watch for: the lost item, the second post', () => {
    const run3 = script.slice(script.indexOf('# Step 5:'), script.indexOf('# Step 7:'));
    expect(run3).to.include(`watch 'run 3: here ${BASE}/k2-item-1 should be posted and is not: it is lost (notification id `);
    const run5 = script.slice(script.indexOf('# Step 13:'), script.indexOf('# Step 14:'));
    expect(run5).to.include(`# here ${BASE}/k3-item-3 is posted again, already posted in run 4: duplicated`);
    expect(run5.indexOf('show_posts')).to.be.lessThan(run5.indexOf('watch '));
    expect(script).to.include(`posts() { $ADB logcat -b events -d 2>/dev/null | tr -d '\\r' | grep 'notification_enqueue' | grep -F ",$PKG," || true; }`);
  });

  it('keeps fault steps as comments (no command), marks the replay as diverged, and says when faults are cleared', () => {
    const fault = script.slice(script.indexOf('# Step 10:'), script.indexOf('# Step 11:'));
    expect(fault).to.include('{"status":503,"times":2}');
    expect(fault).to.include('serve-feed cannot answer with an error status');
    expect(commands(fault)).to.deep.equal([
      `say 'step 10: not replayed: fault plan {"status":503,"times":2} on /feed.xml (see the comment in the script)'`,
      "DIVERGED='the fault of step 10'",
    ]);
    expect(script).to.include("say 'step 14: faults cleared (serve-feed answers normally)'");
  });

  it('says what the harness did that is not one command (a row deletion), and leaves out the probe\'s result', () => {
    expect(script).to.include('# The harness (forget-rows): deleted 1 row(s) of notifications (1 key(s)); 4 remain.');
    expect(script).not.to.include('probe-run');
  });

  it('writes each feed step as a file with the exact XML, and the bytes a command wrote', () => {
    expect(files.map((f) => f.name)).to.deep.equal(['feeds/kill-mid-run-step-4.xml', 'feeds/kill-mid-run-step-11.xml', 'files/kill-mid-run-step-16.bin']);
    expect(files[0]!.content).to.equal(`${FEED1}\n`);
    expect(files[1]!.content).to.equal(`${FEED2}\n`);
    expect(files[2]!.content).to.deep.equal(DB_BYTES);
    expect(script).to.include('# It was given 9 bytes on its standard input: the recorded bytes are files/kill-mid-run-step-16.bin.');
  });

  it('quotes device arguments so adb hands the device shell exactly the recorded words', () => {
    const line = commands(script).find((l) => l.startsWith(`$ADB shell run-as ${PKG} sh -c `))!;
    const redirect = ' <"$HERE/files/kill-mid-run-step-16.bin"';
    expect(line.endsWith(redirect)).to.equal(true);
    const words = line.slice(0, -redirect.length);
    // A stand-in for adb: like adb, it joins its words with spaces and the device shell re-splits them.
    const out = spawnSync('bash', ['-c', `adbf() { sh -c "printargs() { for a in \\"\\$@\\"; do printf '<%s>\\n' \\"\\$a\\"; done; }; printargs $*"; }; ADB=adbf; ${words.replace('$ADB shell ', '$ADB ')}`], { encoding: 'utf8' });
    expect(out.stderr).to.equal('');
    expect(out.stdout.split('\n').filter((l) => l !== '')).to.deep.equal(WRITE_ARGV.map((w) => `<${w}>`));
  });

  it('sends a command recorded as one line as that line, and a push with the recorded bytes and mode', () => {
    const steps: ReproStep[] = [
      step({ type: 'action', t: 1, action: 'setting', command: "settings put global dv_note 'a b'", via: 'shell', exitCode: 0 }),
      step({ type: 'action', t: 2, action: 'push', command: 'push /data/local/tmp/dv-1', path: '/data/local/tmp/dv-1', mode: 0o600, via: 'push', bytes: 2 }, Buffer.from('hi')),
    ];
    const rendered = renderReproScript({ ...INPUT, steps });
    expect(deviceLines(rendered.script)).to.deep.equal([
      `$ADB shell ${quoteBash("settings put global dv_note 'a b'")}`,
      '$ADB push "$HERE/files/kill-mid-run-step-2.bin" /data/local/tmp/dv-1 >/dev/null',
    ]);
    expect(rendered.files).to.deep.equal([{ name: 'files/kill-mid-run-step-2.bin', content: Buffer.from('hi'), mode: 0o600 }]);
  });

  it('reads its helpers from their own shell file, found beside the module or at the source path of an installed package', async () => {
    const prologue = (await readFile(new URL('../../../src/report/repro-prologue.sh', import.meta.url), 'utf8')).trim();
    expect(reproPrologue()).to.equal(prologue);
    expect(script).to.include(`FEED="$WORK/feed.xml"\n${prologue}\n`);
    expect(reproProloguePaths(join('/pkg', 'dist', 'src', 'report'))).to.deep.equal([
      join('/pkg', 'dist', 'src', 'report', 'repro-prologue.sh'),
      join('/pkg', 'dist', 'src', 'src', 'report', 'repro-prologue.sh'),
      join('/pkg', 'src', 'report', 'repro-prologue.sh'),
    ]);
  });

  it('renders what a RecordingDevice recorded: every change the harness sent is in the script, in order', async () => {
    let ms = 0;
    const inner = new FakeDevice((argv) => (argv[0] === 'pidof' ? { stdout: '4335\n' } : argv[0] === 'date' ? { stdout: '1717416007100\n' } : {}));
    let label: ActionLabel | undefined;
    const device = new RecordingDevice<ActionLabel>(inner, { clock: { now: () => 1717416000000 + ms, monotonic: () => (ms += 3) }, context: () => label });
    const as = async (l: ActionLabel | undefined, send: () => Promise<unknown>) => {
      label = l;
      await send();
      label = undefined;
    };
    await as(undefined, () => device.shell(['date', '+%s%3N']));
    await as({ action: 'force-stop' }, () => device.shellText(['am', 'force-stop', PKG]));
    await as({ action: 'start-app' }, () => device.shell(['am', 'start', '-n', `${PKG}/.MainActivity`]));
    await as(undefined, () => device.shell(['dumpsys', 'jobscheduler', PKG]));
    await as({ action: 'set-time' }, () => device.shell(['cmd', 'alarm', 'set-time', '1717502400000']));
    await as({ action: 'force-run', run: 2 }, () => device.shell(RUN));
    await as(undefined, () => device.shell(['pidof', PKG]));
    await as({ action: 'kill', run: 2, heldRequest: { path: '/feed.xml', nth: 1 } }, () => device.shellText(['run-as', PKG, 'kill', '-9', '4335']));
    await as(undefined, () => device.shell(['pidof', PKG]));
    await as(undefined, () => device.shell(['run-as', PKG, 'sh', '-c', 'cat > databases/feed.db.dv-2 && mv -f databases/feed.db.dv-2 databases/feed.db'], { stdin: DB_BYTES }));
    const steps: ReproStep[] = commandEvents(device.takeFinished()).map(({ event, data }) => ({ kind: 'action', event, ...(data !== undefined ? { data } : {}) }));
    const rendered = renderReproScript({ ...INPUT, steps });
    const sentChanges = inner.calls.map((c) => c.argv).filter((argv) => !['date', 'dumpsys', 'pidof'].includes(argv[0]!));
    expect(sentChanges).to.have.length(6);
    expect(deviceLines(rendered.script)).to.deep.equal([
      `$ADB shell am force-stop ${PKG}`,
      `$ADB shell am start -n ${PKG}/.MainActivity`,
      '$ADB shell cmd alarm set-time 1717502400000',
      'begin_run',
      'kill_app_process -9',
      `$ADB shell run-as ${PKG} sh -c ${quoteBash(quoteShellArg('cat > databases/feed.db.dv-2 && mv -f databases/feed.db.dv-2 databases/feed.db'))} <"$HERE/files/kill-mid-run-step-6.bin"`,
    ]);
    expect(rendered.script).to.include("kill_point '^[A-Z]+ /feed\\.xml([? ]|$)' 1");
    expect(rendered.files).to.deep.equal([{ name: 'files/kill-mid-run-step-6.bin', content: DB_BYTES }]);
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

    it('writes repro/<scenario>.sh executable, its feeds and the bytes it sends, one name per device when a scenario repeats', async () => {
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
      expect(await readFile(join(dir, 'repro', 'feeds', 'back-to-back--127.0.0.1_5556-step-11.xml'), 'utf8')).to.equal(`${FEED2}\n`);
      expect((await stat(join(dir, 'repro', 'feeds', 'kill-mid-run-step-4.xml'))).mode & 0o777).to.equal(0o644);
      expect(await readFile(join(dir, 'repro', 'files', 'back-to-back--emulator-5554-step-16.bin'))).to.deep.equal(DB_BYTES);
      expect((await stat(join(dir, 'repro', 'files', 'kill-mid-run-step-16.bin'))).mode & 0o777).to.equal(0o644);
    });
  });
});
