/**
 * A local Appium server for the Appium path: `appium` 3 with `appium-uiautomator2-driver` 8
 * installed as dependencies of this project (with no APPIUM_HOME, Appium 3 uses the nearest
 * package.json that depends on `appium`, @appium/support lib/env.ts, and finds the driver in its
 * node_modules, appium lib/extension/manifest.ts; nothing is downloaded). The server needs
 * ANDROID_HOME (or ANDROID_SDK_ROOT) naming an SDK folder whose platform-tools/adb it runs
 * (appium-adb lib/utils/helpers/sdk.ts); Debian's `apt install adb` gives
 * /usr/lib/android-sdk/platform-tools/adb.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, delimiter, dirname, join } from 'node:path';
import { DedupVerifyError, ErrorCode } from '../errors.js';
import { APPIUM_SERVER_ARGS } from './appium-capabilities.js';

/** The line Appium prints once it accepts requests (appium lib/main.ts). */
const READY_LINE = 'Appium REST http interface listener started';

/** The SDK folder around the `adb` on PATH (…/platform-tools/adb → …), or undefined. */
export function androidSdkFromPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const adb = join(dir, 'adb');
    if (!existsSync(adb)) continue;
    const real = realpathSync(adb);
    if (basename(dirname(real)) === 'platform-tools') return dirname(dirname(real));
  }
  return undefined;
}

export interface LocalAppiumServerOptions {
  readonly port: number;
  /** Extra server arguments after `--allow-insecure uiautomator2:adb_shell`. */
  readonly args?: readonly string[];
  /** Leave out `--allow-insecure uiautomator2:adb_shell` (to see the refusal). */
  readonly withoutAdbShell?: boolean;
  /** APPIUM_HOME: the folder whose node_modules hold the driver (default: this project). */
  readonly appiumHome?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly startTimeoutMs?: number;
  /** Receives the server's log output. */
  readonly onLog?: (text: string) => void;
}

export interface LocalAppiumServer {
  readonly port: number;
  readonly pid: number;
  /** Everything the server printed so far. */
  log(): string;
  /** SIGTERM to this server only; resolves when it exited. */
  stop(): Promise<void>;
}

export async function startLocalAppiumServer(options: LocalAppiumServerOptions): Promise<LocalAppiumServer> {
  const require = createRequire(import.meta.url);
  // appium's package.json: "bin": {"appium": "index.js"}; the project that depends on it is two
  // folders up (…/node_modules/appium/package.json).
  const packageJson = require.resolve('appium/package.json');
  const main = join(dirname(packageJson), 'index.js');
  const home = options.appiumHome ?? dirname(dirname(dirname(packageJson)));
  const baseEnv = { ...(options.env ?? process.env) };
  const sdk = baseEnv['ANDROID_HOME'] ?? baseEnv['ANDROID_SDK_ROOT'] ?? androidSdkFromPath(baseEnv);
  if (sdk === undefined) {
    throw new DedupVerifyError(ErrorCode.AdbNotFound, 'The Appium server needs ANDROID_HOME: set it to the SDK folder that holds platform-tools/adb (Debian: /usr/lib/android-sdk).');
  }
  const env = { ...baseEnv, APPIUM_HOME: baseEnv['APPIUM_HOME'] ?? home, ANDROID_HOME: sdk, NODE_OPTIONS: '' };
  const args = [main, '--port', String(options.port), '--use-drivers', 'uiautomator2', '--log-no-colors', ...(options.withoutAdbShell === true ? [] : APPIUM_SERVER_ARGS), ...(options.args ?? [])];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new DedupVerifyError(ErrorCode.Appium, `The Appium server on port ${options.port} did not start within ${options.startTimeoutMs ?? 60_000} ms. Its output:\n${output.slice(-2000)}`));
    }, options.startTimeoutMs ?? 60_000);
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      options.onLog?.(text);
      if (output.includes(READY_LINE)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new DedupVerifyError(ErrorCode.Appium, `The Appium server on port ${options.port} exited with ${String(code)} before it was ready. Its output:\n${output.slice(-2000)}`));
    });
  });
  return {
    port: options.port,
    pid: child.pid ?? 0,
    log: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
