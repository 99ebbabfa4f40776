/**
 * Benchmark 1: one forced run end to end (clock past the guard, `cmd jobscheduler run -f`, wait
 * for completion, collect posts and rows) on a virtual device, through the harness
 * (DeviceHarness.forceRun, the primitive every scenario uses) against bench/scripts/forced-run.sh,
 * a minimal script of raw `adb` commands doing the same steps with no sleeps, and the same
 * script with the usual fixed sleeps.
 *
 * Fairness: both legs run on the same virtual device (in a process of its own, like a real
 * device), through the same private adb server, from the same state: before each leg, untimed,
 * the app is force-stopped (which also clears its notifications, so the 50-per-package cap never
 * applies) and started again, and the fixture server gets three new items; each timed leg must
 * then post exactly those three and record them, or the benchmark fails. Only the forced run is
 * timed: forceRun() from call to return, the script from spawn to exit. Legs are interleaved
 * (harness first in even pairs, script first in odd pairs) and the ratio is the median of the
 * per-pair ratios.
 */
import { join } from 'node:path';
import { AdbDevice } from '../src/device/adb-device.js';
import { loadConfig } from '../src/config/load-config.js';
import type { DeviceHarness } from '../src/harness/device-harness.js';
import { startBenchAdbServer, type BenchAdbServer } from './lib/adb-server.js';
import { startDeviceProcess, tallyServices, type DeviceProcess } from './lib/device-process.js';
import { openHarnessContext, type BenchHarnessContext } from './lib/harness-context.js';
import { ROOT, runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, formatRatio, median, summarize, timeMs, type Summary } from './lib/stats.js';

const HOUR = 3_600_000;
const ITEMS_PER_RUN = 3;
const SCRIPT = join(ROOT, 'bench', 'scripts', 'forced-run.sh');

interface Leg {
  readonly ms: number;
  readonly opened: readonly string[];
}

export const forcedRun: Benchmark = {
  name: 'forced-run',
  title: 'Forced run end to end: harness against raw adb',
  summary: 'DeviceHarness.forceRun vs a raw-adb bash script (no sleeps, and with the usual sleeps), interleaved pairs',
  run: runForcedRun,
};

async function runForcedRun(options: BenchOptions): Promise<BenchSection> {
  const pairs = options.quick ? 15 : 21;
  const sleepyRuns = options.quick ? 3 : 5;
  const config = await loadConfig(join(ROOT, 'fixtures', 'reference-app.config.json'));
  const deviceProcess = await startDeviceProcess();
  let adb: BenchAdbServer | undefined;
  let device: AdbDevice | undefined;
  let ctx: BenchHarnessContext | undefined;
  try {
    adb = await startBenchAdbServer();
    await adb.connect(deviceProcess.serial);
    const d = await AdbDevice.open({ serial: deviceProcess.serial, host: '127.0.0.1', port: adb.port });
    device = d;
    ctx = await openHarnessContext(d, config);
    const legs = new Legs(ctx, deviceProcess, adb, config.app.package);

    options.log('forced-run: warm-up');
    await legs.harness('warm-h');
    await legs.raw('warm-r', false);

    const harness: Leg[] = [];
    const raw: Leg[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < pairs; i++) {
      let h: Leg;
      let r: Leg;
      if (i % 2 === 0) {
        h = await legs.harness(`h${i}`);
        r = await legs.raw(`r${i}`, false);
      } else {
        r = await legs.raw(`r${i}`, false);
        h = await legs.harness(`h${i}`);
      }
      harness.push(h);
      raw.push(r);
      ratios.push(h.ms / r.ms);
      options.log(`forced-run: pair ${i + 1}/${pairs}: harness ${formatMs(h.ms)}, raw ${formatMs(r.ms)}, ratio ${formatRatio(h.ms / r.ms)}`);
    }
    const sleepy: Leg[] = [];
    for (let i = 0; i < sleepyRuns; i++) {
      const s = await legs.raw(`s${i}`, true);
      sleepy.push(s);
      options.log(`forced-run: raw with sleeps ${i + 1}/${sleepyRuns}: ${formatMs(s.ms)}`);
    }

    // What one adb round trip costs each way: an `adb` client process, or a request over the
    // harness's adbkit connection.
    const cliTrip: number[] = [];
    const harnessTrip: number[] = [];
    for (let i = 0; i < 30; i++) {
      cliTrip.push((await adb.adb(['-s', deviceProcess.serial, 'shell', 'true'])).ms);
      harnessTrip.push((await timeMs(() => d.shell(['true']))).ms);
    }
    await deviceProcess.takeOpened();

    return render({ pairs, harness, raw, sleepy, ratios, cliTrip: summarize(cliTrip), harnessTrip: summarize(harnessTrip) });
  } finally {
    await ctx?.close();
    await device?.close().catch(() => undefined);
    await adb?.stop().catch(() => undefined);
    await deviceProcess.stop();
  }
}

class Legs {
  constructor(
    private readonly ctx: BenchHarnessContext,
    private readonly dev: DeviceProcess,
    private readonly adb: BenchAdbServer,
    private readonly pkg: string,
  ) {}

  /** Untimed: a fresh app process, no notifications on screen, three new items in the feed. */
  private async prepare(label: string): Promise<DeviceHarness> {
    const h = this.ctx.harness(`bench-${label}`);
    await h.forceStop();
    await h.startApp();
    await h.serveFeed(Array.from({ length: ITEMS_PER_RUN }, (_, n) => ({ label: `${label}-${n + 1}`, title: `Bench ${label} ${n + 1}`, ageMs: (n + 1) * HOUR })));
    return h;
  }

  async harness(label: string): Promise<Leg> {
    const h = await this.prepare(label);
    await h.primeStoredKeys();
    await this.dev.takeOpened();
    const { ms, value } = await timeMs(() => h.forceRun());
    const opened = await this.dev.takeOpened();
    if (value.outcome !== 'success' || value.posted.length !== ITEMS_PER_RUN || value.stored.length !== ITEMS_PER_RUN) {
      throw new Error(
        `forced run ${label} through the harness: outcome ${value.outcome}, ${value.posted.length} posted, ${value.stored.length} stored (expected success, ${ITEMS_PER_RUN}, ${ITEMS_PER_RUN}); evidence: ${value.evidence.join(' | ')}`,
      );
    }
    return { ms, opened };
  }

  async raw(label: string, sleeps: boolean): Promise<Leg> {
    await this.prepare(label);
    await this.dev.takeOpened();
    const r = await runProcess('bash', [SCRIPT, ...(sleeps ? ['--sleeps'] : [])], {
      env: { ...this.adb.env, ADB_PORT: String(this.adb.port), SERIAL: this.dev.serial, PKG: this.pkg },
      timeoutMs: 60_000,
    });
    const opened = await this.dev.takeOpened();
    const out = /result=(\w+) posts=(\d+) rows=(\d+)/.exec(r.stdout);
    if (r.code !== 0 || !out || out[1] !== 'SUCCESS' || Number(out[2]) !== ITEMS_PER_RUN) {
      throw new Error(`forced run ${label} by the raw script: exit ${r.code}, printed "${r.stdout.trim()}" (expected result=SUCCESS posts=${ITEMS_PER_RUN}); stderr: ${r.stderr.trim()}`);
    }
    return { ms: r.ms, opened };
  }
}


function spread(s: Summary, f: (x: number) => string): string {
  return `${f(s.p25)}–${f(s.p75)}`;
}

function render(r: {
  pairs: number;
  harness: readonly Leg[];
  raw: readonly Leg[];
  sleepy: readonly Leg[];
  ratios: readonly number[];
  cliTrip: Summary;
  harnessTrip: Summary;
}): BenchSection {
  const h = summarize(r.harness.map((l) => l.ms));
  const raw = summarize(r.raw.map((l) => l.ms));
  const sleepy = summarize(r.sleepy.map((l) => l.ms));
  const ratio = summarize(r.ratios);
  const trips = (legs: readonly Leg[]): string => {
    const s = summarize(legs.map((l) => l.opened.length));
    return s.min === s.max ? String(s.median) : `${s.median} (${s.min}–${s.max})`;
  };
  const legRow = (what: string, s: Summary, legs: readonly Leg[]): string[] => [
    what,
    String(s.n),
    formatMs(s.median),
    spread(s, formatMs),
    `${formatMs(s.min)}–${formatMs(s.max)}`,
    trips(legs),
  ];
  const verdict = ratio.median <= 1.3 ? 'within the 1.3× target' : 'ABOVE the 1.3× target';
  const sleepyRatio = sleepy.median / h.median;

  // The services one harness run opens, against one raw run (the last pair: warm and typical).
  const lastH = tallyServices(r.harness.at(-1)?.opened ?? []);
  const lastR = tallyServices(r.raw.at(-1)?.opened ?? []);
  const keys = [...new Set([...lastH.keys(), ...lastR.keys()])].sort((a, b) => (lastH.get(b) ?? 0) - (lastH.get(a) ?? 0) || a.localeCompare(b));
  const serviceRows = keys.map((k) => [`\`${k}\``, String(lastH.get(k) ?? 0), String(lastR.get(k) ?? 0)]);
  serviceRows.push(['**total**', `**${sum(lastH)}**`, `**${sum(lastR)}**`]);

  const body = [
    `Harness/raw **ratio**: **${formatRatio(ratio.median)}** (median of ${r.pairs} interleaved pairs; IQR ${spread(ratio, formatRatio)}, range ${formatRatio(ratio.min)}–${formatRatio(ratio.max)}), ${verdict}.`,
    `The raw script with the usual fixed sleeps takes ${sleepyRatio.toFixed(1)}× the harness's time.`,
    '',
    'Method: the harness leg is `DeviceHarness.forceRun()` alone, the primitive every scenario\'s runs go through, not `dedup-verify run --scenario back-to-back`: a CLI run also starts Node, saves and restores the device and relaunches the app for each scenario, which the script does not do either. Both legs run against the same virtual device (a process of its own) through the same private adb server, from the same state (app force-stopped and relaunched, three new feed items, untimed); each must post and record exactly the three items. Pairs alternate which leg goes first.',
    '',
    table(
      ['forced run (3 new items posted and recorded)', 'runs', 'median', 'IQR', 'range', 'adb round trips (OPENs)'],
      [
        legRow('harness: `DeviceHarness.forceRun()`', h, r.harness),
        legRow('raw adb script, no sleeps (`bench/scripts/forced-run.sh`)', raw, r.raw),
        legRow('raw adb script with `sleep 2` after set-time, `sleep 5` after run -f (`--sleeps`)', sleepy, r.sleepy),
      ],
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `One adb round trip (\`shell true\`, median of 30): ${formatMs(r.cliTrip.median)} as an \`adb\` client process, ${formatMs(r.harnessTrip.median)} over the harness's adbkit connection (shell v2). The script pays a process start per command; the harness pays far less per round trip${sum(lastH) > sum(lastR) ? ' but makes more of them, so on a device where the round trip itself is slow (USB, a remote farm) the extra round trips below are what to cut' : `, and makes ${sum(lastH) === sum(lastR) ? 'as many' : 'fewer'} of them (${sum(lastH)} against ${sum(lastR)} in the last pair), which is what counts where the round trip itself is slow (USB, a remote farm)`}.`,
    '',
    'Services opened on the device by one forced run (last pair):',
    '',
    table(['service', 'harness', 'raw script'], serviceRows, ['l', 'r', 'r']),
  ].join('\n');
  return {
    name: forcedRun.name,
    title: forcedRun.title,
    command: benchCommand(forcedRun.name),
    body,
    headline: `harness ${formatMs(h.median)}, raw adb script ${formatMs(raw.median)}: ratio ${formatRatio(ratio.median)} (median of ${r.pairs} interleaved pairs, IQR ${spread(ratio, formatRatio)}; target ≤ 1.3×); the script with the usual sleeps ${formatMs(sleepy.median)}`,
  };
}

function sum(m: Map<string, number>): number {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}

export { median };
