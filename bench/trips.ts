/**
 * Where the adb round trips of the suite go: every scenario through DeviceSession (what `run`
 * uses) against a virtual device in a process of its own that records every service the host
 * opens (one OPEN = one round trip), at one link latency. Prints, per scenario, the round trips
 * of the scenario as a whole and of its forced runs, its wall time, and the services by kind;
 * then the whole suite by kind.
 *
 *   node --import tsx bench/trips.ts [--latency MS] [--scenario NAME]...
 *
 * A direct command, not a section of bench/results.md: the latency section (bench/latency.ts)
 * reports the same counts side by side at 0, 20 and 100 ms.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdbDevice } from '../src/device/adb-device.js';
import { loadConfig } from '../src/config/load-config.js';
import { DeviceSession } from '../src/harness/device-session.js';
import { DeviceHarness } from '../src/harness/device-harness.js';
import type { ForceRunOptions, RunResult } from '../src/harness/harness.js';
import { SCENARIOS } from '../src/scenarios/index.js';
import { startBenchAdbServer } from './lib/adb-server.js';
import { startDeviceProcess, tallyServices } from './lib/device-process.js';
import { ROOT } from './lib/processes.js';
import { formatMs, timeMs } from './lib/stats.js';

interface Args {
  latencyMs: number;
  scenarios: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { latencyMs: 0, scenarios: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--latency' && v !== undefined) {
      args.latencyMs = Number(v);
      i++;
    } else if (a === '--scenario' && v !== undefined) {
      args.scenarios.push(v);
      i++;
    } else throw new Error(`unknown argument "${a}" (use --latency MS, --scenario NAME)`);
  }
  return args;
}


function show(m: Map<string, number>): string {
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${v}× ${k}`)
    .join(', ');
}

const args = parseArgs(process.argv.slice(2));
const config = await loadConfig(join(ROOT, 'fixtures', 'reference-app.config.json'));
const state = await mkdtemp(join(tmpdir(), 'dv-bench-state-'));
process.env['XDG_STATE_HOME'] = state;
const dev = await startDeviceProcess({ latencyMs: args.latencyMs });
const adb = await startBenchAdbServer();
let device: AdbDevice | undefined;
let forcedTrips: number[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with its harness below and put back
const forceRun = DeviceHarness.prototype.forceRun;
DeviceHarness.prototype.forceRun = async function countedForceRun(this: DeviceHarness, o?: ForceRunOptions): Promise<RunResult> {
  const before = await dev.takeOpened();
  pending.push(...before);
  const result = await forceRun.call(this, o);
  const during = await dev.takeOpened();
  pending.push(...during);
  forcedTrips.push(during.length);
  return result;
};
const pending: string[] = [];
const take = async (): Promise<string[]> => {
  const rest = await dev.takeOpened();
  return pending.splice(0).concat(rest);
};
try {
  await adb.connect(dev.serial);
  const d = await AdbDevice.open({ serial: dev.serial, host: '127.0.0.1', port: adb.port });
  device = d;
  await take();
  const all: string[] = [];
  const opened = await timeMs(() => DeviceSession.open({ device: d, config, adb: { host: '127.0.0.1', port: adb.port }, progress: () => undefined }));
  const session = opened.value;
  const open = await take();
  all.push(...open);
  console.log(`session open: ${open.length} round trips, ${formatMs(opened.ms)}: ${show(tallyServices(open))}`);
  const chosen = args.scenarios.length > 0 ? SCENARIOS.filter((s) => args.scenarios.includes(s.name)) : SCENARIOS;
  let total = 0;
  for (const scenario of chosen) {
    forcedTrips = [];
    const r = await timeMs(() => session.runScenario(scenario));
    const names = await take();
    all.push(...names);
    total += r.ms;
    console.log(
      `${scenario.name}: ${r.value.report.verdict}, ${names.length} round trips, ${formatMs(r.ms)}; forced runs ${forcedTrips.length} [${forcedTrips.join(' ')}]: ${show(tallyServices(names))}`,
    );
  }
  const closed = await timeMs(() => session.close());
  const close = await take();
  all.push(...close);
  console.log(`session close: ${close.length} round trips, ${formatMs(closed.ms)}: ${show(tallyServices(close))}`);
  console.log(`total: ${all.length} round trips; scenarios ${formatMs(total)}, with open and close ${formatMs(total + opened.ms + closed.ms)}`);
  console.log(`by kind: ${show(tallyServices(all))}`);
} finally {
  DeviceHarness.prototype.forceRun = forceRun;
  await device?.close().catch(() => undefined);
  await adb.stop().catch(() => undefined);
  await dev.stop();
  await rm(state, { recursive: true, force: true });
}
