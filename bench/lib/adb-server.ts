/**
 * A private adb server for a benchmark: the real `adb` binary on a free port (never 5037),
 * stopped with stop(), which kills only this server.
 */
import { freePort, runProcess, type ProcessResult } from './processes.js';

export interface BenchAdbServer {
  readonly port: number;
  /** Environment for children that run `adb` against this server (ANDROID_ADB_SERVER_PORT). */
  readonly env: NodeJS.ProcessEnv;
  adb(args: readonly string[], timeoutMs?: number): Promise<ProcessResult>;
  /** `adb connect SERIAL` and `adb -s SERIAL wait-for-device`. */
  connect(serial: string): Promise<void>;
  disconnect(serial: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchAdbServer(): Promise<BenchAdbServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ANDROID_ADB_SERVER_PORT: String(port) };
  delete env['ADB_TRACE'];
  const adb = (args: readonly string[], timeoutMs = 30_000): Promise<ProcessResult> => runProcess('adb', ['-P', String(port), ...args], { env, timeoutMs });
  const started = await adb(['start-server']);
  if (started.code !== 0) throw new Error(`adb -P ${port} start-server failed (${started.code}): ${started.stderr.trim()}`);
  return {
    port,
    env,
    adb,
    connect: async (serial) => {
      const r = await adb(['connect', serial]);
      if (!/connected to/.test(r.stdout)) throw new Error(`adb connect ${serial} failed: ${r.stdout.trim()} ${r.stderr.trim()}`);
      const w = await adb(['-s', serial, 'wait-for-device'], 15_000);
      if (w.code !== 0) throw new Error(`adb -s ${serial} wait-for-device failed: ${w.stderr.trim()}`);
    },
    disconnect: async (serial) => {
      await adb(['disconnect', serial]);
    },
    stop: async () => {
      await adb(['kill-server']);
    },
  };
}

/** From `adb version`: "29.0.6-debian (1.0.41)" (the release, then the client version). */
export async function adbVersion(): Promise<string> {
  const r = await runProcess('adb', ['version']);
  const client = /Android Debug Bridge version ([\d.]+)/.exec(r.stdout)?.[1] ?? '?';
  const release = /^Version (\S+)/m.exec(r.stdout)?.[1] ?? '?';
  return `${release} (${client})`;
}
