/**
 * `dedup-verify capture --device SERIAL [--package PKG] --out DIR`: records, read-only, what the
 * device prints for every command the harness relies on (android/capture/record-capture.ts).
 */
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { captureDevice } from '../../android/capture/record-capture.js';
import { assertPackageName } from '../../android/names.js';
import { AdbDevice } from '../../device/adb-device.js';
import { findAdbBinary, isLocalHost } from '../../device/adb-server.js';
import { UsageError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { chooseDevice } from '../choose-device.js';
import type { CliIo } from '../io.js';
import { defaultAdbPort } from './run-devices.js';

/** The directory must be new or empty: a capture never mixes with, or overwrites, other files. */
async function checkOutDir(outDir: string, option: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(outDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw new UsageError(`--out ${option} is a file: pass a new directory.`);
    throw e;
  }
  if (entries.length > 0) throw new UsageError(`--out ${option} is not empty: pass a new directory (a capture never overwrites files).`);
}

export async function runCapture(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const host = typeof opts['adbHost'] === 'string' ? opts['adbHost'] : '127.0.0.1';
  const endpoint = { host, port: typeof opts['adbPort'] === 'number' ? opts['adbPort'] : defaultAdbPort() };
  if (typeof opts['out'] !== 'string') throw new UsageError('capture needs --out DIR: a new or empty directory to write the outputs into.');
  const option = opts['out'];
  const outDir = resolve(option);
  const pkg = typeof opts['package'] === 'string' ? assertPackageName(opts['package']) : undefined;
  await checkOutDir(outDir, option);
  const adbPath = isLocalHost(host) ? findAdbBinary() : undefined;
  const serial = await chooseDevice(opts, endpoint);
  const device = await AdbDevice.open({ serial, host: endpoint.host, port: endpoint.port, ...(adbPath !== undefined ? { adbPath } : {}) });
  try {
    const manifest = await captureDevice(device, outDir, { ...(pkg !== undefined ? { pkg } : {}), toolVersion: VERSION, now: () => Date.now() });
    io.stdout(
      `Captured ${manifest.files.length} outputs from ${serial} (API ${manifest.apiLevel ?? 'unknown'}${manifest.fingerprint !== null ? `, ${manifest.fingerprint}` : ''}) into ${option}; nothing on the device was changed.\n`,
    );
    for (const s of manifest.skipped) io.stdout(`  not captured: ${s.command} (${s.reason})\n`);
    io.stdout(`Read it offline with: dedup-verify doctor --capture ${option}\n`);
    return 0;
  } finally {
    await device.close();
  }
}
